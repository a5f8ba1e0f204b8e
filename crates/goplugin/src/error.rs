//! Why a plugin could not be launched, reattached or connected to.
//!
//! Every message about one provider names it. A plugin that exits or stalls before its handshake is
//! reported with what it printed on stdout instead (where a program that is not a provider says
//! what it is) and the end of its stderr (where a Go panic lands).

use std::time::Duration;

use crate::{
    child::{ExitReport, StdoutHead},
    handshake::HandshakeError,
};

/// A failure to start or reach a plugin.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "failed to start provider {provider} ({}){}",
        tfp_echo::plain(&executable.display().to_string()),
        spawn_hint(executable, source)
    )]
    Spawn {
        provider: String,
        executable: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("provider {provider} exec failed with ETXTBSY after {attempts} attempts")]
    TextFileBusy {
        provider: String,
        attempts: u32,
        #[source]
        source: std::io::Error,
    },
    #[error("{}", exited_before_handshake(provider, exit, stdout))]
    ExitedBeforeHandshake {
        provider: String,
        exit: ExitReport,
        stdout: StdoutHead,
    },
    #[error(
        "provider {provider} printed no go-plugin handshake within {timeout:?} (is it a \
         Terraform provider?){output}"
    )]
    StartTimeout {
        provider: String,
        timeout: Duration,
        /// What it printed on stdout and the end of its stderr, each after `; `, or nothing.
        output: String,
    },
    /// Its stdout reached EOF while it kept running: a wrapper that sends stdout elsewhere, or a
    /// provider that closed it. Its handshake can no longer come, and it may never exit.
    #[error(
        "provider {provider} closed its standard output without printing the go-plugin handshake \
         and was still running after {timeout:?}; the handshake must go to its stdout (does a \
         wrapper script redirect or close it?){output}"
    )]
    ClosedStdout {
        provider: String,
        timeout: Duration,
        /// What it printed on stdout and the end of its stderr, each after `; `, or nothing.
        output: String,
    },
    #[error("provider {provider} printed an invalid handshake line {}", tfp_echo::quoted(.line))]
    Handshake {
        provider: String,
        line: String,
        #[source]
        source: HandshakeError,
    },
    #[error("failed to make the mTLS client certificate")]
    Certificate(#[source] rcgen::Error),
    #[error("failed to configure TLS for provider {provider}")]
    Tls {
        provider: String,
        #[source]
        source: rustls::Error,
    },
    #[error("failed to connect to provider {provider} at {address}")]
    Connect {
        provider: String,
        address: String,
        #[source]
        source: tonic::transport::Error,
    },
    #[error("{}", exited_after_handshake(provider, address, exit))]
    ExitedAfterHandshake {
        provider: String,
        address: String,
        exit: ExitReport,
    },
    /// It printed its handshake but never completed the connection to the address it named.
    #[error(
        "provider {provider} printed its go-plugin handshake but did not complete the connection \
         (TLS and HTTP/2) at {address} in the {waited:?} after it; is it stuck, or does \
         something else listen there?{output}"
    )]
    ConnectTimeout {
        provider: String,
        address: String,
        /// How long the connection was waited for after the handshake, in whole seconds.
        waited: Duration,
        /// What it printed on stdout before the handshake and the end of its stderr, each after
        /// `; `, or nothing.
        output: String,
    },
    #[error("invalid {variable}: {reason}")]
    Reattach {
        variable: &'static str,
        reason: String,
    },
}

/// What to do about an executable that could not be started, where the error alone does not
/// say: the OS answers EACCES both for a directory and for a file without the execute bit,
/// ENOENT for a script whose `#!` interpreter is missing (a launcher whose virtualenv is gone)
/// as for a missing file, and ENOEXEC for a script without `#!` as for another platform's
/// binary; and a bare name is looked up on PATH, not in the working directory.
fn spawn_hint(executable: &std::path::Path, err: &std::io::Error) -> String {
    use std::io::ErrorKind;
    /// ENOEXEC, which `ErrorKind` does not name.
    const EXEC_FORMAT: i32 = 8;
    match err.kind() {
        ErrorKind::NotFound if executable.components().count() == 1 => {
            ", looked up on PATH since the name has no slash (write ./<name> for a file in this \
             directory)"
                .to_owned()
        }
        ErrorKind::NotFound if executable.is_file() => match interpreter(executable) {
            Some(line) => format!(
                ", whose first line names an interpreter that is not there: {}",
                tfp_echo::quoted(&line)
            ),
            None => String::new(),
        },
        ErrorKind::PermissionDenied if executable.is_dir() => ", which is a directory".to_owned(),
        ErrorKind::PermissionDenied => ", which cannot be executed (is it chmod +x?)".to_owned(),
        _ if err.raw_os_error() == Some(EXEC_FORMAT) => {
            ", which this system cannot run: a script without a #! line, or a program built for \
             another operating system or architecture"
                .to_owned()
        }
        _ => String::new(),
    }
}

