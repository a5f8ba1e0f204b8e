//! Keeping the session's known secrets ([`tfp_secrets::Secrets`]) out of recordings, whatever the
//! schema says: what the engine sent as secret and the provider's credentials, wherever they
//! appear in a request or response (a tag's value, the same value copied into `tags_all` by the
//! provider, a function's argument, a diagnostic quoting it).
//!
//! `redact` hides what the schema marks; this hides by value. In `DynamicValue`s and
//! `RawState`s a string holding a secret is masked as free text is (a string equal to one becomes
//! [`REDACTED`]; a path or a URL made from one keeps the rest) and a number equal to one becomes
//! 0, decoded without a schema (msgpack and JSON describe themselves well enough), so the shape and
//! types are kept and the recording still decodes. Every other string field is masked, and a bytes
//! field holding a secret (a provider's private state) is recorded as [`REDACTED`] whole, since
//! its format is the provider's. The replayer takes a recorded [`REDACTED`] (inside a string, a
//! 0 where the real value differs, bytes that are [`REDACTED`]) as the value it replaced: see
//! `matches_msgpack` and [`crate::compare`].

use prost_reflect::{DynamicMessage, ReflectMessage as _, Value as Field};
use rmpv::Value as Mp;
use serde_json::Value as Json;

use tfp_secrets::{REDACTED, Secrets};

use crate::{DYNAMIC_VALUE, RAW_STATE};

/// Hides every known secret in `message`; whether it hid any.
pub fn hide_message(secrets: &Secrets, message: &mut DynamicMessage) -> bool {
    if secrets.is_empty() {
        return false;
    }
    let mut hid = false;
    let encoded = matches!(message.descriptor().full_name(), DYNAMIC_VALUE | RAW_STATE);
    for (field, value) in message.fields_mut() {
        let name = field.name();
        let mut each: Vec<&mut Field> = match value {
            Field::List(items) => items.iter_mut().collect(),
            Field::Map(entries) => entries.values_mut().collect(),
            single => vec![single],
        };
        for item in &mut each {
            match &mut **item {
                Field::String(s) => {
                    let masked = secrets.mask(s);
                    if masked != s.as_str() {
                        *s = masked.into_owned();
                        hid = true;
                    }
                }
                Field::Bytes(bytes) if encoded && name == "msgpack" => {
                    if let Some(hidden) = hide_msgpack(secrets, bytes) {
                        *bytes = hidden.into();
                        hid = true;
                    }
                }
                Field::Bytes(bytes) if encoded && name == "json" => {
                    if let Some(hidden) = hide_json(secrets, bytes) {
                        *bytes = hidden.into();
                        hid = true;
                    }
                }
                Field::Bytes(bytes) if secrets.is_in_bytes(bytes) => {
                    *bytes = REDACTED.as_bytes().to_vec().into();
                    hid = true;
                }
                Field::Message(inner) => hid |= hide_message(secrets, inner),
                _ => {}
            }
        }
    }
    hid
}

/// The msgpack bytes with every secret hidden, or `None` when there was none (or the bytes do
/// not decode, which the schema's redaction has already handled).
fn hide_msgpack(secrets: &Secrets, bytes: &[u8]) -> Option<Vec<u8>> {
    let mut value = rmpv::decode::read_value(&mut &bytes[..]).ok()?;
    if !hide_mp(secrets, &mut value) {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len());
    rmpv::encode::write_value(&mut out, &value).ok()?;
    Some(out)
}

fn hide_mp(secrets: &Secrets, value: &mut Mp) -> bool {
    if let Mp::String(s) = value {
        let Some(text) = s.as_str() else {
            return false;
        };
        let masked = secrets.mask_value(text);
        if masked == text {
            return false;
        }
        *value = Mp::from(masked.into_owned());
        return true;
    }
    let secret = match value {
        Mp::Integer(n) => n.as_f64().is_some_and(|n| secrets.is_number(n)),
        Mp::F64(n) => secrets.is_number(*n),
        Mp::F32(n) => secrets.is_number(f64::from(*n)),
        Mp::Array(items) => return items.iter_mut().fold(false, |c, v| hide_mp(secrets, v) | c),
        // Keys are attribute names or map keys; only values are hidden.
        Mp::Map(entries) => {
            return entries
                .iter_mut()
                .fold(false, |c, (_, v)| hide_mp(secrets, v) | c);
        }
        _ => false,
    };
    if secret {
        *value = Mp::from(0);
    }
    secret
}

fn hide_json(secrets: &Secrets, bytes: &[u8]) -> Option<Vec<u8>> {
    let mut json: Json = serde_json::from_slice(bytes).ok()?;
    if !hide_js(secrets, &mut json) {
        return None;
    }
    serde_json::to_vec(&json).ok()
}

fn hide_js(secrets: &Secrets, json: &mut Json) -> bool {
    if let Json::String(s) = json {
        let masked = secrets.mask_value(s);
        if masked == s.as_str() {
            return false;
        }
        *s = masked.into_owned();
        return true;
    }
    let secret = match json {
        Json::Number(n) => n.as_f64().is_some_and(|n| secrets.is_number(n)),
        Json::Array(items) => return items.iter_mut().fold(false, |c, v| hide_js(secrets, v) | c),
        Json::Object(map) => return map.values_mut().fold(false, |c, v| hide_js(secrets, v) | c),
        _ => false,
    };
    if secret {
        *json = Json::from(0);
    }
    secret
}

