//! `pulumi-resource-terraform-provider`: the binary the Pulumi engine starts, and a few
//! subcommands for people.
//!
//! With a subcommand it runs that command. Otherwise it serves the Pulumi plugin protocol:
//! `[--logtostderr] [-v=N] [--tracing X] <engine-address>`, unknown flags ignored, as the
//! engine starts every resource plugin.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use pulumi_terraform_provider::{
    cli,
    server::{engine::EngineLog, serve},
};
use tfp_goplugin::logs::LogSettings;
use tfp_secrets::MaskedStderr;
use tracing_subscriber::{layer::SubscriberExt as _, util::SubscriberInitExt as _};

/// mimalloc rather than glibc's malloc: generating a large package schema builds and frees trees
/// of small allocations from several threads, which glibc serves from per-thread arenas that each
/// keep what was freed in them (README "Performance").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    version,
    about = "Pulumi resource provider that runs any Terraform or OpenTofu provider",
    after_help = "Run without a subcommand, it serves the Pulumi plugin protocol to the engine \
                  whose address is its argument."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Launch a Terraform provider and print its schema as `terraform providers schema -json`
    /// would; the protocol, mTLS and timings go to stderr.
    TfSchema {
        /// Path to the provider executable.
        path: PathBuf,
    },
    /// Print the Pulumi package schema that GetSchema returns after Parameterize with the same
    /// arguments: `<./path | /path | [host/]namespace/type> [constraint] [--include …]
    /// [--exclude …] [--provider-name …]`.
    Schema {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        args: Vec<String>,
    },
    /// Install a provider into the cache, as Parameterize would, and print its path, version and
    /// hashes.
    Install {
        /// `[hostname/][namespace/]type`, e.g. `hashicorp/random`.
        source: String,
        /// A version constraint, e.g. `~> 3.6`; the newest version when left out.
        #[arg(default_value = "")]
        constraint: String,
    },
    /// Serve a recording made with PULUMI_TF_DEBUG_GRPC as a Terraform provider plugin (started
    /// by a plugin host through a `terraform-provider-<name>` wrapper script).
    Replay {
        /// The recording: the file PULUMI_TF_DEBUG_GRPC wrote, or a JSON array of its records.
        recording: PathBuf,
    },
    /// Stand in for a Terraform provider, forwarding every call to it and recording each in the
    /// format of PULUMI_TF_DEBUG_GRPC (started by a plugin host, Terraform, OpenTofu or Pulumi,
    /// through a `terraform-provider-<name>` launcher script).
    Record {
        /// Record secrets in plain text; by default they are written as `<redacted>`.
        #[arg(long)]
        unredacted: bool,
        /// The file to append the records to (created readable by its owner only).
        recording: PathBuf,
        /// The real provider's executable, which is started without arguments, as Terraform
        /// starts providers.
        provider: PathBuf,
    },
    /// Print a recording one call per line, as JSON, with every value decoded: the requests and
    /// answers a host and a provider exchanged.
    ShowRecording {
        /// The recording: the file PULUMI_TF_DEBUG_GRPC or `record` wrote.
        recording: PathBuf,
    },
}

/// How long the runtime's own threads get to finish once the work is done.
const RUNTIME_SHUTDOWN: std::time::Duration = std::time::Duration::from_millis(500);

