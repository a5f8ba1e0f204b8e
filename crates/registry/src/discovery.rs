//! Service discovery (svchost `disco`): `GET https://<host>/.well-known/terraform.json` and the
//! `providers.v1` base URL, relative or absolute, or an override from a CLI config `host` block.
//!
//! Invariants: the discovery document is at most 1 MiB and must be a JSON object served as
//! `application/json`; the returned base URL is absolute, http or https, without user info or
//! fragment, and ends with `/` so that relative paths resolve beneath it.

use std::collections::BTreeMap;

use reqwest::Url;

use crate::{
    error::{Error, Result},
    hostname::Hostname,
    http::{Http, describe_status, is_json},
};

const MAX_DISCOVERY_DOC: usize = 1024 * 1024;
const SERVICE: &str = "providers.v1";

/// Resolves `value` against `base` and checks it (svchost `Host.parseURL`).
fn service_url(base: &Url, value: &str) -> std::result::Result<Url, String> {
    let mut url = base
        .join(value)
        .map_err(|e| format!("failed to parse service URL: {e}"))?;
    if url.scheme() != "https" && url.scheme() != "http" {
        return Err(format!(
            "failed to parse service URL: unsupported scheme {}",
            url.scheme()
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(
            "failed to parse service URL: embedded username/password information is not permitted"
                .into(),
        );
    }
    url.set_fragment(None);
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}

/// Finds the provider registry base URL of `host`.
pub(crate) async fn providers_base(
    http: &Http,
    host: &Hostname,
    token: Option<&str>,
    overrides: &BTreeMap<Hostname, BTreeMap<String, String>>,
) -> Result<Url> {
    let display = host.for_display();
    let doc_url = Url::parse(&format!(
        "https://{}/.well-known/terraform.json",
        host.as_str()
    ))
    .map_err(|e| Error::HostUnreachable {
        host: display.clone(),
        reason: format!("invalid discovery request: {e}"),
    })?;
    if let Some(services) = overrides.get(host) {
        return match services.get(SERVICE) {
            Some(v) => service_url(&doc_url, v).map_err(|reason| Error::HostUnreachable {
                host: display,
                reason,
            }),
            None => Err(Error::NoProviderRegistry { host: display }),
        };
    }
    let fetched = http
        .get(&doc_url, token, true, MAX_DISCOVERY_DOC)
        .await
        .map_err(|e| Error::HostUnreachable {
            host: display.clone(),
            reason: format!("failed to request discovery document: {e}"),
        })?;
    if fetched.status.as_u16() == 404 {
        return Err(Error::NoProviderRegistry { host: display });
    }
    if fetched.status.as_u16() == 401 || fetched.status.as_u16() == 403 {
        return Err(crate::registry::unauthorized(host, token.is_some()));
    }
    if !fetched.status.is_success() {
        return Err(Error::HostUnreachable {
            host: display,
            reason: format!(
                "failed to request discovery document: {}",
                describe_status(fetched.status)
            ),
        });
    }
    if !is_json(fetched.content_type.as_deref()) {
        return Err(Error::HostUnreachable {
            host: display,
            reason: format!(
                "discovery URL returned an unsupported Content-Type {:?}",
                fetched.content_type.unwrap_or_default()
            ),
        });
    }
    let services: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&fetched.body).map_err(|e| Error::HostUnreachable {
            host: display.clone(),
            reason: format!("failed to decode discovery document as a JSON object: {e}"),
        })?;
    match services.get(SERVICE).and_then(serde_json::Value::as_str) {
        Some(v) => service_url(&fetched.url, v).map_err(|reason| Error::HostUnreachable {
            host: display,
            reason,
        }),
        None if services.keys().any(|k| k.starts_with("providers.")) => {
            Err(Error::OtherRegistryVersion { host: display })
        }
        None => Err(Error::NoProviderRegistry { host: display }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_urls_resolve_against_the_document() {
        let base = Url::parse("https://r.example/.well-known/terraform.json").expect("valid");
        let got = |v: &str| service_url(&base, v).map(|u| u.to_string());
        assert_eq!(
            got("/v1/providers/"),
            Ok("https://r.example/v1/providers/".into())
        );
        assert_eq!(
            got("/v1/providers"),
            Ok("https://r.example/v1/providers/".into())
        );
        assert_eq!(
            got("https://o.example/p/#x"),
            Ok("https://o.example/p/".into())
        );
        assert!(got("ftp://o.example/p/").is_err());
        assert!(got("https://u:p@o.example/").is_err());
    }
}
