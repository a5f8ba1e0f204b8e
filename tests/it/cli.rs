//! The binary's user-facing subcommands, run as a user would.

use std::{process::Command, time::Duration};

use serde_json::Value as Json;
use tfp_schema_cache::SWITCH as SCHEMA_CACHE;

use crate::{
    processes::{StopOnDrop, wait_for},
    support::{Fixtures, providers_of},
};

const BIN: &str = env!("CARGO_BIN_EXE_pulumi-resource-terraform-provider");

#[test]
fn tf_schema_prints_the_schema_as_terraform_does() {
    let fixtures = Fixtures::load();
    for (fixture, key, protocol, resources, functions) in [
        ("pyvider", "pyvider", 6, 4, 25),
        ("aws_3_39_0", "aws", 5, 711, 0),
    ] {
        let output = Command::new(BIN)
            .arg("tf-schema")
            .arg(fixtures.path(fixture))
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{fixture}: {stderr}");
        assert!(
            stderr.contains(&format!("protocol {protocol}, mTLS on, launch ")),
            "{fixture}: {stderr}"
        );
        let document: Json = serde_json::from_slice(&output.stdout).expect("stdout is JSON");
        assert_eq!(document["format_version"], "1.0");
        let schema = &document["provider_schemas"][key];
        assert_eq!(
            schema["resource_schemas"].as_object().map(|o| o.len()),
            Some(resources),
            "{fixture}"
        );
        assert_eq!(
            schema["functions"].as_object().map_or(0, |o| o.len()),
            functions,
            "{fixture}"
        );
        assert_eq!(
            schema["provider"]["block"]["description_kind"], "plain",
            "{fixture}"
        );
    }
    let aws = Command::new(BIN)
        .arg("tf-schema")
        .arg(fixtures.path("aws_3_39_0"))
        .output()
        .expect("runs");
    let document: Json = serde_json::from_slice(&aws.stdout).expect("stdout is JSON");
    let aws = &document["provider_schemas"]["aws"];
    let bucket = &aws["resource_schemas"]["aws_s3_bucket"]["block"];
    assert_eq!(bucket["attributes"]["bucket"]["type"], "string");
    assert_eq!(bucket["attributes"]["arn"]["computed"], true);
    assert_eq!(bucket["block_types"]["versioning"]["nesting_mode"], "list");
    assert_eq!(bucket["block_types"]["versioning"]["max_items"], 1);
    // A provider older than resource identity (AWS 3.39.0 answers UNIMPLEMENTED) has none, and
    // Terraform leaves the section out.
    assert!(aws.get("resource_identity_schemas").is_none(), "{aws:#}");
}

#[test]
fn tf_schema_prints_resource_identity_schemas_as_terraform_does() {
    // Each release of tfptest has its own identity schema for `tfptest_item`.
    for (fixture, version, identity) in [
        (
            "tfptest",
            1,
            serde_json::json!({
                "directory": { "type": "string", "required_for_import": true },
                "name": { "type": "string", "required_for_import": true },
            }),
        ),
        (
            "tfptest_identity_v0",
            0,
            serde_json::json!({ "path": { "type": "string", "required_for_import": true } }),
        ),
    ] {
        let output = Command::new(BIN)
            .arg("tf-schema")
            .arg(Fixtures::load().path(fixture))
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{fixture}: {stderr}");
        let document: Json = serde_json::from_slice(&output.stdout).expect("stdout is JSON");
        let entry = &document["provider_schemas"]["tfptest"];
        assert_eq!(
            entry["resource_identity_schemas"],
            serde_json::json!({ "tfptest_item": { "version": version, "attributes": identity } }),
            "{fixture}"
        );
        assert!(
            entry["resource_schemas"]["tfptest_item"].is_object(),
            "{fixture}"
        );
    }
}

#[test]
fn tf_schema_explains_a_non_provider() {
    let output = Command::new(BIN)
        .args(["tf-schema", "/bin/true"])
        .output()
        .expect("runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("true exited before completing the go-plugin handshake"),
        "{stderr}"
    );
}

/// Our binary with `args`, its stdout and stderr piped, stopped if the test fails first.
fn piped(args: &[&std::ffi::OsStr]) -> (std::process::Child, StopOnDrop) {
    let ours = Command::new(BIN)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let stop = StopOnDrop::new(ours.id());
    (ours, stop)
}

