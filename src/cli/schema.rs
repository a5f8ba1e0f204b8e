//! `schema <local-path | source> [constraint] [--include …] [--exclude …] [--provider-name …]`:
//! the package schema JSON that `GetSchema` returns after `Parameterize` with the same
//! arguments. The output is deterministic: the same provider gives the same bytes.

use std::io::Write as _;

use crate::server::{args, bridge::Bridge};

pub async fn run(arguments: &[String]) -> anyhow::Result<()> {
    let parsed = match args::parse(arguments) {
        Err(args::ArgsError::Help) => {
            eprintln!("{}", args::USAGE);
            return Ok(());
        }
        other => other?,
    };
    let bridge = Bridge::start(parsed).await?;
    let result = bridge.schema_json().map(<[u8]>::to_vec);
    bridge.provider.shutdown().await;
    let json = result?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&json)?;
    writeln!(stdout)?;
    Ok(())
}
