//! msgpack encoding, following go-cty `cty/msgpack/marshal.go` and the compact forms of
//! `vmihailenco/msgpack` v5 that it uses (`UseCompactInts(true)`, floats always float64).

use super::{MAX_DEPTH, code, unknown};
use crate::number::WireNumber;
use crate::value::Kind;
use crate::{Error, Number, Path, PathStep, Type, Value};

pub(super) fn encode(value: &Value, ty: &Type) -> Result<Vec<u8>, Error> {
    let mut enc = Encoder {
        out: Vec::new(),
        path: Path::root(),
    };
    enc.value(value, ty, 0)?;
    Ok(enc.out)
}

pub(super) struct Encoder {
    pub(super) out: Vec<u8>,
    pub(super) path: Path,
}

fn kind_name(kind: &Kind) -> &'static str {
    match kind {
        Kind::Null(_) => "null",
        Kind::Unknown(..) => "unknown",
        Kind::String(_) => "string",
        Kind::Number(_) => "number",
        Kind::Bool(_) => "bool",
        Kind::List(..) => "list",
        Kind::Set(..) => "set",
        Kind::Map(..) => "map",
        Kind::Object(_) => "object",
        Kind::Tuple(_) => "tuple",
    }
}

impl Encoder {
    fn value(&mut self, value: &Value, ty: &Type, depth: usize) -> Result<(), Error> {
        if depth > MAX_DEPTH {
            return Err(Error::encode(&self.path, "value is nested too deeply"));
        }
        if matches!(ty, Type::Dynamic) {
            return self.dynamic(value, depth);
        }
        match (&value.kind, ty) {
            (Kind::Unknown(_, refinement), _) => {
                unknown::encode(self, refinement.as_deref(), ty);
                Ok(())
            }
            (Kind::Null(_), _) => {
                self.out.push(code::NIL);
                Ok(())
            }
            (Kind::String(s), Type::String) => {
                self.str(s);
                Ok(())
            }
            (Kind::Number(n), Type::Number) => {
                self.number(n);
                Ok(())
            }
            (Kind::Bool(b), Type::Bool) => {
                self.out.push(if *b { code::TRUE } else { code::FALSE });
                Ok(())
            }
            (Kind::List(_, items), Type::List(e)) | (Kind::Set(_, items), Type::Set(e)) => {
                self.array_len(items.len());
                for (i, item) in items.iter().enumerate() {
                    self.path.push(PathStep::Index(i as u64));
                    self.value(item, e, depth + 1)?;
                    self.path.pop();
                }
                Ok(())
            }
            (Kind::Tuple(items), Type::Tuple(types)) => {
                if items.len() != types.len() {
                    return Err(Error::encode(
                        &self.path,
                        format!(
                            "a tuple of {} elements is required, found {}",
                            types.len(),
                            items.len()
                        ),
                    ));
                }
                self.array_len(items.len());
                for (i, (item, t)) in items.iter().zip(types).enumerate() {
                    self.path.push(PathStep::Index(i as u64));
                    self.value(item, t, depth + 1)?;
                    self.path.pop();
                }
                Ok(())
            }
            (Kind::Map(_, items), Type::Map(e)) => {
                self.map_len(items.len());
                for (key, item) in items {
                    self.str(key);
                    self.path.push(PathStep::Key(key.clone()));
                    self.value(item, e, depth + 1)?;
                    self.path.pop();
                }
                Ok(())
            }
            (Kind::Object(attrs), Type::Object { attributes, .. }) => {
                if let Some(extra) = attrs.keys().find(|k| !attributes.contains_key(*k)) {
                    return Err(Error::encode(
                        &self.path,
                        format!("attribute {extra:?} is not in the object type"),
                    ));
                }
                // go-cty writes every attribute of the type, sorted; an attribute the value
                // lacks is written as null.
                self.map_len(attributes.len());
                for (name, t) in attributes {
                    self.str(name);
                    match attrs.get(name) {
                        Some(attr) => {
                            self.path.push(PathStep::Attr(name.clone()));
                            self.value(attr, t, depth + 1)?;
                            self.path.pop();
                        }
                        None => self.out.push(code::NIL),
                    }
                }
                Ok(())
            }
            (kind, ty) => Err(Error::encode(
                &self.path,
                format!(
                    "a value of type {} is required, found a {}",
                    ty.to_json_string(),
                    kind_name(kind)
                ),
            )),
        }
    }

