//! `ignoreChanges`: for each path, the old value replaces the new one (the Go bridge's
//! `propertyvalue.ApplyIgnoreChanges`).
//!
//! Rules: a leaf only in the new value is deleted, a leaf only in the old value is added back,
//! paths whose intermediate steps do not exist on both sides change nothing, array indices out
//! of range change nothing, and `*` applies the rest of the path to every key or element (and,
//! as in Go, to a key that is `*` itself). A secret or a known output on the way is looked
//! through, on either side (the Go binary never sees one: it does not accept secrets): the new
//! value's wrapper stays where it is, and a new value that takes something from an old secret
//! becomes secret, so nothing loses its secret marking; a path that reaches nothing marks
//! nothing.

use crate::property_path::{self, Step};
use crate::{PropertyMap, PropertyValue};

/// Some `ignoreChanges` paths could not be parsed: each bad one with its index, in order.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("failed to apply ignore changes: {}", parse_failures(.bad))]
pub struct IgnoreChangesError {
    pub bad: Vec<(usize, String)>,
}

/// The Go bridge's text for the paths it could not parse, joined with `; `.
fn parse_failures(bad: &[(usize, String)]) -> String {
    let failures: Vec<String> = bad
        .iter()
        .map(|(i, text)| format!("failed to parse property path {i}: {text}"))
        .collect();
    failures.join("; ")
}

/// The new properties with the old values at every ignored path.
pub fn apply_ignore_changes(
    old: &PropertyMap,
    new: PropertyMap,
    ignore_changes: &[String],
) -> Result<PropertyMap, IgnoreChangesError> {
    let mut parsed = Vec::with_capacity(ignore_changes.len());
    let mut bad = Vec::new();
    for (i, text) in ignore_changes.iter().enumerate() {
        match property_path::parse(text) {
            Ok(steps) => parsed.push(steps),
            Err(_) => bad.push((i, text.clone())),
        }
    }
    if !bad.is_empty() {
        return Err(IgnoreChangesError { bad });
    }
    let old = PropertyValue::Object(old.clone());
    let mut new = PropertyValue::Object(new);
    for steps in parsed.iter().filter(|s| !s.is_empty()) {
        apply_path(steps, &old, &mut new);
    }
    match new {
        PropertyValue::Object(map) => Ok(map),
        _ => Ok(PropertyMap::new()),
    }
}

/// Applies one path from `src` to `dst`; whether it reached anything to copy or delete.
fn apply_path(path: &[Step], src: &PropertyValue, dst: &mut PropertyValue) -> bool {
    let Some((first, rest)) = path.split_first() else {
        *dst = src.clone();
        return true;
    };
    if let Some(inner) = wrapped(src) {
        let applied = apply_path(path, inner, dst);
        // What is copied out of an old secret stays secret: the new value is marked as its old
        // counterpart was.
        if applied && is_secret(src) && !is_secret(dst) {
            *dst = PropertyValue::Secret(Box::new(std::mem::replace(dst, PropertyValue::Null)));
        }
        return applied;
    }
    if let Some(inner) = wrapped_mut(dst) {
        return apply_path(path, src, inner);
    }
    match first {
        Step::Key(key) if key == "*" => {
            let mut applied = false;
            let mut glob_key = false;
            match (src, &mut *dst) {
                (PropertyValue::Array(s), PropertyValue::Array(_)) => {
                    for i in 0..s.len() {
                        let mut expanded = vec![Step::Index(i)];
                        expanded.extend_from_slice(rest);
                        applied |= apply_path(&expanded, src, dst);
                    }
                }
                (PropertyValue::Object(s), PropertyValue::Object(d)) => {
                    let mut keys: Vec<String> = s.keys().chain(d.keys()).cloned().collect();
                    keys.sort();
                    keys.dedup();
                    for key in keys {
                        // A key that is `*` itself is taken as a key below, as in Go, and not
                        // expanded again, which would never end.
                        if key == "*" {
                            glob_key = true;
                            continue;
                        }
                        let mut expanded = vec![Step::Key(key)];
                        expanded.extend_from_slice(rest);
                        applied |= apply_path(&expanded, src, dst);
                    }
                }
                _ => {}
            }
            if glob_key {
                applied |= apply_key(key, rest, src, dst);
            }
            applied
        }
        Step::Key(key) => apply_key(key, rest, src, dst),
        Step::Index(i) => {
            let (PropertyValue::Array(s), PropertyValue::Array(d)) = (src, &mut *dst) else {
                return false;
            };
            match (s.get(*i), d.get_mut(*i)) {
                (Some(v), Some(target)) => apply_path(rest, v, target),
                _ => false,
            }
        }
    }
}

/// Applies the rest of a path below key `key` of two objects.
fn apply_key(key: &str, rest: &[Step], src: &PropertyValue, dst: &mut PropertyValue) -> bool {
    let (PropertyValue::Object(s), PropertyValue::Object(d)) = (src, &mut *dst) else {
        return false;
    };
    match (s.get(key), d.contains_key(key)) {
        (None, true) if rest.is_empty() => {
            d.remove(key);
            true
        }
        (Some(v), false) if rest.is_empty() => {
            d.insert(key.to_owned(), v.clone());
            true
        }
        (Some(v), true) => d
            .get_mut(key)
            .is_some_and(|target| apply_path(rest, v, target)),
        _ => false,
    }
}

