//! Writing objects and arrays member by member, for callers that know their struct's fields:
//! Go writes struct fields in declaration order and map keys sorted, so the caller gives the
//! order, and the `*_omitempty` writers skip what a `json:",omitempty"` tag skips.

use super::string::write_string;

/// One JSON object being written into a `String`.
pub struct Object<'a> {
    out: &'a mut String,
    empty: bool,
}

impl<'a> Object<'a> {
    /// Writes `{`.
    pub fn start(out: &'a mut String) -> Object<'a> {
        out.push('{');
        Object { out, empty: true }
    }

    /// Writes `"key":` (after a comma if needed) and returns the buffer to write the value into.
    pub fn key(&mut self, key: &str) -> &mut String {
        if !std::mem::take(&mut self.empty) {
            self.out.push(',');
        }
        write_string(self.out, key);
        self.out.push(':');
        self.out
    }

    /// Writes a string member.
    pub fn string(&mut self, key: &str, value: &str) {
        write_string(self.key(key), value);
    }

    /// Writes a string member unless it is empty.
    pub fn string_omitempty(&mut self, key: &str, value: &str) {
        if !value.is_empty() {
            self.string(key, value);
        }
    }

    /// Writes a bool member unless it is false.
    pub fn bool_omitempty(&mut self, key: &str, value: bool) {
        if value {
            self.key(key).push_str("true");
        }
    }

    /// Writes an integer member unless it is zero.
    pub fn int_omitempty(&mut self, key: &str, value: i64) {
        if value != 0 {
            self.key(key).push_str(&value.to_string());
        }
    }

    /// Writes `}`.
    pub fn end(self) {
        self.out.push('}');
    }
}

/// One JSON array being written into a `String`.
pub struct Array<'a> {
    out: &'a mut String,
    empty: bool,
}

impl<'a> Array<'a> {
    /// Writes `[`.
    pub fn start(out: &'a mut String) -> Array<'a> {
        out.push('[');
        Array { out, empty: true }
    }

    /// Writes a comma if needed and returns the buffer to write the next element into.
    pub fn item(&mut self) -> &mut String {
        if !std::mem::take(&mut self.empty) {
            self.out.push(',');
        }
        self.out
    }

    /// Writes `]`.
    pub fn end(self) {
        self.out.push(']');
    }
}
