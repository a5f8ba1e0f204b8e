//! Errors quote input, but never all of a large input: a 100 MiB argument gives our error,
//! cut and saying how much was cut, not a gRPC metadata error.

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
