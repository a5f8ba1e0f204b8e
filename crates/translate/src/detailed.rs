//! The detailed diff of a resource: every property path where the planned state differs from the
//! prior state, named as Pulumi names it, with ADD, UPDATE or DELETE, and the `_REPLACE` kinds
//! under the paths the provider says force a replacement.
//!
//! The Go binary sends no detailed diff, so a preview only lists top-level names. We walk the
//! prior and planned cty values together, naming attributes through the mapping's fields;
//! flattened (MaxItemsOne) blocks are looked through as Pulumi shows them; sets are compared as
//! sets, so a reordering is no change and an element that changed shows as DELETE of the old
//! and ADD of the new one. A null (or an empty flattened block) is an absent property, as in the
//! outputs.

use tfp_cty::{Kind as Value_, Path, PathStep, Value};
use tfp_mapping::{Fields, Shape};
use tfp_values::property_path::{self, Keys, Step};
use tfp_values::{DetailedDiff as Detailed, DiffKind as Kind};

static SCALAR: Shape = Shape::Scalar;

/// The detailed diff of one top-level attribute `tf_name` (absent values are null).
pub fn attribute(fields: &Fields, tf_name: &str, prior: &Value, planned: &Value) -> Detailed {
    let mut out = Detailed::new();
    let (name, flatten, shape) = child(Some(fields), tf_name);
    let mut path = vec![Step::Key(name)];
    value(shape, flatten, prior, planned, &mut path, &mut out);
    out
}

/// The Pulumi name, flattening and shape of attribute `tf_name` of an object.
fn child<'a>(fields: Option<&'a Fields>, tf_name: &str) -> (String, bool, &'a Shape) {
    match fields {
        Some(fields) => {
            let field = fields.get(tf_name);
            (
                fields.pulumi_name(tf_name).into_owned(),
                field.is_some_and(|f| f.flatten),
                field.map_or(&SCALAR, |f| &f.shape),
            )
        }
        // Objects inside dynamic values keep their keys.
        None => (tf_name.to_owned(), false, &SCALAR),
    }
}

fn element(shape: &Shape) -> &Shape {
    match shape {
        Shape::List(inner) | Shape::Set(inner) | Shape::Map(inner) => inner,
        _ => &SCALAR,
    }
}

fn object_fields(shape: &Shape) -> Option<&Fields> {
    match shape {
        Shape::Object(fields) => Some(fields),
        _ => None,
    }
}

/// Whether Pulumi shows a value: not null, and for a flattened block not empty.
fn shown(v: &Value, flatten: bool) -> bool {
    let empty_block = flatten && v.is_known() && v.elements().is_some_and(<[Value]>::is_empty);
    !v.is_null() && !empty_block
}

fn value(
    shape: &Shape,
    flatten: bool,
    old: &Value,
    new: &Value,
    path: &mut Vec<Step>,
    out: &mut Detailed,
) {
    if old == new {
        return;
    }
    let (was, is) = (shown(old, flatten), shown(new, flatten));
    if !was && !is {
        return;
    }
    let here = |out: &mut Detailed, path: &[Step], kind: Kind| {
        out.insert(property_path::render(path, Keys::Whole), kind);
    };
    if !was {
        return here(out, path, Kind::Add);
    }
    if !is {
        return here(out, path, Kind::Delete);
    }
    if !old.is_known() || !new.is_known() {
        return here(out, path, Kind::Update);
    }
    if flatten && let (Some([a]), Some([b])) = (old.elements(), new.elements()) {
        return value(element(shape), false, a, b, path, out);
    }
    let before = out.len();
    match (&old.kind, &new.kind) {
        (Value_::Object(a), Value_::Object(b)) => {
            let fields = object_fields(shape);
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for key in keys {
                let (name, flat, inner) = child(fields, key);
                let null = Value::null(tfp_cty::Type::Dynamic);
                let (x, y) = (a.get(key).unwrap_or(&null), b.get(key).unwrap_or(&null));
                path.push(Step::Key(name));
                value(inner, flat, x, y, path, out);
                path.pop();
            }
        }
        (Value_::Map(_, a), Value_::Map(_, b)) => {
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for key in keys {
                let null = Value::null(tfp_cty::Type::Dynamic);
                let (x, y) = (a.get(key).unwrap_or(&null), b.get(key).unwrap_or(&null));
                path.push(Step::Key(key.clone()));
                value(element(shape), false, x, y, path, out);
                path.pop();
            }
        }
        (Value_::List(_, a), Value_::List(_, b)) => sequence(element(shape), a, b, path, out),
        (Value_::Tuple(a), Value_::Tuple(b)) => {
            for i in 0..a.len().max(b.len()) {
                let inner = match shape {
                    Shape::Tuple(shapes) => shapes.get(i).unwrap_or(&SCALAR),
                    _ => &SCALAR,
                };
                path.push(Step::Index(i));
                pair(inner, a.get(i), b.get(i), path, out);
                path.pop();
            }
        }
        (Value_::Set(_, a), Value_::Set(_, b)) => set(element(shape), a, b, path, out),
        _ => {}
    }
    // Values that differ only where Pulumi cannot see still differ.
    if out.len() == before {
        here(out, path, Kind::Update);
    }
}

