//! `install <source> [constraint]`: installs a provider into the cache as Parameterize would,
//! and prints where it is, its version and its hashes.

pub async fn run(source: &str, constraint: &str) -> anyhow::Result<()> {
    let installer = tfp_registry::Installer::from_env()?;
    let installed = installer.install_str(source, constraint).await?;
    for warning in &installed.warnings {
        eprintln!("warning: {warning}");
    }
    println!("{}", installed.executable.display());
    println!("version: {}", installed.version);
    println!("source:  {}", installed.source);
    println!("h1:      {}", installed.h1);
    if let Some(zh) = &installed.zh {
        println!("zh:      {zh}");
    }
    Ok(())
}
