//! Where a provider's own log lines go.
//!
//! Go providers log through hclog as JSON lines on stderr (`@level`, `@message`, `@module`,
//! `@timestamp`, plus fields). Each line becomes a `tracing` event at its own level with target
//! [`TARGET`], so the subscriber decides what is shown; the binary enables that target only when
//! `TF_LOG_PROVIDER` or `TF_LOG` asks for it, as Terraform does. With `TF_LOG_PATH` set, the raw
//! lines at that level or above are also appended to that file; as in Terraform, nothing is
//! written there while the level is off. Lines that are not hclog JSON (Python providers, Go
//! panics) count as debug level, as go-plugin logs them; crash reports quote them separately.
//!
//! Every line is masked of the session's secrets ([`Secrets`]) first, the file's copy
//! too: with `TF_LOG=trace` AWS logs the signature of every HTTP request, which names the access
//! key, and a provider may log any value it was given.

use std::{
    fmt::Write as _,
    fs::File,
    io::Write as _,
    path::PathBuf,
    sync::{Arc, Mutex, PoisonError},
};

use serde_json::Value as Json;

use tfp_secrets::Secrets;

/// The `tracing` target of events that carry a provider's log lines.
pub const TARGET: &str = "tf_provider";

/// The log settings taken from `TF_LOG`, `TF_LOG_PROVIDER` and `TF_LOG_PATH`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogSettings {
    /// The level asked for, lowercase (`trace` … `error`), or `None` for off.
    pub level: Option<String>,
    pub path: Option<PathBuf>,
}

impl LogSettings {
    /// Reads the settings from an environment lookup; `TF_LOG_PROVIDER` wins over `TF_LOG`.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> LogSettings {
        let level = get("TF_LOG_PROVIDER")
            .filter(|v| !v.is_empty())
            .or_else(|| get("TF_LOG").filter(|v| !v.is_empty()))
            .and_then(|v| match v.to_ascii_lowercase().as_str() {
                "off" => None,
                // Terraform treats JSON as trace level with JSON output.
                "json" => Some("trace".to_owned()),
                l @ ("trace" | "debug" | "info" | "warn" | "error") => Some(l.to_owned()),
                // Any other value means trace in Terraform.
                _ => Some("trace".to_owned()),
            });
        let path = get("TF_LOG_PATH")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
        LogSettings { level, path }
    }

    /// The settings of this process's environment.
    pub fn from_env() -> LogSettings {
        LogSettings::from_lookup(|k| std::env::var(k).ok())
    }

    /// The `tracing` filter directive for provider log lines.
    pub fn directive(&self) -> String {
        format!("{TARGET}={}", self.level.as_deref().unwrap_or("off"))
    }
}

/// Receives a provider's output lines.
#[derive(Clone, Debug)]
pub struct LogSink {
    provider: Arc<str>,
    file: Option<Arc<Mutex<File>>>,
    /// The lowest level written to the file.
    file_level: Level,
}

impl LogSink {
    pub fn new(provider: &str, settings: &LogSettings) -> LogSink {
        // Terraform opens TF_LOG_PATH only as the output of a logger whose level TF_LOG sets, so
        // with the level off the file stays untouched.
        let file_level = settings.level.as_deref().and_then(Level::parse);
        let path = settings.path.as_ref().filter(|_| file_level.is_some());
        let file = path.and_then(|path| {
            match std::fs::OpenOptions::new().create(true).append(true).open(path) {
                Ok(file) => Some(Arc::new(Mutex::new(file))),
                Err(err) => {
                    tracing::warn!(path = %path.display(), %err, "cannot open TF_LOG_PATH; provider logs will not be written there");
                    None
                }
            }
        });
        LogSink {
            provider: provider.into(),
            file,
            file_level: file_level.unwrap_or(Level::Error),
        }
    }

    /// A line the provider wrote to stderr.
    pub fn stderr_line(&self, line: &str) {
        let line = &*Secrets::global().mask(line);
        let provider = &*self.provider;
        match parse_hclog(line) {
            Some(entry) => {
                let HcLog {
                    level,
                    message,
                    module,
                } = entry;
                self.append(level, line);
                match level {
                    Level::Trace => tracing::trace!(target: TARGET, provider, module, "{message}"),
                    Level::Debug => tracing::debug!(target: TARGET, provider, module, "{message}"),
                    Level::Info => tracing::info!(target: TARGET, provider, module, "{message}"),
                    Level::Warn => tracing::warn!(target: TARGET, provider, module, "{message}"),
                    Level::Error => tracing::error!(target: TARGET, provider, module, "{message}"),
                }
            }
            None => {
                self.append(Level::Debug, line);
                tracing::debug!(target: TARGET, provider, "{line}");
            }
        }
    }

