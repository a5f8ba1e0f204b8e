//! Secret resource inputs through the real CLI, with hashicorp/aws 3.39.0 and moto: the engine sends
//! them to the plugin marked secret (the plugin accepts secrets), so no error, log line or recording
//! of ours shows one, and the plugin marks secret whatever the engine used to mark for a plugin
//! that does not accept them (pulumi/pulumi `pkg/resource/plugin/provider_plugin.go`
//! `annotateSecrets`, and Invoke's results).
//!
//! The secrets are `fn::secret` literals of the program, not stack configuration: the CLI masks the
//! values of secret configuration in everything it prints, which would hide a leak of ours from
//! this test, but it knows nothing of a program's own secrets.

use std::fs;

use anyhow::{Context, Result, ensure};
use serde_json::Value;

use super::aws::{self, BUCKET, OBJECT, SECRET_SIG};
use super::harness::{self, Project, Tools};

/// The data source that reads an S3 object back, with a secret key.
const GET_OBJECT: &str = "aws:index/getS3BucketObject:getS3BucketObject";

/// The secrets of the scenario.
struct Values {
    /// An ACL no S3 object can have: the provider rejects it, quoting it.
    acl: String,
    content: String,
    /// A value inside the `metadata` map, to be kept secret there.
    owner: String,
    second: String,
    /// The provider's own secret key.
    key: String,
}

impl Values {
    fn new() -> Self {
        let unique = |what: &str| {
            format!(
                "tfp-e2e-{what}-{}-{}",
                std::process::id(),
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.subsec_nanos())
                    .unwrap_or_default()
            )
        };
        Self {
            acl: unique("acl"),
            content: unique("content"),
            owner: unique("owner"),
            second: unique("second"),
            key: unique("key"),
        }
    }

    fn all(&self) -> [&str; 5] {
        [
            &self.acl,
            &self.content,
            &self.owner,
            &self.second,
            &self.key,
        ]
    }
}

/// A rejected secret input (`up` fails without quoting it), then a bucket object with a secret
/// `content`, a secret value in its `metadata` map, a secret key for the data source reading it
/// back, an input that only becomes secret (no change), an update to another secret and a
/// refresh: at each step the state holds the secrets only as ciphertext, at the same places, and
/// the stack outputs are secret. Finally no CLI output, log, recording or file of the project holds
/// any of them in plain text.
pub(super) fn secret_inputs(tools: &Tools) -> Result<()> {
    let values = Values::new();
    let (mut project, endpoint) = aws::aws_project(tools, "aws-secrets", &values.key)?;
    for value in values.all() {
        project.mask(value);
    }
    let recording = project.scratch("tf-calls.json");
    project.set_env("PULUMI_TF_DEBUG_GRPC", &recording);
    project.set_env("RUST_LOG", "pulumi_terraform_provider=debug");
    let mut output = String::new();

    let bucket = format!("tfp-e2e-secrets-{}", std::process::id());
    let program = |object: &str, rest: &str| {
        format!(
            "resources:\n  bucket:\n    type: {BUCKET}\n    properties:\n      bucket: {bucket}\n      forceDestroy: true\n\
             \x20 object:\n    type: {OBJECT}\n    properties:\n      bucket: ${{bucket.bucket}}\n      key: hello.txt\n{object}{rest}"
        )
    };

    project.write_program(&program(
        &format!(
            "      content: hello\n      acl:\n        fn::secret: {}\n",
            values.acl
        ),
        "",
    ))?;
    let run = project.pulumi_fails(
        "an ACL the provider rejects, given as a secret",
        &["up", "--yes", "--debug"],
    )?;
    let text = run.text();
    output.push_str(&text);
    ensure!(
        text.contains("acl") && text.contains("to be one of"),
        "the failed up does not show the provider's rejection of the ACL:\n{}",
        project.masked(&text)
    );
    ensure!(
        !text.contains(&values.acl),
        "the error quotes the secret ACL (masked here as [secret]):\n{}",
        project.masked(&text)
    );

    let readback = format!(
        "variables:\n  fetched:\n    fn::invoke:\n      function: {GET_OBJECT}\n      arguments:\n        \
         bucket: ${{object.bucket}}\n        key:\n          fn::secret: hello.txt\n\
         outputs:\n  content: ${{object.content}}\n  body: ${{fetched.body}}\n"
    );
    let object = |content: &str, cache: &str| {
        format!(
            "      acl: public-read\n      contentType: text/plain\n      content:\n        fn::secret: {content}\n      \
             cacheControl: {cache}\n      metadata:\n        owner:\n          fn::secret: {}\n",
            values.owner
        )
    };
    project.write_program(&program(&object(&values.content, "no-cache"), &readback))?;
    let run = project.pulumi(
        "create with secret inputs",
        &["up", "--yes", "--skip-preview", "--debug"],
    )?;
    output.push_str(&run.text());
    expect_body(
        &project,
        &endpoint,
        &bucket,
        &values.content,
        "after the create",
    )?;
    check_state(&project, &values, &["content"], "after the create")?;

    let run = project.pulumi(
        "nothing changed",
        &["preview", "--diff", "--expect-no-changes", "--debug"],
    )?;
    output.push_str(&run.text());

    project.write_program(&program(
        &object(&values.content, "\n        fn::secret: no-cache"),
        &readback,
    ))?;
    let run = project.pulumi(
        "an input that only becomes secret changes nothing",
        &["preview", "--diff", "--expect-no-changes", "--debug"],
    )?;
    output.push_str(&run.text());
    let run = project.pulumi(
        "store the input as secret",
        &["up", "--yes", "--skip-preview", "--debug"],
    )?;
    output.push_str(&run.text());
    check_state(
        &project,
        &values,
        &["content", "cacheControl"],
        "after an input became secret",
    )?;

    project.write_program(&program(
        &object(&values.second, "\n        fn::secret: no-cache"),
        &readback,
    ))?;
    let run = project.pulumi(
        "update to another secret",
        &["up", "--yes", "--skip-preview", "--debug"],
    )?;
    output.push_str(&run.text());
    expect_body(
        &project,
        &endpoint,
        &bucket,
        &values.second,
        "after the update",
    )?;
    check_state(
        &project,
        &values,
        &["content", "cacheControl"],
        "after the update",
    )?;

    let run = project.pulumi("refresh", &["refresh", "--yes", "--debug"])?;
    output.push_str(&run.text());
    check_state(
        &project,
        &values,
        &["content", "cacheControl"],
        "after the refresh",
    )?;

    let run = project.pulumi(
        "destroy",
        &["destroy", "--yes", "--skip-preview", "--debug"],
    )?;
    output.push_str(&run.text());
    aws::expect_bucket_gone(&project, &endpoint, &bucket)?;

    let recorded = harness::recorded_bytes(&recording)?;
    let mut leaks = Vec::new();
    for value in values.all() {
        if output.contains(value) {
            leaks.push("the CLI's output or our logs".to_owned());
        }
    }
    // The program holds the values as literals; the plugins are the binaries.
    let program_file = project.dir().join("Pulumi.yaml");
    let plugins = project.root().join("pulumi-home").join("plugins");
    for file in harness::files_under(project.root())? {
        if file.starts_with(&plugins) || file == program_file {
            continue;
        }
        let bytes =
            fs::read(&file).with_context(|| format!("could not read {}", file.display()))?;
        for value in values.all() {
            if bytes.windows(value.len()).any(|w| w == value.as_bytes()) {
                leaks.push(file.display().to_string());
            }
        }
    }
    leaks.dedup();
    ensure!(
        leaks.is_empty(),
        "a secret is in plain text in: {}",
        leaks.join(", ")
    );
    eprintln!(
        "  no secret in any CLI output, the state, the {recorded}-byte recording or any file of the project"
    );
    project.finish()
}

