//! Pulumi property values to cty values, directed by the schema (the Go bridge's
//! `pkg/convert` encoders).
//!
//! Rules, each from the Go bridge unless marked:
//! - Pulumi names become Terraform keys through the mapping; keys the schema lacks are dropped,
//!   properties the map lacks are null.
//! - Unknowns (computed values, unknown outputs) become unknowns of the position's type; inside
//!   a flattened block they become the single element, as in Go.
//! - Secrets and secret outputs give their value, marked sensitive (the mark is ours; the codecs
//!   ignore it, so the wire is what Go sends after `RemoveSecrets`).
//! - A flattened (MaxItemsOne) block takes its element: null gives an empty list or set.
//! - Coercions (the bridge's `pkg/convert`): a string attribute takes bools (`"true"`) and numbers
//!   (Go's shortest `'f'` format); a number attribute takes strings (`""` is null, else an int64
//!   or float64 parse); a bool attribute takes only bools.
//! - Tuples are objects keyed `t0`, `t1`…; dynamic attributes infer a type ([`crate::dynamic`]).
//! - Ours, where Go differs: an absent list, set or map of blocks is an empty collection and an
//!   absent group block an object of nulls, as Terraform decodes configuration (Go sends null);
//!   a resource reference gives its ID, or its URN when it has none (Go fails); in
//!   [`Mode::State`] write-only attributes are null, as in every Terraform state.
//! - Ours: unknowns are refused where none can be, naming the property: in [`Mode::State`] (a
//!   state never holds one) and in [`Mode::Apply`] (an apply needs every input known).
//! - Ours: an error never quotes a secret. The encoder knows where it is secret (inside a secret
//!   or secret output, or at an attribute the schema marks sensitive or write-only) and quotes
//!   [`REDACTED`] there instead of the value; the path is always named.

use std::collections::BTreeMap;

use tfp_cty::{Block, NestingMode, Number, Type, Value};
use tfp_gostd::strconv::{FloatFormat, format_float};
use tfp_values::{PropertyMap, PropertyValue, ReferenceId};

use crate::error::{Error, PropertyPath, Result};
use crate::number::parse_go_number;
use crate::schema::{Node, ObjectSchema};

/// What an error quotes in place of a secret value.
pub const REDACTED: &str = "<redacted>";

/// What the encoded value is for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Configuration that may still hold unknowns (Check, Diff, previews, Invoke, provider
    /// configuration).
    #[default]
    Config,
    /// The configuration of an apply (a Create or Update that is not a preview): every value
    /// must be known.
    Apply,
    /// State rebuilt from Pulumi outputs (Delete's prior state, raw state without a delta):
    /// write-only attributes are null, and an unknown is an error.
    State,
}

/// Encodes the properties of a resource, data source or provider configuration as the cty
/// object of the schema's implied type.
pub fn properties_to_cty(
    schema: &ObjectSchema<'_>,
    props: &PropertyMap,
    mode: Mode,
) -> Result<Value> {
    let mut encoder = Encoder::new(mode);
    encoder.object_fields(schema.node(), props)
}

/// A resource reference as a plain value: its ID, unknown when its ID is, its URN when it has
/// no ID (Pulumi's own downgrade for providers that do not accept references).
pub(crate) fn downgrade_reference(reference: &tfp_values::ResourceReference) -> PropertyValue {
    match &reference.id {
        Some(ReferenceId::Known(id)) => PropertyValue::String(id.clone()),
        Some(ReferenceId::Unknown) => PropertyValue::unknown(),
        None => PropertyValue::String(reference.urn.clone()),
    }
}

pub(crate) struct Encoder {
    pub(crate) mode: Mode,
    pub(crate) path: PropertyPath,
    /// Whether the value being encoded is secret: inside a secret or secret output, or at an
    /// attribute the schema marks sensitive or write-only.
    secret: bool,
}

