//! Scenarios with a Pulumi YAML program and Pyvider's `pyvider_file_content`, a resource whose effect is
//! a file on disk, so every step is checked both on disk and in `pulumi stack export`.
//!
//! What Pyvider 0.8.1 allows shapes the steps:
//! - It declares no attribute that requires replacement, so changing `filename` is an update (the provider
//!   writes the new file and leaves the old one); the replace step asks for one with the `replaceOnChanges`
//!   resource option, and the preview must say so.
//! - Its `pyvider_file_content` has no `import_state`, so `pulumi import` must fail with the provider's own
//!   diagnostic and change nothing.
//! - Its resources have no `id` attribute, so every Pulumi ID is `missing ID`, as with the Go binary.

use anyhow::{Context, Result, ensure};

use super::harness::{self, Project, Tools};
use crate::util;

/// The Pulumi type token of `pyvider_file_content`.
pub(super) const FILE: &str = "pyvider:index/fileContent:FileContent";

/// Preview, up, refresh after a change on disk, update, a filename change, a forced replace, import and
/// destroy of one file.
pub(super) fn file_lifecycle(tools: &Tools) -> Result<()> {
    let project = Project::with_pyvider(tools, "files")?;
    let first = project.file("first.txt");
    let program = |path: &std::path::Path, content: &str, options: &str| {
        format!(
            "resources:\n  file:\n    type: {FILE}\n    properties:\n      filename: {}\n      content: {content}\n{options}\
             outputs:\n  hash: ${{file.contentHash}}\n",
            path.display()
        )
    };

    project.write_program(&program(&first, "hello", ""))?;
    let run = project.pulumi("preview the create", &["preview", "--diff"])?;
    expect(&run.stdout, &["+ ", FILE, "create"], "the preview")?;
    ensure!(
        harness::read_file(&first)?.is_none(),
        "the preview wrote {}",
        first.display()
    );

    let run = project.pulumi("create the file", &["up", "--yes", "--skip-preview"])?;
    // A clean update says nothing beyond its resources: not even how the engine closed us.
    ensure!(
        !run.stdout.contains("Diagnostics:"),
        "a clean `pulumi up` showed diagnostics:\n{}",
        run.stdout
    );
    check_file(&project, "file", &first, "hello")?;
    let run = project.pulumi("read the output", &["stack", "output", "hash"])?;
    ensure!(
        run.stdout.trim() == util::sha256_bytes(b"hello"),
        "`pulumi stack output hash` printed {:?}",
        run.stdout.trim()
    );

    std::fs::write(&first, "edited on disk")
        .with_context(|| format!("could not edit {}", first.display()))?;
    let run = project.pulumi(
        "refresh after an edit on disk",
        &["refresh", "--yes", "--diff"],
    )?;
    expect(&run.stdout, &["edited on disk", "content"], "the refresh")?;
    check_state(&project, "file", &first, "edited on disk")?;

    project.write_program(&program(&first, "second", ""))?;
    let run = project.pulumi("preview the update", &["preview", "--diff"])?;
    expect(
        &run.stdout,
        &["~ ", "update", "content"],
        "the update's preview",
    )?;
    project.pulumi("update the content", &["up", "--yes", "--skip-preview"])?;
    check_file(&project, "file", &first, "second")?;

    let second = project.file("second.txt");
    project.write_program(&program(&second, "second", ""))?;
    let run = project.pulumi("preview a filename change", &["preview", "--diff"])?;
    expect(
        &run.stdout,
        &["update", "filename"],
        "the filename change's preview",
    )?;
    ensure!(
        !run.stdout.contains("replace"),
        "Pyvider declares no RequiresReplace, yet the preview plans a replace:\n{}",
        run.stdout
    );
    project.pulumi("change the filename", &["up", "--yes", "--skip-preview"])?;
    check_file(&project, "file", &second, "second")?;
    eprintln!(
        "  note: a filename change is an update; the old file was {}",
        if harness::read_file(&first)?.is_some() {
            "left in place"
        } else {
            "removed"
        }
    );

    let third = project.file("third.txt");
    let replace = "    options:\n      replaceOnChanges: [filename]\n";
    project.write_program(&program(&third, "second", replace))?;
    let run = project.pulumi("preview a forced replace", &["preview", "--diff"])?;
    expect(
        &run.stdout,
        &["+-", "replace", "filename"],
        "the replace's preview",
    )?;
    project.pulumi("replace the file", &["up", "--yes", "--skip-preview"])?;
    check_file(&project, "file", &third, "second")?;
    ensure!(
        harness::read_file(&second)?.is_none(),
        "the replace left the old file {}",
        second.display()
    );

    // Pyvider 0.8.1's file_content has no `import_state`, so the provider refuses the import: the CLI
    // must show the provider's own diagnostic, and neither the state nor the file may change.
    let imported = project.file("imported.txt");
    std::fs::write(&imported, "made outside Pulumi")
        .with_context(|| format!("could not write {}", imported.display()))?;
    let code = project.scratch("imported.yaml");
    let run = project.pulumi_fails(
        "import an existing file (Pyvider refuses)",
        &[
            "import",
            FILE,
            "imported",
            &imported.to_string_lossy(),
            "--yes",
            "--protect=false",
            "--out",
            &code.to_string_lossy(),
        ],
    )?;
    expect(
        &run.text(),
        &[
            "pyvider_file_content does not support import",
            "import_state",
        ],
        "the failed import",
    )?;
    let export = project.export()?;
    ensure!(
        harness::resource(&export, FILE, "imported").is_err(),
        "the refused import left a resource in the state"
    );
    ensure!(
        harness::read_file(&imported)?.as_deref() == Some("made outside Pulumi"),
        "the refused import changed {}",
        imported.display()
    );

    project.pulumi("destroy", &["destroy", "--yes", "--skip-preview"])?;
    ensure!(
        harness::read_file(&third)?.is_none(),
        "destroy left {}",
        third.display()
    );
    let export = project.export()?;
    let left = harness::resources(&export, FILE);
    ensure!(
        left.is_empty(),
        "destroy left resources in the state: {left:?}"
    );
    project.finish()
}

