//! Scenarios for `pulumi package gen-sdk terraform-provider <provider> --language <lang>`: the CLI starts
//! our binary, calls Parameterize and GetSchema, and hands the schema to the language host, which writes
//! the SDK; the SDK must then build.
//!
//! The Node.js and Python hosts here are our codegen stand-ins (see `fixtures/pulumi.rs`), which call the
//! same pkg/v3 codegen as Pulumi's hosts. The TypeScript SDK is compiled with `tsc` against the pinned
//! `@pulumi/pulumi`. The Python SDK is byte-compiled only: importing it needs `parver` and a setuptools
//! that can build it, which the `pulumi_python` fixture does not have.

use std::fs;
use std::path::Path;

use anyhow::{Context, Result, ensure};
use base64::Engine as _;
use serde_json::Value;

use super::harness::{Project, Tools};

/// Generates Pyvider's TypeScript and Python SDKs, compiles the first and byte-compiles the second, and
/// checks that both embed the parameterization the engine needs to start our plugin.
pub(super) fn pyvider(tools: &Tools) -> Result<()> {
    let project = Project::new(tools, "gensdk")?;
    let out = project.scratch("sdk");
    let out_arg = out.to_string_lossy().into_owned();
    let pyvider = tools.pyvider.to_string_lossy().into_owned();
    for language in ["nodejs", "python"] {
        project.pulumi(
            &format!("generate the {language} SDK"),
            &[
                "package",
                "gen-sdk",
                "terraform-provider",
                &pyvider,
                "--language",
                language,
                "--out",
                &out_arg,
            ],
        )?;
    }

    let nodejs = out.join("nodejs");
    let package: Value = read_json(&nodejs.join("package.json"))?;
    check_plugin(&package["pulumi"], tools, "package.json")?;
    std::os::unix::fs::symlink(&tools.node_modules, nodejs.join("node_modules"))
        .context("could not link node_modules into the TypeScript SDK")?;
    project.run("compile the TypeScript SDK", &nodejs, &tools.tsc, &[])?;
    for built in [
        "bin/index.js",
        "bin/fileContent.d.ts",
        "bin/localDirectory.js",
    ] {
        ensure!(
            nodejs.join(built).is_file(),
            "tsc did not write {built} in {}",
            nodejs.display()
        );
    }

    let python = out.join("python");
    let plugin: Value = read_json(&python.join("pulumi_pyvider/pulumi-plugin.json"))?;
    check_plugin(&plugin, tools, "pulumi-plugin.json")?;
    project.run(
        "byte-compile the Python SDK",
        &python,
        &tools.python,
        &["-m", "compileall", "-q", "pulumi_pyvider"],
    )?;
    ensure!(
        python.join("pulumi_pyvider/file_content.py").is_file(),
        "the Python SDK has no file_content.py"
    );
    project.finish()
}

/// Checks the plugin block of a generated SDK: the base plugin is ours at our version, parameterized as
/// `pyvider` with a value that names the local provider.
fn check_plugin(block: &Value, tools: &Tools, what: &str) -> Result<()> {
    ensure!(
        block["name"] == "terraform-provider"
            && block["version"] == tools.plugin_version.as_str()
            && block["parameterization"]["name"] == "pyvider",
        "{what} does not name our plugin parameterized as pyvider: {block}"
    );
    let value = block["parameterization"]["value"]
        .as_str()
        .context("the parameterization has no value")?;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(value)
        .context("the parameterization value is not base64")?;
    let expected = tools.pyvider.to_string_lossy();
    ensure!(
        String::from_utf8_lossy(&decoded).contains(expected.as_ref()),
        "the parameterization value in {what} does not name {expected}"
    );
    Ok(())
}

/// Reads a JSON file.
fn read_json(path: &Path) -> Result<Value> {
    let text =
        fs::read_to_string(path).with_context(|| format!("could not read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))
}
