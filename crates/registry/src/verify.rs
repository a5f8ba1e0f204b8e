//! Package checks that do not involve OpenPGP (getproviders `package_authentication.go`): the
//! SHA256SUMS line for the archive, the archive's own SHA-256, the registry's `packages` data,
//! and the hashes a network mirror reports.
//!
//! Invariant: each check either passes or returns OpenTofu's message for the failure; none of
//! them trusts a value it has not compared.

use std::collections::BTreeMap;

use crate::{hash, registry::PlatformData};

/// Finds the SHA-256 that the SHA256SUMS `document` gives for `filename` and checks it equals
/// `want` (`matchingChecksumAuthentication`).
pub(crate) fn matching_checksum(
    document: &[u8],
    filename: &str,
    want: &[u8; 32],
) -> Result<(), String> {
    let found = document.split(|b| *b == b'\n').find_map(|line| {
        let mut fields = line
            .split(u8::is_ascii_whitespace)
            .filter(|f| !f.is_empty());
        let sum = fields.next()?;
        (fields.next()? == filename.as_bytes()).then_some(sum)
    });
    let Some(sum) = found else {
        return Err(format!(
            "checksum list has no SHA-256 hash for {filename:?}"
        ));
    };
    let mut got = [0u8; 32];
    if sum.len() != 64 || hex::decode_to_slice(sum, &mut got).is_err() {
        return Err(format!(
            "checksum list has invalid SHA256 hash {:?}",
            String::from_utf8_lossy(sum)
        ));
    }
    if &got != want {
        return Err(format!(
            "checksum list has unexpected SHA-256 hash {} (expected {})",
            hex::encode(got),
            hex::encode(want)
        ));
    }
    Ok(())
}

/// Checks the downloaded archive's SHA-256 (`archiveHashAuthentication`).
pub(crate) fn archive_checksum(got: &[u8; 32], want: &[u8; 32]) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!(
            "archive has incorrect checksum {} (expected {})",
            hash::zh(got),
            hash::zh(want)
        ))
    }
}

/// Checks OpenTofu's `packages` extension against the download (`registryPackageAuthentication`);
/// an answer without it passes.
pub(crate) fn registry_packages(
    packages: &BTreeMap<String, PlatformData>,
    platform: &str,
    shasum_hex: &str,
    size: u64,
) -> Result<(), String> {
    if packages.is_empty() {
        return Ok(());
    }
    let Some(data) = packages.get(platform) else {
        return Err(format!(
            "registry response missing package with platform {platform:?}"
        ));
    };
    if data.package_size <= 0 {
        return Err(format!(
            "registry response has invalid package size {}",
            data.package_size
        ));
    }
    if u64::try_from(data.package_size).ok() != Some(size) {
        return Err(format!(
            "registry response indicates a package of size {}, but received a package of size {size}",
            data.package_size
        ));
    }
    let mut found = false;
    for h in &data.hashes {
        if let Some(value) = h.strip_prefix("zh:") {
            if value != shasum_hex {
                return Err(format!(
                    "registry response expected sha256sum is {shasum_hex:?}, which does not match the platform's value of {value:?}"
                ));
            }
            found = true;
        }
    }
    if !found {
        return Err(
            "registry response does not contain matching sha256sum package entry and is invalid"
                .into(),
        );
    }
    Ok(())
}

/// Checks a package against hashes from a mirror (`packageHashAuthentication`): at least one
/// `h1:` or `zh:` must match; other schemes are ignored.
pub(crate) fn mirror_hashes(allowed: &[String], h1: &str, zh: Option<&str>) -> Result<(), String> {
    let usable: Vec<&String> = allowed
        .iter()
        .filter(|h| h.starts_with("h1:") || h.starts_with("zh:"))
        .collect();
    if usable.is_empty() {
        return Err("this version of OpenTofu does not support any of the checksum formats given for this provider".into());
    }
    if usable
        .iter()
        .any(|h| h.as_str() == h1 || Some(h.as_str()) == zh)
    {
        return Ok(());
    }
    if let [only] = usable.as_slice() {
        return Err(format!(
            "provider package doesn't match the expected checksum {only:?}"
        ));
    }
    Err("provider package doesn't match the any of the expected checksums".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_line_must_name_the_file_and_hash() {
        let want = [0xab_u8; 32];
        let doc = format!(
            "{}  other.zip\n{}  p_1.0.0_linux_amd64.zip\n",
            "00".repeat(32),
            "ab".repeat(32)
        );
        assert_eq!(
            matching_checksum(doc.as_bytes(), "p_1.0.0_linux_amd64.zip", &want),
            Ok(())
        );
        assert!(matching_checksum(doc.as_bytes(), "P_1.0.0_linux_amd64.zip", &want).is_err());
        assert!(
            matching_checksum(doc.as_bytes(), "other.zip", &want)
                .expect_err("wrong hash")
                .starts_with("checksum list has unexpected SHA-256 hash 0000")
        );
    }
}
