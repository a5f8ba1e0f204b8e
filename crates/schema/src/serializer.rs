//! serde's data model written as compact JSON the way Go's `json.Marshal` writes it: strings
//! escaped by `tfp_gostd` in one pass, floats formatted by it, everything else as serde_json's
//! compact serializer writes it.
//!
//! It replaces serde_json's serializer with a Go formatter, which escaped every string twice:
//! serde_json split it at the characters it escapes, then each run was scanned again for those
//! Go escapes besides (`<`, `>`, `&`, U+2028, U+2029). Writing a package schema is mostly
//! writing strings (descriptions), and that double scan took nearly a third of the
//! instructions callgrind counted in writing AWS 3.39.0's.

use std::io::Write as _;

use serde::Serialize;
use serde::ser::{self, Error as _};
use tfp_gostd::json::{format_float, format_float32, write_string};

type Error = serde_json::Error;
type Result<T = ()> = std::result::Result<T, Error>;

/// Writes `value` after what `out` holds.
pub(crate) fn write<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> Result {
    value.serialize(&mut GoSerializer { out })
}

struct GoSerializer<'o> {
    out: &'o mut Vec<u8>,
}

impl<'o> GoSerializer<'o> {
    /// Writes `open`, and starts the sequence or map that `close` ends.
    fn compound<'s>(&'s mut self, open: &[u8], close: &'static [u8]) -> Compound<'s, 'o> {
        self.out.extend_from_slice(open);
        Compound {
            ser: self,
            first: true,
            close,
        }
    }

    fn float(&mut self, text: std::result::Result<String, tfp_gostd::json::UnsupportedValue>) {
        // serde_json writes `null` for NaN and the infinities, and so do we; Go refuses them,
        // and no schema holds one.
        match text {
            Ok(text) => self.out.extend_from_slice(text.as_bytes()),
            Err(_) => self.out.extend_from_slice(b"null"),
        }
    }

    fn integer(&mut self, value: impl std::fmt::Display) -> Result {
        write!(self.out, "{value}").expect("writing to a Vec cannot fail");
        Ok(())
    }

    /// `{"variant":`, the start of an externally tagged variant with data.
    fn variant(&mut self, variant: &str) {
        self.out.push(b'{');
        write_string(self.out, variant);
        self.out.push(b':');
    }
}

/// A sequence or a map being written; `first` until its first element is.
struct Compound<'s, 'o> {
    ser: &'s mut GoSerializer<'o>,
    first: bool,
    /// What closes it: `]`, `}`, or `]}` and `}}` for variants.
    close: &'static [u8],
}

impl Compound<'_, '_> {
    fn comma(&mut self) {
        if !std::mem::take(&mut self.first) {
            self.ser.out.push(b',');
        }
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.comma();
        value.serialize(&mut *self.ser)
    }

    /// A struct's field. Its key is a Rust field name or a serde rename: ASCII that Go would
    /// not escape, so it is written as it is, without looking for escapes.
    fn entry<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result {
        debug_assert!(
            (key.bytes()).all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$'),
            "a field name Go might escape: {key:?}"
        );
        self.comma();
        let out = &mut *self.ser.out;
        out.reserve(key.len() + 3);
        out.push(b'"');
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(b"\":");
        value.serialize(&mut *self.ser)
    }

    fn close(self) -> Result {
        self.ser.out.extend_from_slice(self.close);
        Ok(())
    }
}

/// `serialize_i8` to `serialize_u128`, each handing its number to `self.$write`.
macro_rules! integers {
    ($write:ident) => {
        integers!(@each $write:
            serialize_i8 i8, serialize_i16 i16, serialize_i32 i32, serialize_i64 i64,
            serialize_i128 i128, serialize_u8 u8, serialize_u16 u16, serialize_u32 u32,
            serialize_u64 u64, serialize_u128 u128);
    };
    (@each $write:ident: $($method:ident $ty:ty),*) => {$(
        fn $method(self, v: $ty) -> Result {
            self.$write(v)
        }
    )*};
}

