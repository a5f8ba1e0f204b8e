//! Scenarios with the real hashicorp/aws 3.39.0 provider and moto as the AWS API, in the project's
//! network: an S3 bucket and an object through `up`, `refresh` and `destroy` with the provider configured
//! through `pulumi config` (its secret key set with `--secret`, which must never show in plain text),
//! a create that half-fails, which the engine must keep and carry on from, and the import of a bucket
//! made outside Pulumi.
//!
//! Each step is checked against moto over HTTP from inside the project's network, and against
//! `pulumi stack export`.

use std::ffi::OsStr;
use std::fs;

use anyhow::{Context, Result, ensure};

use super::harness::{self, Project, Run, Tools};

/// The Pulumi type tokens of `aws_s3_bucket` and `aws_s3_bucket_object`.
pub(super) const BUCKET: &str = "aws:index/s3Bucket:S3Bucket";
pub(super) const OBJECT: &str = "aws:index/s3BucketObject:S3BucketObject";
/// The signature key with which the state marks a secret value.
pub(super) const SECRET_SIG: &str = "4dabf18193072939515e22adb298388d";

/// A project with the AWS package added, moto running in its network, and the provider configured to
/// use it; `secret` is set as `aws:secretKey` with `--secret`.
pub(super) fn aws_project<'a>(
    tools: &'a Tools,
    name: &str,
    secret: &str,
) -> Result<(Project<'a>, String)> {
    let mut project = Project::new(tools, name)?;
    project.mask(secret);
    let endpoint = start_moto(&mut project)?;
    let aws = tools.aws.to_string_lossy().into_owned();
    project.package_add("add the AWS 3.39.0 package", &[&aws])?;
    ensure!(
        project.manifest().contains(&aws),
        "`pulumi package add` did not record the AWS provider in Pulumi.yaml:\n{}",
        project.manifest()
    );
    configure(&project, &endpoint, secret)?;
    Ok((project, endpoint))
}

/// The tests' moto launcher: moto on a port the kernel picks, printed once it listens, served
/// until its stdin closes (the service's handle keeps it open).
const MOTO_LAUNCHER: &str = include_str!("../../../crates/testkit/src/moto.py");

/// Starts moto in the project's network; returns its endpoint.
pub(super) fn start_moto(project: &mut Project<'_>) -> Result<String> {
    let python = project.tools().tools_python.clone();
    let (_, line) = project.service(
        "moto",
        &python,
        &[OsStr::new("-c"), OsStr::new(MOTO_LAUNCHER)],
    )?;
    let port: u16 = line
        .trim()
        .parse()
        .with_context(|| format!("moto's launcher printed {line:?}, not a port"))?;
    Ok(format!("http://127.0.0.1:{port}"))
}

/// Fails unless moto answers 404 for `bucket`, which a destroy removed.
pub(super) fn expect_bucket_gone(
    project: &Project<'_>,
    endpoint: &str,
    bucket: &str,
) -> Result<()> {
    let (status, _) = project.http_get(&format!("{endpoint}/{bucket}"), None)?;
    ensure!(
        status == 404,
        "moto answers {status} for the destroyed bucket"
    );
    Ok(())
}