/// A value known only after create flows into another resource: `derived.content` is
/// `source.contentHash`, unknown at preview and the right hash after `up`.
///
/// Pyvider computes `contentHash` while planning whenever `content` is known, so to make it unknown at
/// preview, `source.content` itself comes from a value known only after create: the `fileCount` of a
/// `pyvider_local_directory`, which Pyvider plans as unknown.
pub(super) fn unknown_flows(tools: &Tools) -> Result<()> {
    const DIR: &str = "pyvider:index/localDirectory:LocalDirectory";
    let project = Project::with_pyvider(tools, "flows")?;
    let dir = project.file("dir");
    let source = project.file("source.txt");
    let derived = project.file("derived.txt");
    project.write_program(&format!(
        "resources:\n  dir:\n    type: {DIR}\n    properties:\n      path: {}\n\
         \x20 source:\n    type: {FILE}\n    properties:\n      filename: {}\n      content: files in dir ${{dir.fileCount}}\n\
         \x20 derived:\n    type: {FILE}\n    properties:\n      filename: {}\n      content: ${{source.contentHash}}\n",
        dir.display(),
        source.display(),
        derived.display()
    ))?;
    let run = project.pulumi("preview", &["preview", "--diff"])?;
    let derived_preview = run
        .stdout
        .split("::derived]")
        .nth(1)
        .context("the preview does not show `derived`")?;
    expect(
        derived_preview,
        &["content : [unknown]"],
        "the preview of `derived`",
    )?;
    ensure!(
        harness::read_file(&source)?.is_none(),
        "the preview wrote {}",
        source.display()
    );

    project.pulumi("create all three", &["up", "--yes", "--skip-preview"])?;
    // The directory is empty: the two files live beside it.
    let content = "files in dir 0";
    let hash = util::sha256_bytes(content.as_bytes());
    check_file(&project, "source", &source, content)?;
    check_file(&project, "derived", &derived, &hash)?;
    ensure!(dir.is_dir(), "{} was not created", dir.display());

    project.pulumi("destroy", &["destroy", "--yes", "--skip-preview"])?;
    for path in [&dir, &source, &derived] {
        ensure!(!path.exists(), "destroy left {}", path.display());
    }
    project.finish()
}

