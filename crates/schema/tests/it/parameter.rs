//! The parameter value (§1.6): Go's exact bytes, and Go's parse errors.

use tfp_schema::{ParameterValue, Source};

fn value(
    source: Source,
    includes: &[&str],
    excludes: &[&str],
    provider_name: &str,
) -> ParameterValue {
    let strings = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect();
    ParameterValue {
        source,
        includes: strings(includes),
        excludes: strings(excludes),
        provider_name: provider_name.to_owned(),
        auto_names: vec![],
    }
}

fn remote() -> Source {
    Source::Remote {
        url: "registry.opentofu.org/hashicorp/random".into(),
        version: "3.3.0".into(),
    }
}

#[test]
fn writes_go_bytes_and_reads_them_back() {
    for (v, json) in [
        (
            value(remote(), &[], &[], ""),
            r#"{"remote":{"url":"registry.opentofu.org/hashicorp/random","version":"3.3.0"}}"#,
        ),
        (
            value(
                Source::Local {
                    path: "./path".into(),
                },
                &[],
                &[],
                "",
            ),
            r#"{"local":{"path":"./path"}}"#,
        ),
        (
            value(remote(), &["res1", "res2"], &["x"], "foo"),
            r#"{"remote":{"url":"registry.opentofu.org/hashicorp/random","version":"3.3.0"},"includes":["res1","res2"],"excludes":["x"],"providerName":"foo"}"#,
        ),
        (
            value(
                Source::Local {
                    path: "a&b<c>".into(),
                },
                &[],
                &[],
                "",
            ),
            r#"{"local":{"path":"a\u0026b\u003cc\u003e"}}"#,
        ),
    ] {
        assert_eq!(String::from_utf8(v.to_json()).expect("utf-8"), json);
        assert_eq!(ParameterValue::parse(json.as_bytes()).expect("parses"), v);
    }
}

#[test]
fn rejects_what_go_rejects() {
    for (json, message) in [
        ("nope", "failed to unmarshal: expected ident"),
        (
            r#"{"remote":{"url":"u","version":"1"},"local":{"path":"p"}}"#,
            r#"cannot specify both "remote" and "local""#,
        ),
        ("{}", r#"must specify either "remote" or "local""#),
        (
            r#"{"remote":{"version":"1"}}"#,
            "remote.url cannot be empty",
        ),
        (
            r#"{"remote":{"url":"u"}}"#,
            "remote.version cannot be empty",
        ),
        (r#"{"local":{"path":""}}"#, "local.path cannot be empty"),
    ] {
        let err = ParameterValue::parse(json.as_bytes()).expect_err(json);
        let text = tfp_echo::chain(&err);
        assert!(text.starts_with(message), "{json}: {text}");
    }
}

/// `autoNames`, ours, comes after Go's keys and only when `--auto-name` was given: a value
/// without it is Go's to the byte (above).
#[test]
fn auto_names_come_last_and_are_checked() {
    let v = ParameterValue {
        auto_names: vec!["random_pet.prefix".into()],
        ..value(remote(), &["random_pet"], &[], "rnd")
    };
    let json = r#"{"remote":{"url":"registry.opentofu.org/hashicorp/random","version":"3.3.0"},"includes":["random_pet"],"providerName":"rnd","autoNames":["random_pet.prefix"]}"#;
    assert_eq!(String::from_utf8(v.to_json()).expect("utf-8"), json);
    assert_eq!(ParameterValue::parse(json.as_bytes()).expect("parses"), v);
    assert_eq!(v.options().auto_names, ["random_pet.prefix"]);
    for (names, message) in [
        (
            r#"["prefix"]"#,
            r#"autoNames: invalid --auto-name "prefix": write <resource>.<attribute>"#,
        ),
        (
            r#"["r.a","r.b"]"#,
            "autoNames: --auto-name names two attributes of r: a and b",
        ),
    ] {
        let json = format!(r#"{{"local":{{"path":"./p"}},"autoNames":{names}}}"#);
        let err = ParameterValue::parse(json.as_bytes()).expect_err(&json);
        let text = tfp_echo::chain(&err);
        assert!(text.starts_with(message), "{json}: {text}");
    }
}

#[test]
fn tolerates_nulls_and_unknown_keys() {
    let v = ParameterValue::parse(
        br#"{"remote":{"url":"u","version":"1"},"local":null,"includes":null,"extra":1}"#,
    )
    .expect("parses");
    assert_eq!(
        v,
        value(
            Source::Remote {
                url: "u".into(),
                version: "1".into()
            },
            &[],
            &[],
            ""
        )
    );
    assert_eq!(v.options(), tfp_mapping::Options::default());
}
