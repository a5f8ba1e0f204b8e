//! Secrets carried from what the engine sent into what we answer.
//!
//! Configure answers `acceptSecrets: true`, so the engine sends the secrets of a resource's
//! inputs and state, and of Invoke's arguments, marked as secrets, and marks nothing in our
//! answers itself. For a provider that answers `false` it strips the marks before sending and
//! restores them in the answers (pulumi/pulumi v3.255.0 `pkg/resource/plugin/provider_plugin.go`:
//! `annotateSecrets` after Check, Create, Read and Update; Invoke makes every result secret when
//! an argument held a secret). Those are the rules applied here, so state holds secrets where it
//! did when the engine applied them; the schema's `sensitive` marks are applied besides, where
//! the answers are made. (The engine's own rule after a step, which makes an output secret
//! when the input of the same name is, holds either way: `pkg/resource/deploy/step_executor.go`.)
//!
//! `__meta` and `__pulumi_raw_state_delta` are ours: the engine never sends them as secrets, and
//! they are never made secret here, so that the Go binary and we read them as we wrote them.

use crate::{META_KEY, RAW_STATE_DELTA_KEY};
use tfp_values::{PropertyMap, PropertyValue};

/// Marks `answer` secret wherever the engine would have from `sent`: for each key of `sent` that
/// `answer` also has, two objects are compared key by key; otherwise a value of `sent` holding a
/// secret anywhere makes the answer's whole value secret (an array as a whole, since a provider
/// may reorder one and the secret element move).
pub fn annotate_secrets(answer: &mut PropertyMap, sent: &PropertyMap) {
    for (key, sent) in sent {
        if key == META_KEY || key == RAW_STATE_DELTA_KEY {
            continue;
        }
        let Some(value) = answer.get_mut(key) else {
            continue;
        };
        match (value, sent) {
            (PropertyValue::Object(value), PropertyValue::Object(sent)) => {
                annotate_secrets(value, sent)
            }
            (value, sent) if !value.is_secret() && sent.contains_secrets() => {
                *value = secret(std::mem::replace(value, PropertyValue::Null));
            }
            _ => {}
        }
    }
}

/// `results` with every value secret, as Invoke's results are when an argument held a secret.
pub fn all_secret(results: PropertyMap) -> PropertyMap {
    results
        .into_iter()
        .map(|(key, value)| {
            if value.is_secret() {
                (key, value)
            } else {
                (key, secret(value))
            }
        })
        .collect()
}

/// `value` as one secret: the secrets inside it are unwrapped, the whole being secret.
fn secret(value: PropertyValue) -> PropertyValue {
    PropertyValue::secret(value.remove_secrets())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> PropertyValue {
        PropertyValue::String(text.to_owned())
    }

    fn map(entries: &[(&str, PropertyValue)]) -> PropertyMap {
        entries
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    fn hidden(value: PropertyValue) -> PropertyValue {
        PropertyValue::secret(value)
    }

    #[test]
    fn objects_are_compared_key_by_key_and_anything_else_is_secret_whole() {
        let sent = map(&[
            ("plain", s("a")),
            ("secret", hidden(s("b"))),
            (
                "nested",
                PropertyValue::Object(map(&[("x", hidden(s("c"))), ("y", s("d"))])),
            ),
            ("list", PropertyValue::Array(vec![s("e"), hidden(s("f"))])),
            (
                "whole",
                hidden(PropertyValue::Object(map(&[("z", s("g"))]))),
            ),
            ("absent", hidden(s("h"))),
        ]);
        let mut answer = map(&[
            ("plain", s("A")),
            ("secret", s("B")),
            (
                "nested",
                PropertyValue::Object(map(&[("x", s("C")), ("y", s("D"))])),
            ),
            ("list", PropertyValue::Array(vec![s("F"), s("E")])),
            ("whole", PropertyValue::Object(map(&[("z", s("G"))]))),
            ("computed", s("I")),
        ]);
        annotate_secrets(&mut answer, &sent);
        let expected = map(&[
            ("plain", s("A")),
            ("secret", hidden(s("B"))),
            (
                "nested",
                PropertyValue::Object(map(&[("x", hidden(s("C"))), ("y", s("D"))])),
            ),
            ("list", hidden(PropertyValue::Array(vec![s("F"), s("E")]))),
            (
                "whole",
                hidden(PropertyValue::Object(map(&[("z", s("G"))]))),
            ),
            ("computed", s("I")),
        ]);
        assert_eq!(answer, expected);
    }

    #[test]
    fn a_secret_answer_is_kept_and_a_new_one_holds_no_secret_inside() {
        let sent = map(&[
            ("kept", hidden(s("a"))),
            ("list", PropertyValue::Array(vec![s("b"), hidden(s("c"))])),
        ]);
        let mut answer = map(&[
            ("kept", hidden(s("A"))),
            ("list", PropertyValue::Array(vec![s("B"), hidden(s("C"))])),
        ]);
        annotate_secrets(&mut answer, &sent);
        assert_eq!(answer["kept"], hidden(s("A")));
        assert_eq!(
            answer["list"],
            hidden(PropertyValue::Array(vec![s("B"), s("C")]))
        );
    }

    #[test]
    fn meta_and_the_raw_state_delta_are_never_made_secret() {
        let sent = map(&[
            (META_KEY, hidden(s("{}"))),
            (RAW_STATE_DELTA_KEY, hidden(PropertyValue::Object(map(&[])))),
        ]);
        let mut answer = map(&[
            (META_KEY, s("{}")),
            (RAW_STATE_DELTA_KEY, PropertyValue::Object(map(&[]))),
        ]);
        let before = answer.clone();
        annotate_secrets(&mut answer, &sent);
        assert_eq!(answer, before);
    }

    #[test]
    fn every_result_becomes_secret_once() {
        let results = map(&[("a", s("x")), ("b", hidden(s("y")))]);
        assert_eq!(
            all_secret(results),
            map(&[("a", hidden(s("x"))), ("b", hidden(s("y")))])
        );
    }
}
