//! GetMapping and GetMappings: the mapping converters (`pulumi convert --from terraform`) read,
//! as the Go bridge answers them (`pkg/pf/tfbridge/provider_get_mapping.go`).
//!
//! For the keys `tf` and `terraform`, GetMapping's data is the Go bridge's "marshallable
//! ProviderInfo" of the provider we run, written by [`tfp_schema::provider_info`]. Any other
//! key gets an empty answer, which is not an error. Before Parameterize the Go binary answers
//! for its base provider, `terraform-provider`, with an empty schema, and so do we.

use std::sync::OnceLock;

use tfp_mapping::Mapping;
use tfp_schema::provider_info;
use tonic::Status;

use crate::proto::pulumirpc as rpc;

/// The keys with a mapping: `tf` for the prototype converter, `terraform` for the plugin one.
const KEYS: [&str; 2] = ["tf", "terraform"];

/// GetMapping's answers, with the parameterized provider's data built once: the bridge never
/// changes after Parameterize.
#[derive(Default)]
pub struct Mappings {
    data: OnceLock<Vec<u8>>,
}

impl Mappings {
    /// GetMapping for the parameterized provider's `mapping`, or for the bare plugin before
    /// Parameterize.
    pub fn get_mapping(
        &self,
        mapping: Option<&Mapping>,
        request: &rpc::GetMappingRequest,
    ) -> Result<rpc::GetMappingResponse, Status> {
        if !KEYS.contains(&request.key.as_str()) {
            return Ok(rpc::GetMappingResponse::default());
        }
        let prefix = prefix(mapping);
        // Old engines send no provider; newer ones name the one they want.
        if !request.provider.is_empty() && request.provider != prefix {
            return Err(Status::unknown(format!(
                "unknown provider {:?}",
                request.provider
            )));
        }
        let data = match mapping {
            Some(mapping) => self
                .data
                .get_or_init(|| provider_info::provider_info_json(mapping))
                .clone(),
            None => provider_info::unparameterized_json(crate::VERSION),
        };
        Ok(rpc::GetMappingResponse {
            provider: prefix.to_owned(),
            data,
        })
    }
}

/// GetMappings: the one provider with a mapping, for the keys that have one.
pub fn get_mappings(
    mapping: Option<&Mapping>,
    request: &rpc::GetMappingsRequest,
) -> rpc::GetMappingsResponse {
    let providers = if KEYS.contains(&request.key.as_str()) {
        vec![prefix(mapping).to_owned()]
    } else {
        Vec::new()
    };
    rpc::GetMappingsResponse { providers }
}

/// The name the mapping is for: the resource prefix, or the package name when none could be
/// inferred (Go: `ResourcePrefix`, else `Name`), which is what [`Mapping::prefix`] holds.
fn prefix(mapping: Option<&Mapping>) -> &str {
    mapping.map_or(tfp_schema::BASE_PROVIDER, Mapping::prefix)
}

#[cfg(test)]
mod tests {
    use tonic::Code;

    use super::*;

    #[test]
    fn before_parameterize_the_base_provider_answers() {
        let mappings = Mappings::default();
        let request = |key: &str, provider: &str| rpc::GetMappingRequest {
            key: key.to_owned(),
            provider: provider.to_owned(),
        };
        for key in ["tf", "terraform"] {
            for provider in ["", "terraform-provider"] {
                let response = mappings
                    .get_mapping(None, &request(key, provider))
                    .expect("a mapping");
                assert_eq!(response.provider, "terraform-provider");
                assert_eq!(
                    String::from_utf8(response.data).expect("UTF-8"),
                    format!(
                        r#"{{"provider":{{}},"name":"terraform-provider","version":"v{}"}}"#,
                        crate::VERSION
                    )
                );
            }
            let mappings_response = get_mappings(
                None,
                &rpc::GetMappingsRequest {
                    key: key.to_owned(),
                },
            );
            assert_eq!(mappings_response.providers, ["terraform-provider"]);
        }

        let other = mappings
            .get_mapping(None, &request("pulumi", ""))
            .expect("no mapping is not an error");
        assert_eq!(other, rpc::GetMappingResponse::default());
        let none = get_mappings(
            None,
            &rpc::GetMappingsRequest {
                key: "hcl".to_owned(),
            },
        );
        assert!(none.providers.is_empty());

        let unknown = mappings
            .get_mapping(None, &request("terraform", "aws"))
            .expect_err("another provider");
        assert_eq!(unknown.code(), Code::Unknown);
        assert_eq!(unknown.message(), r#"unknown provider "aws""#);
    }
}