/// The subcommands; any other first word must be the engine's address, `host:port`, and is
/// refused as a mistyped subcommand otherwise.
const SUBCOMMANDS: &[&str] = &[
    "tf-schema",
    "schema",
    "install",
    "replay",
    "record",
    "show-recording",
];
/// The words clap answers with help or the version.
const HELP: &[&str] = &["help", "--help", "-h", "--version", "-V"];

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some(tfp_goplugin::guard::ARGUMENT) {
        tfp_goplugin::guard::run();
        return std::process::ExitCode::SUCCESS;
    }
    // The providers we start are ended by a guard process of ours if we are killed outright.
    if let Ok(program) = std::env::current_exe() {
        tfp_goplugin::guard::enable(program);
    }
    let subcommand = args
        .first()
        .is_some_and(|a| SUBCOMMANDS.contains(&a.as_str()) || HELP.contains(&a.as_str()));
    // The engine starts a plugin with its address, `host:port`; any other word is a mistyped
    // subcommand, which would otherwise start a server that waits for an engine forever.
    if !subcommand && let Some(word) = serve::engine_address(&args).filter(|a| !is_address(a)) {
        eprintln!(
            "error: {} is neither a subcommand nor the engine's address (host:port); the \
             subcommands are {}; see --help",
            tfp_echo::quoted(&word),
            SUBCOMMANDS.join(", ")
        );
        return std::process::ExitCode::FAILURE;
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Requests may nest as deeply as Go's protobuf allows, and everything after decoding
        // recurses; see `tfp_depth` for what this must carry.
        .thread_stack_size(tfp_depth::STACK_BYTES)
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: failed to start the async runtime: {err}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let result = if subcommand {
        let cli = Cli::parse();
        init_tracing(None);
        runtime.block_on(async {
            match cli.command {
                Command::TfSchema { path } => interruptible(cli::tf_schema::run(&path)).await,
                Command::Schema { args } => interruptible(cli::schema::run(&args)).await,
                Command::Install { source, constraint } => {
                    interruptible(cli::install::run(&source, &constraint)).await
                }
                // A plugin ignores SIGINT and handles SIGTERM itself (see `tfp_goplugin::serve`).
                Command::Replay { recording } => cli::replay::run(&recording).await,
                Command::Record {
                    unredacted,
                    recording,
                    provider,
                } => cli::record::run(&recording, &provider, !unredacted).await,
                Command::ShowRecording { recording } => {
                    interruptible(cli::show_recording::run(&recording)).await
                }
            }
        })
    } else {
        runtime.block_on(async {
            let engine = EngineLog::start();
            init_tracing(Some(&engine));
            serve::run(serve::engine_address(&args), engine).await
        })
    };
    // A provider stopped on the way may still have helpers in its process group or a socket to
    // remove; its reaper is a task that ends with the runtime.
    runtime.block_on(tfp_goplugin::kill_all());
    // Dropping the runtime would wait for every blocking thread (a zip extraction an interrupted
    // install left running, a stuck file system call): once `main` is done, nothing may keep
    // the process alive.
    runtime.shutdown_timeout(RUNTIME_SHUTDOWN);
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        // A reader that stopped early (`| head`) is not a failure.
        Err(err) if is_broken_pipe(&err) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {}", pulumi_terraform_provider::error_text(&err));
            match err.downcast_ref::<Stopped>() {
                // As a shell reports a command a signal ended: 128 + its number, so that a
                // script can tell an interrupted run from a failed one.
                Some(Stopped(_, number)) => std::process::ExitCode::from(128 + number),
                None => std::process::ExitCode::FAILURE,
            }
        }
    }
}

/// Whether `text` is `host:port`, as the engine gives its address.
fn is_address(text: &str) -> bool {
    text.rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok())
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .filter_map(|cause| cause.downcast_ref::<std::io::Error>())
        .any(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}

/// Runs `work` until it finishes or we get SIGINT or SIGTERM. On a signal `work` is dropped, and
/// `main`, as at every end, kills and reaps every provider we started before we exit.
async fn interruptible(
    work: impl std::future::Future<Output = anyhow::Result<()>>,
) -> anyhow::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let (mut interrupt, mut terminate) = (
        signal(SignalKind::interrupt())?,
        signal(SignalKind::terminate())?,
    );
    tokio::select! {
        result = work => result,
        _ = interrupt.recv() => Err(Stopped("SIGINT", 2).into()),
        _ = terminate.recv() => Err(Stopped("SIGTERM", 15).into()),
    }
}

/// The command was stopped by a signal: its name and number.
#[derive(Debug, thiserror::Error)]
#[error("stopped by {0}")]
struct Stopped(&'static str, u8);

/// Logs go to stderr, and in serve mode to the engine too; `RUST_LOG` sets our level (default
/// info in serve mode, where the engine decides what to show, warn otherwise), `TF_LOG` and
/// `TF_LOG_PROVIDER` the providers'.
fn init_tracing(engine: Option<&EngineLog>) {
    use std::io::IsTerminal as _;
    // A command line shows warnings, and that it waits for another installer's lock, which
    // may take as long as a download.
    let default = if engine.is_some() {
        "info"
    } else {
        "warn,tfp_registry::lock=info"
    };
    let ours = std::env::var("RUST_LOG").unwrap_or_else(|_| default.to_owned());
    let directives = format!("{ours},{}", LogSettings::from_env().directive());
    let filter = tracing_subscriber::EnvFilter::try_new(directives)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let ansi = colour(
        std::io::stderr().is_terminal(),
        std::env::var_os("NO_COLOR").as_deref(),
    );
    let stderr = tracing_subscriber::fmt::layer()
        .with_ansi(ansi)
        .with_writer(MaskedStderr);
    let registry = tracing_subscriber::registry().with(filter).with(stderr);
    match engine {
        Some(engine) => registry.with(engine.layer()).init(),
        None => registry.init(),
    }
}

/// Whether our stderr log lines carry ANSI colour: only on a terminal, since in a file or a pipe
/// the escape codes are noise, and never when `NO_COLOR` is set to anything but the empty
/// string (<https://no-color.org>).
fn colour(stderr_is_terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    stderr_is_terminal && no_color.is_none_or(std::ffi::OsStr::is_empty)
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::colour;

    #[test]
    fn colour_only_on_a_terminal_and_never_with_no_color() {
        assert!(colour(true, None), "a terminal gets colour");
        assert!(
            colour(true, Some(OsStr::new(""))),
            "an empty NO_COLOR is as if unset"
        );
        assert!(!colour(true, Some(OsStr::new("1"))), "NO_COLOR=1");
        assert!(!colour(true, Some(OsStr::new("false"))), "any value counts");
        assert!(!colour(false, None), "a file or a pipe gets none");
        assert!(!colour(false, Some(OsStr::new("1"))));
    }
}
