//! msgpack decoding, following go-cty `cty/msgpack/unmarshal.go`, over a byte slice with every
//! length checked against what is left of the input.
//!
//! Decoding is the hot path of every resource operation, so it allocates only for what the value
//! keeps: the path is a stack of steps borrowed from the input, turned into a [`Path`] only for an
//! error; an object's attributes, which go-cty writes in sorted order, are matched to the type's
//! in that order by their bytes (a name that matches needs no UTF-8 check of its own); element
//! types are the decoded type's own shared allocations.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{MAX_DEPTH, UNKNOWN, code, unknown};
use crate::type_cache::TypeCache;
use crate::value::Kind;
use crate::{Error, Number, NumberBound, Path, PathStep, Type, Value};

/// A step of the path being decoded; names are borrowed from the input (an attribute name as
/// bytes: those matched to the type's name are not checked as UTF-8 separately).
#[derive(Clone, Copy, Debug)]
enum Step<'a> {
    Attr(&'a [u8]),
    Index(usize),
    Key(&'a str),
}

pub(super) fn decode(bytes: &[u8], ty: &Type) -> Result<Value, Error> {
    whole(bytes, |dec| dec.value(ty)).map_err(|e| *e)
}

/// Reads msgpack without a type (see [`super::from_msgpack_untyped`]).
pub(super) fn untyped(bytes: &[u8]) -> Result<serde_json::Value, Error> {
    whole(bytes, |dec| dec.untyped()).map_err(|e| *e)
}

/// Reads one value from `bytes` with `read`; anything after it is an error.
fn whole<T>(
    bytes: &[u8],
    read: impl FnOnce(&mut Decoder<'_>) -> Result<T, Failure>,
) -> Result<T, Failure> {
    let mut dec = Decoder {
        input: bytes,
        pos: 0,
        steps: Vec::new(),
        depth: 0,
        types: TypeCache::default(),
    };
    let value = read(&mut dec)?;
    if dec.pos != bytes.len() {
        return Err(dec.error("unexpected data after the value"));
    }
    Ok(value)
}

/// A decode error, boxed while it travels up the decoder: results stay as small as the values
/// they carry, which every call returns.
pub(super) type Failure = Box<Error>;

pub(super) struct Decoder<'a> {
    input: &'a [u8],
    pos: usize,
    steps: Vec<Step<'a>>,
    depth: usize,
    pub(super) types: TypeCache,
}

fn is_ext(b: u8) -> bool {
    matches!(b, code::EXT8..=code::EXT32 | code::FIXEXT1..=code::FIXEXT16)
}

fn is_str_or_bin(b: u8) -> bool {
    matches!(b, 0xa0..=0xbf | code::STR8..=code::STR32 | code::BIN8..=code::BIN32)
}

impl<'a> Decoder<'a> {
    /// A decoder for an extension payload, reporting errors at the current path.
    pub(super) fn nested(&self, input: &'a [u8]) -> Decoder<'a> {
        Decoder {
            input,
            pos: 0,
            steps: self.steps.clone(),
            depth: self.depth,
            types: TypeCache::default(),
        }
    }

    pub(super) fn error(&self, reason: impl Into<String>) -> Failure {
        Box::new(Error::Decode {
            path: self.path(),
            reason: reason.into(),
        })
    }

    /// Where the decoder is.
    fn path(&self) -> Path {
        Path(
            self.steps
                .iter()
                .map(|step| match *step {
                    Step::Attr(name) => PathStep::Attr(String::from_utf8_lossy(name).into_owned()),
                    Step::Index(i) => PathStep::Index(i as u64),
                    Step::Key(key) => PathStep::Key(key.to_owned()),
                })
                .collect(),
        )
    }

    fn remaining(&self) -> usize {
        self.input.len() - self.pos
    }

    fn peek(&self) -> Result<u8, Failure> {
        self.input
            .get(self.pos)
            .copied()
            .ok_or_else(|| self.error("unexpected end of input"))
    }

    fn byte(&mut self) -> Result<u8, Failure> {
        let b = self.peek()?;
        self.pos += 1;
        Ok(b)
    }

    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8], Failure> {
        if n > self.remaining() {
            return Err(self.error(format!(
                "unexpected end of input: {n} bytes declared, {} left",
                self.remaining()
            )));
        }
        let slice = &self.input[self.pos..self.pos + n];
        self.pos += n;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], Failure> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn len8(&mut self) -> Result<usize, Failure> {
        Ok(usize::from(self.byte()?))
    }

    fn len16(&mut self) -> Result<usize, Failure> {
        Ok(usize::from(u16::from_be_bytes(self.array()?)))
    }

    fn len32(&mut self) -> Result<usize, Failure> {
        usize::try_from(u32::from_be_bytes(self.array()?))
            .map_err(|_| self.error("length does not fit this platform"))
    }

    fn value(&mut self, ty: &Type) -> Result<Value, Failure> {
        let b = self.peek()?;
        if is_ext(b) {
            // go-cty treats every extension as an unknown value.
            return unknown::decode(self, ty);
        }
        if matches!(ty, Type::Dynamic) {
            return self.dynamic();
        }
        if b == code::NIL {
            self.pos += 1;
            return Ok(Value::null(self.types.share(ty)));
        }
        match ty {
            Type::String => Ok(Value::string(self.string()?)),
            Type::Number => Ok(Value::number(self.number()?)),
            Type::Bool => Ok(Value::bool(
                self.bool().map_err(|_| self.error("a bool is required"))?,
            )),
            Type::List(e) => {
                let items = self.elements(e, "a list")?;
                Ok(Value::list(e.clone(), items))
            }
            Type::Set(e) => {
                let items = self.elements(e, "a set")?;
                Ok(Value::set_in_order(e.clone(), items))
            }
            Type::Tuple(types) => self.tuple(types),
            Type::Map(e) => self.map(e),
            Type::Object { attributes, .. } => self.object(attributes),
            Type::Dynamic => self.dynamic(),
        }
    }

    fn enter(&mut self) -> Result<(), Failure> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("value is nested too deeply"));
        }
        Ok(())
    }

    fn elements(&mut self, e: &Type, what: &str) -> Result<Vec<Value>, Failure> {
        let n = self.array_len(what)?;
        self.enter()?;
        // Every element takes at least one byte, which bounds what we reserve.
        let mut items = Vec::with_capacity(n.min(self.remaining()));
        for i in 0..n {
            self.steps.push(Step::Index(i));
            items.push(self.value(e)?);
            self.steps.pop();
        }
        self.depth -= 1;
        Ok(items)
    }

    fn tuple(&mut self, types: &[Type]) -> Result<Value, Failure> {
        let n = self.array_len("a tuple")?;
        if n != types.len() {
            return Err(self.error(format!(
                "a tuple of length {} is required ({n} given)",
                types.len()
            )));
        }
        self.enter()?;
        let mut items = Vec::with_capacity(n);
        for (i, t) in types.iter().enumerate() {
            self.steps.push(Step::Index(i));
            items.push(self.value(t)?);
            self.steps.pop();
        }
        self.depth -= 1;
        Ok(Value::tuple(items))
    }

    fn map(&mut self, e: &Arc<Type>) -> Result<Value, Failure> {
        let n = self.map_len("a map")?;
        self.enter()?;
        let mut items = BTreeMap::new();
        for _ in 0..n {
            let key = self.key("map")?;
            self.steps.push(Step::Key(key));
            let item = self.value(e)?;
            self.steps.pop();
            // As in go-cty, a repeated key keeps the last value.
            items.insert(key.to_owned(), item);
        }
        self.depth -= 1;
        Ok(Value::map(e.clone(), items))
    }

    fn object(&mut self, attributes: &BTreeMap<String, Type>) -> Result<Value, Failure> {
        let n = self.map_len("an object")?;
        if n != attributes.len() {
            return Err(self.error(format!(
                "an object with {} attributes is required ({n} given)",
                attributes.len()
            )));
        }
        self.enter()?;
        let mut attrs = Attributes::with_capacity(n);
        // While the keys come in the type's order, as go-cty writes them, each is the next
        // attribute of the type and none can repeat.
        let mut expected = attributes.iter();
        let mut in_order = true;
        for _ in 0..n {
            // The next attribute of the type is the likely key: matching its bytes spares
            // checking them as UTF-8.
            let next = if in_order { expected.next() } else { None };
            let matched = next.and_then(|(name, t)| Some((self.key_is(name)?, name.as_str(), t)));
            let (key, name, t) = match matched {
                Some(found) => found,
                None => {
                    in_order = false;
                    let key = self.key("object")?;
                    self.steps.push(Step::Attr(key.as_bytes()));
                    let Some((name, t)) = attributes.get_key_value(key) else {
                        return Err(self.error("unsupported attribute"));
                    };
                    if attrs.contains(key) {
                        return Err(self.error("duplicate attribute"));
                    }
                    self.steps.pop();
                    (key.as_bytes(), name.as_str(), t)
                }
            };
            self.steps.push(Step::Attr(key));
            let item = self.value(t)?;
            self.steps.pop();
            attrs.push(name.to_owned(), item);
        }
        self.depth -= 1;
        Ok(Value::from(Kind::Object(attrs.into_map())))
    }

    /// A value at a `dynamic` position: nil, or the `[type JSON, value]` pair.
    fn dynamic(&mut self) -> Result<Value, Failure> {
        if self.peek()? == code::NIL {
            self.pos += 1;
            return Ok(Value::null(Type::Dynamic));
        }
        let n = self.array_len("a dynamic value as a [type, value] array")?;
        if n != 2 {
            return Err(self.error("dynamic value array must have exactly two elements"));
        }
        if !is_str_or_bin(self.peek()?) {
            return Err(self.error("the type of a dynamic value must be bytes or a string"));
        }
        let spec = self.bytes()?;
        let ty = Type::from_json_bytes(spec).map_err(|source| Error::DynamicType {
            path: self.path(),
            source,
        })?;
        let ty = self.types.keep(ty);
        self.enter()?;
        let value = self.value(&ty)?;
        self.depth -= 1;
        Ok(value)
    }

    fn number(&mut self) -> Result<Number, Failure> {
        let required = |d: &Self| d.error("a number is required");
        let b = self.peek()?;
        if is_str_or_bin(b) {
            // Numbers too large or too precise for int and float64 travel as decimal text.
            let text = self.string()?;
            return Number::from_decimal_str(&text).map_err(|e| self.error(e.to_string()));
        }
        self.pos += 1;
        Ok(match b {
            0x00..=0x7f => Number::from_i64(i64::from(b)),
            0xe0..=0xff => Number::from_i64(i64::from(b as i8)),
            code::UINT8..=code::UINT64 | code::INT8..=code::INT64 => self.int_body(b)?,
            code::FLOAT32 => {
                let f = f32::from_be_bytes(self.array()?);
                Number::from_f64(f64::from(f)).ok_or_else(|| required(self))?
            }
            code::FLOAT64 => {
                let f = f64::from_be_bytes(self.array()?);
                Number::from_f64(f).ok_or_else(|| required(self))?
            }
            _ => return Err(required(self)),
        })
    }

    /// The body of an int or uint of the given format byte.
    fn int_body(&mut self, b: u8) -> Result<Number, Failure> {
        Ok(match b {
            code::UINT8 => Number::from_u64(u64::from(self.byte()?)),
            code::UINT16 => Number::from_u64(u64::from(u16::from_be_bytes(self.array()?))),
            code::UINT32 => Number::from_u64(u64::from(u32::from_be_bytes(self.array()?))),
            code::UINT64 => Number::from_u64(u64::from_be_bytes(self.array()?)),
            code::INT8 => Number::from_i64(i64::from(self.byte()? as i8)),
            code::INT16 => Number::from_i64(i64::from(i16::from_be_bytes(self.array()?))),
            code::INT32 => Number::from_i64(i64::from(i32::from_be_bytes(self.array()?))),
            _ => Number::from_i64(i64::from_be_bytes(self.array()?)),
        })
    }

    /// An integer that fits an `i64` (refinement keys and length bounds).
    pub(super) fn int(&mut self) -> Result<i64, Failure> {
        let b = self.byte()?;
        match b {
            0x00..=0x7f => Ok(i64::from(b)),
            0xe0..=0xff => Ok(i64::from(b as i8)),
            code::UINT8..=code::UINT64 | code::INT8..=code::INT64 => self
                .int_body(b)?
                .as_i64()
                .ok_or_else(|| self.error("integer out of range")),
            _ => Err(self.error("an integer is required")),
        }
    }

    pub(super) fn bool(&mut self) -> Result<bool, Failure> {
        match self.byte()? {
            code::TRUE => Ok(true),
            code::FALSE => Ok(false),
            _ => Err(self.error("a bool is required")),
        }
    }

    /// The bytes of a str or bin (vmihailenco's `DecodeString` and `DecodeBytes` take either).
    fn bytes(&mut self) -> Result<&'a [u8], Failure> {
        let b = self.byte()?;
        let n = match b {
            0xa0..=0xbf => usize::from(b & 0x1f),
            code::STR8 | code::BIN8 => self.len8()?,
            code::STR16 | code::BIN16 => self.len16()?,
            code::STR32 | code::BIN32 => self.len32()?,
            _ => return Err(self.error("a string is required")),
        };
        self.take(n)
    }

    /// A map or object key, which must be a string.
    fn key(&mut self, what: &str) -> Result<&'a str, Failure> {
        if !is_str_or_bin(self.peek()?) {
            return Err(self.error(format!("{what} keys must be strings")));
        }
        self.str()
    }

    /// The next object's bytes if it is the string `name` (and then consumed).
    fn key_is(&mut self, name: &str) -> Option<&'a [u8]> {
        let start = self.pos;
        match self.bytes() {
            Ok(bytes) if bytes == name.as_bytes() => Some(bytes),
            _ => {
                self.pos = start;
                None
            }
        }
    }

    pub(super) fn string(&mut self) -> Result<String, Failure> {
        self.str().map(str::to_owned)
    }

    fn str(&mut self) -> Result<&'a str, Failure> {
        let bytes = self.bytes()?;
        std::str::from_utf8(bytes).map_err(|_| self.error("string is not valid UTF-8"))
    }

    /// An array header; `what` names the expected value in the error for anything else.
    fn array_len(&mut self, what: &str) -> Result<usize, Failure> {
        let b = self.byte()?;
        match b {
            0x90..=0x9f => Ok(usize::from(b & 0x0f)),
            code::ARRAY16 => self.len16(),
            code::ARRAY32 => self.len32(),
            _ => Err(self.error(format!("{what} is required"))),
        }
    }

    /// A map header; `what` names the expected value in the error for anything else.
    fn map_len(&mut self, what: &str) -> Result<usize, Failure> {
        let b = self.byte()?;
        match b {
            0x80..=0x8f => Ok(usize::from(b & 0x0f)),
            code::MAP16 => self.len16(),
            code::MAP32 => self.len32(),
            _ => Err(self.error(format!("{what} is required"))),
        }
    }

    /// The entry count of a refinement payload; nil counts as no entries, as in go-cty.
    pub(super) fn refinement_map_len(&mut self) -> Result<usize, Failure> {
        if self.peek()? == code::NIL {
            self.pos += 1;
            return Ok(0);
        }
        if !matches!(self.peek()?, 0x80..=0x8f | code::MAP16 | code::MAP32) {
            return Err(self.error("unknown value refinements are not a map"));
        }
        self.map_len("a refinement map")
    }

    /// An extension header: its type byte and payload length.
    pub(super) fn ext_header(&mut self) -> Result<(u8, usize), Failure> {
        let b = self.byte()?;
        let n = match b {
            code::FIXEXT1 => 1,
            code::FIXEXT2 => 2,
            code::FIXEXT4 => 4,
            code::FIXEXT8 => 8,
            code::FIXEXT16 => 16,
            code::EXT8 => self.len8()?,
            code::EXT16 => self.len16()?,
            code::EXT32 => self.len32()?,
            _ => return Err(self.error("an extension is required")),
        };
        Ok((self.byte()?, n))
    }

    /// A number bound refinement: `[number, inclusive]`, both known and not null.
    pub(super) fn number_bound(&mut self) -> Result<NumberBound, Failure> {
        let path = self.path();
        let bad = || {
            Error::decode(
                &path,
                "number bound refinement must be a [number, bool] array",
            )
        };
        let ty = Type::Tuple(vec![Type::Number, Type::Bool]);
        let pair = self.value(&ty).map_err(|_| bad())?;
        match pair.elements() {
            Some([n, b]) => match (n.as_number(), b.as_bool()) {
                (Some(n), Some(inclusive)) => Ok(NumberBound {
                    value: n.clone(),
                    inclusive,
                }),
                _ => Err(bad().into()),
            },
            _ => Err(bad().into()),
        }
    }

    /// One msgpack object of any kind, as JSON.
    fn untyped(&mut self) -> Result<serde_json::Value, Failure> {
        use serde_json::Value as Json;
        self.enter()?;
        let b = self.peek()?;
        let value = match b {
            code::NIL => {
                self.pos += 1;
                Json::Null
            }
            code::FALSE | code::TRUE => Json::Bool(self.bool()?),
            0x80..=0x8f | code::MAP16 | code::MAP32 => {
                let n = self.map_len("a map")?;
                let mut entries = serde_json::Map::new();
                for _ in 0..n {
                    let key = match self.untyped()? {
                        Json::String(key) => key,
                        other => other.to_string(),
                    };
                    let value = self.untyped()?;
                    entries.insert(key, value);
                }
                Json::Object(entries)
            }
            0x90..=0x9f | code::ARRAY16 | code::ARRAY32 => {
                let n = self.array_len("an array")?;
                // Every element takes at least one byte, which bounds what we reserve.
                let mut items = Vec::with_capacity(n.min(self.remaining()));
                for _ in 0..n {
                    items.push(self.untyped()?);
                }
                Json::Array(items)
            }
            0xa0..=0xbf | code::STR8..=code::STR32 | code::BIN8..=code::BIN32 => {
                Json::String(String::from_utf8_lossy(self.bytes()?).into_owned())
            }
            _ if is_ext(b) => {
                let (ext_type, n) = self.ext_header()?;
                let payload = self.take(n)?;
                if ext_type == code::REFINED_UNKNOWN_EXT && n > 1 {
                    let refinements = self.nested(payload).untyped()?;
                    Json::Object([(UNKNOWN.to_owned(), refinements)].into_iter().collect())
                } else {
                    Json::String(UNKNOWN.to_owned())
                }
            }
            _ => {
                let number = self.number()?;
                if let Some(i) = number.as_i64() {
                    Json::from(i)
                } else if let Some(u) = number.as_u64() {
                    Json::from(u)
                } else {
                    let float = number.to_f64();
                    match serde_json::Number::from_f64(float) {
                        Some(exact) if Number::from_f64(float).as_ref() == Some(&number) => {
                            Json::Number(exact)
                        }
                        _ => Json::String(number.to_string()),
                    }
                }
            }
        };
        self.depth -= 1;
        Ok(value)
    }

    /// Skips one msgpack object of any kind.
    pub(super) fn skip(&mut self) -> Result<(), Failure> {
        self.enter()?;
        let b = self.peek()?;
        match b {
            0x00..=0x7f | 0xe0..=0xff | code::NIL | code::FALSE | code::TRUE => self.pos += 1,
            0x80..=0x8f | code::MAP16 | code::MAP32 => {
                let n = self.map_len("a map")?;
                for _ in 0..n {
                    self.skip()?;
                    self.skip()?;
                }
            }
            0x90..=0x9f | code::ARRAY16 | code::ARRAY32 => {
                let n = self.array_len("an array")?;
                for _ in 0..n {
                    self.skip()?;
                }
            }
            0xa0..=0xbf | code::STR8..=code::STR32 | code::BIN8..=code::BIN32 => {
                self.bytes()?;
            }
            code::FLOAT32 => {
                self.take(5)?;
            }
            code::FLOAT64 => {
                self.take(9)?;
            }
            code::UINT8..=code::UINT64 | code::INT8..=code::INT64 => {
                self.pos += 1;
                self.int_body(b)?;
            }
            _ if is_ext(b) => {
                let (_, n) = self.ext_header()?;
                self.take(n)?;
            }
            _ => return Err(self.error(format!("invalid msgpack format byte 0x{b:02x}"))),
        }
        self.depth -= 1;
        Ok(())
    }
}