/// The `#!` line of a script, when `path` starts with one.
fn interpreter(path: &std::path::Path) -> Option<String> {
    use std::io::Read as _;
    let mut start = [0u8; 256];
    let read = std::fs::File::open(path).ok()?.read(&mut start).ok()?;
    let line = start[..read].split(|&b| b == b'\n').next()?;
    line.starts_with(b"#!")
        .then(|| String::from_utf8_lossy(line).trim_end().to_owned())
}

/// The plugin exited before it printed its handshake: how it ended, what it printed on stdout
/// instead, then the end of its stderr. A plugin that panicked is a Terraform provider that
/// failed, not a stranger.
fn exited_before_handshake(provider: &str, exit: &ExitReport, stdout: &StdoutHead) -> String {
    let mut text = format!(
        "provider {provider} exited before completing the go-plugin handshake ({})",
        exit.ending()
    );
    if !exit.panicked() {
        text.push_str(" (is it a Terraform provider?)");
    }
    // Writing to a String cannot fail.
    let _ = stdout.write(&mut text);
    push_stderr_tail(&mut text, exit);
    text
}

/// The plugin printed its handshake, then exited before we could connect to it.
fn exited_after_handshake(provider: &str, address: &str, exit: &ExitReport) -> String {
    let mut text = format!(
        "provider {provider} exited right after its go-plugin handshake, before we could \
         connect to {address} ({})",
        exit.ending()
    );
    push_stderr_tail(&mut text, exit);
    text
}

/// `; its last lines on stderr:` and `exit`'s stderr tail, a line each, or nothing.
fn push_stderr_tail(text: &mut String, exit: &ExitReport) {
    // Writing to a String cannot fail.
    let _ = crate::child::write_stderr_tail(text, &exit.stderr_tail);
}

#[cfg(test)]
mod tests {
    use std::{io, path::Path};

    use super::*;

    #[test]
    fn a_failed_start_says_what_to_do() {
        let not_found = || io::Error::from(io::ErrorKind::NotFound);
        assert!(spawn_hint(Path::new("terraform-provider-x"), &not_found()).contains("./<name>"));
        assert_eq!(
            spawn_hint(Path::new("./terraform-provider-x"), &not_found()),
            ""
        );
        let denied = || io::Error::from(io::ErrorKind::PermissionDenied);
        let dir = tempfile::tempdir().expect("a temp dir");
        assert_eq!(spawn_hint(dir.path(), &denied()), ", which is a directory");
        let file = dir.path().join("terraform-provider-x");
        std::fs::write(&file, "").expect("a file");
        assert!(spawn_hint(&file, &denied()).contains("chmod +x"));
        // The file is there: what is missing is its interpreter.
        std::fs::write(&file, "#!/gone/venv/bin/python\nimport sys\n").expect("a script");
        assert_eq!(
            spawn_hint(&file, &not_found()),
            ", whose first line names an interpreter that is not there: \"#!/gone/venv/bin/python\""
        );
        assert!(
            spawn_hint(&file, &io::Error::from_raw_os_error(8))
                .contains("a script without a #! line")
        );
    }

    fn lines(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|line| (*line).to_owned()).collect()
    }

    #[test]
    fn an_early_exit_ends_with_the_providers_output() {
        let exit = |tail: &[&str]| ExitReport {
            status: None,
            stderr_tail: lines(tail),
        };
        let silent = StdoutHead::default();
        assert_eq!(
            exited_before_handshake("p", &exit(&["usage: p [flags]"]), &silent),
            "provider p exited before completing the go-plugin handshake (exit status unknown) \
             (is it a Terraform provider?); its last lines on stderr:\n    usage: p [flags]"
        );
        // A panic is a provider's own failure: no question whether it is one.
        assert_eq!(
            exited_before_handshake("p", &exit(&["panic: boom", "goroutine 1"]), &silent),
            "provider p exited before completing the go-plugin handshake (exit status unknown); \
             its last lines on stderr:\n    panic: boom\n    goroutine 1"
        );
        // What it printed on stdout comes first: a program that is not a provider says there
        // what it is.
        let usage = StdoutHead {
            lines: lines(&["Usage: p [command]", "Commands: serve, version"]),
            more: 3,
        };
        assert_eq!(
            exited_before_handshake("p", &exit(&["warning: no config"]), &usage),
            "provider p exited before completing the go-plugin handshake (exit status unknown) \
             (is it a Terraform provider?); it printed on stdout instead:\n    Usage: p [command]\n    \
             Commands: serve, version\n    (and 3 more lines); its last lines on stderr:\n    \
             warning: no config"
        );
    }
}
