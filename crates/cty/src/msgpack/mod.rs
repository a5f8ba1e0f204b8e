//! The msgpack form of cty values inside `DynamicValue.msgpack`, byte for byte as go-cty's
//! `cty/msgpack` writes it, and reading everything go-cty reads.
//!
//! Encoding is directed by the wire type (normally a block's implied type): objects are maps
//! with every attribute of the type in sorted order (nil for a null or absent attribute),
//! `dynamic` positions carry `[bin(type JSON), value]` pairs, unknowns are extension values
//! (`d4 00 00`, or extension 12 with refinements), numbers take the most compact exact form.
//! Sensitivity marks are dropped.
//!
//! Decoding never panics and never allocates more than the input can justify: lengths are
//! checked against the remaining input before anything is reserved, nesting is capped at
//! [`MAX_DEPTH`], refinement payloads at 1024 bytes, and values share their types (see
//! [`Value`]). A decoded set keeps its wire order, so every value go-cty wrote re-encodes byte
//! for byte (go-cty itself would re-sort a set it did not write).
//!
//! Deviations from go-cty. Stricter: trailing bytes after the value, duplicate object keys, an
//! empty map for an object type with attributes and an empty array for a non-empty tuple type are
//! errors (go-cty accepts the last two and builds a value of the wrong type); strings must be
//! valid UTF-8 (go-cty would also NFC-normalise them, which we do not). More lenient: extension 0
//! of any length reads as an unknown, as tftypes reads it.

mod decode;
mod encode;
mod unknown;

use crate::{Error, Type, Value};

/// How deeply values (including dynamic values inside dynamic values) may nest.
pub const MAX_DEPTH: usize = 128;

/// Encodes `value` as msgpack for the wire type `ty`.
pub fn to_msgpack(value: &Value, ty: &Type) -> Result<Vec<u8>, Error> {
    encode::encode(value, ty)
}

/// Decodes msgpack bytes holding a value of type `ty`.
pub fn from_msgpack(bytes: &[u8], ty: &Type) -> Result<Value, Error> {
    decode::decode(bytes, ty)
}

/// What [`from_msgpack_untyped`] shows for an unknown value.
pub const UNKNOWN: &str = "<unknown>";

/// Reads msgpack bytes without their type, to show a value whose schema is not at hand (a
/// recording): maps become objects (keys that are not strings as their JSON text), arrays arrays,
/// numbers that JSON cannot hold exactly strings, an unknown the string [`UNKNOWN`] and an unknown
/// with refinements the object `{"<unknown>": <its refinements>}`. The `[type, value]` pair of a
/// dynamic position stays a pair. It has the same bounds as [`from_msgpack`].
pub fn from_msgpack_untyped(bytes: &[u8]) -> Result<serde_json::Value, Error> {
    decode::untyped(bytes)
}

/// msgpack format bytes (the msgpack specification's names).
mod code {
    pub(super) const NIL: u8 = 0xc0;
    pub(super) const FALSE: u8 = 0xc2;
    pub(super) const TRUE: u8 = 0xc3;
    pub(super) const BIN8: u8 = 0xc4;
    pub(super) const BIN16: u8 = 0xc5;
    pub(super) const BIN32: u8 = 0xc6;
    pub(super) const EXT8: u8 = 0xc7;
    pub(super) const EXT16: u8 = 0xc8;
    pub(super) const EXT32: u8 = 0xc9;
    pub(super) const FLOAT32: u8 = 0xca;
    pub(super) const FLOAT64: u8 = 0xcb;
    pub(super) const UINT8: u8 = 0xcc;
    pub(super) const UINT16: u8 = 0xcd;
    pub(super) const UINT32: u8 = 0xce;
    pub(super) const UINT64: u8 = 0xcf;
    pub(super) const INT8: u8 = 0xd0;
    pub(super) const INT16: u8 = 0xd1;
    pub(super) const INT32: u8 = 0xd2;
    pub(super) const INT64: u8 = 0xd3;
    pub(super) const FIXEXT1: u8 = 0xd4;
    pub(super) const FIXEXT2: u8 = 0xd5;
    pub(super) const FIXEXT4: u8 = 0xd6;
    pub(super) const FIXEXT8: u8 = 0xd7;
    pub(super) const FIXEXT16: u8 = 0xd8;
    pub(super) const STR8: u8 = 0xd9;
    pub(super) const STR16: u8 = 0xda;
    pub(super) const STR32: u8 = 0xdb;
    pub(super) const ARRAY16: u8 = 0xdc;
    pub(super) const ARRAY32: u8 = 0xdd;
    pub(super) const MAP16: u8 = 0xde;
    pub(super) const MAP32: u8 = 0xdf;

    /// The extension type of an unknown with refinements (go-cty `unknownWithRefinementsExt`).
    pub(super) const REFINED_UNKNOWN_EXT: u8 = 0x0c;
}
