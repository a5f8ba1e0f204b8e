//! A parameterized bridge: one running Terraform provider, its mapping and its Pulumi schema.
//!
//! Built by Parameterize (pulumi-terraform-bridge `dynamic/main.go`, `XParamaterize`): resolve the
//! provider, launch it, read its schema, build the mapping, and remember the parameter value that
//! SDKs embed so that a later process can start the very same provider again.

use std::{path::Path, sync::OnceLock};

use tfp_echo::{plain, quoted};
use tfp_mapping::Mapping;
use tfp_schema::{ParameterValue, Source};

use crate::{
    host::{Launch, Provider, reattach},
    proto::tfplugin6::ServerCapabilities,
    server::{
        args::{Args, Target},
        ephemeral::Ephemerals,
        resource::Upgraded,
        session::Session,
        write_only::Held,
    },
    tfschema,
};

/// Why a provider could not be parameterized.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    #[error("expected path to end with \"terraform-provider-${{NAME}}\": {}", plain(.0))]
    LocalName(String),
    #[error("invalid provider name: {0}")]
    Address(#[source] Box<tfp_registry::Error>),
    #[error("failed to install provider {source_address}")]
    Install {
        source_address: String,
        #[source]
        source: Box<tfp_registry::Error>,
    },
    #[error("provider {}: version {} is not a semantic version", .0, quoted(.1))]
    Version(String, String),
    #[error(transparent)]
    Host(#[from] crate::host::Error),
    #[error("provider {provider} returned an error from GetProviderSchema: {}: {}", plain(.summary), plain(.detail))]
    SchemaDiagnostic {
        provider: String,
        summary: String,
        detail: String,
    },
    #[error(transparent)]
    Schema(#[from] tfschema::SchemaError),
    #[error("failed to map the provider's schema")]
    Mapping(#[source] tfp_mapping::MappingError),
    #[error("failed to build the Pulumi schema")]
    PackageSchema(#[source] tfp_schema::SchemaError),
}

/// A running, mapped provider.
pub struct Bridge {
    pub provider: Provider,
    pub mapping: Mapping,
    pub parameter: ParameterValue,
    /// The Pulumi package name.
    pub name: String,
    /// The provider's version; `0.0.0` for a local provider.
    pub version: String,
    /// What Configure and CheckConfig set for later RPCs.
    pub session: Session,
    /// What the provider's schema says it supports (`plan_destroy` among them).
    pub capabilities: ServerCapabilities,
    /// The stored states already at the current schema version.
    pub upgraded: Upgraded,
    /// The ephemeral resources Invoke opened, until the plugin stops.
    pub ephemerals: Ephemerals,
    /// The write-only arguments Check took out of resources' inputs, until their Create or
    /// Update.
    pub write_only: Held,
    schema: OnceLock<Vec<u8>>,
}

impl std::fmt::Debug for Bridge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bridge")
            .field("name", &self.name)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl Bridge {
    /// Resolves, launches and maps the provider `args` name.
    pub async fn start(args: Args) -> Result<Bridge, BridgeError> {
        let (provider, provider_type, version, source) = match &args.target {
            Target::Local(path) => {
                let provider_type = local_type(path)?;
                let provider = Launch::new(Path::new(path)).start().await?;
                (
                    provider,
                    provider_type,
                    "0.0.0".to_owned(),
                    Source::Local { path: path.clone() },
                )
            }
            Target::Remote { source, constraint } => {
                if let Some(provider) = reattached(source).await? {
                    let address = parse_source(source)?;
                    let url = address.to_string();
                    (
                        provider,
                        address.r#type,
                        "0.0.0".to_owned(),
                        Source::Remote {
                            url,
                            version: "0.0.0".into(),
                        },
                    )
                } else {
                    let installer = tfp_registry::Installer::from_env().map_err(|source| {
                        BridgeError::Install {
                            source_address: args.target.to_string(),
                            source: Box::new(source),
                        }
                    })?;
                    let installed =
                        installer
                            .install_str(source, constraint)
                            .await
                            .map_err(|err| BridgeError::Install {
                                source_address: args.target.to_string(),
                                source: Box::new(err),
                            })?;
                    for warning in &installed.warnings {
                        tracing::warn!("registry: {warning}");
                    }
                    let version = installed.version.to_string();
                    if semver::Version::parse(&version).is_err() {
                        return Err(BridgeError::Version(installed.source.to_string(), version));
                    }
                    let url = installed.source.to_string();
                    let provider = Launch::new(&installed.executable).start().await?;
                    (
                        provider,
                        installed.source.r#type.clone(),
                        version.clone(),
                        Source::Remote { url, version },
                    )
                }
            }
        };
        let response = provider.client().get_provider_schema().await?;
        if let Some(error) = response.diagnostics.iter().find(|d| d.severity == 1) {
            return Err(BridgeError::SchemaDiagnostic {
                provider: provider.name().to_owned(),
                summary: error.summary.clone(),
                detail: error.detail.clone(),
            });
        }
        let schema = tfschema::provider_schema(&response)?;
        let capabilities = response.server_capabilities.unwrap_or_default();
        let parameter = ParameterValue {
            source,
            includes: args.includes.clone().unwrap_or_default(),
            excludes: args.excludes.clone(),
            provider_name: args.provider_name.clone().unwrap_or_default(),
        };
        let mapping = Mapping::new(schema, &provider_type, &version, parameter.options())
            .map_err(BridgeError::Mapping)?;
        let name = mapping.package().to_owned();
        Ok(Bridge {
            provider,
            mapping,
            parameter,
            name,
            version,
            session: Session::default(),
            capabilities,
            upgraded: Upgraded::default(),
            ephemerals: Ephemerals::default(),
            write_only: Held::default(),
            schema: OnceLock::new(),
        })
    }

    /// Closes every ephemeral resource still open; returns how many it closed.
    pub async fn close_ephemerals(&self) -> usize {
        let closed = self.ephemerals.close_all(self.provider.client()).await;
        if closed > 0 {
            tracing::debug!("closed {closed} ephemeral resources");
        }
        closed
    }

    /// The Pulumi package schema JSON, built on first use.
    pub fn schema_json(&self) -> Result<&[u8], BridgeError> {
        if let Some(json) = self.schema.get() {
            return Ok(json);
        }
        let spec = tfp_schema::package_schema(&self.mapping, &self.parameter, crate::VERSION)
            .map_err(BridgeError::PackageSchema)?;
        Ok(self.schema.get_or_init(|| spec.to_json()))
    }
}

/// A provider named in `PULUMI_BRIDGE_REATTACH_PROVIDERS` or `TF_REATTACH_PROVIDERS`, connected
/// instead of installed (pulumi-terraform-bridge `dynamic/internal/shim/run/reattach.go`).
async fn reattached(source: &str) -> Result<Option<Provider>, BridgeError> {
    for variable in reattach::VARIABLES {
        let Ok(value) = std::env::var(variable) else {
            continue;
        };
        if value.is_empty() {
            continue;
        }
        let normalize = |s: &str| {
            tfp_registry::Provider::parse(s)
                .map(|p| p.to_string())
                .map_err(|e| e.to_string())
        };
        if let Some(entry) = reattach::lookup(variable, &value, source, normalize)? {
            return Ok(Some(reattach::connect(source, variable, &entry).await?));
        }
    }
    Ok(None)
}

fn parse_source(source: &str) -> Result<tfp_registry::Provider, BridgeError> {
    tfp_registry::Provider::parse(source).map_err(|err| {
        BridgeError::Address(Box::new(tfp_registry::Error::Address {
            input: source.to_owned(),
            source: err,
        }))
    })
}

/// The provider type of a local provider: what follows the last `terraform-provider-` in its
/// path, without the `_v<version>…` suffix of release binaries (`terraform-provider-aws_v3.39.0_x5`
/// is `aws`). The Go binary keeps the suffix, which makes tokens such as `aws_v3.39.0_x5:…`.
pub fn local_type(path: &str) -> Result<String, BridgeError> {
    let Some((_, name)) = path.rsplit_once("terraform-provider-") else {
        return Err(BridgeError::LocalName(path.to_owned()));
    };
    let name = match name.find("_v") {
        Some(i) if name[i + 2..].starts_with(|c: char| c.is_ascii_digit()) => &name[..i],
        _ => name,
    };
    if name.is_empty() || name.contains('/') {
        return Err(BridgeError::LocalName(path.to_owned()));
    }
    Ok(name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_type_drops_the_release_suffix() {
        assert_eq!(
            local_type("./terraform-provider-pyvider").unwrap(),
            "pyvider"
        );
        assert_eq!(
            local_type("/c/terraform-provider-aws_v3.39.0_x5").unwrap(),
            "aws"
        );
        assert_eq!(local_type("/c/terraform-provider-foo_v1").unwrap(), "foo");
        assert_eq!(
            local_type("/c/terraform-provider-my_vpc").unwrap(),
            "my_vpc"
        );
        assert!(local_type("/c/provider-foo").is_err());
        assert!(local_type("/c/terraform-provider-").is_err());
    }
}
