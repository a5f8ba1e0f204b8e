//! `install <source> [constraint]`: installs a provider into the cache as Parameterize would,
//! and prints where it is, its version and its hashes.

use std::io::Write as _;

pub async fn run(source: &str, constraint: &str) -> anyhow::Result<()> {
    let installer = tfp_registry::Installer::from_env()?;
    let installed = installer.install_str(source, constraint).await?;
    for warning in &installed.warnings {
        eprintln!("warning: {warning}");
    }
    // Written, not printed: a reader that stops early (`| head -1`) is an error to return, not
    // a panic.
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", installed.executable.display())?;
    writeln!(stdout, "version: {}", installed.version)?;
    writeln!(stdout, "source:  {}", installed.source)?;
    writeln!(stdout, "h1:      {}", installed.h1)?;
    if let Some(zh) = &installed.zh {
        writeln!(stdout, "zh:      {zh}")?;
    }
    Ok(())
}