#[test]
fn a_mistyped_subcommand_is_named_not_served() {
    let (mut ours, stop_ours) = piped(&["instal".as_ref(), "hashicorp/random".as_ref()]);
    // Served as an engine address, it would print a port and wait for an engine for ever.
    let status = crate::processes::exited_within(&mut ours, Duration::from_secs(10))
        .expect("it ends at once");
    stop_ours.dismiss();
    let output = ours.wait_with_output().expect("its output");
    assert!(!status.success());
    assert!(output.stdout.is_empty(), "no port printed");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("\"instal\" is neither a subcommand nor the engine's address"),
        "{stderr}"
    );
}

#[test]
fn a_reader_that_stops_early_is_no_failure() {
    use std::io::Read as _;
    let fixtures = Fixtures::load();
    // AWS's schema, megabytes: more than the pipe holds, so the write meets the closed pipe.
    let aws = fixtures.path("aws_3_39_0");
    let (mut ours, stop_ours) = piped(&["tf-schema".as_ref(), aws.as_os_str()]);
    // Read one byte, as `| head -c 1` does, then close the pipe.
    let mut first = [0u8; 1];
    (ours.stdout.take().expect("piped"))
        .read_exact(&mut first)
        .expect("the schema starts");
    let output = ours.wait_with_output().expect("it exits");
    stop_ours.dismiss();
    assert_eq!(&first, b"{");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn sigterm_stops_the_provider_we_launched() {
    signal_stops_the_provider_we_launched("TERM");
}

#[test]
fn sigint_stops_the_provider_we_launched() {
    signal_stops_the_provider_we_launched("INT");
}

/// Sends `signal` to our binary while it launches Pyvider, and checks that we exit with a
/// failure and that the provider and its socket are gone.
fn signal_stops_the_provider_we_launched(signal: &str) {
    let fixtures = Fixtures::load();
    // Pyvider takes most of a second to start, which leaves time to interrupt us mid-launch.
    let ours = Command::new(BIN)
        .arg("tf-schema")
        .arg(fixtures.path("pyvider"))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let pid = ours.id();
    let stop_ours = StopOnDrop::new(pid);
    let child = wait_for(Duration::from_secs(10), || {
        providers_of(pid).into_iter().next()
    })
    .expect("the provider process appears");
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let output = ours.wait_with_output().expect("we exit");
    stop_ours.dismiss();
    assert!(!output.status.success(), "interrupted, so not a success");
    // As a shell reports a command a signal ended: 128 + its number.
    let number = if signal == "INT" { 2 } else { 15 };
    assert_eq!(output.status.code(), Some(128 + number));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("stopped by SIG{signal}")),
        "{stderr}"
    );
    let gone = wait_for(Duration::from_secs(5), || {
        (!std::path::Path::new(&format!("/proc/{child}")).exists()).then_some(())
    });
    assert!(gone.is_some(), "provider process {child} outlived us");
    assert!(
        !crate::support::pyvider_socket(child).exists(),
        "socket left behind"
    );
}

