//! The detailed diff of two Pulumi property maps, as the engine's
//! `NewDetailedDiffFromObjectDiff(olds.DiffIncludeUnknowns(news))` computes it: the Go bridge's
//! DiffConfig.
//!
//! Objects and arrays are compared key by key and index by index; a leaf that appears is ADD,
//! one that disappears (or becomes null) DELETE, one that changes UPDATE. Unknowns count as
//! values. Secrets are looked through, as the Go bridge reads these inputs without them: a
//! value that only became secret, or stopped being one, is no change, and a change inside a
//! secret is named at its own path.

use std::collections::BTreeMap;

use crate::property_path::{self, Keys, Step};
use crate::{PropertyMap, PropertyValue};

/// How a property changes, as the engine's `detailedDiff` says it (pulumirpc `PropertyDiff.Kind`):
/// added, deleted or updated, each alone or forcing a replacement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffKind {
    Add,
    AddReplace,
    Delete,
    DeleteReplace,
    Update,
    UpdateReplace,
}

impl DiffKind {
    /// The same change, forcing a replacement.
    pub fn replace(self) -> DiffKind {
        match self {
            DiffKind::Add | DiffKind::AddReplace => DiffKind::AddReplace,
            DiffKind::Delete | DiffKind::DeleteReplace => DiffKind::DeleteReplace,
            DiffKind::Update | DiffKind::UpdateReplace => DiffKind::UpdateReplace,
        }
    }
}

/// Changed properties by their rendered Pulumi path.
pub type DetailedDiff = BTreeMap<String, DiffKind>;

/// Every changed path of `news` against `olds`.
pub fn detailed_diff(olds: &PropertyMap, news: &PropertyMap) -> DetailedDiff {
    let mut out = BTreeMap::new();
    let mut path = Vec::new();
    objects(olds, news, &mut path, &mut out);
    out
}

fn objects(olds: &PropertyMap, news: &PropertyMap, path: &mut Vec<Step>, out: &mut DetailedDiff) {
    for (key, old) in olds {
        path.push(Step::Key(key.clone()));
        match news.get(key) {
            Some(new) => values(old, new, path, out),
            None if !revealed(old).is_null() => {
                out.insert(property_path::render(path, Keys::Whole), DiffKind::Delete);
            }
            None => {}
        }
        path.pop();
    }
    for (key, new) in news {
        if !olds.contains_key(key) && !revealed(new).is_null() {
            path.push(Step::Key(key.clone()));
            out.insert(property_path::render(path, Keys::Whole), DiffKind::Add);
            path.pop();
        }
    }
}

fn values(old: &PropertyValue, new: &PropertyValue, path: &mut Vec<Step>, out: &mut DetailedDiff) {
    let (old, new) = (revealed(old), revealed(new));
    match (old, new) {
        (PropertyValue::Object(o), PropertyValue::Object(n)) => objects(o, n, path, out),
        (PropertyValue::Array(o), PropertyValue::Array(n)) => {
            for i in 0..o.len().max(n.len()) {
                path.push(Step::Index(i));
                match (o.get(i), n.get(i)) {
                    (Some(a), Some(b)) => values(a, b, path, out),
                    (Some(_), None) => {
                        out.insert(property_path::render(path, Keys::Whole), DiffKind::Delete);
                    }
                    (None, Some(_)) => {
                        out.insert(property_path::render(path, Keys::Whole), DiffKind::Add);
                    }
                    (None, None) => {}
                }
                path.pop();
            }
        }
        _ if old == new => {}
        _ => {
            let kind = match (old.is_null(), new.is_null()) {
                (true, false) => DiffKind::Add,
                (false, true) => DiffKind::Delete,
                _ => DiffKind::Update,
            };
            out.insert(property_path::render(path, Keys::Whole), kind);
        }
    }
}

/// `value` without the secrets around it.
fn revealed(mut value: &PropertyValue) -> &PropertyValue {
    while let PropertyValue::Secret(inner) = value {
        value = inner;
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_adds_updates_and_deletes() {
        let s = |v: &str| PropertyValue::String(v.to_owned());
        let olds: PropertyMap = [
            ("region".to_owned(), s("us-east-1")),
            ("gone".to_owned(), s("x")),
            (
                "list".to_owned(),
                PropertyValue::Array(vec![s("a"), s("b")]),
            ),
        ]
        .into();
        let news: PropertyMap = [
            ("region".to_owned(), s("us-west-2")),
            ("new".to_owned(), s("y")),
            ("list".to_owned(), PropertyValue::Array(vec![s("a")])),
            ("unknown".to_owned(), PropertyValue::unknown()),
        ]
        .into();
        let diff = detailed_diff(&olds, &news);
        let expected: DetailedDiff = [
            ("gone".to_owned(), DiffKind::Delete),
            ("list[1]".to_owned(), DiffKind::Delete),
            ("new".to_owned(), DiffKind::Add),
            ("region".to_owned(), DiffKind::Update),
            ("unknown".to_owned(), DiffKind::Add),
        ]
        .into();
        assert_eq!(diff, expected);
    }

    #[test]
    fn secrets_are_looked_through() {
        let s = |v: &str| PropertyValue::String(v.to_owned());
        let secret = |v: PropertyValue| PropertyValue::Secret(Box::new(v));
        let tags =
            |b: &str| PropertyValue::Object([("a".into(), s("1")), ("b".into(), s(b))].into());
        let olds: PropertyMap = [
            ("accessKey".to_owned(), s("AKIA1234")),
            ("tags".to_owned(), tags("2")),
            ("gone".to_owned(), secret(s("x"))),
        ]
        .into();
        let news: PropertyMap = [
            ("accessKey".to_owned(), secret(s("AKIA1234"))),
            ("tags".to_owned(), secret(tags("3"))),
            ("nothing".to_owned(), secret(PropertyValue::Null)),
        ]
        .into();
        let expected: DetailedDiff = [
            ("gone".to_owned(), DiffKind::Delete),
            ("tags.b".to_owned(), DiffKind::Update),
        ]
        .into();
        assert_eq!(detailed_diff(&olds, &news), expected);
    }
}
