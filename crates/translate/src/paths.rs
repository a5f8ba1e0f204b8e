//! Terraform attribute paths as Pulumi property paths, the way the Go bridge writes them in
//! check failures (`pkg/tfbridge/check_failures.go` `CheckFailurePath`): `rules[0].fromPort`,
//! `tags.Name` or `tags["a b"]`.
//!
//! Quirks kept from Go, since users and tests see the text: a list element under a flattened
//! (MaxItemsOne) block adds nothing, a set element adds nothing unless the set is flattened,
//! where it adds `[?]`; map keys and names follow a dot when they look like identifiers
//! (`^[_a-zA-Z][-_a-zA-Z0-9]*$`) and are quoted in brackets otherwise, with Go's `%q`
//! (`strconv.Quote`).

use std::fmt::Write as _;

use tfp_cty::{NestingMode, PathStep, Type};
use tfp_gostd::strconv::append_quote;

use crate::schema::{Node, ObjectSchema};

/// The Pulumi property path of a Terraform attribute path into an object of `schema`; empty for
/// an empty path. Steps the schema does not know keep their Terraform names.
pub fn property_path(schema: &ObjectSchema<'_>, path: &tfp_cty::Path) -> String {
    let mut out = String::new();
    let mut node = Some(schema.node());
    let mut flattened = false;
    for (i, step) in path.steps().iter().enumerate() {
        match step {
            PathStep::Attr(name) => {
                let child = node.and_then(|n| n.unwrap_single().child(name));
                let pulumi = child.as_ref().map_or(name.as_str(), |c| c.name.as_ref());
                if i == 0 {
                    out.push_str(pulumi);
                } else {
                    push_dot(&mut out, pulumi);
                }
                flattened = child.as_ref().is_some_and(|c| c.flatten);
                node = child.map(|c| c.node);
            }
            PathStep::Index(n) => {
                let set = node.is_some_and(is_set);
                if set && flattened {
                    out.push_str("[?]");
                } else if !set && !flattened {
                    let _ = write!(out, "[{n}]");
                }
                flattened = false;
                node = node.map(|n| n.element());
            }
            PathStep::Key(key) => {
                push_dot(&mut out, key);
                flattened = false;
                node = node.map(|n| n.element());
            }
        }
    }
    out
}

fn is_set(node: Node<'_>) -> bool {
    matches!(node.nesting(), Some(NestingMode::Set)) || matches!(node, Node::Type(Type::Set(_), _))
}

fn push_dot(out: &mut String, name: &str) {
    let mut chars = name.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c == '-' || c.is_ascii_alphanumeric());
    if identifier {
        out.push('.');
        out.push_str(name);
    } else {
        out.push('[');
        append_quote(out, name);
        out.push(']');
    }
}