#[test]
fn what_a_provider_started_ends_before_we_exit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let random = Fixtures::load().path("random_3_6_3");
    // A helper that ignores SIGTERM, as a provider's may: it is killed after the group's grace.
    // Ending our runtime used to drop the task that would kill it, and it ran on under init.
    let marker = "298.201";
    let wrapper = crate::support::script(
        &dir,
        "terraform-provider-random",
        &format!(
            "sh -c 'trap \"\" TERM; exec sleep {marker}' &\nexec '{}'",
            random.display()
        ),
    );
    let output = Command::new(BIN)
        .arg("tf-schema")
        .arg(&wrapper)
        .output()
        .expect("runs");
    // Gone by the time we exited; the bound is for a loaded machine, the old code left the
    // helper for its whole 298 s.
    let gone = wait_for(Duration::from_secs(5), || {
        crate::processes::running_with(&format!("sleep {marker}"))
            .is_empty()
            .then_some(())
    });
    let left = crate::processes::running_with(&format!("sleep {marker}"));
    for pid in &left {
        crate::processes::signal(*pid, "KILL");
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(gone.is_some(), "the provider's helper {left:?} outlived us");

    // Stopped by a signal while the provider never answers: its socket goes too.
    let socket = dir.path().join("plugin.sock");
    let listener = "import socket, sys\n\
         s = socket.socket(socket.AF_UNIX)\n\
         s.bind(sys.argv[1])\n\
         s.listen(8)\n\
         print('1|6|unix|' + sys.argv[1] + '|grpc|', flush=True)\n\
         held = []\n\
         while True:\n    held.append(s.accept()[0])\n";
    std::fs::write(dir.path().join("listen.py"), listener).expect("write");
    let mute = crate::support::script(
        &dir,
        "terraform-provider-mute",
        &format!(
            "exec python3 '{}' '{}'",
            dir.path().join("listen.py").display(),
            socket.display()
        ),
    );
    let ours = Command::new(BIN)
        .arg("tf-schema")
        .arg(&mute)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let stop_ours = StopOnDrop::new(ours.id());
    let listening = wait_for(Duration::from_secs(10), || socket.exists().then_some(()));
    assert!(listening.is_some(), "the provider listens");
    // Past the handshake, waiting on a call the provider never answers.
    std::thread::sleep(Duration::from_millis(300));
    crate::processes::signal(ours.id(), "TERM");
    let output = ours.wait_with_output().expect("we exit");
    stop_ours.dismiss();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("stopped by SIGTERM"), "{stderr}");
    assert!(!socket.exists(), "socket left behind: {stderr}");
}

#[test]
fn tf_disable_plugin_tls_launches_the_provider_without_mtls() {
    let random = Fixtures::load().path("random_3_6_3");
    let run = |disable: Option<&str>| {
        let mut command = Command::new(BIN);
        command.arg("tf-schema").arg(&random);
        match disable {
            Some(value) => command.env("TF_DISABLE_PLUGIN_TLS", value),
            None => command.env_remove("TF_DISABLE_PLUGIN_TLS"),
        };
        let output = command.output().expect("runs");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "{stderr}");
        let document: Json = serde_json::from_slice(&output.stdout).expect("stdout is JSON");
        assert!(
            document["provider_schemas"]["random"]["resource_schemas"]["random_pet"].is_object(),
            "the schema came over the plain connection too"
        );
        stderr
    };
    // The report says what the provider's handshake offered: no certificate, so no TLS.
    assert!(run(Some("1")).contains("protocol 5, mTLS off, "));
    assert!(run(None).contains("protocol 5, mTLS on, "));
    // As in Terraform, an empty value leaves AutoMTLS on.
    assert!(run(Some("")).contains("protocol 5, mTLS on, "));
}

/// Runs `tf-schema` on random 3.6.3 with stderr to a pipe and `env` set; returns stderr.
fn tf_schema_stderr(env: &[(&str, &str)]) -> String {
    let output = Command::new(BIN)
        .arg("tf-schema")
        .arg(Fixtures::load().path("random_3_6_3"))
        .env_remove("RUST_LOG")
        .env_remove("NO_COLOR")
        .env_remove("TF_LOG")
        .env_remove("TF_LOG_PROVIDER")
        .envs(env.iter().copied())
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    stderr
}

#[test]
fn rust_log_sets_our_log_level() {
    let quiet = tf_schema_stderr(&[]);
    assert!(!quiet.contains("DEBUG"), "warn by default: {quiet}");
    let debug = tf_schema_stderr(&[("RUST_LOG", "pulumi_terraform_provider=debug")]);
    assert!(
        debug.lines().any(|line| line.contains("DEBUG")
            && line.contains("pulumi_terraform_provider::host::provider")
            && line.contains("provider handshake")),
        "our debug lines appear: {debug}"
    );
    assert!(
        !debug.contains("rustls::"),
        "the directive names our crate only: {debug}"
    );
}

