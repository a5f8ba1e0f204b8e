//! A Terraform provider package as a registry serves it, for the local registries of
//! `bench install` and the `registry-package` e2e scenario: the zip, and the platform it is for.

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::Path;

use anyhow::{Context, Result};

/// Writes a zip holding `binary` as the entry `entry`, as HashiCorp ships it: one deflated entry,
/// mode 0755.
pub(crate) fn zip_binary(binary: &Path, entry: &str, dest: &Path) -> Result<()> {
    let out = File::create(dest).with_context(|| format!("could not create {}", dest.display()))?;
    let mut zip = zip::ZipWriter::new(BufWriter::new(out));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .unix_permissions(0o755);
    zip.start_file(entry, options)
        .with_context(|| format!("could not write {}", dest.display()))?;
    let mut input =
        File::open(binary).with_context(|| format!("could not open {}", binary.display()))?;
    io::copy(&mut input, &mut zip)
        .with_context(|| format!("could not write {}", dest.display()))?;
    zip.finish()
        .with_context(|| format!("could not finish {}", dest.display()))?;
    Ok(())
}

/// This machine's platform in the registry's `<os>_<arch>` form, as Terraform names it: what
/// `tfp_registry::Platform::current` gives our installer, repeated here for the common platforms so
/// that xtask does not build the registry crate and its TLS stack.
pub(crate) fn platform() -> String {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "x86" => "386",
        "aarch64" => "arm64",
        other => other,
    };
    format!("{os}_{arch}")
}
