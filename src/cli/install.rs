//! `install <source> [constraint]`: installs a provider into the cache as Parameterize would,
//! and prints where it is, its version and its hashes.

use std::io::Write as _;

pub async fn run(source: &str, constraint: &str) -> anyhow::Result<()> {
    let installer = tfp_registry::Installer::from_env()?;
    let installed = match installer.install_str(source, constraint).await {
        Ok(installed) => installed,
        // A provider on disk needs no installing; its path is what `schema` and `pulumi package
        // add` take.
        Err(err) if std::path::Path::new(source).is_file() => {
            return Err(anyhow::Error::new(err).context(format!(
                "{} is a file: install takes a registry source (hashicorp/random); a provider \
                 on disk needs no install, give its path to `schema` or `pulumi package add`",
                tfp_echo::quoted(source)
            )));
        }
        Err(err) => return Err(err.into()),
    };
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