impl<'s, 'o> ser::Serializer for &'s mut GoSerializer<'o> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'s, 'o>;
    type SerializeTuple = Compound<'s, 'o>;
    type SerializeTupleStruct = Compound<'s, 'o>;
    type SerializeTupleVariant = Compound<'s, 'o>;
    type SerializeMap = Compound<'s, 'o>;
    type SerializeStruct = Compound<'s, 'o>;
    type SerializeStructVariant = Compound<'s, 'o>;

    fn serialize_bool(self, v: bool) -> Result {
        self.out
            .extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }

    integers!(integer);

    fn serialize_f32(self, v: f32) -> Result {
        self.float(format_float32(v));
        Ok(())
    }

    fn serialize_f64(self, v: f64) -> Result {
        self.float(format_float(v));
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, v: &str) -> Result {
        write_string(self.out, v);
        Ok(())
    }

    /// As serde_json writes bytes: an array of numbers.
    fn serialize_bytes(self, v: &[u8]) -> Result {
        let mut seq = ser::Serializer::serialize_seq(self, Some(v.len()))?;
        for byte in v {
            ser::SerializeSeq::serialize_element(&mut seq, byte)?;
        }
        ser::SerializeSeq::end(seq)
    }

    fn serialize_none(self) -> Result {
        self.serialize_unit()
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result {
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result {
        self.serialize_unit()
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Result {
        v.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result {
        self.variant(variant);
        value.serialize(&mut *self)?;
        self.out.push(b'}');
        Ok(())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'s, 'o>> {
        Ok(self.compound(b"[", b"]"))
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'s, 'o>> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Compound<'s, 'o>> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'s, 'o>> {
        self.variant(variant);
        Ok(self.compound(b"[", b"]}"))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'s, 'o>> {
        Ok(self.compound(b"{", b"}"))
    }

    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Compound<'s, 'o>> {
        self.serialize_map(Some(len))
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'s, 'o>> {
        self.variant(variant);
        Ok(self.compound(b"{", b"}}"))
    }
}

/// The element-wise compounds (sequences, tuples), whose elements are written one after another.
macro_rules! elements {
    ($($compound:ident::$method:ident),*) => {$(
        impl ser::$compound for Compound<'_, '_> {
            type Ok = ();
            type Error = Error;

            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
                self.element(value)
            }

            fn end(self) -> Result {
                self.close()
            }
        }
    )*};
}

elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result {
        self.comma();
        key.serialize(KeySerializer {
            out: &mut *self.ser.out,
        })?;
        self.ser.out.push(b':');
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        value.serialize(&mut *self.ser)
    }

    fn end(self) -> Result {
        self.close()
    }
}

/// The field-wise compounds (structs), whose fields are written as a map's entries.
macro_rules! fields {
    ($($compound:ident),*) => {$(
        impl ser::$compound for Compound<'_, '_> {
            type Ok = ();
            type Error = Error;

            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result {
                self.entry(key, value)
            }

            fn end(self) -> Result {
                self.close()
            }
        }
    )*};
}

fields!(SerializeStruct, SerializeStructVariant);

/// A map key: a JSON string. Strings, characters, unit variants and newtypes of them are
/// written as serde_json writes them, and numbers and booleans quoted as it quotes them; any
/// other key is an error, as there.
struct KeySerializer<'o> {
    out: &'o mut Vec<u8>,
}

impl KeySerializer<'_> {
    fn quoted(self, text: impl std::fmt::Display) -> Result {
        write!(self.out, "\"{text}\"").expect("writing to a Vec cannot fail");
        Ok(())
    }
}

fn key_must_be_a_string() -> Error {
    Error::custom("key must be a string")
}

impl ser::Serializer for KeySerializer<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_str(self, v: &str) -> Result {
        write_string(self.out, v);
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Result {
        v.serialize(self)
    }

    fn serialize_bool(self, v: bool) -> Result {
        self.quoted(v)
    }

    integers!(quoted);

    fn serialize_f32(self, _: f32) -> Result {
        Err(key_must_be_a_string())
    }

    fn serialize_f64(self, _: f64) -> Result {
        Err(key_must_be_a_string())
    }

    fn serialize_bytes(self, _: &[u8]) -> Result {
        Err(key_must_be_a_string())
    }

    fn serialize_none(self) -> Result {
        Err(key_must_be_a_string())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result {
        Err(key_must_be_a_string())
    }

    fn serialize_unit(self) -> Result {
        Err(key_must_be_a_string())
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result {
        Err(key_must_be_a_string())
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result {
        Err(key_must_be_a_string())
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(key_must_be_a_string())
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Err(key_must_be_a_string())
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(key_must_be_a_string())
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(key_must_be_a_string())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::ser::{CharEscape, Formatter, Serializer};

    use super::*;

    /// The writer this one replaced: serde_json's compact serializer with every string run
    /// and escape handed to `tfp_gostd`, and its floats.
    struct GoFormatter;

    impl Formatter for GoFormatter {
        fn write_string_fragment<W: ?Sized + std::io::Write>(
            &mut self,
            writer: &mut W,
            fragment: &str,
        ) -> std::io::Result<()> {
            let mut text = String::new();
            tfp_gostd::json::write_escaped_str(&mut text, fragment);
            writer.write_all(text.as_bytes())
        }

        fn write_char_escape<W: ?Sized + std::io::Write>(
            &mut self,
            writer: &mut W,
            escape: CharEscape,
        ) -> std::io::Result<()> {
            let byte = match escape {
                CharEscape::Quote => b'"',
                CharEscape::ReverseSolidus => b'\\',
                CharEscape::Solidus => b'/',
                CharEscape::Backspace => 0x08,
                CharEscape::FormFeed => 0x0c,
                CharEscape::LineFeed => b'\n',
                CharEscape::CarriageReturn => b'\r',
                CharEscape::Tab => b'\t',
                CharEscape::AsciiControl(byte) => byte,
            };
            self.write_string_fragment(writer, char::from(byte).encode_utf8(&mut [0; 4]))
        }

        fn write_f64<W: ?Sized + std::io::Write>(
            &mut self,
            writer: &mut W,
            value: f64,
        ) -> std::io::Result<()> {
            writer.write_all(
                format_float(value)
                    .map_err(std::io::Error::other)?
                    .as_bytes(),
            )
        }

        fn write_f32<W: ?Sized + std::io::Write>(
            &mut self,
            writer: &mut W,
            value: f32,
        ) -> std::io::Result<()> {
            writer.write_all(
                format_float32(value)
                    .map_err(std::io::Error::other)?
                    .as_bytes(),
            )
        }
    }

    fn both<T: Serialize + ?Sized>(value: &T) -> (String, String) {
        let mut ours = Vec::new();
        write(&mut ours, value).expect("ours writes it");
        let mut theirs = Vec::new();
        value
            .serialize(&mut Serializer::with_formatter(&mut theirs, GoFormatter))
            .expect("serde_json writes it");
        let text = |bytes| String::from_utf8(bytes).expect("UTF-8");
        (text(ours), text(theirs))
    }

    #[derive(Serialize)]
    enum Shape {
        Unit,
        Newtype(String),
        Tuple(u8, String),
        Struct { a: Option<bool>, b: Vec<f64> },
    }

    #[derive(Serialize)]
    struct Spec<'a> {
        text: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<u8>,
        none: Option<u8>,
        numbers: (i64, u64, i128, f32, f64, f64),
        shapes: Vec<Shape>,
        by_name: BTreeMap<String, Vec<char>>,
        by_number: BTreeMap<u32, bool>,
        by_flag: BTreeMap<bool, ()>,
        bytes: &'a serde_bytes_like::Bytes,
        unit: (),
        value: serde_json::Value,
    }

    /// `serialize_bytes` without the serde_bytes crate.
    mod serde_bytes_like {
        pub(super) struct Bytes(pub(super) [u8; 3]);

        impl serde::Serialize for Bytes {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(&self.0)
            }
        }
    }

    #[test]
    fn writes_what_serde_json_with_go_formatting_wrote() {
        let text = "plain, then <html> & \"quotes\" \\ \n\t\r\u{8}\u{c}\u{1}\u{1f}\u{7f} \
                    é \u{2028} \u{2029} \u{2027} \u{e2}"
            .repeat(3);
        let spec = Spec {
            text: &text,
            skipped: None,
            none: None,
            numbers: (-7, u64::MAX, i128::MIN, 0.1, 1e21, f64::NAN),
            shapes: vec![
                Shape::Unit,
                Shape::Newtype("<n>".into()),
                Shape::Tuple(1, "t".into()),
                Shape::Struct {
                    a: Some(true),
                    b: vec![1.0, 1e-7, -0.0, 123456789.125],
                },
            ],
            by_name: [
                ("<k>".to_owned(), vec!['&', '\u{2028}']),
                ("".to_owned(), vec![]),
            ]
            .into(),
            by_number: [(1, true), (20, false)].into(),
            by_flag: [(true, ()), (false, ())].into(),
            bytes: &serde_bytes_like::Bytes([0, 127, 255]),
            unit: (),
            value: serde_json::json!({"b": [1, -2, 2.5, null, "x&y"], "a": {"c": false}}),
        };
        let (ours, theirs) = both(&spec);
        assert_eq!(ours, theirs);
        assert!(ours.contains(r#"\u003chtml\u003e \u0026 \"quotes\" \\ \n\t\r\b\f\u0001\u001f"#));
        assert!(
            ours.contains(r#""by_number":{"1":true,"20":false}"#),
            "{ours}"
        );
    }

    #[test]
    fn a_key_that_is_no_string_is_refused() {
        let map: BTreeMap<Vec<u8>, u8> = [(vec![1], 1)].into();
        let mut out = Vec::new();
        let err = write(&mut out, &map).expect_err("a list is no key");
        assert_eq!(err.to_string(), "key must be a string");
    }
}
