//! `__meta`: the shape the Go binary writes, read and written back.

use tfp_translate::{META_KEY, Meta, StoredIdentity};
use tfp_values::{PropertyMap, PropertyValue};

fn with_meta(text: &str) -> PropertyMap {
    [(META_KEY.to_owned(), PropertyValue::String(text.to_owned()))].into()
}

fn check_read(text: &str, schema_version: i64, private_state: &[u8]) {
    let meta = Meta::read(&with_meta(text)).expect("valid __meta");
    assert_eq!(
        meta,
        Meta {
            schema_version,
            private_state: private_state.to_vec(),
            identity: None,
        },
        "{text}"
    );
}

fn check_write(before: Option<&str>, meta: Meta, after: Option<&str>) {
    let mut props = before.map(with_meta).unwrap_or_default();
    meta.write(&mut props).expect("writes");
    assert_eq!(props.get(META_KEY).and_then(PropertyValue::as_str), after);
}

#[test]
fn reads_what_the_go_bridge_writes() {
    check_read(r#"{"private_state":"bnVsbA=="}"#, 0, b"null");
    check_read(r#"{"schema_version":"2"}"#, 2, b"");
    check_read(
        r#"{"private_state":"eyJhIjoxfQ==","schema_version":"1","other":[1]}"#,
        1,
        br#"{"a":1}"#,
    );
    check_read(r#"{"schema_version":""}"#, 0, b"");
    check_read("null", 0, b"");
    // Absent, or not a string: version 0 and no private state.
    assert_eq!(
        Meta::read(&PropertyMap::new()).expect("absent"),
        Meta::default()
    );
    let number: PropertyMap = [(META_KEY.to_owned(), PropertyValue::Number(1.0))].into();
    assert_eq!(Meta::read(&number).expect("ignored"), Meta::default());
}

#[test]
fn rejects_what_go_rejects() {
    for bad in [
        r#"{"schema_version":2}"#,
        r#"{"schema_version":"x"}"#,
        "{",
        "[]",
        r#"{"private_state":"%%"}"#,
    ] {
        let err = Meta::read(&with_meta(bad)).expect_err("must fail");
        assert!(
            err.to_string().starts_with("invalid `__meta` property"),
            "{err}"
        );
    }
}

#[test]
fn writes_what_the_go_bridge_writes() {
    check_write(None, Meta::default(), None);
    check_write(
        None,
        Meta {
            schema_version: 0,
            private_state: b"null".to_vec(),
            identity: None,
        },
        Some(r#"{"private_state":"bnVsbA=="}"#),
    );
    check_write(
        None,
        Meta {
            schema_version: 3,
            private_state: b"{}".to_vec(),
            identity: None,
        },
        Some(r#"{"private_state":"e30=","schema_version":"3"}"#),
    );
    // Keys we do not know are kept, sorted and escaped as Go re-marshals them; an unchanged
    // version 0 keeps the old text's content.
    check_write(
        Some(
            r#"{"zz":"<&>","e2bfb730-ecaa-11e6-8f88-34363bc7c4c0":{"create":1200000000000,"x":1e21},"schema_version":"7"}"#,
        ),
        Meta::default(),
        Some(
            r#"{"e2bfb730-ecaa-11e6-8f88-34363bc7c4c0":{"create":1200000000000,"x":1e+21},"schema_version":"7","zz":"\u003c\u0026\u003e"}"#,
        ),
    );
    let round = Meta {
        schema_version: 12,
        private_state: vec![0, 255, 10],
        identity: None,
    };
    let mut props = PropertyMap::new();
    round.write(&mut props).expect("writes");
    assert_eq!(Meta::read(&props).expect("reads"), round);
}

#[test]
fn an_identity_is_stored_as_a_json_object_with_its_version() {
    let identity = StoredIdentity {
        schema_version: 1,
        json: r#"{"directory":"/tmp/d","name":"a","n":12345678901234567890}"#.to_owned(),
    };
    let meta = Meta {
        schema_version: 0,
        private_state: Vec::new(),
        identity: Some(identity.clone()),
    };
    let mut props = PropertyMap::new();
    meta.write(&mut props).expect("writes");
    // Keys sorted, the identity an object whose numbers keep their text, its version a string.
    assert_eq!(
        props.get(META_KEY).and_then(PropertyValue::as_str),
        Some(
            r#"{"identity":{"directory":"/tmp/d","name":"a","n":12345678901234567890},"identity_schema_version":"1"}"#
        )
    );
    assert_eq!(Meta::read(&props).expect("reads"), meta);
    // A version 0 identity, with its version written or not.
    for text in [
        r#"{"identity":{"path":"/p"},"identity_schema_version":"0"}"#,
        r#"{"identity":{"path":"/p"}}"#,
    ] {
        let read = Meta::read(&with_meta(text)).expect("reads");
        assert_eq!(
            read.identity,
            Some(StoredIdentity {
                schema_version: 0,
                json: r#"{"path":"/p"}"#.to_owned()
            }),
            "{text}"
        );
    }
}

#[test]
fn a_state_without_identity_keeps_none_and_loses_a_stale_one() {
    // What the Go bridge writes has no identity.
    let go = Meta::read(&with_meta(r#"{"schema_version":"2"}"#)).expect("reads");
    assert_eq!(go.identity, None);
    // Writing a state without identity over `__meta` that had one drops it, and its version.
    check_write(
        Some(r#"{"identity":{"path":"/p"},"identity_schema_version":"0","schema_version":"2"}"#),
        Meta {
            schema_version: 2,
            private_state: Vec::new(),
            identity: None,
        },
        Some(r#"{"schema_version":"2"}"#),
    );
    for bad in [
        r#"{"identity":"x"}"#,
        r#"{"identity":{},"identity_schema_version":"one"}"#,
    ] {
        let err = Meta::read(&with_meta(bad)).expect_err("must fail");
        assert!(
            err.to_string().starts_with("invalid `__meta` property"),
            "{err}"
        );
    }
}
