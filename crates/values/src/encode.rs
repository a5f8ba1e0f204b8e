//! Encoding: property values into `google.protobuf.Struct` and `Value`.
//!
//! Mirrors pulumi/pulumi `plugin.MarshalProperties` / `MarshalPropertyValue` (rpc.go), including
//! its choices of what to leave out: a secret's or output's `secret: false`, empty dependencies and
//! absent optional fields are not written. Invariants: no value panics; recursion stops at
//! `Options::max_depth`; every error names the property path. One deliberate difference: a secret
//! whose value the options drop is dropped whole (Go wrote a secret object without `value`, which
//! its own decoder rejects).

use std::collections::BTreeMap;

use prost_types::value::Kind;
use prost_types::{ListValue, NullValue, Struct, Value};

use crate::asset::{Archive, ArchiveMember, ArchiveSource, Asset, AssetSource};
use crate::error::{Error, ErrorKind, Result};
use crate::options::Options;
use crate::property_path::Path;
use crate::sig;
use crate::value::{
    OutputValue, PropertyMap, PropertyValue, ReferenceId, ResourceReference, UnknownKind,
};

/// Encodes a property map as a Struct.
///
/// Fields whose values the options drop (unknowns without `keep_unknowns`, nulls with
/// `skip_nulls`, internal keys with `skip_internal_keys`) are left out.
///
/// # Errors
///
/// When the options reject a value (unknowns, assets) or it nests too deep; the error names its
/// property path.
pub fn properties_to_struct(map: &PropertyMap, opts: &Options) -> Result<Struct> {
    Encoder { opts }.fields(map, &Path::Root, 0, true)
}

/// Encodes one property value; `None` when the options drop it (an unknown without
/// `keep_unknowns`).
///
/// # Errors
///
/// When the options reject the value (unknowns, assets) or it nests too deep; the error names its
/// property path.
pub fn property_to_value(value: &PropertyValue, opts: &Options) -> Result<Option<Value>> {
    Encoder { opts }.value(value, &Path::Root, 0)
}

/// The encoding state shared by the recursion: only the options.
struct Encoder<'o> {
    opts: &'o Options,
}