/// Configures the project's `aws` package to use moto at `endpoint`, with `secret` set as
/// `aws:secretKey` with `--secret`.
pub(super) fn configure(project: &Project<'_>, endpoint: &str, secret: &str) -> Result<()> {
    // The values as `pulumi config` stores them: strings, JSON text for the list of endpoints.
    let endpoints = format!(r#"[{{"s3":"{endpoint}","sts":"{endpoint}","iam":"{endpoint}"}}]"#);
    let mut args: Vec<String> = vec!["config".into(), "set-all".into()];
    for (key, value) in [
        ("region", "us-east-1"),
        ("accessKey", "test"),
        ("skipCredentialsValidation", "true"),
        ("skipRequestingAccountId", "true"),
        ("skipMetadataApiCheck", "true"),
        ("skipRegionValidation", "true"),
        // Without it, every ConfigureProvider retries EC2's DescribeAccountAttributes for about
        // 20 seconds: moto serves only the endpoints below, and nothing else is reachable.
        ("skipGetEc2Platforms", "true"),
        ("s3ForcePathStyle", "true"),
        ("endpoints", &endpoints),
    ] {
        args.push("--plaintext".into());
        args.push(format!("aws:{key}={value}"));
    }
    args.push("--secret".into());
    args.push(format!("aws:secretKey={secret}"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    project.pulumi("configure the AWS provider", &args)?;
    Ok(())
}

/// A bucket and an object in it: up, refresh, destroy, each checked in moto; the secret key never in
/// plain text in the CLI's output, the state, the config file, our logs or the recording.
pub(super) fn moto(tools: &Tools) -> Result<()> {
    let secret = format!(
        "tfp-e2e-secret-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or_default()
    );
    let (mut project, endpoint) = aws_project(tools, "aws-moto", &secret)?;
    let recording = project.root().join("logs").join("tf-calls.json");
    project.set_env("PULUMI_TF_DEBUG_GRPC", &recording);
    project.set_env("RUST_LOG", "debug");
    // Every CLI output, kept to look for the secret at the end.
    let mut seen: Vec<(String, Run)> = Vec::new();

    let config = fs::read_to_string(project.dir().join("Pulumi.test.yaml"))
        .context("could not read the stack's config file")?;
    let line = config
        .lines()
        .skip_while(|l| !l.contains("aws:secretKey"))
        .take(2)
        .collect::<Vec<_>>()
        .join("\n");
    ensure!(
        line.contains("secure:"),
        "the config file does not hold aws:secretKey encrypted:\n{config}"
    );

    let bucket = format!("tfp-e2e-{}", std::process::id());
    let content = "hello from pulumi";
    project.write_program(&format!(
        "resources:\n  bucket:\n    type: {BUCKET}\n    properties:\n      bucket: {bucket}\n      forceDestroy: true\n\
         \x20 object:\n    type: {OBJECT}\n    properties:\n      bucket: ${{bucket.bucket}}\n      key: hello.txt\n      content: {content}\n      acl: public-read\n\
         outputs:\n  arn: ${{bucket.arn}}\n"
    ))?;
    let run = project.pulumi(
        "create the bucket and the object (with the CLI's logs on stderr)",
        &["up", "--yes", "--skip-preview", "--logtostderr", "-v=9"],
    )?;
    seen.push(("up".into(), run));
    let (status, listing) = project.http_get(&format!("{endpoint}/{bucket}"), None)?;
    ensure!(
        status == 200 && listing.contains("<Key>hello.txt</Key>"),
        "moto answers {status} for the bucket, listing {listing}"
    );
    // moto refuses an anonymous read of a private object, hence the object's public-read ACL.
    let (status, body) = project.http_get(&format!("{endpoint}/{bucket}/hello.txt"), None)?;
    ensure!(
        status == 200 && body == content,
        "moto answers {status} {body:?} for the object"
    );
    let export = project.export()?;
    let state = harness::resource(&export, BUCKET, "bucket")?;
    ensure!(
        state["id"] == bucket.as_str()
            && state["outputs"]["arn"] == format!("arn:aws:s3:::{bucket}"),
        "the state's bucket is wrong: {state}"
    );
    harness::resource(&export, OBJECT, "object")?;
    let provider = harness::resources(&export, "pulumi:providers:aws");
    ensure!(
        provider
            .iter()
            .any(|p| p["inputs"]["secretKey"][SECRET_SIG].is_string()),
        "the state does not mark the provider's secretKey as a secret: {provider:?}"
    );

    // Without --logtostderr, the CLI's logs go to files in its TMPDIR, inside the project.
    let run = project.pulumi(
        "refresh (with the CLI's logs in files)",
        &["refresh", "--yes", "-v=9"],
    )?;
    seen.push(("refresh".into(), run));
    let export = project.export()?;
    harness::resource(&export, BUCKET, "bucket")?;
    harness::resource(&export, OBJECT, "object")?;
    let run = project.pulumi("export the stack", &["stack", "export"])?;
    seen.push(("stack export".into(), run));
    let run = project.pulumi("show the config", &["config"])?;
    seen.push(("config".into(), run));

    let run = project.pulumi(
        "destroy",
        &[
            "destroy",
            "--yes",
            "--skip-preview",
            "--logtostderr",
            "-v=9",
        ],
    )?;
    seen.push(("destroy".into(), run));
    expect_bucket_gone(&project, &endpoint, &bucket)?;
    let export = project.export()?;
    ensure!(
        harness::resources(&export, BUCKET).is_empty()
            && harness::resources(&export, OBJECT).is_empty(),
        "destroy left resources in the state"
    );

    // The checks below must not pass for lack of anything to look at.
    let recorded = harness::recorded_bytes(&recording)?;
    let up = &seen[0].1.stderr;
    ensure!(
        up.contains("pulumi-resource-terraform-provider") || up.contains("terraform-provider"),
        "the CLI's log on stderr does not mention our plugin, so it shows nothing of it"
    );
    let logs = harness::files_under(&project.root().join("tmp"))?;
    ensure!(!logs.is_empty(), "the CLI wrote no log files to its TMPDIR");
    // The CLI's own marshaling logs at -v=9 are counted and reported, not judged (see
    // `engine_marshal_log`); every other line of its output and of every file must be clean.
    let mut engine_lines = 0;
    let mut leaked = Vec::new();
    for (step, run) in &seen {
        let text = run.text();
        let lines = leaking_lines(&text, &secret);
        engine_lines += text.lines().filter(|l| l.contains(&secret)).count() - lines.len();
        if !lines.is_empty() {
            leaked.push(format!(
                "the output of `pulumi {step}`:\n{}",
                lines.join("\n")
            ));
        }
    }
    let skip = project.root().join("pulumi-home").join("plugins");
    for file in harness::files_under(project.root())? {
        if file.starts_with(&skip) {
            continue;
        }
        let bytes =
            fs::read(&file).with_context(|| format!("could not read {}", file.display()))?;
        if !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        let lines = leaking_lines(&text, &secret);
        engine_lines += text.lines().filter(|l| l.contains(&secret)).count() - lines.len();
        if !lines.is_empty() {
            leaked.push(format!("{}:\n{}", file.display(), lines.join("\n")));
        }
    }
    ensure!(
        leaked.is_empty(),
        "the secret key is in plain text (masked here) in:\n{}",
        leaked.join("\n")
    );
    eprintln!(
        "  the secret is in none of {} CLI outputs, the state, the config file, {} CLI log files or the \
         {recorded}-byte recording",
        seen.len(),
        logs.len()
    );
    if engine_lines > 0 {
        eprintln!(
            "  note: at -v=9 the CLI itself logs the secret in plain text on {engine_lines} lines \
             (\"Marshaling/Unmarshaling property for RPC\" of CheckConfig and Configure)"
        );
    }
    project.finish()
}

/// A create that half-fails: moto creates a bucket whose name has dots, then refuses transfer
/// acceleration on it. The engine must keep the bucket with its partial state, and the next `up`
/// without acceleration must carry on from it, not create it again.
pub(super) fn partial_failure(tools: &Tools) -> Result<()> {
    let (project, endpoint) = aws_project(tools, "aws-partial", "moto-secret-partial")?;
    let bucket = format!("tfp.partial.{}", std::process::id());
    let program = |extra: &str| {
        format!(
            "resources:\n  bucket:\n    type: {BUCKET}\n    properties:\n      bucket: {bucket}\n      forceDestroy: true\n{extra}"
        )
    };
    project.write_program(&program("      accelerationStatus: Enabled\n"))?;
    let run = project.pulumi_fails(
        "create a bucket whose acceleration fails",
        &["up", "--yes", "--skip-preview"],
    )?;
    let text = run.text();
    ensure!(
        text.to_lowercase().contains("accelerat"),
        "the failed up does not show the provider's error about acceleration:\n{text}"
    );
    let (status, _) = project.http_get(&format!("{endpoint}/{bucket}"), None)?;
    ensure!(
        status == 200,
        "moto answers {status} for the half-created bucket"
    );
    let export = project.export()?;
    let state = harness::resource(&export, BUCKET, "bucket")?;
    ensure!(
        state["id"] == bucket.as_str() && state["outputs"]["bucket"] == bucket.as_str(),
        "the state does not hold the half-created bucket's ID and name: {state}"
    );
    let errors = state["initErrors"].as_array().cloned().unwrap_or_default();
    ensure!(
        errors.iter().any(|e| e
            .as_str()
            .is_some_and(|e| e.to_lowercase().contains("accelerat"))),
        "the state's bucket has no init error about acceleration: {state}"
    );

    project.write_program(&program(""))?;
    let run = project.pulumi(
        "carry on without acceleration",
        &["up", "--yes", "--skip-preview", "--diff"],
    )?;
    let text = run.text();
    ensure!(
        !text.contains("created") && !text.contains("+ 1 ") && text.contains("updated"),
        "the second up did not update the kept bucket (it must not create it again):\n{text}"
    );
    let export = project.export()?;
    let state = harness::resource(&export, BUCKET, "bucket")?;
    ensure!(
        state["id"] == bucket.as_str()
            && state
                .get("initErrors")
                .is_none_or(|e| e.as_array().is_none_or(Vec::is_empty)),
        "after the update the bucket still has init errors or another ID: {state}"
    );
    let (status, _) = project.http_get(&format!("{endpoint}/{bucket}"), None)?;
    ensure!(
        status == 200,
        "moto answers {status} for the bucket after the update"
    );

    project.pulumi("destroy", &["destroy", "--yes", "--skip-preview"])?;
    expect_bucket_gone(&project, &endpoint, &bucket)?;
    project.finish()
}

/// Whether `line` is the CLI's own `-v=9` log of a value it marshals to or from a plugin: the engine
/// logs configuration in plain text there whatever the plugin does, so it is not ours to judge.
fn engine_marshal_log(line: &str) -> bool {
    line.contains("Marshaling property for RPC[") || line.contains("Unmarshaling property for RPC[")
}

/// The lines of `text` that hold `secret`, except the CLI's own marshaling logs, with the secret masked
/// and each cut to a readable length.
fn leaking_lines(text: &str, secret: &str) -> Vec<String> {
    text.lines()
        .filter(|line| line.contains(secret) && !engine_marshal_log(line))
        .map(|line| {
            let masked = line.replace(secret, "[SECRET]");
            let cut: String = masked.chars().take(600).collect();
            cut
        })
        .collect()
}

/// Import of a bucket created in moto behind Pulumi's back, with the `import` resource option: the
/// state then holds it with the ID and outputs read from moto, the same program has nothing more to
/// change, and destroy deletes it in moto.
///
/// The `pulumi import` command does not do this in a new stack: with no provider of the package in
/// the state yet, it looks for a plugin named after the package (`no resource plugin
/// 'pulumi-resource-aws' found`) instead of the `terraform-provider` plugin that `Pulumi.yaml`'s
/// `packages` names. (In the Pyvider file scenario, run after an `up`, it reaches the provider.)
pub(super) fn import(tools: &Tools) -> Result<()> {
    let (project, endpoint) = aws_project(tools, "aws-import", "moto-secret-import")?;
    let bucket = format!("tfp-e2e-import-{}", std::process::id());
    let (status, body) = project.http("PUT", &format!("{endpoint}/{bucket}"), None)?;
    ensure!(
        status == 200,
        "moto answers {status} to creating {bucket}: {body}"
    );

    project.write_program(&format!(
        "resources:\n  imported:\n    type: {BUCKET}\n    properties:\n      bucket: {bucket}\n\
         \x20   options:\n      import: {bucket}\n"
    ))?;
    let run = project.pulumi("import the bucket", &["up", "--yes", "--diff"])?;
    ensure!(
        run.stdout.contains("import"),
        "the up does not show an import:\n{}",
        run.stdout
    );
    let export = project.export()?;
    let state = harness::resource(&export, BUCKET, "imported")?;
    ensure!(
        state["id"] == bucket.as_str()
            && state["outputs"]["bucket"] == bucket.as_str()
            && state["outputs"]["arn"] == format!("arn:aws:s3:::{bucket}").as_str(),
        "the state does not hold the imported bucket's ID, name and ARN: {state}"
    );
    project.pulumi(
        "preview again: nothing to change",
        &["preview", "--diff", "--expect-no-changes"],
    )?;

    project.pulumi("destroy the imported bucket", &["destroy", "--yes"])?;
    expect_bucket_gone(&project, &endpoint, &bucket)?;
    project.finish()
}
