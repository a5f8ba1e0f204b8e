//! The record format of `PULUMI_TF_DEBUG_GRPC`, interchangeable with the Go binary's
//! (pulumi-terraform-bridge `dynamic/internal/shim/grpcutil/translate.go`).
//!
//! A recording is a sequence of JSON objects, each written compact and followed by `,\n`, so a
//! file is valid JSON only once wrapped in `[…]` without the last comma; we read both forms.
//! Each record has `name` (its text after the last `.` is the tfplugin6 method), `call`
//! (`<file>:<line>`), `request` (protobuf text format), `response` (Go `encoding/json` of the
//! response, `""` when the call failed) and `error` (left out when there is none).
//!
//! Messages are handled through prost-reflect descriptors of our own protos, so one generic code
//! path covers every method.

mod json;
mod text;

use prost_reflect::{DescriptorPool, DynamicMessage, FieldDescriptor, MessageDescriptor};
use serde::Deserialize;

pub(crate) use json::JsonError;

/// The tfplugin6 service every recording speaks.
const SERVICE: &str = "tfplugin6.Provider";

/// The descriptors of every proto we compiled.
pub(crate) fn pool() -> &'static DescriptorPool {
    &crate::proto::DESCRIPTOR_POOL
}

/// The request and response types of a tfplugin6 method, by its name (`PlanResourceChange`).
pub(crate) fn method(name: &str) -> Option<(MessageDescriptor, MessageDescriptor)> {
    let service = pool().get_service_by_name(SERVICE)?;
    let method = service.methods().find(|m| m.name() == name)?;
    Some((method.input(), method.output()))
}

/// A message's fields in the order the .proto declares them, which is the order of Go's
/// generated structs and of its text format.
pub(crate) fn fields_in_declaration_order(desc: &MessageDescriptor) -> Vec<FieldDescriptor> {
    desc.descriptor_proto()
        .field
        .iter()
        .filter_map(|f| desc.get_field(u32::try_from(f.number()).ok()?))
        .collect()
}

/// A generated message as a dynamic one of type `desc`.
pub(crate) fn to_dynamic(
    desc: MessageDescriptor,
    message: &impl prost::Message,
) -> Result<DynamicMessage, prost::DecodeError> {
    DynamicMessage::decode(desc, message.encode_to_vec().as_slice())
}

/// A message in Go's single-line text format.
pub(crate) fn to_text(message: &DynamicMessage) -> String {
    text::format(message)
}

/// Parses a recorded request.
pub(crate) fn from_text(
    desc: MessageDescriptor,
    text: &str,
) -> Result<DynamicMessage, prost_reflect::text_format::ParseError> {
    text::parse(desc, text)
}

/// A message as Go's `encoding/json` writes the generated struct.
pub(crate) fn to_go_json(message: &DynamicMessage) -> String {
    json::write(message)
}

/// Parses a recorded response.
pub(crate) fn from_go_json(
    desc: &MessageDescriptor,
    text: &str,
) -> Result<DynamicMessage, JsonError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|err| JsonError {
        path: "response".into(),
        reason: err.to_string(),
    })?;
    json::read(desc, &value)
}

/// One recorded call.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct Record {
    pub name: String,
    #[serde(default)]
    pub call: String,
    #[serde(default)]
    pub request: String,
    #[serde(default)]
    pub response: String,
    #[serde(default)]
    pub error: Vec<String>,
}

impl Record {
    /// The tfplugin6 method: the text of `name` after its last `.`.
    pub fn method(&self) -> &str {
        self.name.rsplit('.').next().unwrap_or(&self.name)
    }

    /// The record as one line of the file: compact JSON followed by `,\n`.
    pub fn to_line(&self) -> String {
        let mut out =
            String::with_capacity(self.request.len() + self.response.len() + self.name.len() + 64);
        out.push_str("{\"name\":");
        tfp_gostd::json::write_string(&mut out, &self.name);
        out.push_str(",\"call\":");
        tfp_gostd::json::write_string(&mut out, &self.call);
        out.push_str(",\"request\":");
        tfp_gostd::json::write_string(&mut out, &self.request);
        out.push_str(",\"response\":");
        tfp_gostd::json::write_string(&mut out, &self.response);
        if !self.error.is_empty() {
            out.push_str(",\"error\":[");
            for (i, error) in self.error.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                tfp_gostd::json::write_string(&mut out, error);
            }
            out.push(']');
        }
        out.push_str("},\n");
        out
    }
}

/// A recording that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("invalid recording at byte {offset}")]
pub struct ParseError {
    pub offset: usize,
    #[source]
    pub source: serde_json::Error,
}

/// Reads the records of a recording: either the raw file (`{…},\n{…},\n`, possibly cut short
/// after a crash, whose incomplete last record is an error) or a JSON array of records.
pub fn parse_recording(text: &str) -> Result<Vec<Record>, ParseError> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        return serde_json::from_str(trimmed).map_err(|source| ParseError {
            offset: source.column(),
            source,
        });
    }
    let mut records = Vec::new();
    let mut rest = trimmed;
    let mut offset = text.len() - trimmed.len();
    loop {
        let skipped = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        offset += rest.len() - skipped.len();
        rest = skipped;
        if rest.is_empty() {
            return Ok(records);
        }
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Record>();
        match stream.next() {
            Some(Ok(record)) => records.push(record),
            Some(Err(source)) => return Err(ParseError { offset, source }),
            None => return Ok(records),
        }
        let used = stream.byte_offset();
        offset += used;
        rest = &rest[used..];
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
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
    fn lines_and_arrays_read_alike() {
        let one = Record {
            name: "x/host.Client.ConfigureProvider".into(),
            call: "src/host/client.rs:1".into(),
            request: "config:{msgpack:\"\\x80\"}".into(),
            response: "{}".into(),
            error: vec![],
        };
        let two = Record {
            error: vec!["boom <&>".into()],
            response: String::new(),
            ..one.clone()
        };
        let file = one.to_line() + &two.to_line();
        assert_eq!(
            parse_recording(&file).expect("lines parse"),
            [one.clone(), two.clone()]
        );
        let array = format!("[{}]", file.trim_end().trim_end_matches(','));
        assert_eq!(
            parse_recording(&array).expect("array parses"),
            [one.clone(), two]
        );
        assert_eq!(one.method(), "ConfigureProvider");
        let cut = &file[..file.len() - 10];
        assert!(parse_recording(cut).is_err(), "a torn record is an error");
    }
}
