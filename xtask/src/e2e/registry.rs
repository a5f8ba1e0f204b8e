//! A package from a provider registry: `pulumi package add terraform-provider 127.0.0.1:<port>/hashicorp/random
//! 3.6.3` against a local HTTPS registry serving the real random 3.6.3 binary, then `up` with the
//! registry running and again after it is stopped, from our installer's cache.
//!
//! The registry is `xtask/bench/registry_server.py` (run by the `tools_python` fixture) in the project's
//! network: it makes a CA and a signing key for this run and publishes the package, which is rebuilt from
//! the fixture binary (one deflated entry, mode 0755, as HashiCorp ships it). Our plugin trusts the CA
//! through `SSL_CERT_FILE` and keeps its provider cache inside the project through
//! `PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR`.

use std::ffi::OsStr;
use std::fs;
use std::path::Path;

use anyhow::{Context, Result, ensure};
use base64::Engine as _;
use serde_json::Value;

use super::harness::{self, Project, Tools};
use crate::{provider_zip, util};

/// The Pulumi type token of `random_pet`.
const PET: &str = "random:index/pet:Pet";
/// The version the registry serves and the project asks for.
const VERSION: &str = "3.6.3";

/// Adds random 3.6.3 from the registry, creates a pet, stops the registry, replaces the pet and refreshes
/// from the cache, then destroys.
pub(super) fn package(tools: &Tools) -> Result<()> {
    let mut project = Project::new(tools, "registry")?;
    let entry = tools
        .random
        .file_name()
        .context("the random fixture has no file name")?
        .to_string_lossy()
        .into_owned();
    let zip = project.scratch(&format!("terraform-provider-random_{VERSION}.zip"));
    provider_zip::zip_binary(&tools.random, &entry, &zip)?;
    let script = util::workspace_root().join("xtask/bench/registry_server.py");
    let served = project.scratch("registry");
    let platform = provider_zip::platform();
    let published = format!("hashicorp/random/{VERSION}");
    let (registry, line) = project.service(
        "registry",
        &tools.tools_python,
        &[
            script.as_os_str(),
            zip.as_os_str(),
            served.as_os_str(),
            OsStr::new(&platform),
            OsStr::new(&published),
        ],
    )?;
    let ready: Value = serde_json::from_str(&line)
        .with_context(|| format!("the registry's ready line is not JSON: {line:?}"))?;
    let host = ready["registry_host"]
        .as_str()
        .with_context(|| format!("the registry's ready line has no registry_host: {line}"))?;
    let ca = ready["ca"]
        .as_str()
        .with_context(|| format!("the registry's ready line has no ca: {line}"))?;
    let (status, _) = project.http_get(
        &format!("https://{host}/v1/providers/hashicorp/random/versions"),
        Some(Path::new(ca)),
    )?;
    ensure!(
        status == 200,
        "the registry answers {status} for the version list"
    );
    project.set_env("SSL_CERT_FILE", ca);
    let cache = project.scratch("provider-cache");
    project.set_env("PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR", &cache);

    let source = format!("{host}/hashicorp/random");
    project.package_add("add random from the registry", &[&source, VERSION])?;
    let manifest = project.manifest();
    ensure!(
        manifest.contains(&source) && manifest.contains(VERSION),
        "Pulumi.yaml does not record the registry source and version {VERSION}:\n{manifest}"
    );

    let program = |length: u32| {
        format!(
            "resources:\n  pet:\n    type: {PET}\n    properties:\n      length: {length}\n\
             outputs:\n  name: ${{pet.id}}\n"
        )
    };
    project.write_program(&program(2))?;
    project.pulumi("create a pet", &["up", "--yes", "--skip-preview"])?;
    let export = project.export()?;
    let first = pet_name(&export, 2)?;
    let parameterization = provider_text(&export);
    ensure!(
        parameterization.contains(&format!("\"{VERSION}\"")) && parameterization.contains(&source),
        "the stack's random provider does not embed {source} at version {VERSION}:\n{parameterization}"
    );
    let cached = count_files(&cache)?;
    ensure!(cached > 0, "nothing was cached in {}", cache.display());

    project.stop(registry)?;
    let (status, _) = project
        .http_get(
            &format!("https://{host}/v1/providers/hashicorp/random/versions"),
            Some(Path::new(ca)),
        )
        .unwrap_or((0, String::new()));
    ensure!(
        status == 0,
        "the registry still answers ({status}) after it was stopped"
    );
    project.write_program(&program(3))?;
    project.pulumi(
        "replace the pet with the registry stopped",
        &["up", "--yes", "--skip-preview"],
    )?;
    let export = project.export()?;
    let second = pet_name(&export, 3)?;
    ensure!(first != second, "the pet was not replaced: {first}");
    project.pulumi(
        "refresh with the registry stopped",
        &["refresh", "--yes", "--skip-preview"],
    )?;
    project.pulumi("destroy", &["destroy", "--yes", "--skip-preview"])?;
    let export = project.export()?;
    ensure!(
        harness::resources(&export, PET).is_empty(),
        "destroy left the pet in the state"
    );
    eprintln!(
        "  the cache in the project holds {cached} files; up, refresh and destroy ran from it"
    );
    project.finish()
}

/// The state's pet name, checked to have `words` words.
fn pet_name(export: &Value, words: usize) -> Result<String> {
    let pet = harness::resource(export, PET, "pet")?;
    let name = pet["id"].as_str().unwrap_or_default().to_owned();
    ensure!(
        name.split('-').count() == words,
        "the pet's name {name:?} does not have {words} words: {pet}"
    );
    Ok(name)
}

/// The stack's random provider resources as text, with every base64 value that decodes to text decoded
/// too, so that the parameterization's embedded JSON can be searched.
fn provider_text(export: &Value) -> String {
    let mut text = String::new();
    for provider in harness::resources(export, "pulumi:providers:random") {
        text.push_str(&provider.to_string());
        let mut pending = vec![provider];
        while let Some(value) = pending.pop() {
            match value {
                Value::String(s) => {
                    if let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(s)
                        && let Ok(decoded) = String::from_utf8(bytes)
                    {
                        text.push('\n');
                        text.push_str(&decoded);
                    }
                }
                Value::Array(items) => pending.extend(items),
                Value::Object(map) => pending.extend(map.values()),
                _ => {}
            }
        }
    }
    text
}

/// How many files are under `dir`, recursively.
fn count_files(dir: &Path) -> Result<usize> {
    let mut count = 0;
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in
            fs::read_dir(&dir).with_context(|| format!("could not list {}", dir.display()))?
        {
            let path = entry
                .with_context(|| format!("could not list {}", dir.display()))?
                .path();
            if path.is_dir() {
                pending.push(path);
            } else {
                count += 1;
            }
        }
    }
    Ok(count)
}
