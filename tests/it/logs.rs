//! Provider logs: with `TF_LOG` the provider writes hclog JSON to stderr, and `TF_LOG_PATH`
//! collects those lines in a file, as in Terraform.

use pulumi_terraform_provider::host::Provider;
use tfp_goplugin::{Launch, logs::LogSettings};

use crate::support::{Fixtures, traces_of};

#[tokio::test]
async fn tf_log_path_collects_the_providers_log_lines() {
    let fixtures = Fixtures::load();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("provider.log");
    let mut launch = Launch::new(fixtures.path("aws_3_39_0"));
    launch.env.push(("TF_LOG".into(), "trace".into()));
    launch.log = LogSettings {
        level: Some("trace".into()),
        path: Some(path.clone()),
    };
    let provider = Provider::launch(launch).await.expect("aws starts");
    let traces = traces_of(&provider);
    provider
        .client()
        .get_provider_schema()
        .await
        .expect("GetProviderSchema");
    provider.shutdown().await.expect("aws exits");
    traces.assert_gone().await;

    let log = std::fs::read_to_string(&path).expect("TF_LOG_PATH was written");
    let entries: Vec<serde_json::Value> = log
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert!(
        !entries.is_empty(),
        "hclog JSON lines in the log file:\n{log}"
    );
    assert!(
        entries
            .iter()
            .all(|e| e["@level"].is_string() && e["@message"].is_string()),
        "every JSON line is an hclog entry"
    );
    assert!(
        entries
            .iter()
            .any(|e| e["@message"].as_str().is_some_and(|m| m.contains("plugin"))),
        "go-plugin's own start-up lines are there:\n{log}"
    );
}
