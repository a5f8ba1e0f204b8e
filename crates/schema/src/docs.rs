//! Description rewriting as the bridge does it without upstream docs (`pkg/tfgen/docs.go`
//! `reformatText`, `fixupPropertyReference`).
//!
//! Outside fenced code blocks: Terraform note markers (`-> `, `~> `, `!> `) become `> `; a
//! leading `\n(Required)\n` or `\n(Optional)\n` goes; `[N]: /docs/providers/…` references
//! and `[text](/path)` links point at terraform.io; other relative links and anchors become
//! their text; and code-like words (`snake_case` words between blanks, quotes, backticks or
//! brackets, and single lowercase words in backticks) become a `<span pulumi-lang-…>` that
//! shows the right name in each language. The result is whitespace-trimmed.
//!
//! Invariant: the regular expressions are Go's, with Go's ASCII `\s` spelled out, and are
//! applied with the same leftmost-first, non-overlapping semantics.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::{Captures, Regex};
use tfp_mapping::{Mapping, camel_case_property};

use crate::text::py_name;

static MARKDOWN_LINK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[([^\]]*)\]\(([^\)]*)\)").expect("the link pattern is valid"));

static PAGE_REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\[[1-9]+\]: /docs/providers(?:/[a-z1-9_]+)+\.[a-z]+")
        .expect("the reference pattern is valid")
});

static CODE_LIKE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"(?P<open>[\t\n\f\r "`\[])(?P<name>(?:[0-9a-z]+_)+[0-9a-z]+)(?P<close>[\t\n\f\r "`\]])"#,
        r"|`(?P<word>[0-9a-z]+)`",
    ))
    .expect("the code-like word pattern is valid")
});

/// Compiles the patterns descriptions are rewritten with; see [`crate::prepare`].
pub(crate) fn prepare() {
    for pattern in [&MARKDOWN_LINK, &PAGE_REFERENCE, &CODE_LIKE] {
        LazyLock::force(pattern);
    }
}

/// Rewrites descriptions for one package, remembering results: providers repeat the same
/// descriptions across resources, inputs, outputs and state.
pub(crate) struct Docs<'a> {
    mapping: &'a Mapping,
    cache: HashMap<String, String>,
}

impl<'a> Docs<'a> {
    pub(crate) fn new(mapping: &'a Mapping) -> Docs<'a> {
        Docs {
            mapping,
            cache: HashMap::new(),
        }
    }

    /// The rewritten form of a Terraform description.
    pub(crate) fn reformat(&mut self, text: &str) -> String {
        if text.is_empty() {
            return String::new();
        }
        if let Some(done) = self.cache.get(text) {
            return done.clone();
        }
        let done = reformat(self.mapping, text);
        self.cache.insert(text.to_owned(), done.clone());
        done
    }
}

fn reformat(mapping: &Mapping, text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let mut start = 0;
    for (block_start, block_end) in code_blocks(text) {
        out.push_str(&clean(mapping, &text[start..block_start]));
        out.push_str(&text[block_start..block_end]);
        start = block_end;
    }
    if start != text.len() {
        out.push_str(&clean(mapping, &text[start..]));
    }
    out.trim().to_owned()
}

/// Fenced code blocks as Go's ``(?ms)```[^\n]*?$.*?```\s*$`` finds them: an opening fence
/// with the rest of its line, up to the first later fence followed by nothing but
/// whitespace up to a line end, that trailing whitespace included up to the last line end it
/// reaches.
fn code_blocks(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let is_space = |b: u8| matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ');
    let mut blocks = Vec::new();
    let mut pos = 0;
    while let Some(offset) = text[pos..].find("```") {
        let open = pos + offset;
        let content = text[open + 3..]
            .find('\n')
            .map_or(text.len(), |i| open + 3 + i);
        let mut search = content;
        let mut end = None;
        while let Some(offset) = text[search..].find("```") {
            let close = search + offset;
            let after = close + 3;
            let mut ws_end = after;
            while ws_end < bytes.len() && is_space(bytes[ws_end]) {
                ws_end += 1;
            }
            // Greedy `\s*` then `$`: the last line end within the whitespace run.
            let line_end = (after..=ws_end)
                .rev()
                .find(|&p| p == bytes.len() || bytes[p] == b'\n');
            if let Some(p) = line_end {
                end = Some(p);
                break;
            }
            search = close + 1;
        }
        match end {
            Some(p) => {
                blocks.push((open, p));
                pos = p;
            }
            // No fence after this one's line closes it, so none closes a later one either (a
            // later opening searches a tail of this one's text): stopping keeps the scan linear
            // on a text of many unclosed fences, as Go's regexp is.
            None => break,
        }
    }
    blocks
}

fn clean(mapping: &Mapping, text: &str) -> String {
    let text = text
        .replace("-> ", "> ")
        .replace("~> ", "> ")
        .replace("!> ", "> ");
    let text = text.strip_prefix("\n(Required)\n").unwrap_or(&text);
    let text = text.strip_prefix("\n(Optional)\n").unwrap_or(text);
    let text = PAGE_REFERENCE.replace_all(text, |c: &Captures<'_>| {
        let whole = &c[0];
        match whole.split_once(' ') {
            Some((label, path)) => format!("{label} https://www.terraform.io{path}"),
            None => whole.to_owned(),
        }
    });
    let text = MARKDOWN_LINK.replace_all(&text, |c: &Captures<'_>| {
        let (label, url) = (&c[1], &c[2]);
        if url.starts_with("http") {
            c[0].to_owned()
        } else if url.starts_with('/') {
            format!("[{label}](https://www.terraform.io{url})")
        } else {
            label.to_owned()
        }
    });
    fixup_property_reference(mapping, &text)
}

