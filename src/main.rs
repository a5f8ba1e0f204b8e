//! `pulumi-resource-terraform-provider`: the binary the Pulumi engine starts, and a few
//! subcommands for people.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use pulumi_terraform_provider::{cli, host::logs::LogSettings};

#[derive(Parser)]
#[command(
    version,
    about = "Pulumi resource provider that runs any Terraform or OpenTofu provider"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Launch a Terraform provider and print its schema as `terraform providers schema -json`
    /// would; the protocol, mTLS and timings go to stderr.
    TfSchema {
        /// Path to the provider executable.
        path: PathBuf,
    },
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    init_tracing();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: failed to start the async runtime: {err}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Some(Command::TfSchema { path }) => interruptible(cli::tf_schema::run(&path)).await,
            None => Err(anyhow::anyhow!(
                "serving the Pulumi provider protocol is not available in this build yet; \
                 run with --help to see the subcommands"
            )),
        }
    });
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Runs `work` until it finishes or we get SIGINT or SIGTERM. On a signal `work` is dropped and
/// every provider we started is killed and reaped before we exit.
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
        _ = interrupt.recv() => stopped("SIGINT").await,
        _ = terminate.recv() => stopped("SIGTERM").await,
    }
}

async fn stopped(signal: &str) -> anyhow::Result<()> {
    pulumi_terraform_provider::host::kill_all().await;
    Err(anyhow::anyhow!("stopped by {signal}"))
}

/// Logs go to stderr; `RUST_LOG` sets our level (default warn), `TF_LOG`/`TF_LOG_PROVIDER` the
/// providers'.
fn init_tracing() {
    let ours = std::env::var("RUST_LOG").unwrap_or_else(|_| "warn".to_owned());
    let filter = tracing_subscriber::EnvFilter::try_new(format!(
        "{ours},{}",
        LogSettings::from_env().directive()
    ))
    .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .init();
}
