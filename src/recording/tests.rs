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

/// The replayer on real tfplugin6 requests.
mod replay {
    use tfp_cty::{Type, Value};
    use tfp_recording::{
        REDACTED, Record,
        transcript::{self, to_dynamic},
    };

    use crate::{
        proto::tfplugin6 as v6,
        recording::{self, protocols, replay::Replayer},
    };

    const TAGS: &str = "[\"set\",\"string\"]";

    /// A provider with one resource `thing {name, tags: set(string), secret (sensitive)}`.
    fn schema_record() -> Record {
        let attribute = |name: &str, ty: &str, sensitive: bool| v6::schema::Attribute {
            name: name.into(),
            r#type: ty.as_bytes().to_vec(),
            optional: true,
            sensitive,
            ..Default::default()
        };
        let mut response = v6::get_provider_schema::Response::default();
        response.resource_schemas.insert(
            "thing".into(),
            v6::Schema {
                version: 0,
                block: Some(v6::schema::Block {
                    attributes: vec![
                        attribute("name", "\"string\"", false),
                        attribute("tags", TAGS, false),
                        attribute("secret", "\"string\"", true),
                    ],
                    ..Default::default()
                }),
            },
        );
        let (_, desc) = recording::method("GetProviderSchema").expect("a method");
        Record {
            name: "x.GetProviderSchema".into(),
            response: transcript::to_go_json(&to_dynamic(desc, &response).expect("decodes")),
            ..Record::default()
        }
    }

    /// A ValidateResourceConfig request of `thing` whose set is written in the order given.
    fn request(tags: &[&str], secret: &str) -> v6::validate_resource_config::Request {
        let ty = Type::object([
            ("name".to_owned(), Type::String),
            ("secret".to_owned(), Type::String),
            ("tags".to_owned(), Type::Set(Type::String.into())),
        ]);
        let tags = tags.iter().map(|t| Value::string(*t)).collect();
        let value = Value::object([
            ("name", Value::string("a")),
            ("secret", Value::string(secret)),
            ("tags", Value::set_in_order(Type::String, tags)),
        ]);
        v6::validate_resource_config::Request {
            type_name: "thing".into(),
            config: Some(v6::DynamicValue {
                msgpack: tfp_cty::to_msgpack(&value, &ty).expect("encodes"),
                json: vec![],
            }),
            client_capabilities: None,
        }
    }

    fn replayer(recorded: &v6::validate_resource_config::Request) -> Replayer {
        let (desc, _) = recording::method("ValidateResourceConfig").expect("a method");
        let record = Record {
            name: "x.ValidateResourceConfig".into(),
            request: transcript::to_text(&to_dynamic(desc, recorded).expect("decodes")),
            response: "{}".into(),
            ..Record::default()
        };
        Replayer::new(protocols(), vec![schema_record(), record]).expect("a valid recording")
    }

    fn check(
        recorded: &v6::validate_resource_config::Request,
        actual: &v6::validate_resource_config::Request,
    ) -> Result<(), String> {
        let (desc, _) = recording::method("ValidateResourceConfig").expect("a method");
        let actual = to_dynamic(desc, actual).expect("decodes");
        replayer(recorded)
            .unary("ValidateResourceConfig", &actual)
            .map(|_| ())
            .map_err(|status| status.message().to_owned())
    }

    #[test]
    fn values_compare_by_meaning() {
        let recorded = request(&["x", "y"], "pw");
        // The same set in another order is the same value.
        assert_eq!(check(&recorded, &request(&["y", "x"], "pw")), Ok(()));
        // A redacted recording matches the real secret.
        assert_eq!(check(&request(&["x", "y"], REDACTED), &recorded), Ok(()));
        let err = check(&recorded, &request(&["x", "z"], "pw")).expect_err("differs");
        assert!(
            err.contains(
                "config.msgpack (attribute .tags): the recorded set has \"y\", this one does not"
            ),
            "{err}"
        );
        // A different secret is reported without showing either value.
        let err = check(&recorded, &request(&["x", "y"], "other")).expect_err("differs");
        assert!(
            err.contains("(attribute .secret): sensitive values differ"),
            "{err}"
        );
        assert!(!err.contains("pw") && !err.contains("other"), "{err}");
    }
}

/// The services the recording pass-through serves.
mod passthrough {
    use tfp_record_replay::passthrough::{Kind, methods};

    use crate::recording::protocols;

    #[test]
    fn every_method_of_both_protocols_is_known_with_its_tfplugin6_twin() {
        let v5 = methods(protocols(), 5);
        let v6 = methods(protocols(), 6);
        assert!(
            v5.len() >= 28 && v6.len() >= 36,
            "{} {}",
            v5.len(),
            v6.len()
        );
        // Every v5 method has a v6 twin to be recorded as.
        for method in &v5 {
            assert!(method.recorded.is_some(), "{}", method.name);
        }
        let twin = |name: &str| {
            v5.iter()
                .find(|m| m.name == name)
                .and_then(|m| m.recorded.clone())
        };
        assert_eq!(twin("GetSchema").as_deref(), Some("GetProviderSchema"));
        assert_eq!(twin("Configure").as_deref(), Some("ConfigureProvider"));
        assert_eq!(twin("Stop").as_deref(), Some("StopProvider"));
        let kind = |name: &str| v6.iter().find(|m| m.name == name).map(|m| m.kind);
        assert_eq!(kind("ListResource"), Some(Kind::ServerStreaming));
        assert_eq!(kind("WriteStateBytes"), Some(Kind::ClientStreaming));
        assert_eq!(kind("PlanResourceChange"), Some(Kind::Unary));
    }
}

