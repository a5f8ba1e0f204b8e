//! Decoding: `google.protobuf.Struct` and `Value` into property values.
//!
//! Mirrors pulumi/pulumi `plugin.UnmarshalProperties` / `UnmarshalPropertyValue` (rpc.go). The
//! input is taken by value so strings move instead of being copied. Invariants: no input panics;
//! recursion stops at `Options::max_depth`; every error names the property path. Special objects
//! (those with a signature key) are read in `special.rs`.

use std::collections::BTreeMap;

use prost_types::value::Kind;
use prost_types::{Struct, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::options::Options;
use crate::property_path::Path;
use crate::sig;
use crate::value::{OutputValue, PropertyMap, PropertyValue, UnknownKind};

/// Decodes a Struct into a property map.
///
/// Fields whose values the options drop (unknowns without `keep_unknowns`, nulls with
/// `skip_nulls`, internal keys with `skip_internal_keys`) are left out.
///
/// # Errors
///
/// When a value is malformed or the options reject it; the error names its property path.
pub fn struct_to_properties(input: Struct, opts: &Options) -> Result<PropertyMap> {
    Decoder { opts }.fields(input.fields, &Path::Root, 0, true)
}

/// Decodes one Value into a property value; `None` when the options drop it (an unknown without
/// `keep_unknowns`).
///
/// # Errors
///
/// When the value is malformed or the options reject it; the error names its property path.
pub fn value_to_property(input: Value, opts: &Options) -> Result<Option<PropertyValue>> {
    Decoder { opts }.value(input, &Path::Root, 0)
}

/// The decoding state shared by the recursion: only the options.
pub(crate) struct Decoder<'o> {
    pub(crate) opts: &'o Options,
}

