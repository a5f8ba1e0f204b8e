//! Detached OpenPGP signatures over a registry's SHA256SUMS document, checked with OpenTofu's
//! rules (getproviders `signatureAuthentication`).
//!
//! Invariants: a signature is accepted only if one of the registry's keys verifies it
//! cryptographically over the exact document bytes. Keys are tried in order; a key that did not
//! issue the signature is skipped; a key that issued it but does not verify it fails the whole
//! check. An expired key or signature is accepted only after no unexpired key verified and only
//! when expiry is not enforced (`OPENTOFU_ENFORCE_GPG_EXPIRATION=true` enforces it).

use std::io::Cursor;

use pgp::{
    composed::{Deserializable, DetachedSignature, SignedPublicKey},
    packet::Signature,
    types::{KeyDetails, Timestamp},
};

/// Why the signature check failed; `Display` gives OpenTofu's wording.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    /// No key issued a valid signature (OpenTofu `ErrUnknownIssuer`).
    #[error(
        "the provider is not signed with a valid signing key; please contact the provider author (authentication signature from unknown issuer)"
    )]
    UnknownIssuer,
    /// A key from the registry could not be read.
    #[error(
        "the provider is not signed with a valid signing key; please contact the provider author (error decoding signing key: {0})"
    )]
    BadKey(String),
    /// The signature file could not be read.
    #[error(
        "the provider is not signed with a valid signing key; please contact the provider author (error reading signature: {0})"
    )]
    BadSignatureData(String),
    /// The issuing key does not verify the signature: the document or signature was altered.
    #[error(
        "the provider is not signed with a valid signing key; please contact the provider author (error checking signature: {0})"
    )]
    Invalid(String),
}

/// Which key vouched for the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Signer {
    /// The 16-hex-digit key id of the primary key, upper case as GnuPG prints it.
    pub(crate) key_id: String,
    /// Set when the key or signature had expired and expiry was not enforced.
    pub(crate) expired: bool,
}

/// Whether `sig` names `key` as its issuer (or names nobody, in which case any key may try).
fn issued_by(sig: &Signature, key: &impl KeyDetails) -> bool {
    let ids = sig.issuer_key_id();
    let fingerprints = sig.issuer_fingerprint();
    (ids.is_empty() && fingerprints.is_empty())
        || ids.iter().any(|id| **id == key.legacy_key_id())
        || fingerprints.iter().any(|fp| **fp == key.fingerprint())
}

/// The expiry instant (Unix seconds) stated by the newest of `sigs` for a key created at
/// `created`; `None` when the key never expires.
fn key_expiry<'a>(created: Timestamp, sigs: impl Iterator<Item = &'a Signature>) -> Option<u64> {
    let newest = sigs.max_by_key(|s| s.created().map(Timestamp::as_secs))?;
    let lifetime = newest.key_expiration_time()?.as_secs();
    (lifetime != 0).then(|| u64::from(created.as_secs()) + u64::from(lifetime))
}

/// Whether the signature itself had expired at `now`.
fn signature_expired(sig: &Signature, now: u64) -> bool {
    match (sig.created(), sig.signature_expiration_time()) {
        (Some(created), Some(lifetime)) if lifetime.as_secs() != 0 => {
            u64::from(created.as_secs()) + u64::from(lifetime.as_secs()) <= now
        }
        _ => false,
    }
}

/// The outcome of trying one keyring.
enum Attempt {
    NotIssuer,
    Verified { key_id: String, expired: bool },
}