/// The value a group block has when it is absent: every attribute null, every nested
/// collection empty (OpenTofu `Block.EmptyValue`).
pub(crate) fn empty_block(block: &Block) -> Value {
    let mut attrs: BTreeMap<String, Value> = block
        .attributes
        .iter()
        .map(|(k, a)| (k.clone(), Value::null(a.implied_type())))
        .collect();
    for (k, nested) in &block.block_types {
        if attrs.contains_key(k) {
            continue;
        }
        let ety = nested.block.implied_type();
        let empty = match nested.nesting {
            NestingMode::Single => Value::null(ety),
            NestingMode::Group => empty_block(&nested.block),
            NestingMode::List if nested.is_dynamic_pair() => Value::tuple(Vec::new()),
            NestingMode::List => Value::list(ety, Vec::new()),
            NestingMode::Set => Value::set(ety, Vec::new()),
            NestingMode::Map if nested.is_dynamic_pair() => Value::empty_object(),
            NestingMode::Map => Value::map(ety, BTreeMap::new()),
        };
        attrs.insert(k.clone(), empty);
    }
    Value::object(attrs)
}

impl Encoder {
    pub(crate) fn new(mode: Mode) -> Encoder {
        Encoder {
            mode,
            path: PropertyPath::root(),
            secret: false,
        }
    }

    fn fail(&self, reason: impl Into<String>) -> Error {
        Error::value(&self.path, reason)
    }

    /// A value for an error message: the value quoted (and cut, by `tfp_echo`), or [`REDACTED`]
    /// where it is secret. Every error of the encoder that shows a value shows it through here.
    pub(crate) fn quote(&self, value: &str) -> String {
        if self.secret {
            REDACTED.to_owned()
        } else {
            tfp_echo::quoted(value).to_string()
        }
    }

    /// Encodes with the position secret, then restores what it was.
    pub(crate) fn secretly<T>(
        &mut self,
        secret: bool,
        encode: impl FnOnce(&mut Encoder) -> T,
    ) -> T {
        let outer = self.secret;
        self.secret |= secret;
        let out = encode(self);
        self.secret = outer;
        out
    }

    /// An unknown of `ty` at the current path, or the error saying why there can be none.
    pub(crate) fn unknown(&self, ty: Type) -> Result<Value> {
        match self.mode {
            Mode::Config => Ok(Value::unknown(ty)),
            Mode::Apply => Err(Error::UnknownInApply {
                path: self.path.to_string(),
            }),
            Mode::State => Err(Error::UnknownInState {
                path: self.path.to_string(),
            }),
        }
    }

    fn mismatch(&self, expected: &str, found: &PropertyValue) -> Error {
        self.fail(format!("expected {expected}, found {}", found.kind_name()))
    }

    /// The object at an object position from a property map.
    fn object_fields(&mut self, node: Node<'_>, map: &PropertyMap) -> Result<Value> {
        let null = PropertyValue::Null;
        let mut attrs = BTreeMap::new();
        for child in node.children() {
            let value = if self.mode == Mode::State && child.write_only {
                Value::null(child.node.wire_type())
            } else {
                let pv = map.get(child.name.as_ref()).unwrap_or(&null);
                self.path.push_key(&child.name);
                let out = self.secretly(child.sensitive || child.write_only, |e| {
                    e.encode(child.node, child.flatten, pv)
                });
                self.path.pop();
                out?
            };
            attrs.insert(child.tf_name.to_owned(), value);
        }
        Ok(Value::object(attrs))
    }