    /// A value at a `dynamic` position: bare nil or unknown when its type is unknown too,
    /// otherwise the `[type JSON, value]` pair (go-cty `marshalDynamic`).
    fn dynamic(&mut self, value: &Value, depth: usize) -> Result<(), Error> {
        match &value.kind {
            Kind::Null(t) if **t == Type::Dynamic => self.out.push(code::NIL),
            Kind::Unknown(t, _) if **t == Type::Dynamic => {
                self.out.extend_from_slice(&unknown::PLAIN);
            }
            _ => {
                let ty = value.ty();
                self.array_len(2);
                self.bin(ty.to_json_string().as_bytes());
                self.value(value, &ty, depth + 1)?;
            }
        }
        Ok(())
    }

    pub(super) fn number(&mut self, n: &Number) {
        match n.wire_form() {
            WireNumber::Int(i) => self.int(i),
            WireNumber::Float(f) => {
                self.out.push(code::FLOAT64);
                self.out.extend_from_slice(&f.to_bits().to_be_bytes());
            }
            WireNumber::Text(s) => self.str(&s),
        }
    }

    pub(super) fn int(&mut self, i: i64) {
        if i >= 0 {
            return self.uint(i as u64);
        }
        if i >= -32 {
            self.out.push(i as u8);
        } else if i >= i64::from(i8::MIN) {
            self.out.push(code::INT8);
            self.out.push(i as u8);
        } else if i >= i64::from(i16::MIN) {
            self.out.push(code::INT16);
            self.out.extend_from_slice(&(i as i16).to_be_bytes());
        } else if i >= i64::from(i32::MIN) {
            self.out.push(code::INT32);
            self.out.extend_from_slice(&(i as i32).to_be_bytes());
        } else {
            self.out.push(code::INT64);
            self.out.extend_from_slice(&i.to_be_bytes());
        }
    }

    pub(super) fn uint(&mut self, u: u64) {
        if u <= 0x7f {
            self.out.push(u as u8);
        } else if u <= u64::from(u8::MAX) {
            self.out.push(code::UINT8);
            self.out.push(u as u8);
        } else if u <= u64::from(u16::MAX) {
            self.out.push(code::UINT16);
            self.out.extend_from_slice(&(u as u16).to_be_bytes());
        } else if u <= u64::from(u32::MAX) {
            self.out.push(code::UINT32);
            self.out.extend_from_slice(&(u as u32).to_be_bytes());
        } else {
            self.out.push(code::UINT64);
            self.out.extend_from_slice(&u.to_be_bytes());
        }
    }

    pub(super) fn str(&mut self, s: &str) {
        let n = s.len();
        if n < 32 {
            self.out.push(0xa0 | n as u8);
        } else if n < 256 {
            self.out.push(code::STR8);
            self.out.push(n as u8);
        } else {
            self.len16_or_32(n, code::STR16, code::STR32);
        }
        self.out.extend_from_slice(s.as_bytes());
    }

    fn bin(&mut self, b: &[u8]) {
        let n = b.len();
        if n < 256 {
            self.out.push(code::BIN8);
            self.out.push(n as u8);
        } else {
            self.len16_or_32(n, code::BIN16, code::BIN32);
        }
        self.out.extend_from_slice(b);
    }

    pub(super) fn array_len(&mut self, n: usize) {
        if n < 16 {
            self.out.push(0x90 | n as u8);
        } else {
            self.len16_or_32(n, code::ARRAY16, code::ARRAY32);
        }
    }

    pub(super) fn map_len(&mut self, n: usize) {
        if n < 16 {
            self.out.push(0x80 | n as u8);
        } else {
            self.len16_or_32(n, code::MAP16, code::MAP32);
        }
    }

    /// Writes an extension header as vmihailenco's `EncodeExtHeader`: fixext for lengths 1, 2, 4,
    /// 8 and 16, otherwise the smallest ext8/16/32.
    pub(super) fn ext_header(&mut self, ext_type: u8, n: usize) {
        match n {
            1 => self.out.push(code::FIXEXT1),
            2 => self.out.push(code::FIXEXT2),
            4 => self.out.push(code::FIXEXT4),
            8 => self.out.push(code::FIXEXT8),
            16 => self.out.push(code::FIXEXT16),
            n if n < 256 => {
                self.out.push(code::EXT8);
                self.out.push(n as u8);
            }
            n => self.len16_or_32(n, code::EXT16, code::EXT32),
        }
        self.out.push(ext_type);
    }

    fn len16_or_32(&mut self, n: usize, code16: u8, code32: u8) {
        if let Ok(n) = u16::try_from(n) {
            self.out.push(code16);
            self.out.extend_from_slice(&n.to_be_bytes());
        } else {
            // Lengths beyond u32 cannot occur: DynamicValues are capped far below 4 GiB.
            let n = u32::try_from(n).unwrap_or(u32::MAX);
            self.out.push(code32);
            self.out.extend_from_slice(&n.to_be_bytes());
        }
    }
}
