//! The HTTPS client: one for registry and mirror API calls (short timeout, bounded bodies) and
//! one for package downloads (streamed to disk), both with the extra CA certificates of
//! `SSL_CERT_FILE`, bearer tokens, and bounded retries in the manner of go-retryablehttp
//! (connection errors, 429 and 5xx other than 501); API calls carry the `X-Terraform-Version`
//! header too.
//!
//! Invariants: response bodies held in memory are bounded; a bearer token is sent only to the
//! host it belongs to (reqwest drops `Authorization` on cross-host redirects); a URL's user and
//! password are never shown, in messages or logs ([`shown`]).

use std::{borrow::Cow, time::Duration};

use reqwest::{StatusCode, Url, header};
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

use crate::progress::Progress;

/// The header OpenTofu sends on registry calls.
const TERRAFORM_VERSION_HEADER: &str = "X-Terraform-Version";

/// How the HTTP clients are set up.
#[derive(Clone, Debug)]
pub(crate) struct HttpOptions {
    pub(crate) user_agent: String,
    pub(crate) terraform_version: String,
    pub(crate) extra_roots_pem: Vec<Vec<u8>>,
    pub(crate) request_timeout: Duration,
    pub(crate) api_retries: u32,
    pub(crate) download_retries: u32,
    pub(crate) retry_wait: Duration,
}

/// A response held in memory.
#[derive(Debug)]
pub(crate) struct Fetched {
    pub(crate) status: StatusCode,
    pub(crate) url: Url,
    pub(crate) content_type: Option<String>,
    pub(crate) body: Vec<u8>,
}

/// A finished download.
#[derive(Debug)]
pub(crate) struct Downloaded {
    pub(crate) size: u64,
    pub(crate) sha256: [u8; 32],
}

/// A failure below the HTTP status level.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum HttpError {
    #[error("{0}")]
    Request(String),
    #[error("the response is larger than the limit of {limit} bytes")]
    TooLarge { limit: usize },
    #[error("unsuccessful request to {url}: {status}")]
    Status { url: String, status: String },
    #[error("the connection broke after {received} bytes: {reason}")]
    Interrupted { received: u64, reason: String },
    #[error("incorrect response size: expected {expected} bytes, but got {received} bytes")]
    Size { expected: u64, received: u64 },
    #[error("cannot write the download to disk: {0}")]
    Disk(String),
}

/// What stands for a URL's user and password where the URL is shown.
const HIDDEN_USERINFO: &str = "***";

/// `url` as messages and logs show it: a user and password in it (a network mirror's, which
/// reqwest sends as basic authentication) are replaced by `***`, so `https://u:p@m.example/`
/// shows as `https://***@m.example/`. Every URL shown goes through here or [`shown_text`].
pub(crate) fn shown(url: &Url) -> String {
    if url.username().is_empty() && url.password().is_none() {
        return url.to_string();
    }
    let mut hidden = url.clone();
    match (
        hidden.set_username(HIDDEN_USERINFO),
        hidden.set_password(None),
    ) {
        (Ok(()), Ok(())) => hidden.to_string(),
        // Only URLs without a host refuse a user, and those cannot carry one either.
        _ => format!("{}://{HIDDEN_USERINFO}@…", url.scheme()),
    }
}

/// Text meant as a URL that did not parse, as messages show it: everything between `://` (or
/// the start, when the scheme is missing) and the last `@` is replaced by `***`. Without parsing,
/// the end of the user information is not known, so this hides more than [`shown`] when the rest
/// of the text holds an `@` too.
pub(crate) fn shown_text(text: &str) -> Cow<'_, str> {
    let start = text.find("://").map_or(0, |i| i + 3);
    match text.rfind('@') {
        Some(at) if at >= start => Cow::Owned(format!(
            "{}{HIDDEN_USERINFO}{}",
            &text[..start],
            &text[at..]
        )),
        _ => Cow::Borrowed(text),
    }
}

/// Formats a reqwest error with its causes, which is where the useful part usually is.
pub(crate) fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let next = s.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = s.source();
    }
    text
}

fn retryable_status(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS
        || (status.is_server_error() && status != StatusCode::NOT_IMPLEMENTED)
}

/// The two clients and the retry policy.
#[derive(Debug, Clone)]
pub(crate) struct Http {
    api: reqwest::Client,
    download: reqwest::Client,
    options: HttpOptions,
}

impl Http {
    pub(crate) fn new(options: HttpOptions) -> Result<Self, String> {
        let mut roots = Vec::new();
        for pem in &options.extra_roots_pem {
            roots.extend(
                reqwest::Certificate::from_pem_bundle(pem)
                    .map_err(|e| format!("invalid CA certificate: {}", describe(&e)))?,
            );
        }
        let build = |timeout: Option<Duration>| {
            let mut b = reqwest::Client::builder()
                .user_agent(options.user_agent.clone())
                .connect_timeout(Duration::from_secs(30))
                .tls_certs_merge(roots.clone());
            if let Some(t) = timeout {
                b = b.timeout(t);
            } else {
                b = b.read_timeout(Duration::from_secs(120));
            }
            b.build().map_err(|e| describe(&e))
        };
        Ok(Http {
            api: build(Some(options.request_timeout))?,
            download: build(None)?,
            options,
        })
    }

    async fn pause(&self, attempt: u32) {
        let wait = self
            .options
            .retry_wait
            .saturating_mul(1 << attempt.min(5))
            .min(Duration::from_secs(30));
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
    }

