//! The Pulumi resource provider that runs Terraform and OpenTofu providers.
//!
//! See `ARCHITECTURE.md` for the map of this crate and the workspace.

pub mod cli;
pub mod host;
pub mod proto;
pub mod recording;
pub mod server;
pub mod tfschema;

/// Our version, as `GetPluginInfo` reports it before Parameterize.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// An error and its causes, as one line of text for a person: `what: why: why`, each cause
/// once. anyhow's `{:#}` writes every cause, so a library error whose text already ends with
/// its cause's (tonic's transport errors, many of std's wrappers) would show it twice.
pub fn error_text(err: &anyhow::Error) -> String {
    with_causes(err.to_string(), err.chain().skip(1))
}

/// `text`, then each of `causes` whose text it does not hold yet, after `: `.
pub(crate) fn with_causes<'a>(
    mut text: String,
    causes: impl Iterator<Item = &'a (dyn std::error::Error + 'static)>,
) -> String {
    for cause in causes {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    #[test]
    fn error_text_names_each_cause_once() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused");
        // A cause whose text its wrapper already repeats, then one it does not.
        let err = anyhow::Error::new(io)
            .context("transport error: connection refused")
            .context("failed to connect to provider p");
        assert_eq!(
            super::error_text(&err),
            "failed to connect to provider p: transport error: connection refused"
        );
        let err = anyhow::anyhow!("the cause").context("what failed");
        assert_eq!(super::error_text(&err), "what failed: the cause");
    }
}