/// Rewrites code-like words into language spans.
pub(crate) fn fixup_property_reference(mapping: &Mapping, text: &str) -> String {
    CODE_LIKE
        .replace_all(text, |c: &Captures<'_>| {
            let whole = &c[0];
            let (open, name, close) = match (c.name("open"), c.name("name"), c.name("close")) {
                (Some(o), Some(n), Some(cl)) => (o.as_str(), n.as_str(), cl.as_str()),
                _ => ("`", c.name("word").map_or("", |m| m.as_str()), "`"),
            };
            let wrap = |s: &str| format!("{open}{s}{close}");
            let package = mapping.package();
            if let Some(resource) = mapping.resource(name) {
                let pascal = member_name(&resource.token);
                let short = wrap(pascal);
                let long = wrap(&format!("{package}.{pascal}"));
                span(&long, &long, &short, &short, &long, &long, &wrap(name))
            } else if let Some(data_source) = mapping.data_source(name) {
                let get = member_name(&data_source.token);
                let long = wrap(&format!("{package}.{get}"));
                let go = wrap(get);
                let python = wrap(&py_name(get));
                let hcl = wrap(&format!("data.{name}"));
                span(&long, &long, &go, &python, &long, &long, &hcl)
            } else {
                let camel = camel_case_property(name);
                let mut dotnet = camel.clone();
                if let Some(first) = dotnet.get_mut(0..1) {
                    first.make_ascii_uppercase();
                }
                let camel = wrap(&camel);
                span(&camel, &wrap(&dotnet), &camel, whole, &camel, &camel, whole)
            }
        })
        .into_owned()
}

/// The member name of a token (`pkg:index/string:String` → `String`).
fn member_name(token: &str) -> &str {
    token.rsplit(':').next().unwrap_or(token)
}

/// One span for every language; the default display is the Node.js form.
fn span(
    node: &str,
    dotnet: &str,
    go: &str,
    python: &str,
    yaml: &str,
    java: &str,
    hcl: &str,
) -> String {
    format!(
        "<span pulumi-lang-nodejs=\"{node}\" pulumi-lang-dotnet=\"{dotnet}\" pulumi-lang-go=\"{go}\" pulumi-lang-python=\"{python}\" pulumi-lang-yaml=\"{yaml}\" pulumi-lang-java=\"{java}\" pulumi-lang-hcl=\"{hcl}\">{node}</span>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_fenced_blocks() {
        let text = "a\n```hcl\nx_y = 1\n```\nb";
        assert_eq!(code_blocks(text), vec![(2, 20)]);
        assert_eq!(&text[2..20], "```hcl\nx_y = 1\n```");
        // A fence followed by text on its line does not close the block.
        assert_eq!(code_blocks("```\na``` b\n```"), vec![(0, 14)]);
        // An unclosed fence is no block.
        assert!(code_blocks("```\nopen").is_empty());
        // Trailing blank lines belong to the block up to the last line end.
        assert_eq!(code_blocks("```\nx\n```  \n\nrest"), vec![(0, 12)]);
        // A provider's text of many unclosed fences holds no block (and is read in one pass,
        // not once per fence: this took minutes when each fence searched the rest again).
        assert!(code_blocks(&"```a".repeat(100_000)).is_empty());
        assert!(code_blocks(&"```a\n```b\n".repeat(50_000)).is_empty());
    }
}
