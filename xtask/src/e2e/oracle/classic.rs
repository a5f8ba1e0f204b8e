//! The classic lifecycle (create, update, replace, refresh, import, destroy) compared with
//! OpenTofu on our `tfptest` provider, Pyvider and AWS 3.39.0 against moto.
//!
//! Each Pulumi program says what its HCL twin says, and each pair of commands does the same
//! thing: `tofu apply -refresh=false` is `pulumi up`, which reads nothing first;
//! `tofu apply -refresh-only` is `pulumi refresh`; `tofu destroy -refresh=false` is
//! `pulumi destroy`. Where Pulumi's defaults differ from Terraform's, the program says
//! Terraform's: a replacement deletes before it creates (`deleteBeforeReplace`).

use std::fs;
use std::path::Path;

use anyhow::{Context, Result};

use super::{
    APPLY, Allowance, CLASSIC, CLASSIC_WITH_IDENTITY, DESTROY, IMPORT, IMPORT_UPGRADE,
    IMPORT_WITH_IDENTITY, Oracle, Phase, Provider, REFRESH_DIFF, REPLACE_DESTROY_PLAN,
    REPLACE_PRIVATE, Side, UP,
};
use crate::e2e::{aws, harness::Tools};

const REFRESH: &[&str] = &["apply", "-auto-approve", "-refresh-only"];