#[test]
fn tf_log_sets_the_providers_log_level_and_tf_log_path_appends_at_that_level() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("provider.log");
    let file = path.to_str().expect("a UTF-8 path");
    let levels = || -> Vec<String> {
        std::fs::read_to_string(&path)
            .expect("TF_LOG_PATH was written")
            .lines()
            .map(|line| {
                let entry: Json = serde_json::from_str(line).expect("an hclog JSON line");
                entry["@level"].as_str().expect("a level").to_owned()
            })
            .collect()
    };

    // Off by default, as in Terraform: the provider's lines reach neither stderr nor the file.
    let quiet = tf_schema_stderr(&[("TF_LOG_PATH", file)]);
    assert!(!quiet.contains("tf_provider"), "{quiet}");
    assert!(!path.exists(), "nothing is written while the level is off");

    let info = tf_schema_stderr(&[("TF_LOG", "info"), ("TF_LOG_PATH", file)]);
    assert!(
        info.contains("tf_provider: configuring server automatic mTLS"),
        "{info}"
    );
    assert!(!info.contains("DEBUG tf_provider"), "{info}");
    let first = levels();
    assert!(!first.is_empty());
    assert!(
        first
            .iter()
            .all(|l| matches!(l.as_str(), "info" | "warn" | "error")),
        "only info and above: {first:?}"
    );

    // TF_LOG_PROVIDER wins over TF_LOG, and the file is appended to.
    tf_schema_stderr(&[
        ("TF_LOG", "error"),
        ("TF_LOG_PROVIDER", "trace"),
        ("TF_LOG_PATH", file),
    ]);
    let both = levels();
    assert_eq!(both[..first.len()], first[..], "the first run's lines stay");
    assert!(both[first.len()..].iter().any(|l| l == "trace"), "{both:?}");
}

#[test]
fn stderr_has_no_colour_codes_when_it_is_not_a_terminal() {
    // Debug lines from every crate, so that there is plenty a colouring formatter would paint.
    for env in [
        vec![("RUST_LOG", "debug")],
        vec![("RUST_LOG", "debug"), ("NO_COLOR", "1")],
    ] {
        let stderr = tf_schema_stderr(&env);
        assert!(stderr.contains("DEBUG"), "{stderr}");
        assert!(
            !stderr.contains("\x1b["),
            "ANSI codes in a pipe ({env:?}): {stderr}"
        );
    }
}

#[test]
fn install_prints_the_path_version_and_hashes_of_what_it_cached() {
    use std::io::Write as _;
    let random = Fixtures::load().path("random_3_6_3");
    let dir = tempfile::tempdir().expect("temp dir");
    let platform = tfp_registry::Platform::current();
    // A filesystem mirror holding random 3.6.3 packed as the registry packs it, so that the
    // install is offline and comes from a zip (which gives a `zh:` hash).
    let packages = dir
        .path()
        .join("mirror")
        .join(tfp_registry::DEFAULT_HOST)
        .join("hashicorp/random");
    std::fs::create_dir_all(&packages).expect("mirror directory");
    let zip_path = packages.join(format!(
        "terraform-provider-random_3.6.3_{}_{}.zip",
        platform.os, platform.arch
    ));
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&zip_path).expect("create the zip"));
    zip.start_file(
        "terraform-provider-random_v3.6.3_x5",
        zip::write::SimpleFileOptions::default().unix_permissions(0o755),
    )
    .expect("zip entry");
    zip.write_all(&std::fs::read(&random).expect("read the provider"))
        .expect("zip data");
    zip.finish().expect("finish the zip");
    let config = dir.path().join("cli.tfrc");
    std::fs::write(
        &config,
        format!(
            "provider_installation {{\n  filesystem_mirror {{\n    path = \"{}\"\n  }}\n}}\n",
            dir.path().join("mirror").display()
        ),
    )
    .expect("write the CLI configuration");
    let home = dir.path().join("home");
    std::fs::create_dir(&home).expect("home");
    // The cache is `$PULUMI_HOME/dynamic_tf_plugins`, `PULUMI_HOME` being `~/.pulumi` by default,
    // unless PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR names another directory.
    let cache = home.join(".pulumi/dynamic_tf_plugins");
    let install = |constraint: &str, env: &[(&str, &std::path::Path)]| {
        let output = Command::new(BIN)
            .args(["install", "hashicorp/random", constraint])
            .env("HOME", &home)
            .env("TF_CLI_CONFIG_FILE", &config)
            .env_remove("PULUMI_HOME")
            .env_remove("PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR")
            .env_remove("TF_PLUGIN_CACHE_DIR")
            .envs(env.iter().copied())
            .output()
            .expect("runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).expect("UTF-8")
    };
    let printed = install("3.6.3", &[]);

    let entry = cache
        .join(tfp_registry::DEFAULT_HOST)
        .join("hashicorp/random/3.6.3")
        .join(platform.to_string());
    let executable = entry.join("terraform-provider-random_v3.6.3_x5");
    let h1 = tfp_registry::h1_dir(&entry).expect("hash the cache entry");
    let zh = tfp_registry::zh_file(&zip_path).expect("hash the zip");
    assert_eq!(
        printed,
        format!(
            "{}\nversion: 3.6.3\nsource:  registry.opentofu.org/hashicorp/random\nh1:      {h1}\nzh:      {zh}\n",
            executable.display()
        )
    );
    assert!(h1.starts_with("h1:") && zh.starts_with("zh:"), "{h1} {zh}");
    assert!(
        std::fs::read(&executable).expect("the printed path exists")
            == std::fs::read(&random).expect("the fixture"),
        "the printed path is the provider"
    );
    // The record kept beside the entry holds the same hashes.
    let record: Json = serde_json::from_slice(
        &std::fs::read(entry.with_extension("json")).expect("the cache record"),
    )
    .expect("JSON");
    assert_eq!(
        (record["h1"].as_str(), record["zh"].as_str()),
        (Some(h1.as_str()), Some(zh.as_str()))
    );

    // With the package gone from the mirror, only the cache can answer, and the same lines come
    // back, wherever the cache is named from.
    std::fs::remove_file(&zip_path).expect("remove the package");
    let nowhere = dir.path().join("nowhere");
    assert_eq!(
        install("3.6.3", &[("PULUMI_HOME", &home.join(".pulumi"))]),
        printed
    );
    assert_eq!(
        install(
            "3.6.3",
            &[
                ("PULUMI_HOME", &nowhere),
                ("PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR", &cache)
            ]
        ),
        printed
    );
    assert!(!nowhere.exists());
}