impl Encoder<'_> {
    fn check_depth(&self, path: &Path<'_>, depth: usize) -> Result<()> {
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

    /// Encodes the fields of an object; internal keys are skipped at the top only (rpc.go).
    fn fields(
        &self,
        map: &PropertyMap,
        path: &Path<'_>,
        depth: usize,
        top: bool,
    ) -> Result<Struct> {
        let mut fields = BTreeMap::new();
        for (key, value) in map {
            if (self.opts.skip_nulls && value.is_null())
                || (top && self.opts.skip_internal_keys && key.starts_with("__"))
            {
                continue;
            }
            if let Some(encoded) = self.value(value, &path.key(key), depth + 1)? {
                fields.insert(key.clone(), encoded);
            }
        }
        Ok(Struct { fields })
    }

    fn value(&self, value: &PropertyValue, path: &Path<'_>, depth: usize) -> Result<Option<Value>> {
        self.check_depth(path, depth)?;
        let encoded = match value {
            PropertyValue::Null => kind(Kind::NullValue(NullValue::NullValue.into())),
            PropertyValue::Bool(b) => kind(Kind::BoolValue(*b)),
            PropertyValue::Number(n) => kind(Kind::NumberValue(*n)),
            PropertyValue::String(s) => string(s.clone()),
            PropertyValue::Array(items) => {
                let mut values = Vec::with_capacity(items.len());
                for (index, item) in items.iter().enumerate() {
                    // A dropped element is left out, shifting later ones (rpc.go does the same).
                    if let Some(item) = self.value(item, &path.index(index), depth + 1)? {
                        values.push(item);
                    }
                }
                kind(Kind::ListValue(ListValue { values }))
            }
            PropertyValue::Object(map) => object(self.fields(map, path, depth, false)?.fields),
            PropertyValue::Asset(asset) => {
                self.reject_assets("asset", path)?;
                self.asset(asset)
            }
            PropertyValue::Archive(archive) => {
                self.reject_assets("archive", path)?;
                self.archive(archive, path, depth)?
            }
            PropertyValue::Computed(unknown) => return self.unknown(*unknown, path),
            PropertyValue::Secret(inner) => return self.secret(inner, path, depth),
            PropertyValue::Output(output) => return self.output(output, path, depth),
            PropertyValue::ResourceReference(reference) => {
                return self.reference(reference, path, depth);
            }
        };
        Ok(Some(encoded))
    }

    fn reject_assets(&self, what: &'static str, path: &Path<'_>) -> Result<()> {
        if self.opts.reject_assets {
            return Err(Error::new(path, ErrorKind::UnexpectedAsset(what)));
        }
        Ok(())
    }

    /// An unknown: an error, nothing, an output value without a value, or its sentinel.
    fn unknown(&self, unknown: UnknownKind, path: &Path<'_>) -> Result<Option<Value>> {
        if self.opts.reject_unknowns {
            return Err(Error::new(path, ErrorKind::UnexpectedUnknown));
        }
        if !self.opts.keep_unknowns {
            return Ok(None);
        }
        if self.opts.upgrade() {
            return Ok(Some(signed(sig::OUTPUT_VALUE, BTreeMap::new())));
        }
        Ok(Some(string(unknown.sentinel().to_owned())))
    }

    /// A secret: its bare value, a secret output value, or a secret object.
    fn secret(
        &self,
        inner: &PropertyValue,
        path: &Path<'_>,
        depth: usize,
    ) -> Result<Option<Value>> {
        let Some(encoded) = self.value(inner, path, depth + 1)? else {
            return Ok(None);
        };
        if !self.opts.keep_secrets {
            return Ok(Some(encoded));
        }
        let mut fields = BTreeMap::from([("value".to_owned(), encoded)]);
        if self.opts.upgrade() {
            fields.insert("secret".to_owned(), kind(Kind::BoolValue(true)));
            return Ok(Some(signed(sig::OUTPUT_VALUE, fields)));
        }
        Ok(Some(signed(sig::SECRET, fields)))
    }

    /// An output value, or without `keep_output_values` its value (an unknown when it has none),
    /// secret when it is secret.
    fn output(&self, output: &OutputValue, path: &Path<'_>, depth: usize) -> Result<Option<Value>> {
        if !self.opts.keep_output_values {
            let unknown = PropertyValue::unknown();
            let element = output.element.as_ref().unwrap_or(&unknown);
            return if output.secret {
                self.secret(element, path, depth)
            } else {
                self.value(element, path, depth + 1)
            };
        }
        let mut fields = BTreeMap::new();
        if let Some(element) = &output.element {
            // An element the options drop leaves the output unknown.
            if let Some(encoded) = self.value(element, path, depth + 1)? {
                fields.insert("value".to_owned(), encoded);
            }
        }
        if output.secret {
            fields.insert("secret".to_owned(), kind(Kind::BoolValue(true)));
        }
        if !output.dependencies.is_empty() {
            let values = output.dependencies.iter().cloned().map(string).collect();
            fields.insert(
                "dependencies".to_owned(),
                kind(Kind::ListValue(ListValue { values })),
            );
        }
        Ok(Some(signed(sig::OUTPUT_VALUE, fields)))
    }

    /// A resource reference, or without `keep_resources` its ID when it has one, else its URN.
    fn reference(
        &self,
        reference: &ResourceReference,
        path: &Path<'_>,
        depth: usize,
    ) -> Result<Option<Value>> {
        if !self.opts.keep_resources {
            return match &reference.id {
                None => Ok(Some(string(reference.urn.clone()))),
                Some(ReferenceId::Known(id)) => Ok(Some(string(id.clone()))),
                Some(ReferenceId::Unknown) => {
                    self.value(&PropertyValue::unknown(), path, depth + 1)
                }
            };
        }
        let mut fields = BTreeMap::from([("urn".to_owned(), string(reference.urn.clone()))]);
        let optional = [
            ("name", reference.name.as_ref()),
            ("type", reference.type_.as_ref()),
            ("packageVersion", reference.package_version.as_ref()),
        ];
        for (field, value) in optional {
            if let Some(value) = value {
                fields.insert(field.to_owned(), string(value.clone()));
            }
        }
        match &reference.id {
            None => {}
            Some(ReferenceId::Known(id)) => {
                fields.insert("id".to_owned(), string(id.clone()));
            }
            // Go writes an unknown ID as the empty string (rpc.go, ResourceReference.IDString).
            Some(ReferenceId::Unknown) => {
                fields.insert("id".to_owned(), string(String::new()));
            }
        }
        Ok(Some(signed(sig::RESOURCE_REFERENCE, fields)))
    }

    fn asset(&self, asset: &Asset) -> Value {
        let mut fields = hash_field(asset.hash.as_ref());
        if !self.opts.elide_asset_contents {
            let (field, text) = match &asset.source {
                None => return signed(sig::ASSET, fields),
                Some(AssetSource::Text(text)) => ("text", text),
                Some(AssetSource::Path(file)) => ("path", file),
                Some(AssetSource::Uri(uri)) => ("uri", uri),
            };
            fields.insert(field.to_owned(), string(text.clone()));
        }
        signed(sig::ASSET, fields)
    }

    fn archive(&self, archive: &Archive, path: &Path<'_>, depth: usize) -> Result<Value> {
        self.check_depth(path, depth)?;
        let mut fields = hash_field(archive.hash.as_ref());
        if !self.opts.elide_asset_contents {
            let (field, encoded) = match &archive.source {
                None => return Ok(signed(sig::ARCHIVE, fields)),
                Some(ArchiveSource::Path(file)) => ("path", string(file.clone())),
                Some(ArchiveSource::Uri(uri)) => ("uri", string(uri.clone())),
                Some(ArchiveSource::Assets(members)) => {
                    let mut encoded = BTreeMap::new();
                    for (name, member) in members {
                        let member_path = path.key(name);
                        let member = match member {
                            ArchiveMember::Asset(asset) => self.asset(asset),
                            ArchiveMember::Archive(archive) => {
                                self.archive(archive, &member_path, depth + 1)?
                            }
                        };
                        encoded.insert(name.clone(), member);
                    }
                    ("assets", object(encoded))
                }
            };
            fields.insert(field.to_owned(), encoded);
        }
        Ok(signed(sig::ARCHIVE, fields))
    }
}

fn hash_field(hash: Option<&String>) -> BTreeMap<String, Value> {
    hash.map(|hash| ("hash".to_owned(), string(hash.clone())))
        .into_iter()
        .collect()
}

fn kind(kind: Kind) -> Value {
    Value { kind: Some(kind) }
}

fn string(s: String) -> Value {
    kind(Kind::StringValue(s))
}

fn object(fields: BTreeMap<String, Value>) -> Value {
    kind(Kind::StructValue(Struct { fields }))
}

/// A special object: `fields` plus the signature key.
fn signed(signature: &str, mut fields: BTreeMap<String, Value>) -> Value {
    fields.insert(sig::KEY.to_owned(), string(signature.to_owned()));
    object(fields)
}
