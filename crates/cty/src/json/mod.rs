//! The JSON form of cty values, as used for raw state (`RawState.json`) and the legacy
//! `DynamicValue.json` (go-cty `cty/json`).
//!
//! JSON cannot carry unknowns or infinities; encoding one is an error. Numbers are written in full
//! precision as plain decimals, strings with Go's escaping, objects with every attribute of the
//! type in sorted order, dynamic values as `{"value":…,"type":…}`. Decoding fills missing object
//! attributes with null, rejects attributes the type lacks (unless
//! [`JsonOptions::ignore_undefined_attributes`]), and converts as go-cty does: strings to numbers
//! and bools (`"12"`, `"true"`, `"1"`), numbers and bools to strings. Sensitivity marks are dropped.

mod decode;
mod encode;

use crate::{Error, Type, Value};

/// Decoding options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JsonOptions {
    /// Skip object attributes that the type does not have instead of failing, as tftypes'
    /// `IgnoreUndefinedAttributes` (used by plugin-framework when it upgrades state).
    pub ignore_undefined_attributes: bool,
}

/// Encodes a wholly known value as JSON for the type `ty`.
pub fn to_json(value: &Value, ty: &Type) -> Result<Vec<u8>, Error> {
    encode::encode(value, ty)
}

/// Decodes JSON holding a value of type `ty`.
pub fn from_json(bytes: &[u8], ty: &Type) -> Result<Value, Error> {
    decode::decode(bytes, ty, JsonOptions::default())
}

/// Decodes JSON holding a value of type `ty`, with options.
pub fn from_json_with(bytes: &[u8], ty: &Type, options: JsonOptions) -> Result<Value, Error> {
    decode::decode(bytes, ty, options)
}