    /// A line the provider wrote to stdout after its handshake.
    pub fn unexpected_stdout(&self, line: &str) {
        let line = &*Secrets::global().mask(line);
        self.append(Level::Debug, line);
        tracing::debug!(target: TARGET, provider = &*self.provider, "unexpected data on stdout: {line}");
    }

    /// Data the provider sent through go-plugin's stdio stream.
    pub fn stdio(&self, channel: &str, data: &[u8]) {
        for line in String::from_utf8_lossy(data).lines() {
            let line = &*Secrets::global().mask(line);
            self.append(Level::Debug, line);
            tracing::debug!(target: TARGET, provider = &*self.provider, channel, "{line}");
        }
    }

    fn append(&self, level: Level, line: &str) {
        if level < self.file_level {
            return;
        }
        if let Some(file) = &self.file {
            let mut file = file.lock().unwrap_or_else(PoisonError::into_inner);
            let _ = writeln!(file, "{line}");
        }
    }
}

/// Whether `line` is an hclog entry below warning level.
pub(crate) fn is_routine(line: &str) -> bool {
    parse_hclog(line)
        .is_some_and(|entry| matches!(entry.level, Level::Trace | Level::Debug | Level::Info))
}

/// An hclog level, in increasing order of severity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
}

impl Level {
    /// A level as [`LogSettings`] holds it (lowercase).
    fn parse(level: &str) -> Option<Level> {
        Some(match level {
            "trace" => Level::Trace,
            "debug" => Level::Debug,
            "info" => Level::Info,
            "warn" | "warning" => Level::Warn,
            "error" => Level::Error,
            _ => return None,
        })
    }
}

#[derive(Debug, PartialEq, Eq)]
struct HcLog {
    level: Level,
    message: String,
    module: String,
}

fn parse_hclog(line: &str) -> Option<HcLog> {
    if !line.starts_with('{') {
        return None;
    }
    let Json::Object(entry) = serde_json::from_str::<Json>(line).ok()? else {
        return None;
    };
    let text = |key: &str| {
        entry
            .get(key)
            .and_then(Json::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let level = Level::parse(&text("@level"))?;
    let mut message = text("@message");
    // Extra fields carry the context of the message, e.g. the RPC or resource type.
    for (key, value) in &entry {
        if !key.starts_with('@') {
            match value {
                Json::String(s) => {
                    let _ = write!(message, " {key}={s}");
                }
                other => {
                    let _ = write!(message, " {key}={other}");
                }
            }
        }
    }
    Some(HcLog {
        level,
        message,
        module: text("@module"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_hclog_json_lines() {
        let line = r#"{"@level":"debug","@message":"plugin address","@module":"provider","@timestamp":"2021-05-07T10:00:00Z","address":"/tmp/plugin1"}"#;
        assert_eq!(
            parse_hclog(line),
            Some(HcLog {
                level: Level::Debug,
                message: "plugin address address=/tmp/plugin1".into(),
                module: "provider".into()
            })
        );
        assert_eq!(parse_hclog("panic: runtime error"), None);
        assert_eq!(parse_hclog(r#"{"@level":"loud","@message":"x"}"#), None);
    }

    #[test]
    fn settings_follow_terraform() {
        let check = |vars: &[(&str, &str)], level: Option<&str>| {
            let settings = LogSettings::from_lookup(|k| {
                vars.iter()
                    .find(|(name, _)| *name == k)
                    .map(|(_, v)| (*v).to_owned())
            });
            assert_eq!(settings.level.as_deref(), level, "{vars:?}");
        };
        check(&[], None);
        check(&[("TF_LOG", "DEBUG")], Some("debug"));
        check(
            &[("TF_LOG", "debug"), ("TF_LOG_PROVIDER", "error")],
            Some("error"),
        );
        check(&[("TF_LOG", "JSON")], Some("trace"));
        check(&[("TF_LOG", "yes please")], Some("trace"));
        check(&[("TF_LOG", "off")], None);
    }
}
