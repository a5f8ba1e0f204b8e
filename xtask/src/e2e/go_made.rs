//! A project that the Go binary made runs on ours: its `packages:` entry and its YAML package lock
//! pin the base plugin `terraform-provider` at a Go release, and our binary, set up as the README says
//! (installed under its own version and on PATH), serves it with plugin download disabled, without
//! anything being downloaded.
//!
//! Why this works, in the `pulumi` CLI v3.255.0: a program's packages name the base plugin at the
//! version in their lock (here `sdks/pyvider/pyvider-0.0.0.yaml`), and the engine finds a resource
//! plugin with `getPluginInfoAndPath` (pulumi `sdk/go/common/workspace/plugins.go`), which takes an
//! executable of the plugin's name on PATH before it looks at the plugin cache, whatever the version.
//! The cache alone would not do: `SelectCompatiblePlugin` there matches only the exact version.

use std::fs;

use anyhow::{Context, Result, ensure};
use base64::Engine as _;
use serde_json::Value;

use super::harness::{self, Project, Tools};
use super::yaml::{self, FILE};

/// A release of the Go binary that published SDKs pin.
const GO_RELEASE: &str = "1.1.1";

/// `pulumi up` and `pulumi destroy` of a Pyvider file in a project whose package pins Go's 1.1.1.
pub(super) fn pinned_package(tools: &Tools) -> Result<()> {
    let mut project = Project::with_pyvider(tools, "go-made")?;
    let on_path = project.put_plugin_on_path()?;
    let pyvider = tools.pyvider.to_string_lossy().into_owned();

    // The CLI writes both files from the package schema, in which the two binaries differ only by the
    // base provider's version: so ours must have written exactly the Go binary's text with our version,
    // and the Go binary's text is the same with its version.
    let name = "go-made";
    let ours = manifest(name, &pyvider, &tools.plugin_version);
    ensure!(
        project.manifest() == ours,
        "`pulumi package add` wrote a Pulumi.yaml other than\n{ours}\nit wrote:\n{}",
        project.manifest()
    );
    let lock_path = project.dir().join("sdks/pyvider/pyvider-0.0.0.yaml");
    let written = fs::read_to_string(&lock_path)
        .with_context(|| format!("`pulumi package add` wrote no {}", lock_path.display()))?;
    let ours = lock(&pyvider, &tools.plugin_version);
    ensure!(
        written == ours,
        "`pulumi package add` wrote a package lock other than\n{ours}\nit wrote:\n{written}"
    );

    project.replace_manifest(manifest(name, &pyvider, GO_RELEASE))?;
    fs::write(&lock_path, lock(&pyvider, GO_RELEASE))
        .with_context(|| format!("could not write {}", lock_path.display()))?;
    let path = project.file("go-made.txt");
    project.write_program(&format!(
        "resources:\n  file:\n    type: {FILE}\n    properties:\n      filename: {}\n      content: hello\n",
        path.display()
    ))?;

    let run = project.pulumi(
        &format!("create the file with the package pinned to {GO_RELEASE}"),
        &["up", "--yes", "--skip-preview"],
    )?;
    let text = run.text();
    let found = format!(
        "using pulumi-resource-terraform-provider from $PATH at {}",
        on_path.display()
    );
    ensure!(
        text.contains(&found),
        "the CLI did not say it used our binary from PATH ({found:?}):\n{text}"
    );
    ensure!(
        !text.contains("is expected to have version"),
        "the CLI warned that our version {} is below the pinned {GO_RELEASE}:\n{text}",
        tools.plugin_version
    );
    yaml::check_file(&project, "file", &path, "hello")?;
    check_pin(&project.export()?, "pulumi:providers:pyvider")?;

    project.pulumi("destroy", &["destroy", "--yes", "--skip-preview"])?;
    ensure!(
        harness::read_file(&path)?.is_none(),
        "destroy left {}",
        path.display()
    );

    // Download is disabled and the network is loopback only, so a fetch would have failed a step; this
    // shows that nothing was even installed beside what the README's `pulumi plugin install` put there.
    let installed = project.installed_plugins()?;
    let dir = format!("resource-terraform-provider-v{}", tools.plugin_version);
    let expected = [dir.clone(), format!("{dir}.lock")];
    ensure!(
        installed == expected,
        "$PULUMI_HOME/plugins holds {installed:?}, not only our {expected:?}"
    );
    project.finish()
}

/// Pulumi.yaml as `pulumi package add terraform-provider <pyvider>` leaves it in a new YAML project
/// `name`, when the installed `terraform-provider` is at `version`.
fn manifest(name: &str, pyvider: &str, version: &str) -> String {
    format!(
        "name: {name}\nruntime: yaml\npackages:\n  pyvider:\n    source: terraform-provider\n    \
         version: {version}\n    parameters:\n      - {pyvider}\n"
    )
}

/// The package lock that the YAML language host writes for Pyvider from a schema whose base provider
/// is `terraform-provider` at `version`; the value is the parameter the Go binary and ours both put in
/// that schema (pulumi-terraform-bridge `dynamic/parameterize/value.go`).
fn lock(pyvider: &str, version: &str) -> String {
    let parameter = serde_json::json!({"local": {"path": pyvider}}).to_string();
    let value = base64::engine::general_purpose::STANDARD.encode(parameter);
    format!(
        "packageDeclarationVersion: 1\nname: terraform-provider\nversion: {version}\n\
         parameterization:\n    name: pyvider\n    version: 0.0.0\n    value: {value}\n"
    )
}

/// Checks that the stack's provider of type `kind` keeps the Go release as its base plugin's version, so
/// later commands ask for that version too.
fn check_pin(export: &Value, kind: &str) -> Result<()> {
    let providers = harness::resources(export, kind);
    let [provider] = providers.as_slice() else {
        anyhow::bail!(
            "the stack holds {} providers {kind}, not one",
            providers.len()
        );
    };
    let internal = &provider["inputs"]["__internal"];
    ensure!(
        internal["name"] == "terraform-provider" && internal["version"] == GO_RELEASE,
        "the provider's base plugin is not terraform-provider {GO_RELEASE}: {internal}"
    );
    Ok(())
}
