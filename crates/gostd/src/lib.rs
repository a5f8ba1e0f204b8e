//! The only place that imitates Go's standard library.
//!
//! The Go binary we replace writes and reads bytes through Go's standard library, and Pulumi and
//! Terraform compare those bytes: a schema, a recording, the raw state inside Pulumi state, the
//! order of a set. Each behaviour we copy lives here once, named after the Go package it copies,
//! and is tested against output captured from Go itself (`testdata/`, see its README):
//!
//! - [`json`]: `encoding/json`. [`json::write_string`] escapes as Go does (HTML-safe, U+2028 and
//!   U+2029, invalid UTF-8 as `\ufffd`); [`json::format_float`] and [`json::format_float32`]
//!   write floats as Go does; [`json::Object`] and [`json::Array`] write members in the order
//!   given (struct fields), with `omitempty` helpers; [`json::Value`] is a tree that keeps number
//!   text, read by [`json::parse`] (`Decoder.UseNumber`) and written compactly; [`json::indent`]
//!   is `json.Indent`.
//! - [`strconv`]: [`strconv::quote`] (`strconv.Quote`, with Go's table of printable runes),
//!   [`strconv::format_float`] (`FormatFloat` with the shortest precision, which `%v` also
//!   uses), [`strconv::parse_int`] and [`strconv::parse_float`].
//! - [`big`]: [`big::text_g`], `big.Float.Text('g', n)` of an exact decimal.
//! - [`rand`]: [`rand::ChaCha8`], `math/rand/v2`'s ChaCha8 generator (Pulumi's autonaming
//!   draws from it).
//! - [`utf8`]: [`utf8::decode_rune`], Go's rule for bytes that are not valid UTF-8, which every
//!   routine above follows and so must any other writer of Go text (the protobuf text format).
//!
//! Architecture invariant: this crate is pure. It does no IO, is not async, and depends on
//! nothing but `thiserror`. It knows nothing of Terraform or Pulumi: callers own what the bytes
//! mean. Nothing it reads can make it panic, and parsing is bounded by the caller's depth.

pub mod big;
pub mod json;
pub mod rand;
pub mod strconv;
pub mod utf8;
