//! Resource identity and list resources through the real CLI, with our tfptest provider
//! (`testdata/providers/tfptest`, whose `tfptest_item` is a file with an identity) and Pyvider.
//!
//! - `identity-import`: `pulumi import` with a JSON identity as the ID, and the `import` option
//!   with one. The command reaches the provider only in a stack that already holds a resource of
//!   the package (README "Use it with Pulumi"), so the scenario deploys one first. tfptest's
//!   import by ID takes a path, which a JSON object is not, so an import that succeeds went by
//!   identity; the recording shows it too.
//! - `identity-upgrade`: a state written by the release whose identity is version 0, continued
//!   by the next release, as a user upgrades a local provider in place (the package's path is a
//!   link, pointed at the new release between two runs).
//! - `list-pulumi-do`: `pulumi do <token> list`, the only command of pulumi v3.255.0 that sends
//!   `List` (`pkg/cmd/pulumi/do/do_resource.go`), offered for resources whose package schema has
//!   `listInputs`.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use anyhow::{Context, Result, ensure};
use serde_json::{Value, json};

use super::harness::{self, Project, Tools};

/// The Pulumi type tokens of `tfptest_item` and `pyvider_file_content`.
const ITEM: &str = "tfptest:index/item:Item";
const FILE_CONTENT: &str = "pyvider:index/fileContent:FileContent";

/// The identity stored in a resource's `__meta`, with its version: `[identity, version]`.
fn stored_identity(resource: &Value) -> Result<Value> {
    let text = resource["outputs"]["__meta"]
        .as_str()
        .with_context(|| format!("{} has no __meta", resource["urn"]))?;
    let meta: Value = serde_json::from_str(text).context("__meta is not JSON")?;
    Ok(json!([meta["identity"], meta["identity_schema_version"]]))
}

/// A program of `tfptest_item`s, each `(name, directory, content, import ID)`.
fn items_program(items: &[(&str, &Path, &str, Option<&str>)]) -> String {
    let mut program = "resources:\n".to_owned();
    for (name, directory, content, import) in items {
        let _ = write!(
            program,
            "  {name}:\n    type: {ITEM}\n    properties:\n      directory: {}\n      name: {name}\n      \
             content: {content}\n",
            directory.display()
        );
        if let Some(id) = import {
            let _ = write!(program, "    options:\n      import: '{id}'\n");
        }
    }
    program
}

/// `pulumi import` and the `import` option, each with a JSON identity as the ID.
pub(super) fn import(tools: &Tools) -> Result<()> {
    let mut project = Project::new(tools, "identity-import")?;
    let tfptest = tools.tfptest.to_string_lossy().into_owned();
    project.package_add("add the tfptest package", &[&tfptest])?;
    let recording = project.scratch("tf-calls.json");
    project.set_env("PULUMI_TF_DEBUG_GRPC", &recording);
    let items = project.file("items");
    fs::create_dir_all(&items)?;
    fs::write(items.join("adopted"), "adopted by pulumi import")?;
    fs::write(items.join("optioned"), "adopted by the import option")?;
    let identity = |name: &str| json!({"directory": items.to_string_lossy(), "name": name});

    project.write_program(&items_program(&[("first", &items, "created", None)]))?;
    project.pulumi("deploy a resource of the package", &["up", "--yes"])?;
    let export = project.export()?;
    let first = harness::resource(&export, ITEM, "first")?;
    ensure!(
        stored_identity(first)? == json!([identity("first"), "1"]),
        "create did not store the identity: {first}"
    );

    let adopted_id = identity("adopted").to_string();
    project.pulumi(
        "pulumi import with a JSON identity",
        &[
            "import",
            ITEM,
            "adopted",
            &adopted_id,
            "--yes",
            "--generate-code=false",
        ],
    )?;
    let optioned_id = identity("optioned").to_string();
    project.write_program(&items_program(&[
        ("first", &items, "created", None),
        ("adopted", &items, "adopted by pulumi import", None),
        (
            "optioned",
            &items,
            "adopted by the import option",
            Some(&optioned_id),
        ),
    ]))?;
    project.pulumi("the import option with a JSON identity", &["up", "--yes"])?;
    let export = project.export()?;
    for (name, content) in [
        ("adopted", "adopted by pulumi import"),
        ("optioned", "adopted by the import option"),
    ] {
        let resource = harness::resource(&export, ITEM, name)?;
        let path = items.join(name);
        ensure!(
            resource["id"] == path.to_string_lossy().as_ref()
                && resource["outputs"]["content"] == content
                && stored_identity(resource)? == json!([identity(name), "1"]),
            "{name} was not imported by its identity: {resource}"
        );
    }
    // Each command imports twice, in its preview and in its update.
    let imports = harness::recorded_requests(&recording, "ImportResourceState")?;
    ensure!(
        imports.len() == 4
            && imports
                .iter()
                .all(|r| r.contains("identity:{identity_data:") && !r.contains(" id:")),
        "the imports did not go by identity alone: {imports:?}"
    );
    project.write_program(&items_program(&[
        ("first", &items, "created", None),
        ("adopted", &items, "adopted by pulumi import", None),
        ("optioned", &items, "adopted by the import option", None),
    ]))?;
    project.pulumi(
        "preview again: nothing to change",
        &["preview", "--diff", "--expect-no-changes"],
    )?;
    project.pulumi("destroy", &["destroy", "--yes"])?;
    for name in ["first", "adopted", "optioned"] {
        ensure!(!items.join(name).exists(), "destroy left {name} on disk");
    }
    project.finish()
}