fn try_keyring(
    keyring: &[SignedPublicKey],
    sig: &Signature,
    document: &[u8],
    now: u64,
) -> Result<Attempt, SignatureError> {
    // A signature that names no issuer is tried against every key; one that names its issuer
    // is checked only against that key, and a failure there is final.
    let anonymous = sig.issuer_key_id().is_empty() && sig.issuer_fingerprint().is_empty();
    let sig_expired = signature_expired(sig, now);
    for key in keyring {
        let primary = &key.primary_key;
        let key_id = hex::encode_upper(primary.legacy_key_id().as_ref());
        let self_sigs = key
            .details
            .users
            .iter()
            .flat_map(|u| u.signatures.iter())
            .chain(key.details.direct_signatures.iter())
            .filter(|s| issued_by(s, primary));
        let primary_expired = key_expiry(primary.created_at(), self_sigs).is_some_and(|t| t <= now);
        if issued_by(sig, primary) {
            match sig.verify(primary, Cursor::new(document)) {
                Ok(()) => {
                    return Ok(Attempt::Verified {
                        key_id,
                        expired: primary_expired || sig_expired,
                    });
                }
                Err(e) if !anonymous => return Err(SignatureError::Invalid(reason(&e))),
                Err(_) => {}
            }
        }
        for sub in &key.public_subkeys {
            if !issued_by(sig, &sub.key) {
                continue;
            }
            let checked = sub
                .verify_bindings(primary)
                .map_err(|e| format!("subkey binding: {}", reason(&e)))
                .and_then(|()| {
                    sig.verify(&sub.key, Cursor::new(document))
                        .map_err(|e| reason(&e))
                });
            match checked {
                Ok(()) => {
                    let sub_expired = key_expiry(sub.key.created_at(), sub.signatures.iter())
                        .is_some_and(|t| t <= now);
                    return Ok(Attempt::Verified {
                        key_id,
                        expired: primary_expired || sub_expired || sig_expired,
                    });
                }
                Err(e) if !anonymous => return Err(SignatureError::Invalid(e)),
                Err(_) => {}
            }
        }
    }
    Ok(Attempt::NotIssuer)
}

/// The most a reason from the OpenPGP library takes in an error.
const MAX_REASON: usize = 300;

/// The OpenPGP library's reason for `err`, fit for a message: some of its errors print as debug
/// dumps over several lines, with a backtrace when `RUST_BACKTRACE` is set (kilobytes of it).
/// The dump's backtrace is cut, its lines joined, and the whole bounded.
fn reason(err: &pgp::errors::Error) -> String {
    let text = err.to_string();
    let text = text.split(", backtrace:").next().unwrap_or_default();
    let mut reason = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some((cut, _)) = reason.char_indices().nth(MAX_REASON) {
        reason.truncate(cut);
        reason.push('…');
    }
    reason
}

/// Reads a detached signature given as binary packets (what registries serve) or armored text.
fn read_signature(bytes: &[u8]) -> Result<Signature, SignatureError> {
    let bad = |e: pgp::errors::Error| SignatureError::BadSignatureData(reason(&e));
    let trimmed = bytes.trim_ascii_start();
    let detached = if trimmed.starts_with(b"-----BEGIN") {
        DetachedSignature::from_armor_single(Cursor::new(trimmed))
            .map(|(s, _)| s)
            .map_err(bad)?
    } else {
        DetachedSignature::from_bytes(Cursor::new(bytes)).map_err(bad)?
    };
    Ok(detached.signature)
}

/// Checks `signature` over `document` against the armored keys the registry gave.
///
/// `now` is the current time in Unix seconds. Returns the signer, or `None` only when `keys` is
/// empty and `required` is false (OpenTofu's concession for the default registry).
pub(crate) fn verify(
    document: &[u8],
    signature: &[u8],
    keys: &[String],
    required: bool,
    enforce_expiry: bool,
    now: u64,
) -> Result<Option<Signer>, SignatureError> {
    if keys.is_empty() && !required {
        return Ok(None);
    }
    let sig = read_signature(signature)?;
    let mut expired_signer = None;
    for armored in keys {
        let keyring: Vec<SignedPublicKey> = SignedPublicKey::from_armor_many(Cursor::new(armored))
            .map_err(|e| SignatureError::BadKey(reason(&e)))?
            .0
            .collect::<Result<_, _>>()
            .map_err(|e| SignatureError::BadKey(reason(&e)))?;
        match try_keyring(&keyring, &sig, document, now)? {
            Attempt::NotIssuer => {}
            Attempt::Verified {
                key_id,
                expired: false,
            } => {
                return Ok(Some(Signer {
                    key_id,
                    expired: false,
                }));
            }
            Attempt::Verified {
                key_id,
                expired: true,
            } => {
                expired_signer.get_or_insert(Signer {
                    key_id,
                    expired: true,
                });
            }
        }
    }
    match expired_signer {
        Some(signer) if !enforce_expiry => Ok(Some(signer)),
        _ => Err(SignatureError::UnknownIssuer),
    }
}
