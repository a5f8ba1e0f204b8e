//! Developer automation for this workspace, run as `cargo xtask <command>`.
//!
//! This file only parses the command line and dispatches: each subcommand lives in its own module, and
//! helpers they share live in `util`.

mod bench;
mod bench_all;
mod bench_install;
mod demo;
mod e2e;
mod fixtures;
mod interrupt;
mod manifest;
mod provider_zip;
mod test;
mod util;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Developer automation for pulumi-terraform-provider.
#[derive(Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Install the pinned real peers (providers, Python tools) into the fixture cache.
    ///
    /// The cache is `$TFP_FIXTURES_DIR`, or `target/fixtures` in the workspace; tests find the peers
    /// through its `fixtures.json`.
    Fixtures,
    /// Install the fixtures, check formatting, run the workspace tests against them, then the
    /// end-to-end scenarios.
    Test,
    /// Run the end-to-end scenarios: the real Pulumi CLI drives our binary, offline.
    E2e {
        /// Run only the scenarios whose names contain one of these strings (such as `gen-sdk`).
        filters: Vec<String>,
    },
    /// Run the main job end to end against real Terraform providers.
    Demo,
    /// Measure. Without an argument, or with `all`: one table of every figure, each against its
    /// baseline measured in the same run, with Pulumi's Go binary measured beside ours (built into
    /// the fixture cache the first time, in 2.5 to 4 minutes). Or one part: `host` (launch and schema against a plain
    /// Python go-plugin client), `install` (the AWS package from a local HTTPS registry against
    /// curl, sha256sum and unzip), `schema` (Pulumi schema generation for AWS 3.39.0 and ten
    /// times its size), `server` (our plugin against the provider straight), `values` (cty
    /// codecs and translation on an AWS-sized state).
    Bench {
        #[arg(default_value = "all")]
        what: bench::What,
        /// How many runs each median is taken over.
        #[arg(long, default_value_t = 10)]
        runs: usize,
    },
}

fn main() -> ExitCode {
    interrupt::watch();
    let result = match Cli::parse().command {
        Command::Fixtures => fixtures::run().map(drop),
        Command::Test => test::run(),
        Command::E2e { filters } => e2e::run(&filters),
        Command::Demo => demo::run(),
        Command::Bench { what, runs } => bench::run(what, runs),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // The cause chain says what failed and what to do; a backtrace (printed by anyhow's Debug when
            // RUST_BACKTRACE is set) would only bury it.
            eprintln!("error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            interrupt::exit_status().map_or(ExitCode::FAILURE, ExitCode::from)
        }
    }
}
