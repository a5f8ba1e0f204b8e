//! Go's `encoding/json`: writing as `json.Marshal` does, reading as a `json.Decoder` with
//! `UseNumber` does, and `json.Indent`.

mod indent;
mod number;
mod object;
mod parse;
mod string;
mod value;

pub use indent::indent;
pub use number::{UnsupportedValue, format_float, format_float32, is_number};
pub use object::{Array, Object};
pub use parse::{ParseError, parse};
pub use string::{Output, write_escaped, write_escaped_str, write_string, write_string_bytes};
pub use value::{Value, into_map};
