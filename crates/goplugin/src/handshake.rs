//! The go-plugin handshake line: the first line a plugin prints on stdout.
//!
//! `CORE|APP|NETWORK|ADDRESS|PROTOCOL|CERT` (hashicorp/go-plugin `client.go` reads it, `server.go`
//! writes it). The certificate is the server's DER leaf in base64 without padding; it is present
//! only under AutoMTLS. We never trust the negotiated version: it is checked against what we
//! offered, because go-plugin servers fall back to their own version when none matches, and Pyvider
//! echoes whatever it is asked.

use std::path::PathBuf;

use base64::Engine as _;
use tfp_echo::quoted;

/// The protocol versions we offer, in `PLUGIN_PROTOCOL_VERSIONS` form.
pub const OFFERED_PROTOCOLS: &str = "5,6";

/// Where the plugin listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Address {
    Unix(PathBuf),
    Tcp(std::net::SocketAddr),
}

impl std::fmt::Display for Address {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Address::Unix(path) => write!(f, "unix:{}", path.display()),
            Address::Tcp(addr) => write!(f, "tcp:{addr}"),
        }
    }
}

/// A parsed and checked handshake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handshake {
    /// The negotiated Terraform plugin protocol: 5 or 6.
    pub protocol: u32,
    pub address: Address,
    /// The server's DER certificate, when it serves TLS.
    pub server_cert: Option<Vec<u8>>,
}

/// Why a handshake line was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum HandshakeError {
    #[error("expected at least 5 '|'-separated fields, got {0}")]
    TooFewFields(usize),
    #[error("unsupported go-plugin core protocol {} (only 1 is supported)", quoted(.0))]
    CoreVersion(String),
    #[error(
        "the plugin chose protocol {}, but we offered only {OFFERED_PROTOCOLS}; use a provider \
         release that supports plugin protocol 5 or 6 (built for Terraform 0.12 or later)",
        quoted(.0)
    )]
    AppVersion(String),
    #[error("unsupported network type {} (expected unix or tcp)", quoted(.0))]
    Network(String),
    #[error("invalid tcp address {}", quoted(.0))]
    TcpAddress(String),
    #[error("unsupported plugin protocol {} (Terraform providers serve grpc)", quoted(.0))]
    Protocol(String),
    #[error("server certificate is not valid base64")]
    Certificate,
}

/// Parses one handshake line.
pub fn parse(line: &str) -> Result<Handshake, HandshakeError> {
    let fields = fields(line);
    if fields.len() < 5 {
        return Err(HandshakeError::TooFewFields(fields.len()));
    }
    if fields[0] != "1" {
        return Err(HandshakeError::CoreVersion(fields[0].to_owned()));
    }
    let protocol = match fields[1] {
        "5" => 5,
        "6" => 6,
        other => return Err(HandshakeError::AppVersion(other.to_owned())),
    };
    let address = match fields[2] {
        "unix" => Address::Unix(PathBuf::from(fields[3])),
        "tcp" => Address::Tcp(
            fields[3]
                .parse()
                .map_err(|_| HandshakeError::TcpAddress(fields[3].to_owned()))?,
        ),
        other => return Err(HandshakeError::Network(other.to_owned())),
    };
    if fields[4] != "grpc" {
        return Err(HandshakeError::Protocol(fields[4].to_owned()));
    }
    // go-plugin treats shorter strings as "no certificate" (client.go checks len > 50).
    let server_cert = match fields.get(5) {
        Some(cert) if cert.len() > 50 => Some(
            base64::engine::general_purpose::STANDARD_NO_PAD
                .decode(cert.trim_end_matches('='))
                .map_err(|_| HandshakeError::Certificate)?,
        ),
        _ => None,
    };
    Ok(Handshake {
        protocol,
        address,
        server_cert,
    })
}

