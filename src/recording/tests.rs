//! The record format (`tfp_recording::transcript`) and its readable view on real tfplugin6
//! messages, which only the root package can name.

use proptest::prelude::*;
use serde_json::json;
use tfp_cty::{Type, Value};
use tfp_recording::{
    Record,
    show::ShowError,
    transcript::{from_go_json, from_text, to_dynamic, to_go_json, to_text},
};

use super::{method, show};
use crate::proto::tfplugin6 as v6;

/// A request through the text format and a response through Go JSON, back to themselves.
fn round_trip(
    request: &v6::apply_resource_change::Request,
    response: &v6::apply_resource_change::Response,
) {
    let (request_desc, response_desc) = method("ApplyResourceChange").expect("a method");
    let text = to_text(&to_dynamic(request_desc.clone(), request).expect("decodes"));
    assert!(!text.contains('\n'), "one line: {text}");
    let parsed = from_text(request_desc, &text).expect("our text parses");
    assert_eq!(
        &parsed
            .transcode_to::<v6::apply_resource_change::Request>()
            .expect("transcodes"),
        request,
        "{text}"
    );
    let json = to_go_json(&to_dynamic(response_desc.clone(), response).expect("decodes"));
    let parsed = from_go_json(&response_desc, &json).expect("our JSON parses");
    assert_eq!(
        &parsed
            .transcode_to::<v6::apply_resource_change::Response>()
            .expect("transcodes"),
        response,
        "{json}"
    );
}

fn step() -> impl Strategy<Value = v6::attribute_path::Step> {
    use v6::attribute_path::step::Selector;
    prop_oneof![
        any::<String>().prop_map(Selector::AttributeName),
        any::<String>().prop_map(Selector::ElementKeyString),
        any::<i64>().prop_map(Selector::ElementKeyInt),
    ]
    .prop_map(|selector| v6::attribute_path::Step {
        selector: Some(selector),
    })
}

proptest! {
    #[test]
    fn messages_survive_the_record_format(
        type_name in any::<String>(),
        msgpack in proptest::collection::vec(any::<u8>(), 0..64),
        private in proptest::collection::vec(any::<u8>(), 0..16),
        summary in any::<String>(),
        severity in 0i32..3,
        steps in proptest::collection::vec(step(), 0..4),
        legacy in any::<bool>(),
    ) {
        let value = v6::DynamicValue { msgpack: msgpack.clone(), json: vec![] };
        let request = v6::apply_resource_change::Request {
            type_name,
            prior_state: Some(value.clone()),
            planned_private: private.clone(),
            ..Default::default()
        };
        let response = v6::apply_resource_change::Response {
            new_state: Some(value),
            private,
            diagnostics: vec![v6::Diagnostic {
                severity,
                summary,
                detail: String::new(),
                attribute: Some(v6::AttributePath { steps }),
            }],
            legacy_type_system: legacy,
            ..Default::default()
        };
        round_trip(&request, &response);
    }
}

/// A ValidateResourceConfig response with one diagnostic, as Go's JSON.
fn diagnostic_json(diagnostic: v6::Diagnostic) -> String {
    let (_, desc) = method("ValidateResourceConfig").expect("a method");
    let response = v6::validate_resource_config::Response {
        diagnostics: vec![diagnostic],
    };
    to_go_json(&to_dynamic(desc, &response).expect("decodes"))
}

#[test]
fn oneofs_are_written_as_go_writes_them() {
    use v6::attribute_path::step::Selector;
    let step = |selector| v6::attribute_path::Step {
        selector: Some(selector),
    };
    let json = diagnostic_json(v6::Diagnostic {
        severity: 1,
        summary: "bad".into(),
        detail: String::new(),
        attribute: Some(v6::AttributePath {
            steps: vec![
                step(Selector::AttributeName("tags".into())),
                step(Selector::ElementKeyInt(0)),
            ],
        }),
    });
    assert_eq!(
        json,
        r#"{"diagnostics":[{"severity":1,"summary":"bad","attribute":{"steps":[{"Selector":{"AttributeName":"tags"}},{"Selector":{"ElementKeyInt":0}}]}}]}"#
    );
}

#[test]
fn text_is_escaped_as_go_1_22_escapes_it() {
    let json = diagnostic_json(v6::Diagnostic {
        severity: 1,
        summary: "a\u{8}b\u{c}<c>".into(),
        ..Default::default()
    });
    // The copy this replaced wrote \u0008 and \u000c; Go 1.22 and later write \b and \f.
    assert_eq!(
        json,
        r#"{"diagnostics":[{"severity":1,"summary":"a\bb\f\u003cc\u003e"}]}"#
    );
}

#[test]
fn a_call_shows_its_values_decoded() {
    let ty = Type::object([
        ("id".to_owned(), Type::String),
        ("size".to_owned(), Type::Number),
    ]);
    let value = Value::object([
        ("id", Value::unknown(Type::String)),
        ("size", Value::number(tfp_cty::Number::from_i64(3))),
    ]);
    let request = v6::plan_resource_change::Request {
        type_name: "thing".into(),
        proposed_new_state: Some(v6::DynamicValue {
            msgpack: tfp_cty::to_msgpack(&value, &ty).expect("encodes"),
            json: vec![],
        }),
        prior_private: br#"{"schema_version":"1"}"#.to_vec(),
        ..Default::default()
    };
    let response = v6::plan_resource_change::Response {
        requires_replace: vec![],
        legacy_type_system: true,
        ..Default::default()
    };
    let (request_desc, response_desc) = method("PlanResourceChange").expect("a method");
    let record = Record {
        name: "x.PlanResourceChange".into(),
        request: to_text(&to_dynamic(request_desc, &request).expect("decodes")),
        response: to_go_json(&to_dynamic(response_desc, &response).expect("decodes")),
        ..Record::default()
    };
    assert_eq!(
        show(&record).expect("shows"),
        json!({
            "method": "PlanResourceChange",
            "request": {
                "type_name": "thing",
                "proposed_new_state": {"id": "<unknown>", "size": 3},
                "prior_private": {"schema_version": "1"},
            },
            "response": {"legacy_type_system": true},
        })
    );
    let broken = Record {
        request: "type_name: ".into(),
        ..record
    };
    assert!(matches!(show(&broken), Err(ShowError::Request { .. })));
}