fn pair(
    shape: &Shape,
    a: Option<&Value>,
    b: Option<&Value>,
    path: &mut Vec<Step>,
    out: &mut Detailed,
) {
    match (a, b) {
        (Some(x), Some(y)) => value(shape, false, x, y, path, out),
        (Some(_), None) => {
            out.insert(property_path::render(path, Keys::Whole), Kind::Delete);
        }
        (None, Some(_)) => {
            out.insert(property_path::render(path, Keys::Whole), Kind::Add);
        }
        (None, None) => {}
    }
}

fn sequence(shape: &Shape, a: &[Value], b: &[Value], path: &mut Vec<Step>, out: &mut Detailed) {
    for i in 0..a.len().max(b.len()) {
        path.push(Step::Index(i));
        pair(shape, a.get(i), b.get(i), path, out);
        path.pop();
    }
}

/// Set elements only in the old set are deleted at their old index, elements only in the new
/// set added at their new index; the same index on both sides is an update of it.
fn set(shape: &Shape, a: &[Value], b: &[Value], path: &mut Vec<Step>, out: &mut Detailed) {
    // Both in ascending order, so each is searched by bisection.
    let removed = tfp_cty::elements_not_in(a, b);
    let added = tfp_cty::elements_not_in(b, a);
    for &i in &removed {
        path.push(Step::Index(i));
        if added.binary_search(&i).is_ok() {
            value(shape, false, &a[i], &b[i], path, out);
        } else {
            out.insert(property_path::render(path, Keys::Whole), Kind::Delete);
        }
        path.pop();
    }
    for &i in added.iter().filter(|i| removed.binary_search(i).is_err()) {
        path.push(Step::Index(i));
        out.insert(property_path::render(path, Keys::Whole), Kind::Add);
        path.pop();
    }
}

/// The Pulumi path of a Terraform attribute path, as the detailed diff names it: indices into
/// flattened blocks vanish.
pub fn pulumi_path(fields: &Fields, path: &Path) -> Vec<Step> {
    let mut out = Vec::new();
    let mut fields = Some(fields);
    let mut shape = &SCALAR;
    let mut flattened = false;
    for step in path.steps() {
        match step {
            PathStep::Attr(name) => {
                let (pulumi, flatten, inner) = child(fields, name);
                out.push(Step::Key(pulumi));
                flattened = flatten;
                shape = inner;
                fields = object_fields(shape);
            }
            PathStep::Index(i) => {
                if !flattened {
                    out.push(Step::Index(usize::try_from(*i).unwrap_or(usize::MAX)));
                }
                flattened = false;
                shape = element(shape);
                fields = object_fields(shape);
            }
            PathStep::Key(key) => {
                out.push(Step::Key(key.clone()));
                flattened = false;
                shape = element(shape);
                fields = object_fields(shape);
            }
        }
    }
    out
}