    pub(crate) fn encode(
        &mut self,
        node: Node<'_>,
        flatten: bool,
        pv: &PropertyValue,
    ) -> Result<Value> {
        if flatten {
            let element_node = node.element();
            let element = self.encode(element_node, false, pv)?;
            let ety = element_node.wire_type();
            let items = if element.is_null() {
                Vec::new()
            } else {
                vec![element]
            };
            return Ok(match node.nesting() {
                Some(NestingMode::Set) => Value::set_in_order(ety, items),
                _ => Value::list(ety, items),
            });
        }
        match pv {
            PropertyValue::Secret(inner) => {
                let value = self.secretly(true, |e| e.encode(node, false, inner))?;
                return Ok(value.mark_sensitive());
            }
            PropertyValue::Output(output) => {
                return match &output.element {
                    None => self.unknown(node.wire_type()),
                    Some(element) => {
                        let value =
                            self.secretly(output.secret, |e| e.encode(node, false, element))?;
                        Ok(if output.secret {
                            value.mark_sensitive()
                        } else {
                            value
                        })
                    }
                };
            }
            PropertyValue::Computed(_) => return self.unknown(node.wire_type()),
            PropertyValue::ResourceReference(reference) => {
                return self.encode(node, false, &downgrade_reference(reference));
            }
            PropertyValue::Asset(_) | PropertyValue::Archive(_) => {
                return Err(self.fail(format!(
                    "{}s are not supported by Terraform providers",
                    pv.kind_name()
                )));
            }
            _ => {}
        }
        match node {
            Node::Block(..) | Node::Attributes(..) => match pv {
                PropertyValue::Null => Ok(Value::null(node.wire_type())),
                PropertyValue::Object(map) => self.object_fields(node, map),
                other => Err(self.mismatch("an object", other)),
            },
            Node::Blocks(nested, _) => match nested.nesting {
                NestingMode::Group if pv.is_null() => Ok(empty_block(&nested.block)),
                nesting => self.nested(node, nesting, nested.is_dynamic_pair(), true, pv),
            },
            Node::Objects(object, _) => self.nested(node, object.nesting, false, false, pv),
            Node::Type(ty, _) => self.typed(node, ty, pv),
        }
    }

    /// A block type or nested-attribute value; `blocks` says which (an absent collection of
    /// blocks is empty, an absent collection of nested objects is null).
    fn nested(
        &mut self,
        node: Node<'_>,
        nesting: NestingMode,
        dynamic_pair: bool,
        blocks: bool,
        pv: &PropertyValue,
    ) -> Result<Value> {
        let element = node.element();
        match nesting {
            NestingMode::Single | NestingMode::Group => self.encode(element, false, pv),
            NestingMode::List | NestingMode::Set => {
                let items = match pv {
                    PropertyValue::Null if !blocks => return Ok(Value::null(node.wire_type())),
                    PropertyValue::Null => Vec::new(),
                    PropertyValue::Array(items) => self.elements(element, items)?,
                    other => return Err(self.mismatch("an array", other)),
                };
                Ok(match nesting {
                    NestingMode::Set => Value::set_in_order(element.wire_type(), items),
                    _ if dynamic_pair => Value::tuple(items),
                    _ => Value::list(element.wire_type(), items),
                })
            }
            NestingMode::Map => {
                let items = match pv {
                    PropertyValue::Null if !blocks => return Ok(Value::null(node.wire_type())),
                    PropertyValue::Null => BTreeMap::new(),
                    PropertyValue::Object(map) => self.entries(element, map)?,
                    other => return Err(self.mismatch("an object", other)),
                };
                Ok(if dynamic_pair {
                    Value::object(items)
                } else {
                    Value::map(element.wire_type(), items)
                })
            }
        }
    }

