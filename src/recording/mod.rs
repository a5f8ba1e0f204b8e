//! Recording the calls made to a Terraform provider (`PULUMI_TF_DEBUG_GRPC`) and replaying them:
//! where the generated tfplugin types meet `tfp_recording` (the format) and `tfp_record_replay`
//! (the recorder, the replayer and the pass-through), which work on the same messages as
//! `prost_reflect::DynamicMessage`s of our descriptor pool.

use std::sync::LazyLock;

use prost_reflect::{DynamicMessage, MessageDescriptor};
use tfp_cty::ProviderSchema;
use tfp_record_replay::Protocols;
use tfp_recording::{Methods, show::ShowError, transcript};

pub use tfp_record_replay::{passthrough, record};
pub use tfp_recording::{REDACTED, Record, parse_recording};

use crate::host::upgrade;

/// The tfplugin6 methods of our compiled protos.
fn methods() -> &'static Methods {
    static METHODS: LazyLock<Methods> =
        LazyLock::new(|| Methods::new(crate::proto::DESCRIPTOR_POOL.clone()));
    &METHODS
}

/// What `tfp_record_replay` needs of our generated code.
pub fn protocols() -> Protocols {
    Protocols {
        methods: methods(),
        provider_schema,
        upgrade_schema,
    }
}

/// A recorded `GetProviderSchema` answer (v6's), read from its wire form as the plugin reads one
/// it receives, without decoding it into the generated messages first.
fn provider_schema(response: &DynamicMessage) -> Result<ProviderSchema, String> {
    use prost::Message as _;
    let bytes = response.encode_to_vec();
    let answer = crate::tfschema::SchemaAnswer::split(&bytes).map_err(|err| err.to_string())?;
    answer.provider_schema().map_err(|err| err.to_string())
}

fn upgrade_schema(v5: &[u8]) -> Result<Vec<u8>, String> {
    let mut bytes = v5.to_vec();
    upgrade::provider_schema_bytes(&mut bytes).map_err(|err| err.to_string())?;
    Ok(bytes)
}

/// The request and response types of a tfplugin6 method, by its name (`PlanResourceChange`).
pub(crate) fn method(name: &str) -> Option<(MessageDescriptor, MessageDescriptor)> {
    methods().method(name)
}

/// A record's request and response as the generated tfplugin6 types of its method.
pub trait Messages {
    /// The recorded request, decoded as the tfplugin6 request type `T` of its method.
    fn request_message<T: prost::Message + Default>(&self) -> Result<T, String>;
    /// The recorded response, decoded as the tfplugin6 response type `T` of its method.
    fn response_message<T: prost::Message + Default>(&self) -> Result<T, String>;
}

impl Messages for Record {
    fn request_message<T: prost::Message + Default>(&self) -> Result<T, String> {
        let (desc, _) = method(self.method()).ok_or("not a tfplugin6 method")?;
        let message = transcript::from_text(desc, &self.request).map_err(|e| e.to_string())?;
        message.transcode_to().map_err(|e| e.to_string())
    }

    fn response_message<T: prost::Message + Default>(&self) -> Result<T, String> {
        let (_, desc) = method(self.method()).ok_or("not a tfplugin6 method")?;
        let message = transcript::from_go_json(&desc, &self.response).map_err(|e| e.to_string())?;
        message.transcode_to().map_err(|e| e.to_string())
    }
}

/// One recorded call as readable JSON, every value decoded ([`tfp_recording::show`]).
pub fn show(record: &Record) -> Result<serde_json::Value, ShowError> {
    tfp_recording::show::call(methods(), record)
}

pub mod replay;
#[cfg(test)]
mod tests;