    /// GETs `url` with retries and reads at most `limit` bytes of the body.
    pub(crate) async fn get(
        &self,
        url: &Url,
        token: Option<&str>,
        accept_json: bool,
        limit: usize,
    ) -> Result<Fetched, HttpError> {
        let mut attempt = 0;
        loop {
            let mut req = self
                .api
                .get(url.clone())
                .header(TERRAFORM_VERSION_HEADER, &self.options.terraform_version);
            if accept_json {
                req = req.header(header::ACCEPT, "application/json");
            }
            if let Some(t) = token {
                req = req.bearer_auth(t);
            }
            let outcome = match req.send().await {
                Ok(resp)
                    if retryable_status(resp.status()) && attempt < self.options.api_retries =>
                {
                    tracing::debug!(url = %shown(url), status = %resp.status(), "retrying request");
                    None
                }
                Ok(resp) => Some(read_limited(resp, limit).await),
                Err(e) if attempt < self.options.api_retries && !e.is_redirect() => {
                    tracing::debug!(url = %shown(url), error = %describe(&e), "retrying request");
                    None
                }
                Err(e) => Some(Err(HttpError::Request(describe(&e)))),
            };
            if let Some(result) = outcome {
                return result;
            }
            self.pause(attempt).await;
            attempt += 1;
        }
    }

    /// Streams `url` into `file`, hashing as it goes; retries only while no byte has arrived.
    pub(crate) async fn download(
        &self,
        url: &Url,
        token: Option<&str>,
        file: &mut tokio::fs::File,
        progress: &Progress,
    ) -> Result<Downloaded, HttpError> {
        let mut attempt = 0;
        let mut resp = loop {
            let mut req = self.download.get(url.clone());
            if let Some(t) = token {
                req = req.bearer_auth(t);
            }
            match req.send().await {
                Ok(resp) if resp.status().is_success() => break resp,
                Ok(resp)
                    if retryable_status(resp.status())
                        && attempt < self.options.download_retries => {}
                Ok(resp) => {
                    return Err(HttpError::Status {
                        url: shown(url),
                        status: resp.status().to_string(),
                    });
                }
                Err(e) if attempt < self.options.download_retries && !e.is_redirect() => {}
                Err(e) => return Err(HttpError::Request(describe(&e))),
            }
            tracing::info!(url = %shown(url), "failed to fetch provider package; retrying");
            self.pause(attempt).await;
            attempt += 1;
        };
        let expected = resp.content_length();
        let too_large = HttpError::TooLarge {
            limit: MAX_PACKAGE_BYTES as usize,
        };
        if expected.is_some_and(|n| n > MAX_PACKAGE_BYTES) {
            return Err(too_large);
        }
        progress.start(expected);
        let mut hasher = Sha256::new();
        let mut received: u64 = 0;
        loop {
            match resp.chunk().await {
                Ok(Some(chunk)) => {
                    hasher.update(&chunk);
                    received += chunk.len() as u64;
                    // A body sent without a length, or a server that keeps sending, stops here
                    // instead of filling the disk.
                    if received > MAX_PACKAGE_BYTES {
                        return Err(too_large);
                    }
                    file.write_all(&chunk)
                        .await
                        .map_err(|e| HttpError::Disk(e.to_string()))?;
                    progress.advance(chunk.len() as u64);
                }
                Ok(None) => break,
                Err(e) => {
                    return Err(HttpError::Interrupted {
                        received,
                        reason: describe(&e),
                    });
                }
            }
        }
        file.flush()
            .await
            .map_err(|e| HttpError::Disk(e.to_string()))?;
        file.sync_all()
            .await
            .map_err(|e| HttpError::Disk(e.to_string()))?;
        if let Some(expected) = expected
            && received < expected
        {
            return Err(HttpError::Size { expected, received });
        }
        Ok(Downloaded {
            size: received,
            sha256: hasher.finalize().into(),
        })
    }
}

/// The largest provider package downloaded: as much as an archive may unpack to, far above
/// any provider published.
const MAX_PACKAGE_BYTES: u64 = crate::unzip::MAX_UNPACKED_BYTES;

async fn read_limited(mut resp: reqwest::Response, limit: usize) -> Result<Fetched, HttpError> {
    let status = resp.status();
    let url = resp.url().clone();
    let content_type = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if resp.content_length().is_some_and(|n| n > limit as u64) {
        return Err(HttpError::TooLarge { limit });
    }
    let mut body = Vec::new();
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| HttpError::Request(describe(&e)))?
    {
        if body.len() + chunk.len() > limit {
            return Err(HttpError::TooLarge { limit });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Fetched {
        status,
        url,
        content_type,
        body,
    })
}

/// Whether a `Content-Type` value is JSON (`application/json`, any parameters).
pub(crate) fn is_json(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|ct| {
        ct.split(';')
            .next()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
    })
}

/// `404 Not Found`: the code and its reason phrase, as Go prints `resp.Status`.
pub(crate) fn describe_status(status: StatusCode) -> String {
    status.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_shown_without_user_or_password() {
        let show = |s: &str| shown(&Url::parse(s).expect("a URL"));
        assert_eq!(
            show("https://user:pa55@mirror.example/p/"),
            "https://***@mirror.example/p/"
        );
        assert_eq!(
            show("https://user@mirror.example/"),
            "https://***@mirror.example/"
        );
        assert_eq!(
            show("https://:pa55@mirror.example/"),
            "https://***@mirror.example/"
        );
        assert_eq!(
            show("https://mirror.example/@x/"),
            "https://mirror.example/@x/"
        );
        assert_eq!(
            shown_text("https://user:pa/55@mirror.example:port/"),
            "https://***@mirror.example:port/"
        );
        assert_eq!(
            shown_text("user:pa55@mirror.example/"),
            "***@mirror.example/"
        );
        assert_eq!(
            shown_text("https://mirror.example/"),
            "https://mirror.example/"
        );
    }
}
