//! Reattaching to a provider that is already running, e.g. under a debugger.
//!
//! `PULUMI_BRIDGE_REATTACH_PROVIDERS` (and Terraform's `TF_REATTACH_PROVIDERS`) hold a JSON map
//! from provider source address to where the provider listens (pulumi-terraform-bridge
//! `dynamic/internal/shim/run/reattach.go`; the JSON is what terraform-plugin-go's `tf6server`
//! prints in debug mode). Such a provider is connected in plaintext, never spawned and never
//! stopped by us. Every key is parsed on every lookup, so a bad key fails deterministically.

use std::collections::BTreeMap;

use serde::Deserialize;
use tonic::transport::Channel;

use crate::{Error, connect, handshake::Address};

/// The variables read, in order of precedence.
pub const VARIABLES: [&str; 2] = ["PULUMI_BRIDGE_REATTACH_PROVIDERS", "TF_REATTACH_PROVIDERS"];

/// One entry of a reattach map (go-plugin's `ReattachConfig` JSON).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "PascalCase")]
pub struct Entry {
    #[serde(default)]
    pub protocol: String,
    /// 0 means 5: old SDKv2 providers leave it out.
    #[serde(default)]
    pub protocol_version: u32,
    #[serde(default)]
    pub pid: u32,
    #[serde(default)]
    pub test: bool,
    pub addr: EntryAddr,
}

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "PascalCase")]
pub struct EntryAddr {
    pub network: String,
    pub string: String,
}

/// Finds the entry for `source` in the value of `variable`. Keys and `source` are compared
/// after `normalize`, the provider source-address parser.
pub fn lookup(
    variable: &'static str,
    value: &str,
    source: &str,
    normalize: impl Fn(&str) -> Result<String, String>,
) -> Result<Option<Entry>, Error> {
    let invalid = |reason: String| Error::Reattach { variable, reason };
    let entries: BTreeMap<String, Entry> = serde_json::from_str(value)
        .map_err(|err| invalid(format!("not a JSON map of reattach entries: {err}")))?;
    let wanted = normalize(source).map_err(|err| invalid(format!("provider {source:?}: {err}")))?;
    let mut found = None;
    for (key, entry) in entries {
        let normalized =
            normalize(&key).map_err(|err| invalid(format!("provider key {key:?}: {err}")))?;
        if normalized == wanted {
            found = Some(entry);
        }
    }
    Ok(found)
}

/// A connection to a provider someone else runs.
#[derive(Debug)]
pub struct Reattached {
    pub channel: Channel,
    /// The protocol it serves: 5 or 6.
    pub protocol: u32,
    pub address: Address,
}

impl Entry {
    /// Connects to the provider this entry, found in `variable`, points at; `name` is the one
    /// used in messages.
    pub async fn connect(&self, name: &str, variable: &'static str) -> Result<Reattached, Error> {
        let invalid = |reason: String| Error::Reattach { variable, reason };
        if self.protocol != "grpc" {
            return Err(invalid(format!(
                "provider {name}: protocol {:?} is not supported (only grpc)",
                self.protocol
            )));
        }
        let protocol = match self.protocol_version {
            0 | 5 => 5,
            6 => 6,
            other => {
                return Err(invalid(format!(
                    "provider {name}: unsupported protocol version {other}"
                )));
            }
        };
        let address = match self.addr.network.as_str() {
            "unix" => Address::Unix(self.addr.string.clone().into()),
            "tcp" => Address::Tcp(self.addr.string.parse().map_err(|_| {
                invalid(format!(
                    "provider {name}: bad tcp address {:?}",
                    self.addr.string
                ))
            })?),
            other => {
                return Err(invalid(format!(
                    "provider {name}: network {other:?} is not supported (unix or tcp)"
                )));
            }
        };
        let channel = connect::channel(&address, None)
            .await
            .map_err(|source| Error::Connect {
                provider: name.to_owned(),
                address: address.to_string(),
                source,
            })?;
        Ok(Reattached {
            channel,
            protocol,
            address,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normalize(s: &str) -> Result<String, String> {
        let parts: Vec<&str> = s.split('/').collect();
        match parts.as_slice() {
            [ns, ty] => Ok(format!("registry.opentofu.org/{ns}/{ty}").to_lowercase()),
            [host, ns, ty] => Ok(format!("{host}/{ns}/{ty}").to_lowercase()),
            _ => Err("must be [hostname/]namespace/name".into()),
        }
    }

    const MAP: &str = r#"{"registry.opentofu.org/test/mini":{"Protocol":"grpc","ProtocolVersion":6,"Pid":1,"Test":true,"Addr":{"Network":"unix","String":"/tmp/p"}}}"#;

    #[test]
    fn finds_entries_by_normalized_address() {
        let entry = lookup("X", MAP, "test/mini", normalize)
            .unwrap()
            .expect("found");
        assert_eq!(entry.protocol_version, 6);
        assert_eq!(
            entry.addr,
            EntryAddr {
                network: "unix".into(),
                string: "/tmp/p".into()
            }
        );
        assert_eq!(lookup("X", MAP, "test/other", normalize).unwrap(), None);
    }

    #[test]
    fn bad_keys_and_json_are_errors() {
        let err = lookup(
            "X",
            r#"{"a/b/c/d":{"Addr":{"Network":"unix","String":"/p"}}}"#,
            "test/mini",
            normalize,
        )
        .unwrap_err();
        assert!(
            err.to_string().contains(r#"provider key "a/b/c/d""#),
            "{err}"
        );
        assert!(lookup("X", "not json", "test/mini", normalize).is_err());
    }
}