/// Fails unless moto serves `expected` as the object's body.
fn expect_body(
    project: &Project<'_>,
    endpoint: &str,
    bucket: &str,
    expected: &str,
    when: &str,
) -> Result<()> {
    let (status, body) = project.http_get(&format!("{endpoint}/{bucket}/hello.txt"), None)?;
    ensure!(
        status == 200 && body == expected,
        "{when}: moto answers {status} with {} bytes, not the secret content",
        body.len()
    );
    Ok(())
}

/// Whether an exported value is a secret: only its ciphertext is in the state.
fn is_secret(value: &Value) -> bool {
    value.get(SECRET_SIG).is_some() && value["ciphertext"].is_string()
}

/// Checks the exported state: the object's `secret` inputs and outputs are secret, and so is the
/// owner in its metadata (or the whole map); the stack outputs drawn from them and from the data
/// source read with a secret key are secret; no value of the scenario is in plain text. (A stack
/// output of the `metadata` map is not checked: with Pulumi YAML 1.38.1 the state holds it as
/// `{"owner":{}}`, the secret neither in plain text nor as ciphertext.)
fn check_state(project: &Project<'_>, values: &Values, secret: &[&str], when: &str) -> Result<()> {
    let export = project.export()?;
    let text = export.to_string();
    for value in values.all() {
        ensure!(
            !text.contains(value),
            "{when}: `pulumi stack export` shows a secret in plain text"
        );
    }
    let object = harness::resource(&export, OBJECT, "object")?;
    for side in ["inputs", "outputs"] {
        for key in secret {
            ensure!(
                is_secret(&object[side][key]),
                "{when}: the object's {side}.{key} is not secret: {}",
                object[side][key]
            );
        }
        let metadata = &object[side]["metadata"];
        ensure!(
            is_secret(metadata) || is_secret(&metadata["owner"]),
            "{when}: the object's {side}.metadata.owner is not secret: {metadata}"
        );
    }
    let stack = harness::resources(&export, "pulumi:pulumi:Stack");
    let outputs = &stack.first().context("the state has no stack resource")?["outputs"];
    for key in ["content", "body"] {
        ensure!(
            is_secret(&outputs[key]),
            "{when}: the stack output {key} is not secret: {}",
            outputs[key]
        );
    }
    Ok(())
}