#[tokio::test]
async fn schema_prints_what_get_schema_returns_after_parameterize() {
    let fixtures = Fixtures::load();
    let pyvider = fixtures.path("pyvider").to_string_lossy().into_owned();
    let subset = [
        pyvider.as_str(),
        "--provider-name",
        "pv",
        "--include",
        "pyvider_file_content,upper",
    ];
    schema_and_get_schema_agree(&subset, "pv").await;
    // Megabytes, whose members GetSchema sends in pieces and chunks.
    let aws = fixtures.path("aws_3_39_0").to_string_lossy().into_owned();
    schema_and_get_schema_agree(&[aws.as_str()], "aws").await;
}

/// `schema <args>` prints exactly what a plugin's GetSchema returns after Parameterize with
/// `args`, a package named `name`.
async fn schema_and_get_schema_agree(args: &[&str], name: &str) {
    let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    let output = Command::new(BIN)
        .arg("schema")
        .args(&args)
        .env(SCHEMA_CACHE, "off")
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let mut plugin = crate::plugin::Plugin::start().await;
    use pulumi_terraform_provider::proto::pulumirpc::{
        self as rpc, parameterize_request::Parameters,
    };
    let parameterized = plugin
        .client
        .parameterize(rpc::ParameterizeRequest {
            parameters: Some(Parameters::Args(
                rpc::parameterize_request::ParametersArgs { args },
            )),
        })
        .await
        .expect("Parameterize")
        .into_inner();
    assert_eq!(parameterized.name, name);
    let served = plugin
        .client
        .get_schema(rpc::GetSchemaRequest::default())
        .await
        .expect("GetSchema")
        .into_inner()
        .schema;
    plugin.stop().await;
    // `schema` ends its output with a newline, as a command line tool does.
    let printed = &output.stdout;
    let differs_at = (printed.iter().zip(served.as_bytes()))
        .position(|(a, b)| a != b)
        .unwrap_or(printed.len().min(served.len()));
    assert!(
        *printed == format!("{served}\n").into_bytes(),
        "`schema` ({} bytes) and GetSchema ({} bytes) differ from byte {differs_at}: {:?} vs {:?}",
        printed.len(),
        served.len(),
        String::from_utf8_lossy(&printed[differs_at..printed.len().min(differs_at + 80)]),
        String::from_utf8_lossy(&served.as_bytes()[differs_at..served.len().min(differs_at + 80)]),
    );
    let schema: Json = serde_json::from_str(&served).expect("JSON");
    assert_eq!(schema["name"], name);
}