impl Decoder<'_> {
    /// Fails when a value `depth` levels down is too deep.
    pub(crate) fn check_depth(&self, path: &Path<'_>, depth: usize) -> Result<()> {
        if depth > self.opts.max_depth {
            return Err(Error::new(
                path,
                ErrorKind::TooDeep {
                    limit: self.opts.max_depth,
                },
            ));
        }
        Ok(())
    }

    /// Decodes one value found `depth` levels down at `path`.
    pub(crate) fn value(
        &self,
        input: Value,
        path: &Path<'_>,
        depth: usize,
    ) -> Result<Option<PropertyValue>> {
        if let Err(err) = self.check_depth(path, depth) {
            discard([input]);
            return Err(err);
        }
        let Some(kind) = input.kind else {
            return Err(Error::new(path, ErrorKind::MissingKind));
        };
        let value = match kind {
            // Any NullValue number means null: the enum has one member and proto3 enums are open.
            Kind::NullValue(_) => PropertyValue::Null,
            Kind::BoolValue(b) => PropertyValue::Bool(b),
            Kind::NumberValue(n) => PropertyValue::Number(n),
            Kind::StringValue(s) => match UnknownKind::from_sentinel(&s) {
                Some(unknown) => return self.unknown(unknown, path),
                None => PropertyValue::String(s),
            },
            Kind::ListValue(list) => {
                let mut items = Vec::with_capacity(list.values.len());
                let mut inputs = list.values.into_iter();
                while let Some(item) = inputs.next() {
                    let index = items.len();
                    match self.value(item, &path.index(index), depth + 1) {
                        // A dropped element becomes null so later indices keep their place
                        // (rpc.go).
                        Ok(item) => items.push(item.unwrap_or(PropertyValue::Null)),
                        Err(err) => {
                            discard(inputs);
                            return Err(err);
                        }
                    }
                }
                PropertyValue::Array(items)
            }
            Kind::StructValue(object) => return self.object(object.fields, path, depth),
        };
        Ok(Some(value))
    }

    /// Decodes the fields of an object; `top` says whether this is the outermost Struct, the
    /// only level where internal keys are skipped (rpc.go skips them at the top only).
    fn fields(
        &self,
        fields: BTreeMap<String, Value>,
        path: &Path<'_>,
        depth: usize,
        top: bool,
    ) -> Result<PropertyMap> {
        let mut map = PropertyMap::new();
        let mut inputs = fields.into_iter();
        while let Some((key, input)) = inputs.next() {
            if top && self.opts.skip_internal_keys && key.starts_with("__") {
                discard([input]);
                continue;
            }
            let value = match self.value(input, &path.key(&key), depth + 1) {
                Ok(value) => value,
                Err(err) => {
                    discard(inputs.map(|(_, input)| input));
                    return Err(err);
                }
            };
            match value {
                None => {}
                Some(PropertyValue::Null) if self.opts.skip_nulls => {}
                Some(value) => {
                    map.insert(key, value);
                }
            }
        }
        Ok(map)
    }

    /// Decodes an object value: a plain object, or a special object when it has a signature.
    fn object(
        &self,
        mut fields: BTreeMap<String, Value>,
        path: &Path<'_>,
        depth: usize,
    ) -> Result<Option<PropertyValue>> {
        let Some(signature) = fields.remove(sig::KEY) else {
            return Ok(Some(PropertyValue::Object(
                self.fields(fields, path, depth, false)?,
            )));
        };
        let result = match signature.kind {
            Some(Kind::StringValue(signature)) => {
                self.special(&signature, &mut fields, path, depth)
            }
            other => {
                let found = wire_kind_name(other.as_ref());
                discard([Value { kind: other }]);
                Err(Error::new(path, ErrorKind::SignatureNotString { found }))
            }
        };
        // Fields the special object did not use may nest arbitrarily deep.
        discard(fields.into_values());
        result
    }

    /// What an unknown becomes under the options: an error, nothing, an output value or a
    /// computed value.
    pub(crate) fn unknown(
        &self,
        kind: UnknownKind,
        path: &Path<'_>,
    ) -> Result<Option<PropertyValue>> {
        if self.opts.reject_unknowns {
            return Err(Error::new(path, ErrorKind::UnexpectedUnknown));
        }
        if !self.opts.keep_unknowns {
            return Ok(None);
        }
        if self.opts.upgrade() {
            return Ok(Some(PropertyValue::output(OutputValue::default())));
        }
        Ok(Some(PropertyValue::Computed(kind)))
    }

    /// What a secret becomes under the options: its value, a secret output or a secret.
    pub(crate) fn secret(&self, value: PropertyValue) -> PropertyValue {
        if !self.opts.keep_secrets {
            value
        } else if self.opts.upgrade() {
            PropertyValue::output(OutputValue {
                element: Some(value),
                secret: true,
                dependencies: Vec::new(),
            })
        } else {
            PropertyValue::secret(value)
        }
    }
}

/// Frees values without recursion, so input nested deeper than the decoder goes cannot overflow
/// the stack while it is dropped (a drop in a deep frame would add its own depth).
pub(crate) fn discard(values: impl IntoIterator<Item = Value>) {
    let mut stack: Vec<Value> = values.into_iter().collect();
    while let Some(value) = stack.pop() {
        match value.kind {
            Some(Kind::ListValue(list)) => stack.extend(list.values),
            Some(Kind::StructValue(object)) => stack.extend(object.fields.into_values()),
            _ => {}
        }
    }
}

/// The name of a protobuf value's kind, for error messages.
pub(crate) fn wire_kind_name(kind: Option<&Kind>) -> &'static str {
    match kind {
        None => "nothing",
        Some(Kind::NullValue(_)) => "null",
        Some(Kind::BoolValue(_)) => "bool",
        Some(Kind::NumberValue(_)) => "number",
        Some(Kind::StringValue(_)) => "string",
        Some(Kind::ListValue(_)) => "list",
        Some(Kind::StructValue(_)) => "object",
    }
}
