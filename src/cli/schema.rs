//! `schema <local-path | source> [constraint] [--include …] [--exclude …] [--provider-name …]`:
//! the package schema JSON that `GetSchema` returns after `Parameterize` with the same
//! arguments. The output is deterministic: the same provider gives the same bytes.

use std::{io::Write as _, time::Duration};

use tfp_schema::args;

use crate::server::bridge::Parameterized;

/// How long the command waits for the schema cache's entry to be written before it prints the
/// schema. Unlike a plugin, which the engine kills five seconds after asking it to stop, the
/// command has no one to make way for: it waits for as long as hashing a large local provider
/// takes on a busy machine, and gives up only on a write that is stuck.
const STORE_WAIT: Duration = Duration::from_secs(60);

pub async fn run(arguments: &[String]) -> anyhow::Result<()> {
    let parsed = match args::parse(arguments) {
        Err(args::ArgsError::Help) => {
            eprintln!("{}", args::USAGE);
            return Ok(());
        }
        other => other?,
    };
    let parameterized = Parameterized::start(parsed).await?;
    let result = parameterized.schema_json();
    parameterized.shutdown(STORE_WAIT).await;
    let json = result?;
    let mut stdout = std::io::stdout().lock();
    for piece in json.pieces() {
        stdout.write_all(piece)?;
    }
    writeln!(stdout)?;
    Ok(())
}