/// The value inside a secret or a known output.
fn wrapped(value: &PropertyValue) -> Option<&PropertyValue> {
    match value {
        PropertyValue::Secret(inner) => Some(inner),
        PropertyValue::Output(output) => output.element.as_ref(),
        _ => None,
    }
}

/// Whether `value` is marked secret.
fn is_secret(value: &PropertyValue) -> bool {
    match value {
        PropertyValue::Secret(_) => true,
        PropertyValue::Output(output) => output.secret,
        _ => false,
    }
}

/// [`wrapped`], to change it in place.
fn wrapped_mut(value: &mut PropertyValue) -> Option<&mut PropertyValue> {
    match value {
        PropertyValue::Secret(inner) => Some(inner),
        PropertyValue::Output(output) => output.element.as_mut(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> PropertyValue {
        PropertyValue::String(v.to_owned())
    }

    fn map(entries: &[(&str, PropertyValue)]) -> PropertyMap {
        entries
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    fn check(old: PropertyMap, new: PropertyMap, ignore: &[&str], expected: PropertyMap) {
        let ignore: Vec<String> = ignore.iter().map(|s| (*s).to_owned()).collect();
        assert_eq!(
            apply_ignore_changes(&old, new, &ignore).expect("applies"),
            expected
        );
    }

    /// A list of blocks with one sensitive attribute is stored as a secret as a whole: a path
    /// into it still reaches the old value, and the new value keeps its own marking.
    #[test]
    fn ignored_paths_look_through_secrets_and_outputs() {
        let list = |v: &str| PropertyValue::Array(vec![PropertyValue::Object(map(&[("p", s(v))]))]);
        let secret = |v: PropertyValue| PropertyValue::Secret(Box::new(v));
        let output = |v: PropertyValue| {
            PropertyValue::Output(Box::new(crate::OutputValue {
                element: Some(v),
                secret: false,
                dependencies: Vec::new(),
            }))
        };
        for ignore in ["l[0].p", "l[*].p", "l[0].*"] {
            check(
                map(&[("l", secret(list("old")))]),
                map(&[("l", list("new"))]),
                &[ignore],
                map(&[("l", secret(list("old")))]),
            );
            check(
                map(&[("l", list("old"))]),
                map(&[("l", secret(list("new")))]),
                &[ignore],
                map(&[("l", secret(list("old")))]),
            );
            check(
                map(&[("l", output(list("old")))]),
                map(&[("l", output(list("new")))]),
                &[ignore],
                map(&[("l", output(list("old")))]),
            );
        }
    }

    #[test]
    fn old_values_win_at_ignored_paths() {
        check(
            map(&[("a", s("old")), ("b", s("old"))]),
            map(&[("a", s("new")), ("b", s("new"))]),
            &["a"],
            map(&[("a", s("old")), ("b", s("new"))]),
        );
        check(map(&[]), map(&[("a", s("new"))]), &["a"], map(&[]));
        check(
            map(&[("a", s("old"))]),
            map(&[]),
            &["a"],
            map(&[("a", s("old"))]),
        );
        let tags = |v: &str| PropertyValue::Object(map(&[("x", s(v)), ("y", s(v))]));
        check(
            map(&[("tags", tags("old"))]),
            map(&[("tags", tags("new"))]),
            &["tags.*"],
            map(&[("tags", tags("old"))]),
        );
        let list = |v: &str| PropertyValue::Array(vec![PropertyValue::Object(map(&[("p", s(v))]))]);
        check(
            map(&[("l", list("old"))]),
            map(&[("l", list("new"))]),
            &["l[*].p", "missing.deep"],
            map(&[("l", list("old"))]),
        );
    }

    #[test]
    fn a_glob_also_takes_a_key_that_is_a_star() {
        // As in Go's `applyIgnorePath`: every other key is expanded, and `*` is then applied as
        // the key it also is.
        let tags = |star: &str, a: &str| PropertyValue::Object(map(&[("*", s(star)), ("a", s(a))]));
        for path in ["tags.*", "tags[*]", "tags[\"*\"]"] {
            check(
                map(&[("tags", tags("old", "old"))]),
                map(&[("tags", tags("new", "new"))]),
                &[path],
                map(&[("tags", tags("old", "old"))]),
            );
        }
    }

    #[test]
    fn a_path_that_reaches_nothing_marks_nothing_secret() {
        let secret = |v: PropertyValue| PropertyValue::Secret(Box::new(v));
        let old = map(&[("a", secret(PropertyValue::Object(map(&[("x", s("1"))]))))]);
        let new = map(&[("a", PropertyValue::Object(map(&[("y", s("2"))])))]);
        check(old.clone(), new.clone(), &["a.missing.deep"], new.clone());
        // One that copies from the secret marks what it copied into.
        check(
            old,
            new,
            &["a.x"],
            map(&[(
                "a",
                secret(PropertyValue::Object(map(&[("x", s("1")), ("y", s("2"))]))),
            )]),
        );
    }

    #[test]
    fn bad_paths_are_errors() {
        let err =
            apply_ignore_changes(&map(&[]), map(&[]), &["a[".to_owned()]).expect_err("bad path");
        assert!(
            err.to_string()
                .contains("failed to parse property path 0: a[")
        );
    }
}