/// Whether recorded msgpack bytes are the actual ones with secrets hidden: equal but where the
/// recording has [`REDACTED`] for a string or 0 for a number. For values no schema types.
pub(crate) fn matches_msgpack(recorded: &[u8], actual: &[u8]) -> bool {
    let (Ok(recorded), Ok(actual)) = (
        rmpv::decode::read_value(&mut &recorded[..]),
        rmpv::decode::read_value(&mut &actual[..]),
    ) else {
        return false;
    };
    matches_mp(&recorded, &actual)
}

fn matches_mp(recorded: &Mp, actual: &Mp) -> bool {
    let number = |v: &Mp| matches!(v, Mp::Integer(_) | Mp::F32(_) | Mp::F64(_));
    match (recorded, actual) {
        _ if recorded == actual => true,
        (Mp::String(r), Mp::String(a)) => match (r.as_str(), a.as_str()) {
            (Some(r), Some(a)) => r == REDACTED || matches_text(r, a),
            (Some(r), None) => r == REDACTED,
            _ => false,
        },
        (r, a) if number(r) && number(a) => r.as_f64() == Some(0.0),
        (Mp::Array(r), Mp::Array(a)) => {
            r.len() == a.len() && r.iter().zip(a).all(|(r, a)| matches_mp(r, a))
        }
        (Mp::Map(r), Mp::Map(a)) => {
            r.len() == a.len()
                && r.iter()
                    .zip(a)
                    .all(|((rk, rv), (ak, av))| rk == ak && matches_mp(rv, av))
        }
        _ => false,
    }
}

/// Whether recorded JSON is the actual JSON with secrets hidden.
pub(crate) fn matches_json(recorded: &Json, actual: &Json) -> bool {
    match (recorded, actual) {
        _ if recorded == actual => true,
        (Json::String(r), Json::String(a)) => r == REDACTED || matches_text(r, a),
        (Json::Number(r), Json::Number(_)) => r.as_f64() == Some(0.0),
        (Json::Array(r), Json::Array(a)) => {
            r.len() == a.len() && r.iter().zip(a).all(|(r, a)| matches_json(r, a))
        }
        (Json::Object(r), Json::Object(a)) => {
            r.len() == a.len()
                && r.iter()
                    .all(|(k, rv)| a.get(k).is_some_and(|av| matches_json(rv, av)))
        }
        _ => false,
    }
}

/// Whether a recorded string is the actual one with secrets masked: each [`REDACTED`] in it
/// stands for some non-empty text.
pub(crate) fn matches_text(recorded: &str, actual: &str) -> bool {
    if recorded == actual {
        return true;
    }
    let mut parts = recorded.split(REDACTED);
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = actual.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return false;
    };
    for part in middle {
        // Each placeholder hides at least one character.
        let Some(skip) = rest.chars().next().map(char::len_utf8) else {
            return false;
        };
        let Some(at) = rest[skip..].find(part) else {
            return false;
        };
        rest = &rest[skip + at + part.len()..];
    }
    rest.len() > last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets() -> Secrets {
        let secrets = Secrets::default();
        secrets.remember_text("tag-value-1234");
        secrets.remember_number(4242.0);
        secrets
    }

    #[test]
    fn msgpack_values_equal_to_secrets_are_hidden_and_still_match() {
        let secrets = secrets();
        let value = Mp::Map(vec![
            (
                Mp::from("tags"),
                Mp::Map(vec![(Mp::from("Name"), Mp::from("tag-value-1234"))]),
            ),
            (Mp::from("delay"), Mp::from(4242)),
            (Mp::from("name"), Mp::from("plain")),
        ]);
        let mut bytes = Vec::new();
        rmpv::encode::write_value(&mut bytes, &value).expect("encodes");
        let hidden = hide_msgpack(&secrets, &bytes).expect("something was hidden");
        let decoded = rmpv::decode::read_value(&mut &hidden[..]).expect("still decodes");
        let expected = Mp::Map(vec![
            (
                Mp::from("tags"),
                Mp::Map(vec![(Mp::from("Name"), Mp::from(REDACTED))]),
            ),
            (Mp::from("delay"), Mp::from(0)),
            (Mp::from("name"), Mp::from("plain")),
        ]);
        assert_eq!(decoded, expected);
        assert!(matches_msgpack(&hidden, &bytes));
        assert!(
            !matches_msgpack(&bytes, &hidden),
            "only the recording holds placeholders"
        );
        assert_eq!(
            hide_msgpack(&secrets, &hidden),
            None,
            "nothing left to hide"
        );
    }

    #[test]
    fn json_values_equal_to_secrets_are_hidden_and_still_match() {
        let secrets = secrets();
        let actual = serde_json::json!({"tags": {"Name": "tag-value-1234"}, "n": 4242, "x": 1});
        let hidden = hide_json(&secrets, &serde_json::to_vec(&actual).expect("encodes"))
            .expect("something was hidden");
        let hidden: Json = serde_json::from_slice(&hidden).expect("parses");
        assert_eq!(
            hidden,
            serde_json::json!({"tags": {"Name": REDACTED}, "n": 0, "x": 1})
        );
        assert!(matches_json(&hidden, &actual));
    }

    #[test]
    fn masked_text_matches_what_it_hid() {
        assert!(matches_text("got <redacted>.", "got tag-value-1234."));
        assert!(matches_text("<redacted> and <redacted>", "a and b"));
        assert!(!matches_text("got <redacted>.", "got ."));
        assert!(!matches_text("got <redacted>.", "set x."));
        assert!(!matches_text("plain", "other"));
    }
}
