//! The record format of `PULUMI_TF_DEBUG_GRPC`, interchangeable with the Go binary's
//! (pulumi-terraform-bridge `dynamic/internal/shim/grpcutil/translate.go`).
//!
//! A recording is a sequence of JSON objects, each written compact and followed by `,\n`, so a
//! file is valid JSON only once wrapped in `[…]` without the last comma; we read both forms.
//! Each record has `name` (its text after the last `.` is the tfplugin6 method), `call`
//! (`<file>:<line>`), `request` (protobuf text format), `response` (Go `encoding/json` of the
//! response, `""` when the call failed) and `error` (left out when there is none).
//!
//! Messages are handled through prost-reflect descriptors of the caller's protos ([`Methods`]), so
//! one generic code path covers every method.

mod json;
mod text;

use prost_reflect::{DescriptorPool, DynamicMessage, FieldDescriptor, MessageDescriptor};
use serde::Deserialize;

pub use json::{JsonError, go_name};

/// The tfplugin6 service every recording speaks.
const SERVICE: &str = "tfplugin6.Provider";

/// The tfplugin6 methods, as the descriptor pool of the caller's compiled protos describes them.
/// This crate never sees generated types: whoever has them hands their pool in.
#[derive(Clone, Debug)]
pub struct Methods {
    pool: DescriptorPool,
}

impl Methods {
    /// The methods of `tfplugin6.Provider` in `pool`.
    pub fn new(pool: DescriptorPool) -> Methods {
        Methods { pool }
    }

    /// The pool the methods are in.
    pub fn pool(&self) -> &DescriptorPool {
        &self.pool
    }

    /// The request and response types of a tfplugin6 method, by its name (`PlanResourceChange`).
    pub fn method(&self, name: &str) -> Option<(MessageDescriptor, MessageDescriptor)> {
        let method = self.find(name)?;
        Some((method.input(), method.output()))
    }

    /// Whether `name` is a server-streaming method, whose response is a JSON array of events.
    pub fn is_server_streaming(&self, name: &str) -> bool {
        self.find(name).is_some_and(|m| m.is_server_streaming())
    }

    fn find(&self, name: &str) -> Option<prost_reflect::MethodDescriptor> {
        let service = self.pool.get_service_by_name(SERVICE)?;
        service.methods().find(|m| m.name() == name)
    }
}

/// A message's fields in the order the .proto declares them, which is the order of Go's
/// generated structs and of its text format.
pub fn fields_in_declaration_order(desc: &MessageDescriptor) -> Vec<FieldDescriptor> {
    desc.descriptor_proto()
        .field
        .iter()
        .filter_map(|f| desc.get_field(u32::try_from(f.number()).ok()?))
        .collect()
}

/// A generated message as a dynamic one of type `desc`.
pub fn to_dynamic(
    desc: MessageDescriptor,
    message: &impl prost::Message,
) -> Result<DynamicMessage, prost::DecodeError> {
    DynamicMessage::decode(desc, message.encode_to_vec().as_slice())
}

/// A message in Go's single-line text format.
pub fn to_text(message: &DynamicMessage) -> String {
    text::format(message)
}

/// Parses a recorded request.
pub fn from_text(
    desc: MessageDescriptor,
    text: &str,
) -> Result<DynamicMessage, prost_reflect::text_format::ParseError> {
    text::parse(desc, text)
}

/// A message as Go's `encoding/json` writes the generated struct.
pub fn to_go_json(message: &DynamicMessage) -> String {
    json::write(message)
}

/// Parses a recorded response.
pub fn from_go_json(desc: &MessageDescriptor, text: &str) -> Result<DynamicMessage, JsonError> {
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
    use super::*;

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