/// The attributes of an object being decoded, gathered as cheaply as their number allows.
enum Attributes {
    /// Collected, then sorted (in linear time: go-cty writes them sorted) and built into a map at
    /// once.
    Few(Vec<(String, Value)>),
    /// Inserted one by one: gathering them first would take one large allocation, and glibc
    /// answers every large request by consolidating its caches of small free chunks.
    Many(BTreeMap<String, Value>),
}

/// Up to this many attributes fit one B-tree leaf and a small allocation.
const FEW_ATTRIBUTES: usize = 11;

impl Attributes {
    fn with_capacity(n: usize) -> Attributes {
        if n <= FEW_ATTRIBUTES {
            Attributes::Few(Vec::with_capacity(n))
        } else {
            Attributes::Many(BTreeMap::new())
        }
    }

    fn contains(&self, key: &str) -> bool {
        match self {
            Attributes::Few(attrs) => attrs.iter().any(|(k, _)| k == key),
            Attributes::Many(attrs) => attrs.contains_key(key),
        }
    }

    fn push(&mut self, key: String, value: Value) {
        match self {
            Attributes::Few(attrs) => attrs.push((key, value)),
            Attributes::Many(attrs) => {
                attrs.insert(key, value);
            }
        }
    }

    fn into_map(self) -> BTreeMap<String, Value> {
        match self {
            Attributes::Few(attrs) => attrs.into_iter().collect(),
            Attributes::Many(attrs) => attrs,
        }
    }
}
