//! Scenarios for `pulumi package gen-sdk terraform-provider <provider> --language <lang>`: the CLI starts
//! our binary, calls Parameterize and GetSchema, and hands the schema to the language host, which writes
//! the SDK; the SDK must then build and load.
//!
//! The Node.js and Python hosts here are our codegen stand-ins (see `fixtures/pulumi.rs`), which call the
//! same pkg/v3 codegen as Pulumi's hosts. The TypeScript SDK is compiled with `tsc` against the pinned
//! `@pulumi/pulumi`. The Python SDK is installed as a package, as a user's `pip install` would, because
//! it reads its own version from the installed metadata: pip builds it offline (`--no-index`) with the
//! `pulumi_python` fixture's setuptools (`--no-build-isolation`) into a throwaway `--target` directory,
//! and a fresh interpreter with that directory first on `sys.path` imports it and reaches a resource
//! class. Each step's time is printed, and a summary line gives them all at the end.
//!
//! Invariant: nothing here reaches the network; the CLI runs isolated by the harness and pip never looks
//! at an index.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, ensure};
use base64::Engine as _;
use serde_json::Value;

use super::harness::{Project, Tools};

/// What one provider's SDKs must contain and expose.
struct Sdk<'a> {
    /// The Pulumi package name, which is also the parameterization's name.
    name: &'a str,
    /// The Terraform provider the SDK is generated from.
    provider: PathBuf,
    /// Files, relative to the TypeScript SDK, that `tsc` must write.
    compiled: &'a [&'a str],
    /// A module of the Python SDK, relative to its package directory, that codegen must write.
    python_module: &'a str,
    /// Python run after `import pulumi_<name> as sdk`, touching generated classes; it must print `ok`.
    python_check: &'a str,
}

/// Pyvider's TypeScript and Python SDKs: both build and load, and both embed the parameterization.
pub(super) fn pyvider(tools: &Tools) -> Result<()> {
    check(
        tools,
        &Sdk {
            name: "pyvider",
            provider: tools.pyvider.clone(),
            compiled: &[
                "bin/index.js",
                "bin/fileContent.d.ts",
                "bin/localDirectory.js",
            ],
            python_module: "file_content.py",
            python_check: "assert issubclass(sdk.FileContent, pulumi.CustomResource); \
                           assert callable(sdk.get_file_info); print('ok')",
        },
    )
}

/// AWS 3.39.0 (hundreds of resources): the same checks at scale, with each step's time reported.
pub(super) fn aws(tools: &Tools) -> Result<()> {
    check(
        tools,
        &Sdk {
            name: "aws",
            provider: tools.aws.clone(),
            compiled: &[
                "bin/index.js",
                // The Node.js codegen lower-cases the whole leading `S3B` of `S3Bucket` in file names.
                "bin/s3bucket.js",
                "bin/s3bucket.d.ts",
                "bin/getS3Bucket.js",
                "bin/provider.js",
            ],
            python_module: "s3_bucket.py",
            python_check: "assert issubclass(sdk.S3Bucket, pulumi.CustomResource); \
                           assert issubclass(sdk.Instance, pulumi.CustomResource); \
                           assert callable(sdk.get_s3_bucket); \
                           assert issubclass(sdk.Provider, pulumi.ProviderResource); print('ok')",
        },
    )
}

