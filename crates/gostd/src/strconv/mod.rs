//! Go's `strconv`: quoting, float formatting and number parsing.

mod float;
mod parse;
mod printable;
mod quote;

pub(crate) use float::push_exponent;
pub use float::{FloatFormat, format_float, format_float32};
pub use parse::{parse_float, parse_int};
pub use quote::{append_quote, append_quote_bytes, is_print, quote};
