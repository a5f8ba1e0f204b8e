//! Registry credentials: `TF_TOKEN_<host>` variables and `credentials` blocks of the CLI
//! configuration (including `credentials.tfrc.json`), looked up as OpenTofu's
//! `CredentialsSource.ForHost` does: the environment first, then the configuration.
//!
//! Invariant: tokens never appear in `Debug` output or error messages.

use std::{collections::BTreeMap, fmt};

use crate::{cliconfig::CliConfig, env::Environment, hostname::Hostname};

/// Bearer tokens by host.
#[derive(Clone, Default)]
pub struct Credentials {
    from_env: BTreeMap<Hostname, String>,
    configured: BTreeMap<Hostname, String>,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("from_env", &self.from_env.keys().collect::<Vec<_>>())
            .field("configured", &self.configured.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// Decodes the host part of a `TF_TOKEN_` variable name: `__` stands for `-` and `_` for `.`,
/// and the host may be in Unicode or Punycode (cliconfig `collectCredentialsFromEnv`).
fn host_from_env_name(raw: &str) -> Option<Hostname> {
    let dashed = raw.replace("__", "-").replace('_', ".");
    Hostname::parse_ascii_or_unicode(&dashed).ok()
}

/// The `TF_TOKEN_` variable suffix that names `host`.
pub(crate) fn env_name_for(host: &Hostname) -> String {
    host.for_display().replace('-', "__").replace('.', "_")
}

impl Credentials {
    /// Collects `TF_TOKEN_*` from the environment and `credentials` blocks from the config.
    pub fn from_sources(env: &Environment, config: &CliConfig) -> Self {
        let from_env = env
            .vars()
            .filter_map(|(name, value)| {
                let raw = name.strip_prefix("TF_TOKEN_")?;
                Some((host_from_env_name(raw)?, value.to_owned()))
            })
            .collect();
        Credentials {
            from_env,
            configured: config.credentials.clone(),
        }
    }

    /// Adds or replaces a token, as if the CLI configuration had a `credentials` block for it.
    pub fn insert(&mut self, host: Hostname, token: impl Into<String>) {
        self.configured.insert(host, token.into());
    }

    /// The token for a host, if any.
    pub fn token(&self, host: &Hostname) -> Option<&str> {
        self.from_env
            .get(host)
            .or_else(|| self.configured.get(host))
            .map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_names_encode_dots_and_dashes() {
        let env = Environment::from_vars([
            ("TF_TOKEN_app_example__one_com", "t1"),
            ("TF_TOKEN_Example_ORG", "t2"),
            ("TF_TOKEN_bad__", "x"),
        ]);
        let creds = Credentials::from_sources(&env, &CliConfig::default());
        let host = Hostname::parse("app.example-one.com").expect("valid");
        assert_eq!(creds.token(&host), Some("t1"));
        assert_eq!(
            creds.token(&Hostname::parse("example.org").expect("valid")),
            Some("t2")
        );
        assert_eq!(env_name_for(&host), "app_example__one_com");
        assert!(!format!("{creds:?}").contains("t1"));
    }

    #[test]
    fn env_names_may_hold_the_punycode_of_an_international_host() {
        // The forms OpenTofu's `collectCredentialsFromEnv` documents for café.fr.
        for name in ["TF_TOKEN_xn____caf__dma_fr", "TF_TOKEN_café_fr"] {
            let env = Environment::from_vars([(name, "t")]);
            let creds = Credentials::from_sources(&env, &CliConfig::default());
            let host = Hostname::parse("café.fr").expect("valid");
            assert_eq!(creds.token(&host), Some("t"), "{name}");
        }
    }
}