/// Generates, builds and loads both SDKs of `sdk`, then prints every step's time.
fn check(tools: &Tools, sdk: &Sdk<'_>) -> Result<()> {
    let project = Project::new(tools, &format!("gensdk-{}", sdk.name))?;
    let out = project.scratch("sdk");
    let out_arg = out.to_string_lossy().into_owned();
    let provider = sdk.provider.to_string_lossy().into_owned();
    let mut times = Vec::new();
    for language in ["nodejs", "python"] {
        let began = Instant::now();
        project.pulumi(
            &format!("generate the {language} SDK"),
            &[
                "package",
                "gen-sdk",
                "terraform-provider",
                &provider,
                "--language",
                language,
                "--out",
                &out_arg,
            ],
        )?;
        times.push((format!("gen-sdk {language}"), began.elapsed()));
    }

    let nodejs = out.join("nodejs");
    let package: Value = read_json(&nodejs.join("package.json"))?;
    check_plugin(&package["pulumi"], tools, sdk, "package.json")?;
    std::os::unix::fs::symlink(&tools.node_modules, nodejs.join("node_modules"))
        .context("could not link node_modules into the TypeScript SDK")?;
    let began = Instant::now();
    project.run("compile the TypeScript SDK", &nodejs, &tools.tsc, &[])?;
    times.push(("tsc".to_owned(), began.elapsed()));
    for built in sdk.compiled {
        ensure!(
            nodejs.join(built).is_file(),
            "tsc did not write {built} in {}",
            nodejs.display()
        );
    }

    let python = out.join("python");
    let package_dir = format!("pulumi_{}", sdk.name);
    let plugin: Value = read_json(&python.join(&package_dir).join("pulumi-plugin.json"))?;
    check_plugin(&plugin, tools, sdk, "pulumi-plugin.json")?;
    ensure!(
        python.join(&package_dir).join(sdk.python_module).is_file(),
        "the Python SDK has no {}",
        sdk.python_module
    );
    let site = project.scratch("site-packages");
    let site_arg = site.to_string_lossy().into_owned();
    let began = Instant::now();
    project.run(
        "install the Python SDK offline",
        &python,
        &tools.python,
        &[
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-input",
            "--disable-pip-version-check",
            "--no-cache-dir",
            "--no-index",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            &site_arg,
            ".",
        ],
    )?;
    times.push(("pip install".to_owned(), began.elapsed()));
    let began = Instant::now();
    let script = import_script(&package_dir, sdk.python_check);
    let run = project.run(
        "import the Python SDK",
        &python,
        &tools.python,
        &["-c", &script, &site_arg],
    )?;
    times.push(("import".to_owned(), began.elapsed()));
    ensure!(
        run.stdout.lines().last() == Some("ok"),
        "the import check did not finish: {}",
        run.text()
    );

    let summary: Vec<String> = times
        .iter()
        .map(|(step, took)| format!("{step} {:.1} s", took.as_secs_f64()))
        .collect();
    eprintln!("  {} SDK times: {}", sdk.name, summary.join(", "));
    project.finish()
}

/// The Python, one line so that the printed step stays one line, that imports the installed SDK from the
/// directory given as its first argument and runs `check`. That directory goes first on `sys.path`, so
/// the package and its metadata come from it and not from the source tree in the working directory,
/// which is dropped from the path.
fn import_script(package: &str, check: &str) -> String {
    format!(
        "import sys; sys.path = [sys.argv[1]] + [p for p in sys.path if p not in ('', '.')]; \
         import importlib.metadata, pulumi, {package} as sdk; \
         assert sdk.__file__.startswith(sys.argv[1]), sdk.__file__; \
         assert importlib.metadata.version('{package}'); {check}"
    )
}

/// Checks the plugin block of a generated SDK: the base plugin is ours at our version, parameterized as
/// the SDK's package with a value that names the local provider.
fn check_plugin(block: &Value, tools: &Tools, sdk: &Sdk<'_>, what: &str) -> Result<()> {
    ensure!(
        block["name"] == "terraform-provider"
            && block["version"] == tools.plugin_version.as_str()
            && block["parameterization"]["name"] == sdk.name,
        "{what} does not name our plugin parameterized as {}: {block}",
        sdk.name
    );
    let value = block["parameterization"]["value"]
        .as_str()
        .context("the parameterization has no value")?;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(value)
        .context("the parameterization value is not base64")?;
    let expected = sdk.provider.to_string_lossy();
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
