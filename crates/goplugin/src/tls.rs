//! go-plugin AutoMTLS from the client side.
//!
//! Terraform makes a fresh self-signed client certificate per plugin and hands its PEM to the
//! plugin in `PLUGIN_CLIENT_CERT`; the plugin answers with its own self-signed certificate in the
//! handshake line. go-plugin makes both with P-521 / ECDSA-SHA512, `CA:TRUE` (`mtls.go`); ours
//! is P-256 (see [`ClientIdentity::generate`]). Stock WebPKI verification rejects a CA
//! certificate used as a leaf, so the server certificate is pinned: the presented leaf must be
//! byte-for-byte the one from the handshake, and handshake signatures are still verified, with
//! aws-lc-rs because ring cannot verify the P-521 signatures of go-plugin's servers.
//!
//! When the caller is itself the plugin (our binary's `replay` and `record`), the roles
//! swap: go-plugin's server makes its certificate with the same `generateCert`, so
//! [`ClientIdentity`] serves that side too, and the host's certificate from `PLUGIN_CLIENT_CERT` is
//! pinned the same way.

use std::sync::Arc;

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};
use rustls::{
    DigitallySignedStruct, SignatureScheme,
    client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier},
    crypto::CryptoProvider,
    pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime},
    server::danger::{ClientCertVerified, ClientCertVerifier},
};

/// Why a certificate could not be made.
pub use rcgen::Error as CertificateError;

/// Our side of AutoMTLS: a certificate and its key, made once per launched plugin.
pub struct ClientIdentity {
    cert_pem: String,
    cert_der: CertificateDer<'static>,
    key_der: PrivatePkcs8KeyDer<'static>,
}

impl std::fmt::Debug for ClientIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The private key is never printed.
        f.debug_struct("ClientIdentity").finish_non_exhaustive()
    }
}

impl ClientIdentity {
    /// Makes a certificate shaped like Terraform's (go-plugin `generateCert`), `O=HashiCorp,
    /// CN=localhost`, SAN `localhost`, a CA that may sign certificates, usable for client and
    /// server auth, valid from 30 seconds ago for about 30 years; but with a P-256 key and
    /// ECDSA-SHA256 where go-plugin uses P-521 and SHA-512.
    ///
    /// The curve is the one choice the other side pays for: a provider verifies our
    /// CertificateVerify signature before it answers its first call, and Go's P-521 is far
    /// slower than its P-256 (the figures are in README "Performance", AutoMTLS). Go's TLS takes
    /// a client certificate of any curve it knows from `ClientCAs`, and grpcio servers (Pyvider)
    /// ask for none.
    pub fn generate() -> Result<ClientIdentity, CertificateError> {
        let key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)?;
        let mut params = CertificateParams::new(vec!["localhost".to_owned()])?;
        let mut name = DistinguishedName::new();
        name.push(DnType::OrganizationName, "HashiCorp");
        name.push(DnType::CommonName, "localhost");
        params.distinguished_name = name;
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
            KeyUsagePurpose::KeyAgreement,
            KeyUsagePurpose::KeyCertSign,
        ];
        params.extended_key_usages = vec![
            ExtendedKeyUsagePurpose::ClientAuth,
            ExtendedKeyUsagePurpose::ServerAuth,
        ];
        let now = std::time::SystemTime::now();
        params.not_before = (now - std::time::Duration::from_secs(30)).into();
        params.not_after = (now + std::time::Duration::from_secs(262_980 * 3600)).into();
        let cert = params.self_signed(&key)?;
        Ok(ClientIdentity {
            cert_pem: cert.pem(),
            cert_der: cert.der().clone(),
            key_der: PrivatePkcs8KeyDer::from(key.serialize_der()),
        })
    }

    /// The certificate in PEM, for `PLUGIN_CLIENT_CERT`.
    pub fn cert_pem(&self) -> &str {
        &self.cert_pem
    }

    /// The certificate in DER, which a plugin's handshake line carries.
    pub fn cert_der(&self) -> &[u8] {
        &self.cert_der
    }

    /// A rustls client configuration that presents this identity and accepts only `server_der`.
    pub fn client_config(
        &self,
        server_der: Vec<u8>,
    ) -> Result<rustls::ClientConfig, rustls::Error> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let verifier = PinnedCert {
            pinned: CertificateDer::from(server_der),
            provider: provider.clone(),
        };
        let mut config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_client_auth_cert(
                vec![self.cert_der.clone()],
                PrivateKeyDer::Pkcs8(self.key_der.clone_key()),
            )?;
        // grpcio closes connections without ALPN and grpc-go >= 1.67 refuses them.
        config.alpn_protocols = vec![b"h2".to_vec()];
        Ok(config)
    }

    /// A rustls server configuration, for when we are the plugin: it presents this identity and
    /// requires the host's certificate, exactly `client_der` (go-plugin `server.go` requires and
    /// verifies the client certificate of `PLUGIN_CLIENT_CERT`).
    pub fn server_config(
        &self,
        client_der: CertificateDer<'static>,
    ) -> Result<rustls::ServerConfig, rustls::Error> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let verifier = PinnedCert {
            pinned: client_der,
            provider: provider.clone(),
        };
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .with_client_cert_verifier(Arc::new(verifier))
            .with_single_cert(
                vec![self.cert_der.clone()],
                PrivateKeyDer::Pkcs8(self.key_der.clone_key()),
            )?;
        // grpc-go >= 1.67 refuses a TLS server that does not select `h2`.
        config.alpn_protocols = vec![b"h2".to_vec()];
        Ok(config)
    }
}

