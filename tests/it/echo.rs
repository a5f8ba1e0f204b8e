//! Errors quote input, but never all of a large input: a 100 MiB argument gives our error,
//! cut and saying how much was cut, not a gRPC metadata error.

use std::path::Path;

use tonic::Code;

use crate::plugin::Plugin;

/// The largest status message the test accepts; gRPC peers refuse headers of 8 KiB to 16 KiB.
const MESSAGE_BOUND: usize = 8 * 1024;

#[tokio::test]
async fn a_huge_parameterize_argument_is_cut_in_the_error() {
    let huge = "x".repeat(100 << 20);
    let mut plugin = Plugin::start().await;
    let source = format!("hashicorp/{huge}!");
    let local = format!("./terraform-provider-{huge}");
    let flag = format!("--{huge}");
    for (args, says) in [
        (vec![source.as_str()], "invalid provider source"),
        (
            vec!["hashicorp/random", huge.as_str()],
            "version constraint",
        ),
        (vec![local.as_str()], "failed to start provider"),
        (vec!["hashicorp/random", flag.as_str()], "unknown flag"),
    ] {
        let err = plugin
            .client
            .parameterize(Plugin::parameterize_args(&args))
            .await
            .expect_err("bad arguments");
        let message = err.message();
        assert_ne!(err.code(), Code::ResourceExhausted, "{err:?}");
        assert!(
            message.len() < MESSAGE_BOUND,
            "{} bytes: {}…",
            message.len(),
            &message[..200.min(message.len())]
        );
        assert!(message.contains(says), "{message}");
        assert!(
            message.contains("more bytes)"),
            "says how much was cut: {message}"
        );
    }
    plugin.stop().await;
}

/// An error names each of its causes once: a cause is chained, never also formatted into the
/// message that wraps it, nor dropped.
#[tokio::test]
async fn an_error_names_each_cause_once() {
    // The same bad source, checked against a reattach map and when installing.
    let reattach = r#"{"hashicorp/random":{"Protocol":"grpc","ProtocolVersion":6,"Addr":{"Network":"unix","String":"/nonexistent"}}}"#;
    let reason = "must be in the format \"[hostname/][namespace/]name\"";
    let cases = [
        (
            Some(reattach),
            "invalid TF_REATTACH_PROVIDERS: provider \"a/b/c/d\": ",
            vec![reason],
        ),
        (
            None,
            "failed to install provider a/b/c/d: ",
            vec!["invalid provider source \"a/b/c/d\"", reason],
        ),
    ];
    for (map, opening, causes) in cases {
        let env: Vec<(&str, &Path)> = map
            .map(|map| ("TF_REATTACH_PROVIDERS", Path::new(map)))
            .into_iter()
            .collect();
        let mut plugin = Plugin::start_with_env(&env).await;
        let err = plugin
            .client
            .parameterize(Plugin::parameterize_args(&["a/b/c/d"]))
            .await
            .expect_err("an invalid source");
        let message = err.message();
        assert!(message.starts_with(opening), "{message}");
        for cause in causes {
            assert_eq!(message.matches(cause).count(), 1, "{cause}: {message}");
        }
        plugin.stop().await;
    }
}