/// What the recording keeps no schema for is hidden whole, even with the provider's schema at
/// hand: an action's and a state store's configuration, and the state a store moves. Function
/// arguments, which no schema types, are kept by design.
#[test]
fn values_the_recording_has_no_schema_for_are_hidden_whole() {
    use prost::Message as _;
    use prost_reflect::{DynamicMessage, ReflectMessage as _};
    use tfp_recording::redact::{Context, Schemas, redact_message};

    let secret = "hunter2-in-a-state-store";
    let value = Value::object([("secret_key", Value::string(secret))]);
    let ty = value.ty();
    let config = Some(v6::DynamicValue {
        msgpack: tfp_cty::to_msgpack(&value, &ty).expect("encodes"),
        json: Vec::new(),
    });
    let schemas = Schemas::new(tfp_cty::ProviderSchema::default());
    let holds = |message: &DynamicMessage| {
        let bytes = message.encode_to_vec();
        bytes.windows(secret.len()).any(|w| w == secret.as_bytes())
    };
    let redacted = |method: &str, mut message: DynamicMessage| {
        assert!(holds(&message), "{method} holds the secret before");
        redact_message(Some(&schemas), &Context::of(method, &message), &mut message);
        message
    };

    let store = v6::configure_state_store::Request {
        type_name: "tfptest_store".into(),
        config: config.clone(),
        ..Default::default()
    };
    assert!(!holds(&redacted(
        "ConfigureStateStore",
        store.transcode_to_dynamic()
    )));
    let action = v6::plan_action::Request {
        action_type: "tfptest_notify".into(),
        config: config.clone(),
        ..Default::default()
    };
    assert!(!holds(&redacted(
        "PlanAction",
        action.transcode_to_dynamic()
    )));
    let chunk = v6::read_state_bytes::ResponseChunk {
        bytes: format!(r#"{{"resources":[{{"password":"{secret}"}}]}}"#).into_bytes(),
        ..Default::default()
    };
    assert!(!holds(&redacted(
        "ReadStateBytes",
        chunk.transcode_to_dynamic()
    )));

    let call = v6::call_function::Request {
        name: "echo".into(),
        arguments: config.into_iter().collect(),
    };
    assert!(holds(&redacted(
        "CallFunction",
        call.transcode_to_dynamic()
    )));
}

/// Known secrets are hidden wherever they are in a recorded message: inside a value's strings
/// (a path made from a secret name), in bytes the provider owns (private state), and in what a
/// function computed from a secret argument, whose every leaf is hidden.
#[test]
fn known_secrets_are_hidden_inside_values_bytes_and_function_results() {
    use prost::Message as _;
    use prost_reflect::{DynamicMessage, ReflectMessage as _};
    use tfp_recording::{
        hide::hide_message,
        redact::{Context, redact_message},
    };
    use tfp_secrets::Secrets;

    let secrets = Secrets::default();
    secrets.remember_text("sekrit-name-3003");
    let holds = |message: &DynamicMessage, text: &str| {
        let bytes = message.encode_to_vec();
        bytes.windows(text.len()).any(|w| w == text.as_bytes())
    };
    let dynamic = |value: &Value| v6::DynamicValue {
        msgpack: tfp_cty::to_msgpack(value, &value.ty()).expect("encodes"),
        json: Vec::new(),
    };

    let state = Value::object([
        ("id", Value::string("/srv/items/sekrit-name-3003")),
        ("name", Value::string("sekrit-name-3003")),
    ]);
    let applied = v6::apply_resource_change::Response {
        new_state: Some(dynamic(&state)),
        private: b"\x81\xa7journal\xb4/tmp/sekrit-name-3003".to_vec(),
        ..Default::default()
    };
    let mut message = applied.transcode_to_dynamic();
    assert!(hide_message(&secrets, &mut message), "it hid something");
    assert!(!holds(&message, "sekrit-name-3003"), "{message:?}");
    let back: v6::apply_resource_change::Response =
        message.transcode_to().expect("still the message");
    assert_eq!(back.private, tfp_secrets::REDACTED.as_bytes());
    let hidden = tfp_cty::from_msgpack(&back.new_state.expect("a state").msgpack, &state.ty())
        .expect("still decodes");
    assert_eq!(
        hidden.attr("id"),
        Some(&Value::string("/srv/items/<redacted>")),
        "the rest of the path is kept"
    );

    // A function given a secret returns it transformed, where no match finds it.
    let call = v6::call_function::Request {
        name: "upper".into(),
        arguments: vec![dynamic(&Value::string("sekrit-name-3003"))],
    };
    let mut request = call.transcode_to_dynamic();
    let context = Context::of("CallFunction", &request);
    assert!(hide_message(&secrets, &mut request));
    let result = v6::call_function::Response {
        result: Some(dynamic(&Value::list(
            tfp_cty::Type::String,
            vec![Value::string("SEKRIT-NAME-3003")],
        ))),
        error: None,
    };
    let mut response = result.transcode_to_dynamic();
    redact_message(None, &context.clone().with_secret_inputs(), &mut response);
    assert!(!holds(&response, "SEKRIT-NAME-3003"));
    let back: v6::call_function::Response = response.transcode_to().expect("the message");
    let kept = tfp_cty::from_msgpack(
        &back.result.expect("a result").msgpack,
        &tfp_cty::Type::List(tfp_cty::Type::String.into()),
    )
    .expect("keeps its type");
    assert_eq!(kept.elements().map(<[Value]>::len), Some(1));
    // Without a secret argument the result is kept, by design.
    let mut response = result.transcode_to_dynamic();
    redact_message(None, &context, &mut response);
    assert!(holds(&response, "SEKRIT-NAME-3003"));
}