/// Accepts exactly one certificate: as a host, the one the plugin announced in its handshake; as
/// a plugin, the one the host put in `PLUGIN_CLIENT_CERT`.
#[derive(Debug)]
struct PinnedCert {
    pinned: CertificateDer<'static>,
    provider: Arc<CryptoProvider>,
}

impl PinnedCert {
    fn check(&self, presented: &CertificateDer<'_>) -> Result<(), rustls::Error> {
        if presented.as_ref() == self.pinned.as_ref() {
            Ok(())
        } else {
            Err(rustls::Error::General(
                "the peer presented a certificate other than the one go-plugin's handshake named"
                    .into(),
            ))
        }
    }

    fn verify_tls12(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

impl ClientCertVerifier for PinnedCert {
    /// No hint: Go's TLS client then sends its only certificate whatever its issuer.
    fn root_hint_subjects(&self) -> &[rustls::DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        self.check(end_entity)
            .map(|()| ClientCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.verify_tls12(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.verify_tls13(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.schemes()
    }
}

impl ServerCertVerifier for PinnedCert {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.check(end_entity)
            .map(|()| ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.verify_tls12(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.verify_tls13(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_certificate_has_go_plugins_shape_with_a_p256_key() {
        let id = ClientIdentity::generate().expect("certificate generation");
        assert!(id.cert_pem().starts_with("-----BEGIN CERTIFICATE-----"));
        // The DER encodings of the OIDs prime256v1 (1.2.840.10045.3.1.7) and ecdsa-with-SHA256
        // (1.2.840.10045.4.3.2).
        let contains = |oid: &[u8]| id.cert_der().windows(oid.len()).any(|w| w == oid);
        assert!(contains(&[6, 8, 0x2a, 0x86, 0x48, 0xce, 0x3d, 3, 1, 7]));
        assert!(contains(&[6, 8, 0x2a, 0x86, 0x48, 0xce, 0x3d, 4, 3, 2]));
        let config = id.client_config(vec![1, 2, 3]).expect("client config");
        assert_eq!(config.alpn_protocols, vec![b"h2".to_vec()]);
    }

    #[test]
    fn pinned_verifier_accepts_only_the_pinned_certificate() {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let verifier = PinnedCert {
            pinned: CertificateDer::from(vec![1, 2, 3]),
            provider,
        };
        let name = ServerName::try_from("localhost").expect("static name");
        let now = UnixTime::now();
        assert!(
            verifier
                .verify_server_cert(&CertificateDer::from(vec![1, 2, 3]), &[], &name, &[], now)
                .is_ok()
        );
        assert!(
            verifier
                .verify_server_cert(&CertificateDer::from(vec![1, 2, 4]), &[], &name, &[], now)
                .is_err()
        );
        // As a plugin, the host's certificate is pinned the same way.
        let one = CertificateDer::from(vec![1, 2, 3]);
        assert!(verifier.verify_client_cert(&one, &[], now).is_ok());
        let other = CertificateDer::from(vec![1, 2, 4]);
        assert!(verifier.verify_client_cert(&other, &[], now).is_err());
        assert!(ClientCertVerifier::client_auth_mandatory(&verifier));
    }

    #[test]
    fn server_configuration_selects_h2() {
        let host = ClientIdentity::generate().expect("certificate generation");
        let plugin = ClientIdentity::generate().expect("certificate generation");
        let config = plugin
            .server_config(CertificateDer::from(host.cert_der().to_vec()))
            .expect("server config");
        assert_eq!(config.alpn_protocols, vec![b"h2".to_vec()]);
    }
}
