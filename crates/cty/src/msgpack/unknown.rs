//! Unknown values on the wire (go-cty `cty/msgpack/unknown.go`).
//!
//! A plain unknown is the fixext1 `d4 00 00`. An unknown with refinements is extension 12 whose
//! payload is a map with small-integer keys: 1 nullness (`false` = definitely not null), 2 string
//! prefix, 3 and 4 number bounds as `[number, inclusive]`, 5 and 6 collection length bounds.
//! Readers treat an extension of length 0 or 1 of any type, or extension 0 of any length, as a
//! plain unknown, reject other extension types and refinement payloads over 1024 bytes, and ignore
//! refinement keys they do not know. So that what we write is always read, number bounds whose
//! digits would take the payload over that are left out.

use super::code;
use super::decode::{Decoder, Failure};
use super::encode::Encoder;
use crate::{NumberBound, Path, Refinement, Type, Value};

/// The plain unknown go-cty writes: fixext1, type 0, payload 0.
pub(super) const PLAIN: [u8; 3] = [code::FIXEXT1, 0, 0];

/// go-cty rejects larger refinement payloads as abusive.
const MAX_PAYLOAD: usize = 1024;

/// go-cty writes string prefixes of at most this many bytes.
const MAX_PREFIX: usize = 256;

const KEY_NULLNESS: i64 = 1;
const KEY_STRING_PREFIX: i64 = 2;
const KEY_NUMBER_MIN: i64 = 3;
const KEY_NUMBER_MAX: i64 = 4;
const KEY_LENGTH_MIN: i64 = 5;
const KEY_LENGTH_MAX: i64 = 6;

/// Writes an unknown of wire type `ty`, with the refinements that apply to that type.
pub(super) fn encode(enc: &mut Encoder, refinement: Option<&Refinement>, ty: &Type) {
    let Some(r) = refinement.filter(|_| *ty != Type::Dynamic) else {
        enc.out.extend_from_slice(&PLAIN);
        return;
    };
    // The payload is built in its own buffer because the header needs its length.
    let mut body = Encoder {
        out: Vec::new(),
        path: enc.path.clone(),
    };
    let mut entries = 0;
    if r.not_null {
        entries += 1;
        body.int(KEY_NULLNESS);
        body.out.push(code::FALSE);
    }
    match ty {
        Type::Number => {
            let mut bounds = Encoder {
                out: Vec::new(),
                path: enc.path.clone(),
            };
            let mut count = 0;
            for (key, bound) in [
                (KEY_NUMBER_MIN, &r.number_lower),
                (KEY_NUMBER_MAX, &r.number_upper),
            ] {
                if let Some(b) = bound {
                    count += 1;
                    bounds.int(key);
                    bounds.array_len(2);
                    bounds.number(&b.value);
                    bounds
                        .out
                        .push(if b.inclusive { code::TRUE } else { code::FALSE });
                }
            }
            // A bound whose exact digits would make the payload one that go-cty (and our own
            // decoder) refuse is left out: without it the unknown only says less.
            if 1 + body.out.len() + bounds.out.len() <= MAX_PAYLOAD {
                entries += count;
                body.out.extend_from_slice(&bounds.out);
            }
        }
        Type::String => {
            if let Some(prefix) = r.string_prefix.as_deref().map(safe_prefix)
                && !prefix.is_empty()
            {
                entries += 1;
                body.int(KEY_STRING_PREFIX);
                body.str(prefix);
            }
        }
        Type::List(_) | Type::Set(_) | Type::Map(_) => {
            if r.length_lower != 0 {
                entries += 1;
                body.int(KEY_LENGTH_MIN);
                body.uint(r.length_lower);
            }
            if let Some(upper) = r.length_upper {
                entries += 1;
                body.int(KEY_LENGTH_MAX);
                body.uint(upper);
            }
        }
        _ => {}
    }
    if entries == 0 {
        enc.out.extend_from_slice(&PLAIN);
        return;
    }
    let mut header = Encoder {
        out: Vec::new(),
        path: Path::root(),
    };
    header.map_len(entries);
    enc.ext_header(code::REFINED_UNKNOWN_EXT, header.out.len() + body.out.len());
    enc.out.extend_from_slice(&header.out);
    enc.out.extend_from_slice(&body.out);
}

/// Shortens a prefix longer than go-cty writes. go-cty cuts it to 255 bytes and then drops what
/// could combine with the following character (`ctystrings.SafeKnownPrefix`); we drop the last
/// character unless it is one of the delimiters go-cty knows cannot combine. A shorter prefix
/// only says less, so the approximation is always safe.
fn safe_prefix(prefix: &str) -> &str {
    if prefix.len() <= MAX_PREFIX {
        return prefix;
    }
    let mut end = MAX_PREFIX - 1;
    while !prefix.is_char_boundary(end) {
        end -= 1;
    }
    let cut = &prefix[..end];
    match cut.chars().next_back() {
        Some(c) if "-_:;/\\,.(){}[]|?!~ \t@#$%^&*+\"'".contains(c) => cut,
        Some(c) => &cut[..cut.len() - c.len_utf8()],
        None => cut,
    }
}