/// Turns every entry at or under (or above) a replacement path into its `_REPLACE` kind; a
/// replacement path without any entry gets one of its own.
pub fn promote(detailed: &mut Detailed, replace_paths: &[Vec<Step>]) {
    for steps in replace_paths {
        let prefix = property_path::render(steps, Keys::Whole);
        if prefix.is_empty() {
            continue;
        }
        let mut found = false;
        for (key, kind) in detailed.iter_mut() {
            if related(key, &prefix) {
                *kind = kind.replace();
                found = true;
            }
        }
        if !found {
            detailed.insert(prefix, Kind::UpdateReplace);
        }
    }
}

/// Whether one path is the other or lies under it.
fn related(a: &str, b: &str) -> bool {
    let under = |x: &str, y: &str| {
        x == y
            || x.strip_prefix(y)
                .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
    };
    under(a, b) || under(b, a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfp_cty::Type;

    fn check(prior: Value, planned: Value, expected: &[(&str, Kind)]) {
        let fields = Fields::default();
        let got = attribute(&fields, "some_attr", &prior, &planned);
        let expected: Detailed = expected
            .iter()
            .map(|(k, v)| ((*k).to_owned(), *v))
            .collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn leaves_lists_maps_and_sets() {
        let s = |v: &str| Value::string(v);
        check(s("a"), s("a"), &[]);
        check(s("a"), s("b"), &[("someAttr", Kind::Update)]);
        check(
            Value::null(Type::String),
            s("b"),
            &[("someAttr", Kind::Add)],
        );
        check(
            s("a"),
            Value::null(Type::String),
            &[("someAttr", Kind::Delete)],
        );
        check(
            s("a"),
            Value::unknown(Type::String),
            &[("someAttr", Kind::Update)],
        );
        let list = |items: &[&str]| Value::list(Type::String, items.iter().map(|i| s(i)).collect());
        check(
            list(&["a", "b"]),
            list(&["a", "c", "d"]),
            &[("someAttr[1]", Kind::Update), ("someAttr[2]", Kind::Add)],
        );
        let set = |items: &[&str]| Value::set(Type::String, items.iter().map(|i| s(i)).collect());
        check(set(&["a", "b"]), set(&["b", "a"]), &[]);
        check(
            set(&["a", "b"]),
            set(&["a", "c", "d"]),
            &[("someAttr[1]", Kind::Update), ("someAttr[2]", Kind::Add)],
        );
        let map = |k: &str, v: &str| {
            Value::map(Type::String, [(k.to_owned(), s(v))].into_iter().collect())
        };
        check(
            map("a.b", "1"),
            map("a.b", "2"),
            &[("someAttr[\"a.b\"]", Kind::Update)],
        );
    }

    #[test]
    fn sets_of_a_hundred_thousand_elements_are_diffed() {
        // 100,000 elements a side: asking each set whether it holds each element of the
        // other took minutes.
        const COUNT: usize = 100_000;
        let set = |prefix: &str, extra: Option<&str>| {
            let items = (0..COUNT)
                .map(|i| Value::string(format!("{prefix}-{i:08}")))
                .chain(extra.map(Value::string));
            Value::set(Type::String, items.collect())
        };
        let fields = Fields::default();
        let changed = attribute(&fields, "members", &set("a", None), &set("b", None));
        assert_eq!(changed.len(), COUNT);
        assert_eq!(changed.get("members[99999]"), Some(&Kind::Update));
        let grown = attribute(&fields, "members", &set("a", None), &set("a", Some("z")));
        let expected: Detailed = [("members[100000]".to_owned(), Kind::Add)].into();
        assert_eq!(grown, expected);
    }

    #[test]
    fn replacement_paths_promote_their_entries() {
        let mut detailed: Detailed = [
            ("filename".to_owned(), Kind::Update),
            ("content".to_owned(), Kind::Update),
            ("rules[0].port".to_owned(), Kind::Add),
        ]
        .into();
        promote(
            &mut detailed,
            &[
                vec![Step::Key("filename".into())],
                vec![Step::Key("rules".into())],
                vec![Step::Key("other".into())],
            ],
        );
        let expected: Detailed = [
            ("content".to_owned(), Kind::Update),
            ("filename".to_owned(), Kind::UpdateReplace),
            ("other".to_owned(), Kind::UpdateReplace),
            ("rules[0].port".to_owned(), Kind::AddReplace),
        ]
        .into();
        assert_eq!(detailed, expected);
    }
}
