//! `strconv.FormatFloat(f, fmt, -1, bitSize)`: the shortest decimal that reads back as the same
//! float, laid out as Go's `'f'`, `'e'` or `'g'` format.
//!
//! The digits are Rust's shortest round-trip digits (`{:e}`), which are Go's too: both find the
//! shortest decimal that reads back exactly. Only the layout is Go's: exponents have a sign and
//! at least two digits (`1e+21`, `1e-07`), and `'g'` takes the exponent form when the exponent
//! is below -4 or at least 6 (`1e+06`, but `123456`).

/// Go's format verbs for floats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatFormat {
    /// `'f'`: `-ddd.ddd`, never an exponent.
    F,
    /// `'e'`: `-d.ddde±dd`.
    E,
    /// `'g'`: `'e'` for large and small exponents, `'f'` otherwise; what `%v` prints.
    G,
}

/// `strconv.FormatFloat(f, format, -1, 64)`; `NaN`, `+Inf` and `-Inf` for the special values.
pub fn format_float(f: f64, format: FloatFormat) -> String {
    match special(f) {
        Some(text) => text.to_owned(),
        None => Digits::parse(&format!("{f:e}")).layout(format),
    }
}

/// `strconv.FormatFloat(float64(f), format, -1, 32)`: the shortest digits that read back as the
/// same float32.
pub fn format_float32(f: f32, format: FloatFormat) -> String {
    match special(f64::from(f)) {
        Some(text) => text.to_owned(),
        None => Digits::parse(&format!("{f:e}")).layout(format),
    }
}

/// Go's text of NaN and the infinities.
fn special(f: f64) -> Option<&'static str> {
    if f.is_nan() {
        Some("NaN")
    } else if f.is_infinite() {
        Some(if f > 0.0 { "+Inf" } else { "-Inf" })
    } else {
        None
    }
}

/// Appends Go's exponent suffix: `e`, a sign, and at least two digits (`e+21`, `e-07`).
pub(crate) fn push_exponent(out: &mut String, exponent: i64) {
    out.push('e');
    out.push(if exponent < 0 { '-' } else { '+' });
    let magnitude = exponent.unsigned_abs();
    if magnitude < 10 {
        out.push('0');
    }
    out.push_str(&magnitude.to_string());
}

/// A finite float as Go's `decimalSlice`: `0.d₁d₂… × 10^point`, no trailing zeros; zero has no
/// digits.
struct Digits {
    negative: bool,
    digits: Vec<u8>,
    point: i32,
}

impl Digits {
    /// Reads Rust's `{:e}` text (`-1.2345e-7`, `0e0`).
    fn parse(text: &str) -> Digits {
        let (negative, text) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (mantissa, exponent) = text.split_once('e').unwrap_or((text, "0"));
        let exponent: i32 = exponent.parse().unwrap_or(0);
        let mut digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
        while digits.last() == Some(&b'0') {
            digits.pop();
        }
        Digits {
            negative,
            point: if digits.is_empty() { 0 } else { exponent + 1 },
            digits,
        }
    }

    fn layout(&self, format: FloatFormat) -> String {
        let mut out = String::with_capacity(self.digits.len() + 8);
        if self.negative {
            out.push('-');
        }
        match format {
            FloatFormat::F => self.fixed(&mut out),
            FloatFormat::E => self.exponent(&mut out),
            FloatFormat::G => {
                // Go: "if precision was the shortest possible, use precision 6 for this
                // decision" (`strconv/ftoa.go`).
                let exponent = self.point - 1;
                if !self.digits.is_empty() && !(-4..6).contains(&exponent) {
                    self.exponent(&mut out);
                } else {
                    self.fixed(&mut out);
                }
            }
        }
        out
    }

    fn digit(&self, i: i32) -> char {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.digits.get(i))
            .map_or('0', |&d| char::from(d))
    }

    /// `%e`: one digit, the rest after a point, then the exponent with at least two digits.
    fn exponent(&self, out: &mut String) {
        out.push(self.digit(0));
        if self.digits.len() > 1 {
            out.push('.');
            out.extend(self.digits[1..].iter().map(|&d| char::from(d)));
        }
        let exponent = if self.digits.is_empty() {
            0
        } else {
            self.point - 1
        };
        push_exponent(out, i64::from(exponent));
    }

    /// `%f`: the integer part padded with zeros, then every remaining digit.
    fn fixed(&self, out: &mut String) {
        if self.point > 0 {
            for i in 0..self.point {
                out.push(self.digit(i));
            }
        } else {
            out.push('0');
        }
        let len = i32::try_from(self.digits.len()).unwrap_or(i32::MAX);
        if len > self.point {
            out.push('.');
            // Zeros between the point and the first digit, then the digits after the point.
            for _ in self.point..0 {
                out.push('0');
            }
            for i in self.point.max(0)..len {
                out.push(self.digit(i));
            }
        }
    }
}