/// `command` followed by `vars`, each `-var <var>`.
fn tofu(command: &[&'static str], vars: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = command.iter().map(|a| (*a).to_owned()).collect();
    for var in vars {
        args.push("-var".to_owned());
        args.push((*var).to_owned());
    }
    args
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// The YAML twin of `testdata/oracle/lifecycle` and `import`: one `tfptest_item`, the resource
/// `resource` in the program.
fn item_program(resource: &str, name: &str, content: &str, import: Option<&str>) -> String {
    let import = import.map_or_else(String::new, |id| format!("      import: {id}\n"));
    format!(
        "resources:\n  {resource}:\n    type: tfptest:index/item:Item\n    properties:\n      \
         directory: items\n      name: {name}\n      content: {content}\n    options:\n      \
         deleteBeforeReplace: true\n{import}"
    )
}

/// Writes `content` to `<dir>/items/<name>`, as a change made outside either host.
fn write_item(dir: &Path, name: &str, content: &str) -> Result<()> {
    let items = dir.join("items");
    fs::create_dir_all(&items).with_context(|| format!("could not create {}", items.display()))?;
    let path = items.join(name);
    fs::write(&path, content).with_context(|| format!("could not write {}", path.display()))
}

/// `tfptest_item` through create, update, replace, refresh after an edit on disk, and destroy.
pub(in crate::e2e) fn tfptest_lifecycle(tools: &Tools) -> Result<()> {
    let mut oracle = Oracle::new(
        tools,
        "oracle-tfptest",
        "lifecycle",
        &[Provider::tfptest(tools)],
        CLASSIC_WITH_IDENTITY,
    )?;
    let create = item_program("item", "item", "first", None);
    oracle.phase(&Phase {
        name: "create",
        prepare: None,
        tofu: APPLY,
        program: &create,
        pulumi: UP,
        allowed: &[],
    })?;
    let update = item_program("item", "item", "second", None);
    oracle.phase(&Phase {
        name: "update",
        prepare: None,
        tofu: &strs(&tofu(APPLY, &["content=second"])),
        program: &update,
        pulumi: UP,
        allowed: &[],
    })?;
    let renamed = ["content=second", "name=renamed"];
    let replace = item_program("item", "renamed", "second", None);
    oracle.phase(&Phase {
        name: "replace",
        prepare: None,
        tofu: &strs(&tofu(APPLY, &renamed)),
        program: &replace,
        pulumi: UP,
        allowed: &[REPLACE_DESTROY_PLAN],
    })?;
    let drift = |dir: &Path| write_item(dir, "renamed", "edited on disk");
    oracle.phase(&Phase {
        name: "refresh",
        prepare: Some(&drift),
        tofu: &strs(&tofu(REFRESH, &renamed)),
        program: &replace,
        pulumi: &["refresh", "--yes"],
        allowed: &[REFRESH_DIFF],
    })?;
    oracle.phase(&Phase {
        name: "destroy",
        prepare: None,
        tofu: &strs(&tofu(DESTROY, &renamed)),
        program: &replace,
        pulumi: &["destroy", "--yes"],
        allowed: &[],
    })?;
    oracle.finish()
}

/// Import of a `tfptest_item` made outside either host, by its ID, then destroy.
pub(in crate::e2e) fn tfptest_import(tools: &Tools) -> Result<()> {
    let mut oracle = Oracle::new(
        tools,
        "oracle-tfptest-import",
        "import",
        &[Provider::tfptest(tools)],
        IMPORT_WITH_IDENTITY,
    )?;
    let outside = |dir: &Path| write_item(dir, "adopted", "made outside");
    let program = item_program("adopted", "adopted", "made outside", Some("items/adopted"));
    oracle.phase(&Phase {
        name: "import",
        prepare: Some(&outside),
        tofu: APPLY,
        program: &program,
        pulumi: UP,
        allowed: &[],
    })?;
    oracle.phase(&Phase {
        name: "destroy",
        prepare: None,
        tofu: DESTROY,
        program: &program,
        pulumi: &["destroy", "--yes"],
        allowed: &[],
    })?;
    oracle.finish()
}

/// The YAML twin of `testdata/oracle/pyvider_file`.
fn file_program(filename: &str, content: &str) -> String {
    format!(
        "resources:\n  file:\n    type: pyvider:index/fileContent:FileContent\n    properties:\n      \
         filename: {filename}\n      content: {content}\n"
    )
}

/// Pyvider's `pyvider_file_content` through create, update, a filename change, refresh after an
/// edit on disk, and destroy.
pub(in crate::e2e) fn pyvider_lifecycle(tools: &Tools) -> Result<()> {
    let pyvider = Provider::pyvider(tools);
    let mut oracle = Oracle::new(
        tools,
        "oracle-pyvider",
        "pyvider_file",
        &[pyvider],
        CLASSIC_WITH_IDENTITY,
    )?;
    let create = file_program("files/first.txt", "hello");
    oracle.phase(&Phase {
        name: "create",
        prepare: None,
        tofu: APPLY,
        program: &create,
        pulumi: UP,
        allowed: &[],
    })?;
    let update = file_program("files/first.txt", "second");
    oracle.phase(&Phase {
        name: "update",
        prepare: None,
        tofu: &strs(&tofu(APPLY, &["content=second"])),
        program: &update,
        pulumi: UP,
        allowed: &[],
    })?;
    let moved = ["content=second", "filename=files/moved.txt"];
    let rename = file_program("files/moved.txt", "second");
    oracle.phase(&Phase {
        name: "rename",
        prepare: None,
        tofu: &strs(&tofu(APPLY, &moved)),
        program: &rename,
        pulumi: UP,
        allowed: &[],
    })?;
    let drift = |dir: &Path| {
        let path = dir.join("files/moved.txt");
        fs::write(&path, "edited on disk")
            .with_context(|| format!("could not write {}", path.display()))
    };
    oracle.phase(&Phase {
        name: "refresh",
        prepare: Some(&drift),
        tofu: &strs(&tofu(REFRESH, &moved)),
        program: &rename,
        pulumi: &["refresh", "--yes"],
        allowed: &[REFRESH_DIFF],
    })?;
    oracle.phase(&Phase {
        name: "destroy",
        prepare: None,
        tofu: &strs(&tofu(DESTROY, &moved)),
        program: &rename,
        pulumi: &["destroy", "--yes"],
        allowed: &[],
    })?;
    oracle.finish()
}

/// An AWS comparison set up: moto in the project's network, the provider configured alike on
/// both sides, and a bucket name per side (both sides' buckets exist at the same time); returns the
/// variables every `tofu` command needs and the two bucket names, OpenTofu's first.
fn aws_oracle<'a>(
    tools: &'a Tools,
    name: &str,
    hcl: &str,
    allowed: &'static [Allowance],
) -> Result<(Oracle<'a>, Vec<String>, [String; 2])> {
    let secret = format!("oracle-secret-{}", std::process::id());
    let mut oracle = Oracle::new(tools, name, hcl, &[Provider::aws(tools)], allowed)?;
    oracle.project().mask(&secret);
    let endpoint = aws::start_moto(oracle.project())?;
    aws::configure(oracle.project(), &endpoint, &secret)?;
    let buckets = [
        format!("tfp-oracle-tofu-{}", std::process::id()),
        format!("tfp-oracle-pulumi-{}", std::process::id()),
    ];
    oracle.placeholder(Side::Tofu, &buckets[0], "<bucket>");
    oracle.placeholder(Side::Pulumi, &buckets[1], "<bucket>");
    let vars = vec![
        format!("endpoint={endpoint}"),
        format!("secret_key={secret}"),
    ];
    Ok((oracle, vars, buckets))
}

/// The YAML twin of `testdata/oracle/aws_s3`.
fn bucket_program(bucket: &str, stage: &str) -> String {
    format!(
        "resources:\n  bucket:\n    type: aws:index/s3Bucket:S3Bucket\n    properties:\n      \
         bucket: {bucket}\n      forceDestroy: true\n      tags:\n        stage: {stage}\n    \
         options:\n      deleteBeforeReplace: true\n"
    )
}

/// An S3 bucket through create, update (tags), replace (its name), refresh and destroy.
pub(in crate::e2e) fn aws_lifecycle(tools: &Tools) -> Result<()> {
    let (mut oracle, vars, [theirs, ours]) = aws_oracle(tools, "oracle-aws", "aws_s3", CLASSIC)?;
    let with = |extra: &[String]| -> Vec<String> { vars.iter().chain(extra).cloned().collect() };
    let bucket = |name: &str| format!("bucket={name}");
    let create_vars = with(&[bucket(&theirs)]);
    let create_vars: Vec<&str> = strs(&create_vars);
    oracle.phase(&Phase {
        name: "create",
        prepare: None,
        tofu: &strs(&tofu(APPLY, &create_vars)),
        program: &bucket_program(&ours, "one"),
        pulumi: UP,
        allowed: &[],
    })?;
    let update_vars = with(&[bucket(&theirs), "stage=two".to_owned()]);
    oracle.phase(&Phase {
        name: "update",
        prepare: None,
        tofu: &strs(&tofu(APPLY, &strs(&update_vars))),
        program: &bucket_program(&ours, "two"),
        pulumi: UP,
        allowed: &[],
    })?;
    let (theirs2, ours2) = (format!("{theirs}-2"), format!("{ours}-2"));
    let replace_vars = with(&[bucket(&theirs2), "stage=two".to_owned()]);
    oracle.phase(&Phase {
        name: "replace",
        prepare: None,
        tofu: &strs(&tofu(APPLY, &strs(&replace_vars))),
        program: &bucket_program(&ours2, "two"),
        pulumi: UP,
        allowed: &[REPLACE_PRIVATE],
    })?;
    oracle.phase(&Phase {
        name: "refresh",
        prepare: None,
        tofu: &strs(&tofu(REFRESH, &strs(&replace_vars))),
        program: &bucket_program(&ours2, "two"),
        pulumi: &["refresh", "--yes"],
        allowed: &[REFRESH_DIFF],
    })?;
    oracle.phase(&Phase {
        name: "destroy",
        prepare: None,
        tofu: &strs(&tofu(DESTROY, &strs(&replace_vars))),
        program: &bucket_program(&ours2, "two"),
        pulumi: &["destroy", "--yes"],
        allowed: &[],
    })?;
    oracle.finish()
}

/// Import of a bucket made in moto behind both hosts' backs, then destroy.
pub(in crate::e2e) fn aws_import(tools: &Tools) -> Result<()> {
    let (mut oracle, vars, [theirs, ours]) =
        aws_oracle(tools, "oracle-aws-import", "aws_s3_import", IMPORT)?;
    let endpoint = vars[0].trim_start_matches("endpoint=").to_owned();
    for name in [&theirs, &ours] {
        let (status, body) = oracle
            .project()
            .http("PUT", &format!("{endpoint}/{name}"), None)?;
        anyhow::ensure!(
            status == 200,
            "moto answers {status} to creating {name}: {body}"
        );
    }
    let import_vars: Vec<String> = vars
        .iter()
        .cloned()
        .chain([format!("bucket={theirs}")])
        .collect();
    let program = format!(
        "resources:\n  imported:\n    type: aws:index/s3Bucket:S3Bucket\n    properties:\n      \
         bucket: {ours}\n    options:\n      import: {ours}\n"
    );
    oracle.phase(&Phase {
        name: "import",
        prepare: None,
        tofu: &strs(&tofu(APPLY, &strs(&import_vars))),
        program: &program,
        pulumi: UP,
        allowed: &[IMPORT_UPGRADE],
    })?;
    oracle.phase(&Phase {
        name: "destroy",
        prepare: None,
        tofu: &strs(&tofu(DESTROY, &strs(&import_vars))),
        program: &program,
        pulumi: &["destroy", "--yes"],
        allowed: &[],
    })?;
    oracle.finish()
}