/// A state written by the release with identity version 0, refreshed and updated by the next.
pub(super) fn upgrade(tools: &Tools) -> Result<()> {
    let mut project = Project::new(tools, "identity-upgrade")?;
    let bin = project.scratch("provider");
    fs::create_dir_all(&bin)?;
    let launcher = bin.join("terraform-provider-tfptest");
    let point = |release: &Path| -> Result<()> {
        let _ = fs::remove_file(&launcher);
        std::os::unix::fs::symlink(release, &launcher)
            .with_context(|| format!("could not link {}", launcher.display()))
    };
    point(&tools.tfptest_identity_v0)?;
    let path = launcher.to_string_lossy().into_owned();
    project.package_add("add the tfptest package", &[&path])?;
    let recording = project.scratch("tf-calls.json");
    project.set_env("PULUMI_TF_DEBUG_GRPC", &recording);
    let items = project.file("items");
    let file = items.join("first").to_string_lossy().into_owned();

    project.write_program(&items_program(&[("first", &items, "one", None)]))?;
    project.pulumi(
        "create with the release of identity version 0",
        &["up", "--yes"],
    )?;
    let old = stored_identity(harness::resource(&project.export()?, ITEM, "first")?)?;
    ensure!(
        old == json!([{"path": file}, "0"]),
        "the first release stored {old}"
    );

    point(&tools.tfptest)?;
    let current = json!([{"directory": items.to_string_lossy(), "name": "first"}, "1"]);
    project.pulumi("refresh with the next release", &["refresh", "--yes"])?;
    let refreshed = stored_identity(harness::resource(&project.export()?, ITEM, "first")?)?;
    ensure!(refreshed == current, "the refresh stored {refreshed}");
    // The refresh's preview and the refresh itself each upgrade the stored identity.
    let upgrades = harness::recorded_requests(&recording, "UpgradeResourceIdentity")?;
    ensure!(
        upgrades.len() == 2
            && upgrades
                .iter()
                .all(|r| r.contains("type_name:\"tfptest_item\"") && r.contains("\\\"path\\\"")),
        "the refresh did not upgrade the version 0 identity: {upgrades:?}"
    );

    project.write_program(&items_program(&[("first", &items, "two", None)]))?;
    project.pulumi("update with the next release", &["up", "--yes"])?;
    let resource = harness::resource(&project.export()?, ITEM, "first")?.clone();
    ensure!(
        stored_identity(&resource)? == current
            && harness::read_file(&items.join("first"))? == Some("two".to_owned()),
        "the update did not keep the upgraded identity: {resource}"
    );
    project.pulumi("destroy", &["destroy", "--yes"])?;
    project.finish()
}

/// `pulumi do <token> list` on Pyvider's files and on tfptest's items.
pub(super) fn list(tools: &Tools) -> Result<()> {
    let project = Project::new(tools, "list")?;
    let files = project.file("listed");
    fs::create_dir_all(files.join("subdirectory"))?;
    for (name, content) in [("a.txt", "alpha"), ("b.txt", "beta"), ("c.log", "gamma")] {
        fs::write(files.join(name), content)?;
    }
    fs::write(files.join(".hidden"), "not listed")?;
    let directory = files.to_string_lossy().into_owned();
    let names = ["a.txt", "b.txt", "c.log"];

    let package = |provider: &Path| format!("terraform-provider {}", provider.display());
    let listed = |step: &str, provider: &Path, token: &str, args: &[&str]| -> Result<Value> {
        let package = package(provider);
        let mut all = vec!["do", "--package", package.as_str(), token, "list"];
        all.extend_from_slice(args);
        let run = project.pulumi(step, &all)?;
        // The JSON comes first; the CLI's diagnostics may follow it.
        serde_json::Deserializer::from_str(&run.stdout)
            .into_iter::<Value>()
            .next()
            .transpose()?
            .with_context(|| format!("`pulumi do … list` printed no JSON:\n{}", run.stdout))
    };

    // Pyvider's files have no `id`: the IDs are their identities, which import by identity.
    let every = listed(
        "list Pyvider's files",
        &tools.pyvider,
        FILE_CONTENT,
        &["--path", &directory],
    )?;
    let expected: Vec<Value> = names
        .iter()
        .map(|name| {
            let filename = files.join(name).to_string_lossy().into_owned();
            json!({"id": json!({"filename": filename}).to_string(), "name": name})
        })
        .collect();
    ensure!(
        every == Value::Array(expected.clone()),
        "the listing is not every file:\n{every:#}"
    );
    let text = listed(
        "list Pyvider's text files",
        &tools.pyvider,
        FILE_CONTENT,
        &["--path", &directory, "--suffix", ".txt"],
    )?;
    ensure!(
        text == Value::Array(expected[..2].to_vec()),
        "the suffix did not filter:\n{text:#}"
    );

    // tfptest's items have an `id`: the IDs are the resources' Pulumi IDs. It lists every
    // regular file, dotfiles too.
    let items = listed(
        "list tfptest's items",
        &tools.tfptest,
        ITEM,
        &["--directory", &directory],
    )?;
    let expected: Vec<Value> = [".hidden"]
        .iter()
        .chain(&names)
        .map(|name| json!({"id": files.join(name).to_string_lossy(), "name": name}))
        .collect();
    ensure!(
        items == Value::Array(expected.clone()),
        "the listing is not every item:\n{items:#}"
    );
    let one = listed(
        "list one item",
        &tools.tfptest,
        ITEM,
        &["--directory", &directory, "--count", "1"],
    )?;
    ensure!(
        one == Value::Array(expected[..1].to_vec()),
        "--count 1 listed:\n{one:#}"
    );
    project.finish()
}
