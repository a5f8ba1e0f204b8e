//! `schema <local-path | source> [constraint] [--include …] [--exclude …] [--provider-name …]`:
//! the package schema JSON that `GetSchema` returns after `Parameterize` with the same
//! arguments. The output is deterministic: the same provider gives the same bytes.

use std::io::Write as _;

use tfp_schema::args;

use crate::server::bridge::Parameterized;

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
    parameterized.shutdown().await;
    let json = result?;
    let mut stdout = std::io::stdout().lock();
    for piece in json.pieces() {
        stdout.write_all(piece)?;
    }
    writeln!(stdout)?;
    Ok(())
}