/// Reads the extension at the decoder's position as an unknown of type `ty`.
pub(super) fn decode(dec: &mut Decoder<'_>, ty: &Type) -> Result<Value, Failure> {
    let (ext_type, len) = dec.ext_header()?;
    let payload = dec.take(len)?;
    let shared = dec.types.share(ty);
    if len <= 1 || ext_type == 0 {
        // go-cty reads a 0- or 1-byte extension of any type as a plain unknown; we also accept a
        // longer extension 0 (which go-cty rejects), as tftypes-based readers do.
        return Ok(Value::unknown(shared));
    }
    if ext_type != code::REFINED_UNKNOWN_EXT {
        return Err(dec.error(format!(
            "unsupported extension type 0x{ext_type:02x} with length {len}"
        )));
    }
    if len > MAX_PAYLOAD {
        return Err(dec.error("oversize unknown value refinement"));
    }
    let mut body = dec.nested(payload);
    let entries = body.refinement_map_len()?;
    if *ty == Type::Dynamic {
        // go-cty ignores refinements of an unknown whose type is unknown too.
        return Ok(Value::unknown(shared));
    }
    let mut r = Refinement::default();
    let mut definitely_null = false;
    for _ in 0..entries {
        let key = body
            .int()
            .map_err(|_| dec.error("refinement keys must be integers"))?;
        match key {
            KEY_NULLNESS => {
                let null = body
                    .bool()
                    .map_err(|_| dec.error("null refinement is not a boolean"))?;
                if (null && r.not_null) || (!null && definitely_null) {
                    return Err(dec.error("inconsistent null refinements"));
                }
                definitely_null = null;
                r.not_null = !null;
            }
            KEY_STRING_PREFIX => {
                if *ty != Type::String {
                    return Err(dec.error("string prefix refinement for a non-string type"));
                }
                let prefix = body
                    .string()
                    .map_err(|_| dec.error("string prefix refinement is not a string"))?;
                let old = r.string_prefix.take().unwrap_or_default();
                let common = old.len().min(prefix.len());
                if old.as_bytes()[..common] != prefix.as_bytes()[..common] {
                    return Err(dec.error("inconsistent string prefix refinements"));
                }
                r.string_prefix = Some(if prefix.len() > old.len() {
                    prefix
                } else {
                    old
                });
            }
            KEY_LENGTH_MIN | KEY_LENGTH_MAX => {
                if !matches!(ty, Type::List(_) | Type::Set(_) | Type::Map(_)) {
                    return Err(dec.error("length refinement for a non-collection type"));
                }
                let bound = body
                    .int()
                    .map_err(|_| dec.error("length refinement is not an integer"))?;
                if key == KEY_LENGTH_MIN {
                    // Negative lower bounds say nothing; go-cty keeps the larger bound.
                    let bound = u64::try_from(bound).unwrap_or(0);
                    r.length_lower = r.length_lower.max(bound);
                } else {
                    let bound = u64::try_from(bound)
                        .map_err(|_| dec.error("negative length upper bound"))?;
                    r.length_upper = Some(r.length_upper.map_or(bound, |old| old.min(bound)));
                }
            }
            KEY_NUMBER_MIN | KEY_NUMBER_MAX => {
                if *ty != Type::Number {
                    return Err(dec.error("number bound refinement for a non-number type"));
                }
                let bound = body.number_bound()?;
                if key == KEY_NUMBER_MIN {
                    r.number_lower = Some(tighter(r.number_lower.take(), bound, true));
                } else {
                    r.number_upper = Some(tighter(r.number_upper.take(), bound, false));
                }
            }
            _ => body.skip()?,
        }
    }
    // Trailing bytes in the payload are ignored, as go-cty reserves them for future use.
    if definitely_null {
        return Ok(Value::null(shared));
    }
    Value::unknown_refined(shared, r).map_err(|e| dec.error(e.to_string()))
}

/// The more constraining of two bounds (go-cty keeps the existing one unless the new one is
/// tighter).
fn tighter(old: Option<NumberBound>, new: NumberBound, lower: bool) -> NumberBound {
    let Some(old) = old else { return new };
    let (a, b) = if lower {
        (&new.value, &old.value)
    } else {
        (&old.value, &new.value)
    };
    let new_is_tighter = if new.inclusive && !old.inclusive {
        a > b
    } else {
        a >= b
    };
    if new_is_tighter { new } else { old }
}
