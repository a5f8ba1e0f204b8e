//! Property paths for error messages, in Pulumi's syntax (`a.b[0]["key.with.dots"]`).
//!
//! The codec passes a path down the recursion as a chain of borrowed links, so keeping it costs
//! nothing until an error renders it. The rendering follows pulumi/pulumi
//! `resource.PropertyPath.String`: a key made only of ASCII letters, digits and `_` follows a dot,
//! any other key is quoted in brackets with `"` escaped. Keys from the wire can be huge, so each
//! is cut to [`MAX_KEY_CHARS`] characters to keep messages bounded.

use std::fmt::Write as _;

/// The longest key shown in a rendered path; longer keys end in `…`.
const MAX_KEY_CHARS: usize = 64;

/// Where a value sits: the top level, or a key or index below a parent.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Path<'a> {
    /// The value handed to the codec.
    Root,
    /// A field of an object (or a member of an archive).
    Key(&'a Path<'a>, &'a str),
    /// An element of an array.
    Index(&'a Path<'a>, usize),
}

impl<'a> Path<'a> {
    /// The path of field `key` below this one.
    pub(crate) fn key(&'a self, key: &'a str) -> Path<'a> {
        Path::Key(self, key)
    }

    /// The path of element `index` below this one.
    pub(crate) fn index(&'a self, index: usize) -> Path<'a> {
        Path::Index(self, index)
    }

    /// The path in Pulumi's syntax; the empty string for the top level.
    pub(crate) fn render(&self) -> String {
        let mut links = Vec::new();
        let mut at = self;
        loop {
            match at {
                Path::Root => break,
                Path::Key(parent, _) | Path::Index(parent, _) => {
                    links.push(at);
                    at = parent;
                }
            }
        }
        let mut out = String::new();
        for (i, link) in links.iter().rev().enumerate() {
            match link {
                Path::Root => {}
                Path::Index(_, index) => {
                    let _ = write!(out, "[{index}]");
                }
                Path::Key(_, key) => push_key(&mut out, key, i == 0),
            }
        }
        out
    }
}

/// Appends one key, bare after a dot when it can be, quoted in brackets otherwise.
fn push_key(out: &mut String, key: &str, first: bool) {
    let bare = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let mut chars = key.chars();
    let shown: String = chars.by_ref().take(MAX_KEY_CHARS).collect();
    let cut = chars.next().is_some();
    if bare {
        if !first {
            out.push('.');
        }
        out.push_str(&shown);
    } else {
        out.push_str("[\"");
        for c in shown.chars() {
            if c == '"' {
                out.push('\\');
            }
            out.push(c);
        }
    }
    if cut {
        out.push('…');
    }
    if !bare {
        out.push_str("\"]");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_pulumi_property_paths() {
        let root = Path::Root;
        assert_eq!(root.render(), "");
        let a = root.key("a");
        let b = a.key("b_1");
        let zero = b.index(0);
        let dots = zero.key("key.with \"dots\"");
        assert_eq!(dots.render(), r#"a.b_1[0]["key.with \"dots\""]"#);
        let empty = root.key("");
        assert_eq!(empty.index(3).render(), r#"[""][3]"#);
        let top_index = root.index(2);
        assert_eq!(top_index.key("x").render(), "[2].x");
    }

    #[test]
    fn long_keys_are_cut() {
        let long = "k".repeat(1000);
        let root = Path::Root;
        let path = root.key(&long);
        let rendered = path.render();
        assert_eq!(rendered, format!("{}…", "k".repeat(MAX_KEY_CHARS)));
        let quoted = "é".repeat(100);
        let path = root.key(&quoted);
        assert_eq!(
            path.render(),
            format!("[\"{}…\"]", "é".repeat(MAX_KEY_CHARS))
        );
    }
}