    fn elements(&mut self, element: Node<'_>, items: &[PropertyValue]) -> Result<Vec<Value>> {
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            self.path.push_index(i);
            let value = self.encode(element, false, item);
            self.path.pop();
            out.push(value?);
        }
        Ok(out)
    }

    fn entries(&mut self, element: Node<'_>, map: &PropertyMap) -> Result<BTreeMap<String, Value>> {
        let mut out = BTreeMap::new();
        for (key, item) in map {
            self.path.push_key(key);
            let value = self.encode(element, false, item);
            self.path.pop();
            out.insert(key.clone(), value?);
        }
        Ok(out)
    }

    fn typed(&mut self, node: Node<'_>, ty: &Type, pv: &PropertyValue) -> Result<Value> {
        if pv.is_null() {
            return Ok(Value::null(ty.clone()));
        }
        match ty {
            Type::String => match pv {
                PropertyValue::String(s) => Ok(Value::string(s.clone())),
                PropertyValue::Bool(b) => Ok(Value::string(b.to_string())),
                PropertyValue::Number(n) => Ok(Value::string(format_float(*n, FloatFormat::F))),
                other => Err(self.mismatch("a string", other)),
            },
            Type::Number => match pv {
                PropertyValue::Number(n) => Number::from_f64(*n)
                    .map(Value::number)
                    .ok_or_else(|| self.fail("NaN is not a valid number")),
                PropertyValue::String(s) if s.is_empty() => Ok(Value::null(Type::Number)),
                PropertyValue::String(s) => {
                    parse_go_number(s).map(Value::number).ok_or_else(|| {
                        self.fail(format!("expected a number, found string {}", self.quote(s)))
                    })
                }
                other => Err(self.mismatch("a number", other)),
            },
            Type::Bool => match pv {
                PropertyValue::Bool(b) => Ok(Value::bool(*b)),
                other => Err(self.mismatch("a bool", other)),
            },
            Type::List(e) | Type::Set(e) => match pv {
                PropertyValue::Array(items) => {
                    let items = self.elements(node.element(), items)?;
                    Ok(if matches!(ty, Type::Set(_)) {
                        Value::set_in_order((**e).clone(), items)
                    } else {
                        Value::list((**e).clone(), items)
                    })
                }
                other => Err(self.mismatch("an array", other)),
            },
            Type::Map(e) => match pv {
                PropertyValue::Object(map) => {
                    let items = self.entries(node.element(), map)?;
                    Ok(Value::map((**e).clone(), items))
                }
                other => Err(self.mismatch("an object", other)),
            },
            Type::Object { .. } => match pv {
                PropertyValue::Object(map) => self.object_fields(node, map),
                other => Err(self.mismatch("an object", other)),
            },
            Type::Tuple(types) => self.tuple(node, types, pv),
            Type::Dynamic => crate::dynamic::infer(self, pv),
        }
    }

    /// A tuple from Go's object form `{"t0": …, "t1": …}`; an array of the right length is
    /// accepted too.
    fn tuple(&mut self, node: Node<'_>, types: &[Type], pv: &PropertyValue) -> Result<Value> {
        let shapes = match node {
            Node::Type(_, tfp_mapping::Shape::Tuple(shapes)) => Some(shapes),
            _ => None,
        };
        let scalar = tfp_mapping::Shape::Scalar;
        let element =
            |i: usize| Node::Type(&types[i], shapes.and_then(|s| s.get(i)).unwrap_or(&scalar));
        let mut slots: Vec<Option<&PropertyValue>> = vec![None; types.len()];
        match pv {
            PropertyValue::Object(map) if map.len() == types.len() => {
                for (key, item) in map {
                    let index = key
                        .strip_prefix('t')
                        .and_then(|n| n.parse::<usize>().ok())
                        .filter(|&i| i < types.len())
                        .ok_or_else(|| self.fail(format!("{key:?} is not a tuple position")))?;
                    slots[index] = Some(item);
                }
            }
            PropertyValue::Array(items) if items.len() == types.len() => {
                for (slot, item) in slots.iter_mut().zip(items) {
                    *slot = Some(item);
                }
            }
            other => {
                return Err(self.fail(format!(
                    "expected a tuple of {} elements, found {}",
                    types.len(),
                    other.kind_name()
                )));
            }
        }
        let mut out = Vec::with_capacity(types.len());
        for (i, slot) in slots.into_iter().enumerate() {
            let item = slot.ok_or_else(|| self.fail(format!("tuple position t{i} is missing")))?;
            self.path.push_key(&format!("t{i}"));
            let value = self.encode(element(i), false, item);
            self.path.pop();
            out.push(value?);
        }
        Ok(Value::tuple(out))
    }
}
