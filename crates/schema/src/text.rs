//! Small text transforms the schema needs from Go libraries: title-casing of nested type
//! names (`golang.org/x/text/cases.Title(language.Und, cases.NoLower)`), Python names of
//! functions in doc spans (pulumi `codegen/python.PyName`), and doc comments (`genDocComment`).

/// Title-cases `s` without lowering anything: the first cased letter of each word is
/// upper-cased. Words are broken as x/text approximates Unicode word breaking: letters,
/// digits and `_` never break a word; `.`, `:` and `'` do not either, unless two of them
/// follow each other; anything else does. Non-ASCII letters count as cased letters.
/// The result is appended to `out`.
pub(crate) fn title(out: &mut String, s: &str) {
    let mut mid_word = false;
    let mut previous_mid = false;
    // `s[..copied]` is in `out`: the text is copied in runs, between the letters that change.
    let mut copied = 0;
    for (at, c) in s.char_indices() {
        let mid = matches!(c, '.' | ':' | '\'');
        if previous_mid && mid {
            mid_word = false;
        }
        if c.is_alphabetic() {
            if !mid_word {
                let upper = c.to_uppercase();
                if upper.clone().ne(std::iter::once(c)) {
                    out.push_str(&s[copied..at]);
                    out.extend(upper);
                    copied = at + c.len_utf8();
                }
                mid_word = true;
            }
        } else if !(c.is_ascii_digit() || c == '_' || mid || c.is_alphanumeric()) {
            mid_word = false;
        }
        previous_mid = mid;
    }
    out.push_str(&s[copied..]);
}

/// The `snake_case` Python name of a `camelCase` name (`getBucketFile` → `get_bucket_file`,
/// `SHA256Hash` → `sha256_hash`), with a trailing `_` after a Python keyword.
pub(crate) fn py_name(name: &str) -> String {
    #[derive(PartialEq)]
    enum State {
        First,
        Upper,
        Acronym,
        LowerOrNumber,
    }
    let legal_start = |c: char| c.is_alphabetic() || c == '_';
    let legal_part = |c: char| legal_start(c) || c.is_numeric() || c == '_';
    let mut result = String::with_capacity(name.len() + 5);
    let mut component = String::new();
    let mut state = State::First;
    let flush = |result: &mut String, component: &str| {
        if !result.is_empty() {
            result.push('_');
        }
        result.push_str(component);
    };
    for c in name.chars() {
        let c = if legal_part(c) { c } else { '_' };
        match state {
            State::First => {
                if !legal_start(c) {
                    component.push('_');
                }
                if c.is_uppercase() {
                    state = State::Upper;
                    component.extend(c.to_lowercase());
                } else {
                    state = State::LowerOrNumber;
                    component.push(c);
                }
            }
            State::Upper => {
                if c.is_uppercase() {
                    state = State::Acronym;
                    component.extend(c.to_lowercase());
                } else {
                    state = State::LowerOrNumber;
                    component.push(c);
                }
            }
            State::Acronym => {
                if c.is_uppercase() {
                    component.extend(c.to_lowercase());
                } else if c.is_numeric() || c == 's' {
                    state = State::LowerOrNumber;
                    component.push(c);
                } else {
                    let last = component.pop().unwrap_or_default();
                    flush(&mut result, &component);
                    component.clear();
                    component.push(last);
                    component.push(c);
                    state = State::LowerOrNumber;
                }
            }
            State::LowerOrNumber => {
                if c.is_uppercase() {
                    flush(&mut result, &component);
                    component.clear();
                    component.extend(c.to_lowercase());
                    state = State::Upper;
                } else {
                    component.push(c);
                }
            }
        }
    }
    if !component.is_empty() {
        flush(&mut result, &component);
    }
    if PYTHON_KEYWORDS.contains(&result.as_str()) {
        result.push('_');
    }
    result
}

const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "exec", "finally", "for", "from", "global", "if",
    "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "print", "raise", "return",
    "try", "while", "with", "yield",
];

/// A description as Go's `genDocComment` writes it: every line ends with `\n`, except that a
/// blank last line is dropped.
pub(crate) fn doc_comment(text: &str) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = String::with_capacity(text.len() + 1);
    for (i, line) in lines.iter().enumerate() {
        if i + 1 == lines.len() && line.trim().is_empty() {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_like_x_text() {
        for (input, expected) in [
            ("_foo", "_Foo"),
            ("foo_bar", "Foo_bar"),
            ("foo1bar", "Foo1bar"),
            ("foo-bar", "Foo-Bar"),
            ("fooBar", "FooBar"),
            ("1foo", "1Foo"),
            ("foo.bar", "Foo.bar"),
            ("foo bar", "Foo Bar"),
            ("__x", "__X"),
            ("a'b", "A'b"),
            ("x:y", "X:y"),
            ("", ""),
            ("éa b", "Éa B"),
            ("ßx", "SSx"),
            ("aé-ǆ", "Aé-Ǆ"),
        ] {
            let mut titled = String::new();
            title(&mut titled, input);
            assert_eq!(titled, expected, "{input}");
        }
    }

    #[test]
    fn python_names() {
        for (input, expected) in [
            ("getBucket", "get_bucket"),
            ("getBucketFileSignedUrl", "get_bucket_file_signed_url"),
            ("SHA256Hash", "sha256_hash"),
            ("getIPs", "get_ips"),
            ("getHTTPServer", "get_http_server"),
            ("getV2", "get_v2"),
            ("import", "import_"),
        ] {
            assert_eq!(py_name(input), expected, "{input}");
        }
    }

    #[test]
    fn doc_comments_end_lines() {
        assert_eq!(doc_comment("abc"), "abc\n");
        assert_eq!(doc_comment("abc\n"), "abc\n");
        assert_eq!(doc_comment("a\n\nb"), "a\n\nb\n");
        assert_eq!(doc_comment("a\n\n"), "a\n\n");
    }
}
