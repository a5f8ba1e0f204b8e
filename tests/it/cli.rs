//! The binary's user-facing subcommands, run as a user would.

use std::{process::Command, time::Duration};

use serde_json::Value as Json;

use crate::{
    processes::{children_of, wait_for},
    support::Fixtures,
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
    let bucket = &document["provider_schemas"]["aws"]["resource_schemas"]["aws_s3_bucket"]["block"];
    assert_eq!(bucket["attributes"]["bucket"]["type"], "string");
    assert_eq!(bucket["attributes"]["arn"]["computed"], true);
    assert_eq!(bucket["block_types"]["versioning"]["nesting_mode"], "list");
    assert_eq!(bucket["block_types"]["versioning"]["max_items"], 1);
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

#[test]
fn sigterm_stops_the_provider_we_launched() {
    let fixtures = Fixtures::load();
    // Pyvider takes most of a second to start, which leaves time to interrupt us mid-launch.
    let mut ours = Command::new(BIN)
        .arg("tf-schema")
        .arg(fixtures.path("pyvider"))
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("runs");
    let pid = ours.id();
    let child = wait_for(Duration::from_secs(10), || {
        children_of(pid).into_iter().next()
    })
    .expect("the provider process appears");
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let exit = ours.wait().expect("we exit");
    assert!(!exit.success(), "interrupted, so not a success");
    let gone = wait_for(Duration::from_secs(5), || {
        (!std::path::Path::new(&format!("/proc/{child}")).exists()).then_some(())
    });
    assert!(gone.is_some(), "provider process {child} outlived us");
    assert!(
        !std::path::Path::new(&format!("/tmp/pyvider-{child}.sock")).exists(),
        "socket left behind"
    );
}