/// The unix socket a handshake line names, whether or not the rest of it is acceptable: a plugin
/// refused for its line may already listen there, and the socket outlives it when it is killed.
pub fn unix_path(line: &str) -> Option<PathBuf> {
    match fields(line)[..] {
        [_, _, "unix", path, ..] if !path.is_empty() => Some(PathBuf::from(path)),
        _ => None,
    }
}

fn fields(line: &str) -> Vec<&str> {
    line.trim().split('|').map(str::trim).collect()
}

/// Whether a stdout line is meant as a handshake (`^\d+\|\d+\|`), as opposed to noise a plugin
/// printed before it.
pub fn looks_like_handshake(line: &str) -> bool {
    let mut parts = line.trim_start().splitn(3, '|');
    let numeric =
        |s: Option<&str>| s.is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
    numeric(parts.next()) && numeric(parts.next()) && parts.next().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(line: &str, expected: Result<Handshake, HandshakeError>) {
        assert_eq!(parse(line), expected, "{line}");
    }

    #[test]
    fn parses_real_lines() {
        check(
            "1|5|unix|/tmp/plugin310461047|grpc|\n",
            Ok(Handshake {
                protocol: 5,
                address: Address::Unix("/tmp/plugin310461047".into()),
                server_cert: None,
            }),
        );
        check(
            "1|6|tcp|127.0.0.1:1025|grpc|",
            Ok(Handshake {
                protocol: 6,
                address: Address::Tcp("127.0.0.1:1025".parse().unwrap()),
                server_cert: None,
            }),
        );
        let der = vec![0x30u8; 60];
        let b64 = base64::engine::general_purpose::STANDARD_NO_PAD.encode(&der);
        check(
            &format!("1|6|unix|/tmp/p.sock|grpc|{b64}"),
            Ok(Handshake {
                protocol: 6,
                address: Address::Unix("/tmp/p.sock".into()),
                server_cert: Some(der.clone()),
            }),
        );
        // Padding is tolerated even though go-plugin never writes it.
        let padded = base64::engine::general_purpose::STANDARD.encode(&der[..59]);
        assert!(parse(&format!("1|6|unix|/s|grpc|{padded}")).is_ok());
    }

    #[test]
    fn refuses_what_we_did_not_ask_for() {
        check(
            "1|4|unix|/tmp/p|netrpc|",
            Err(HandshakeError::AppVersion("4".into())),
        );
        check(
            "1|7|unix|/tmp/p|grpc|",
            Err(HandshakeError::AppVersion("7".into())),
        );
        check(
            "2|5|unix|/tmp/p|grpc|",
            Err(HandshakeError::CoreVersion("2".into())),
        );
        check(
            "1|5|udp|x|grpc|",
            Err(HandshakeError::Network("udp".into())),
        );
        check(
            "1|5|tcp|nowhere|grpc|",
            Err(HandshakeError::TcpAddress("nowhere".into())),
        );
        check(
            "1|5|unix|/tmp/p|netrpc|",
            Err(HandshakeError::Protocol("netrpc".into())),
        );
        check("1|5|unix", Err(HandshakeError::TooFewFields(3)));
        check(
            &format!("1|5|unix|/p|grpc|{}", "!".repeat(80)),
            Err(HandshakeError::Certificate),
        );
    }

    #[test]
    fn names_the_socket_of_a_refused_line() {
        assert_eq!(
            unix_path("1|4|unix|/tmp/plugin1|netrpc|"),
            Some(PathBuf::from("/tmp/plugin1"))
        );
        assert_eq!(unix_path("1|6|tcp|127.0.0.1:1025|grpc|"), None);
        assert_eq!(unix_path("1|6|unix||grpc|"), None);
        assert_eq!(unix_path("1|6|unix"), None);
    }

    #[test]
    fn recognises_handshake_shaped_lines() {
        assert!(looks_like_handshake("1|6|unix|/x|grpc|"));
        assert!(!looks_like_handshake("Starting provider..."));
        assert!(!looks_like_handshake("|6|unix"));
        assert!(!looks_like_handshake("1|a|unix"));
    }
}
