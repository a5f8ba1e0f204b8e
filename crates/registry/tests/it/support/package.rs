//! Provider packages and a registry that serves them: zips made from the real fixture binary,
//! SHA256SUMS documents signed with test keys, and the registry protocol's JSON answers.

use std::{
    collections::{BTreeMap, HashMap},
    io::Write,
    sync::{Mutex, OnceLock},
};

use sha2::{Digest, Sha256};
use tfp_registry::Platform;
use zip::{CompressionMethod, write::SimpleFileOptions};

use super::{
    keys::TestKey,
    server::{Route, Server},
};

/// One file to put in a zip.
pub(crate) struct Entry {
    pub(crate) name: String,
    pub(crate) data: Vec<u8>,
    pub(crate) mode: u32,
}

impl Entry {
    pub(crate) fn new(name: &str, data: &[u8], mode: u32) -> Self {
        Entry {
            name: name.to_owned(),
            data: data.to_vec(),
            mode,
        }
    }
}

/// A zip of the entries, compressed as provider packages are (deflate).
pub(crate) fn zip(entries: &[Entry]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for e in entries {
        let options = SimpleFileOptions::default()
            .compression_method(CompressionMethod::Deflated)
            .unix_permissions(e.mode);
        w.start_file(e.name.as_str(), options).expect("zip entry");
        w.write_all(&e.data).expect("zip data");
    }
    w.finish().expect("zip finish").into_inner()
}

/// The real terraform-provider-random binary packaged as provider `kind` at `version`, with a
/// LICENSE beside it, the way HashiCorp packages it. Built once per (kind, version).
pub(crate) fn real_package(kind: &str, version: &str) -> Vec<u8> {
    static CACHE: OnceLock<Mutex<HashMap<String, Vec<u8>>>> = OnceLock::new();
    let key = format!("{kind}/{version}");
    let cache = CACHE.get_or_init(Default::default);
    if let Some(z) = cache.lock().expect("zip cache").get(&key) {
        return z.clone();
    }
    let z = zip(&[
        Entry::new(
            "LICENSE",
            b"Mozilla Public License 2.0 (test copy)\n",
            0o644,
        ),
        Entry::new(
            &format!("terraform-provider-{kind}_v{version}_x5"),
            super::random_binary(),
            0o755,
        ),
    ]);
    cache.lock().expect("zip cache").insert(key, z.clone());
    z
}

pub(crate) fn sha256_hex(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

/// How the SHA256SUMS document of a release is signed.
#[derive(Clone, Copy)]
pub(crate) enum Signing<'a> {
    /// By the registry's key.
    Good,
    /// By the registry's key, with a signature that has expired.
    Expired,
    /// By another key that the registry does not list.
    Other(&'a TestKey),
    /// A valid signature by the registry's key over different bytes.
    Wrong,
    /// The registry's key's signature with a subpacket length broken, so that it cannot be read.
    Damaged,
}

/// One version of one provider, as published.
pub(crate) struct Release<'a> {
    pub(crate) namespace: &'a str,
    pub(crate) kind: &'a str,
    pub(crate) version: &'a str,
    pub(crate) protocols: Vec<&'a str>,
    pub(crate) zip: Vec<u8>,
    pub(crate) signing: Signing<'a>,
    /// The SHA-256 the metadata claims, when it should not be the zip's.
    pub(crate) claimed_sha: Option<String>,
    /// Whether to list the signing key in the metadata.
    pub(crate) list_key: bool,
}

impl<'a> Release<'a> {
    /// A well-formed release of the real binary.
    pub(crate) fn real(namespace: &'a str, kind: &'a str, version: &'a str) -> Self {
        Release {
            namespace,
            kind,
            version,
            protocols: vec!["5.0"],
            zip: real_package(kind, version),
            signing: Signing::Good,
            claimed_sha: None,
            list_key: true,
        }
    }

    /// A well-formed release of a small package (for tests about versions, not contents).
    pub(crate) fn small(namespace: &'a str, kind: &'a str, version: &'a str) -> Self {
        let exe = format!("terraform-provider-{kind}_v{version}_x5");
        Release {
            zip: zip(&[Entry::new(&exe, b"#!/bin/sh\nexit 0\n", 0o755)]),
            ..Release::real_with_zip(namespace, kind, version)
        }
    }

    fn real_with_zip(namespace: &'a str, kind: &'a str, version: &'a str) -> Self {
        Release {
            namespace,
            kind,
            version,
            protocols: vec!["5.0"],
            zip: Vec::new(),
            signing: Signing::Good,
            claimed_sha: None,
            list_key: true,
        }
    }

    pub(crate) fn filename(&self) -> String {
        let p = Platform::current();
        format!(
            "terraform-provider-{}_{}_{}_{}.zip",
            self.kind, self.version, p.os, p.arch
        )
    }