/// Fails unless `text` contains every one of `needles`.
fn expect(text: &str, needles: &[&str], what: &str) -> Result<()> {
    let missing: Vec<&&str> = needles.iter().filter(|n| !text.contains(**n)).collect();
    ensure!(
        missing.is_empty(),
        "{what} does not show {missing:?}:\n{text}"
    );
    Ok(())
}

/// Checks that `path` holds `content` on disk and that the state's resource `name` agrees.
pub(super) fn check_file(
    project: &Project<'_>,
    name: &str,
    path: &std::path::Path,
    content: &str,
) -> Result<()> {
    let on_disk = harness::read_file(path)?;
    ensure!(
        on_disk.as_deref() == Some(content),
        "{} holds {on_disk:?}, not {content:?}",
        path.display()
    );
    check_state(project, name, path, content)
}

/// Checks the state's resource `name`: its filename, content, hash and `exists` outputs.
fn check_state(
    project: &Project<'_>,
    name: &str,
    path: &std::path::Path,
    content: &str,
) -> Result<()> {
    let export = project.export()?;
    let outputs = &harness::resource(&export, FILE, name)?["outputs"];
    let expected = serde_json::json!({
        "filename": path.to_string_lossy(),
        "content": content,
        "contentHash": util::sha256_bytes(content.as_bytes()),
        "exists": true,
    });
    for (key, value) in expected.as_object().expect("a JSON object literal") {
        ensure!(
            &outputs[key] == value,
            "the state's `{name}` has {key} = {}, not {value}",
            outputs[key]
        );
    }
    Ok(())
}

/// The end of `cargo xtask demo`: what a user does with the real CLI. `pulumi package add` of Pyvider in a
/// throwaway YAML project, `pulumi up` of one file (its output shown, and the file read back from disk),
/// then `pulumi destroy`.
pub(super) fn demo(tools: &Tools) -> Result<()> {
    let project = Project::with_pyvider(tools, "demo")?;
    println!(
        "\n$ pulumi package add terraform-provider {}\nPulumi.yaml now says:\n{}",
        tools.pyvider.display(),
        indent(project.manifest())
    );
    let file = project.file("hello.txt");
    let program = format!(
        "resources:\n  greeting:\n    type: {FILE}\n    properties:\n      filename: {}\n      \
         content: Hello from a Terraform provider, through Pulumi\noutputs:\n  \
         contentHash: ${{greeting.contentHash}}\n",
        file.display()
    );
    project.write_program(&program)?;
    println!("The program, below those lines:\n{}", indent(&program));
    let run = project.pulumi("pulumi up", &["up", "--yes"])?;
    println!("$ pulumi up --yes\n{}", indent(run.stdout.trim_end()));
    let written = harness::read_file(&file)?
        .with_context(|| format!("`pulumi up` succeeded but {} is missing", file.display()))?;
    println!("$ cat {}\n{}", file.display(), indent(&written));
    let run = project.pulumi("pulumi destroy", &["destroy", "--yes"])?;
    println!("$ pulumi destroy --yes\n{}", indent(run.stdout.trim_end()));
    ensure!(
        harness::read_file(&file)?.is_none(),
        "`pulumi destroy` left {}",
        file.display()
    );
    println!("The file is gone again.");
    project.finish()
}

/// `text` with every line indented for the demo's output.
fn indent(text: &str) -> String {
    text.lines()
        .map(|line| format!("    {line}\n"))
        .collect::<String>()
        .trim_end()
        .to_owned()
}
