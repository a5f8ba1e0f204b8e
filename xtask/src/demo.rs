//! `cargo xtask demo`: the main job, end to end, against real Terraform providers.
//!
//! Until the Pulumi provider server exists this shows what the Terraform host does: it builds our
//! binary and runs `tf-schema` on the official AWS provider 3.39.0 (protocol 5, upgraded to 6 on
//! the fly) and on Pyvider (protocol 6), each launched as Terraform launches it, with go-plugin
//! AutoMTLS, and prints what each provider offers and how long each step took.

use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::Value as Json;

use crate::{fixtures, manifest, util};

pub(crate) fn run() -> Result<()> {
    let cache = fixtures::run().context("could not install the providers the demo uses")?;
    let root = util::workspace_root();
    eprintln!("demo: building pulumi-resource-terraform-provider");
    util::run_visible(
        Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .current_dir(&root)
            .args([
                "build",
                "--release",
                "--bin",
                "pulumi-resource-terraform-provider",
            ]),
    )?;
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), Into::into);
    let binary = target.join("release/pulumi-resource-terraform-provider");
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
    Ok(())
}
