//! Provider source addresses: `[hostname/][namespace/]type`, parsed and normalised as OpenTofu's
//! `registry-address` package does, with its error texts.
//!
//! Invariants: a [`Provider`] always has a valid hostname, namespace and type in normalised form,
//! so addresses compare with `==`. A bare type such as `random` means `hashicorp/random` on the
//! default host, as Terraform and OpenTofu imply for unqualified provider types (the Go bridge
//! leaves the namespace unknown there and then fails; see the README's Differences).

use std::{fmt, str::FromStr};

use tfp_echo::quoted;

use crate::hostname::{Hostname, parse_part};

/// The default registry host (registry-address `DefaultProviderRegistryHost`).
pub const DEFAULT_HOST: &str = "registry.opentofu.org";

/// Namespace given to a bare provider type.
pub(crate) const IMPLIED_NAMESPACE: &str = "hashicorp";

/// The legacy namespace of pre-0.13 addresses, tolerated only on the default host.
pub(crate) const LEGACY_NAMESPACE: &str = "-";

/// A fully qualified provider address.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Provider {
    /// The registry host, in comparison form.
    pub hostname: Hostname,
    /// The namespace (organisation), lower case.
    pub namespace: String,
    /// The provider type, lower case (`random`, `aws`).
    pub r#type: String,
}

/// A source string that could not be parsed; `Display` gives OpenTofu's "summary: detail".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{summary}: {detail}")]
pub struct AddressError {
    /// OpenTofu's diagnostic summary.
    pub summary: &'static str,
    /// OpenTofu's diagnostic detail.
    pub detail: String,
}

const FORMAT_DETAIL: &str =
    r#"The "source" attribute must be in the format "[hostname/][namespace/]name""#;

fn format_error() -> AddressError {
    AddressError {
        summary: "Invalid provider source string",
        detail: FORMAT_DETAIL.to_owned(),
    }
}

impl Provider {
    /// The default registry host as a [`Hostname`].
    pub fn default_host() -> Hostname {
        Hostname::from_normalized(DEFAULT_HOST)
    }

    /// Parses a source address (registry-address `ParseProviderSource`).
    ///
    /// The detail texts are OpenTofu's, including the stray closing quote some of them carry;
    /// where OpenTofu prints an empty string for the offending namespace or hostname, we print
    /// what was given.
    pub fn parse(source: &str) -> Result<Self, AddressError> {
        let parts: Vec<&str> = source.split('/').collect();
        if parts.len() > 3 || parts.iter().any(|p| p.is_empty()) {
            return Err(format_error());
        }
        let given_type = parts[parts.len() - 1];
        let r#type = parse_part(given_type).map_err(|e| AddressError {
            summary: "Invalid provider type",
            detail: format!(
                r#"Invalid provider type {} in source {}: {e}""#,
                quoted(given_type),
                quoted(source)
            ),
        })?;
        let mut hostname = Self::default_host();
        let namespace = if parts.len() == 1 {
            IMPLIED_NAMESPACE.to_owned()
        } else {
            let given = parts[parts.len() - 2];
            if given == LEGACY_NAMESPACE {
                given.to_owned()
            } else {
                parse_part(given).map_err(|e| AddressError {
                    summary: "Invalid provider namespace",
                    detail: format!(
                        r#"Invalid provider namespace {} in source {}: {e}""#,
                        quoted(given),
                        quoted(source)
                    ),
                })?
            }
        };
        if parts.len() == 3 {
            hostname = Hostname::parse(parts[0]).map_err(|e| AddressError {
                summary: "Invalid provider source hostname",
                detail: format!(
                    r#"Invalid provider source hostname namespace {} in source {}: {e}""#,
                    quoted(parts[0]),
                    quoted(source)
                ),
            })?;
        }
        if namespace == LEGACY_NAMESPACE && hostname.as_str() != DEFAULT_HOST {
            return Err(AddressError {
                summary: "Invalid provider namespace",
                detail: format!(
                    r#"The legacy provider namespace "-" can be used only with hostname {DEFAULT_HOST}."#
                ),
            });
        }
        let provider = Provider {
            hostname,
            namespace,
            r#type,
        };
        // OpenTofu returns a bare type before this check, so `terraform-x` alone passes.
        if parts.len() > 1 {
            provider.check_prefix()?;
        }
        Ok(provider)
    }

    /// Refuses the redundant `terraform-` and `opentofu-` type prefixes, suggesting the fix for
    /// the common `terraform-provider-` mistake.
    fn check_prefix(&self) -> Result<(), AddressError> {
        for (redundant, mistake, tool, repo_word) in [
            (
                "terraform-",
                "terraform-provider-",
                "a Terraform provider",
                "often",
            ),
            (
                "opentofu-",
                "opentofu-provider-",
                "an OpenTofu provider",
                "sometimes",
            ),
        ] {
            if !self.r#type.starts_with(redundant) {
                continue;
            }
            if let Some(suggested) = self.r#type.strip_prefix(mistake)
                && parse_part(suggested).is_ok()
            {
                let fixed = Provider {
                    r#type: suggested.to_owned(),
                    ..self.clone()
                };
                let kind = if redundant == "terraform-" {
                    "Terraform"
                } else {
                    "OpenTofu"
                };
                return Err(AddressError {
                    summary: "Invalid provider type",
                    detail: format!(
                        "Provider source {} has a type with the prefix {mistake:?}, which isn't valid. Although that prefix is {repo_word} used in the names of version control repositories for {kind} providers, provider source strings should not include it.\n\nDid you mean {}?",
                        quoted(&self.for_display()),
                        quoted(&fixed.for_display())
                    ),
                });
            }
            return Err(AddressError {
                summary: "Invalid provider type",
                detail: format!(
                    "Provider source {} has a type with the prefix {redundant:?}, which isn't allowed because it would be redundant to name {tool} with that prefix. If you are the author of this provider, rename it to not include the prefix.",
                    quoted(&self.to_string())
                ),
            });
        }
        Ok(())
    }

    /// The short form shown to people: the hostname is left out when it is the default.
    pub fn for_display(&self) -> String {
        if self.hostname.as_str() == DEFAULT_HOST {
            format!("{}/{}", self.namespace, self.r#type)
        } else {
            self.to_string()
        }
    }
}

impl fmt::Display for Provider {
    /// The fully qualified form, `hostname/namespace/type`, with the hostname in display form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}/{}",
            self.hostname.for_display(),
            self.namespace,
            self.r#type
        )
    }
}

impl FromStr for Provider {
    type Err = AddressError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Provider::parse(s)
    }
}