    /// The path the zip is served at.
    pub(crate) fn zip_path(&self) -> String {
        format!(
            "/dl/{}/{}/{}/{}",
            self.namespace,
            self.kind,
            self.version,
            self.filename()
        )
    }
}

/// Published versions and their protocols, by (namespace, type).
type Published = BTreeMap<(String, String), BTreeMap<String, Vec<String>>>;

/// A provider registry on a test server.
pub(crate) struct Registry {
    pub(crate) server: Server,
    pub(crate) key: TestKey,
    versions: Mutex<Published>,
}

impl Registry {
    pub(crate) async fn start(pki: &super::pki::Pki) -> Self {
        Self::start_with_key(pki, TestKey::new(42, "registry")).await
    }

    /// A registry that signs with `key`.
    pub(crate) async fn start_with_key(pki: &super::pki::Pki, key: TestKey) -> Self {
        let server = Server::start(pki).await;
        server.route(
            "/.well-known/terraform.json",
            Route::Json(
                200,
                r#"{"providers.v1":"/v1/providers/","modules.v1":"/v1/modules/"}"#.into(),
            ),
        );
        Registry {
            server,
            key,
            versions: Mutex::new(BTreeMap::new()),
        }
    }

    pub(crate) fn host(&self) -> String {
        self.server.host()
    }

    /// The source address of a provider on this registry.
    pub(crate) fn source(&self, namespace: &str, kind: &str) -> String {
        format!("{}/{namespace}/{kind}", self.host())
    }

    /// Serves a release: its version in the list, its metadata, zip, sums and signature.
    pub(crate) fn publish(&self, r: &Release<'_>) {
        let p = Platform::current();
        let base = format!("/v1/providers/{}/{}", r.namespace, r.kind);
        {
            let mut versions = self.versions.lock().expect("versions lock");
            let list = versions
                .entry((r.namespace.into(), r.kind.into()))
                .or_default();
            list.insert(
                r.version.into(),
                r.protocols.iter().map(|s| (*s).to_owned()).collect(),
            );
            let body = serde_json::json!({
                "versions": list.iter().map(|(v, protocols)| serde_json::json!({
                    "version": v,
                    "protocols": protocols,
                    "platforms": [{"os": p.os, "arch": p.arch}],
                })).collect::<Vec<_>>(),
                "warnings": [],
            });
            self.server.route(
                &format!("{base}/versions"),
                Route::Json(200, body.to_string()),
            );
        }
        let sha = sha256_hex(&r.zip);
        let filename = r.filename();
        let dl = format!("/dl/{}/{}/{}", r.namespace, r.kind, r.version);
        let sums = format!(
            "{}  terraform-provider-{}_{}_other_arch.zip\n{}  {filename}\n",
            "0".repeat(64),
            r.kind,
            r.version,
            sha
        );
        let signature = match r.signing {
            Signing::Good => self.key.sign(sums.as_bytes()),
            Signing::Expired => self.key.sign_expired(sums.as_bytes()),
            Signing::Other(k) => k.sign(sums.as_bytes()),
            Signing::Wrong => self.key.sign(b"some other document"),
            Signing::Damaged => {
                // The first hashed subpacket's length (byte 8, after the packet's header and
                // the signature's fixed fields) made a 5-byte length of 42, beyond the 29
                // bytes of hashed subpackets.
                let mut signature = self.key.sign(sums.as_bytes());
                signature[8..13].copy_from_slice(&[0xff, 0, 0, 0, 42]);
                signature
            }
        };
        self.server
            .route(&r.zip_path(), Route::Bytes(r.zip.clone()));
        self.server
            .route(&format!("{dl}/SHA256SUMS"), Route::Bytes(sums.into_bytes()));
        self.server
            .route(&format!("{dl}/SHA256SUMS.sig"), Route::Bytes(signature));
        let keys = if r.list_key {
            serde_json::json!([{"key_id": "TEST", "ascii_armor": self.key.armored_public, "source": "test"}])
        } else {
            serde_json::json!([])
        };
        let meta = serde_json::json!({
            "protocols": r.protocols,
            "os": p.os,
            "arch": p.arch,
            "filename": filename,
            // A relative download URL and an absolute sums URL: registries use both.
            "download_url": r.zip_path(),
            "shasums_url": self.server.url(&format!("{dl}/SHA256SUMS")),
            "shasums_signature_url": format!("{dl}/SHA256SUMS.sig"),
            "shasum": r.claimed_sha.clone().unwrap_or(sha),
            "signing_keys": {"gpg_public_keys": keys},
        });
        self.server.route(
            &format!("{base}/{}/download/{}/{}", r.version, p.os, p.arch),
            Route::Json(200, meta.to_string()),
        );
    }
}
