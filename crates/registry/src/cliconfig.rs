//! OpenTofu's CLI configuration: which files are read (`TF_CLI_CONFIG_FILE`, `~/.tofurc`,
//! `~/.terraformrc`, the `*.tfrc` and `*.tfrc.json` files of `~/.terraform.d`), and the parts of
//! them that provider installation uses: `provider_installation`, `credentials`, `host` service
//! overrides and `plugin_cache_dir` (cliconfig `LoadConfig` and `decodeProviderInstallationFromConfig`).
//!
//! Invariants: files are merged in OpenTofu's order (the main file, then the directory's files in
//! name order, later files winning for the same host); at most one `provider_installation` block
//! is accepted; unknown blocks are ignored, as OpenTofu ignores them.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use crate::{
    env::Environment,
    hcl::{self, Body, Item, Value},
    hostname::Hostname,
    http::shown_text,
    source::{Location, Method, Pattern},
};

/// A problem with the CLI configuration.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A configuration file exists but cannot be read.
    #[error("cannot read the CLI configuration file {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A configuration file is not valid HCL or JSON.
    #[error("cannot parse the CLI configuration file {path}: {message}")]
    Syntax {
        /// The file.
        path: PathBuf,
        /// Where and what.
        message: String,
    },
    /// A configuration file is well-formed but says something invalid.
    #[error("invalid CLI configuration in {path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// OpenTofu's diagnostic text.
        message: String,
    },
    /// `SSL_CERT_FILE` names a file we cannot use.
    #[error("cannot use the CA certificates in SSL_CERT_FILE={path}: {reason}")]
    CaFile {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
}

/// What the CLI configuration says about provider installation.
#[derive(Clone, Debug, Default)]
pub struct CliConfig {
    /// `plugin_cache_dir`, after `$VAR` expansion.
    pub plugin_cache_dir: Option<PathBuf>,
    /// `credentials "<host>" { token = "..." }` blocks.
    pub credentials: BTreeMap<Hostname, String>,
    /// `host "<host>" { services = { ... } }` discovery overrides.
    pub hosts: BTreeMap<Hostname, BTreeMap<String, String>>,
    /// The methods of the `provider_installation` block, if there is one.
    pub provider_installation: Option<Vec<Method>>,
    /// `registry_protocols { retry_count = N }`: how many times a registry request is tried again.
    pub retry_count: Option<u32>,
    /// `registry_protocols { request_timeout_seconds = N }`.
    pub request_timeout_seconds: Option<u32>,
    /// Files that were read, in order.
    pub files: Vec<PathBuf>,
    /// Things worth telling the user that did not stop us.
    pub warnings: Vec<String>,
}

/// The main configuration file: `TF_CLI_CONFIG_FILE` (or `TERRAFORM_CONFIG`), else `~/.tofurc`,
/// else `~/.terraformrc`, else `$XDG_CONFIG_HOME/opentofu/tofurc`. The flag is true when the
/// file was named explicitly.
fn main_file(env: &Environment) -> Option<(PathBuf, bool)> {
    if let Some(p) = env
        .var("TF_CLI_CONFIG_FILE")
        .or(env.var("TERRAFORM_CONFIG"))
    {
        return Some((PathBuf::from(p), true));
    }
    let home = env.home()?;
    let new = home.join(".tofurc");
    let legacy = home.join(".terraformrc");
    if !new.exists()
        && !legacy.exists()
        && let Some(xdg) = env.var("XDG_CONFIG_HOME")
    {
        return Some((Path::new(xdg).join("opentofu").join("tofurc"), false));
    }
    if new.exists() || !legacy.exists() {
        Some((new, false))
    } else {
        Some((legacy, false))
    }
}

/// The configuration directory: `~/.terraform.d`, or `$XDG_CONFIG_HOME/opentofu` when that does
/// not exist and XDG is set.
pub(crate) fn config_dir(env: &Environment) -> Option<PathBuf> {
    let dir = env.home()?.join(".terraform.d");
    match env.var("XDG_CONFIG_HOME") {
        Some(xdg) if !dir.exists() => Some(Path::new(xdg).join("opentofu")),
        _ => Some(dir),
    }
}

/// One file's contribution before merging.
#[derive(Default)]
struct FileConfig {
    plugin_cache_dir: Option<String>,
    credentials: BTreeMap<Hostname, String>,
    hosts: BTreeMap<Hostname, BTreeMap<String, String>>,
    installations: Vec<Vec<Method>>,
    retry_count: Option<u32>,
    request_timeout_seconds: Option<u32>,
    /// Where the file's `registry_protocols` block is, once one was read.
    registry_protocols_line: Option<usize>,
    warnings: Vec<String>,
}

impl CliConfig {
    /// Loads and merges the configuration files the environment points at.
    pub fn load(env: &Environment) -> Result<Self, ConfigError> {
        let mut config = CliConfig::default();
        let mut parts = Vec::new();
        if let Some((path, explicit)) = main_file(env) {
            if path.is_file() {
                parts.push(load_file(&path, env)?);
                config.files.push(path);
            } else if explicit {
                config.warnings.push(format!(
                    "The CLI configuration file at {:?} does not exist.",
                    path.display().to_string()
                ));
            }
        }
        let overridden = env
            .var("TF_CLI_CONFIG_FILE")
            .or(env.var("TERRAFORM_CONFIG"))
            .is_some();
        if !overridden
            && let Some(dir) = config_dir(env)
            && dir.is_dir()
        {
            let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
                .map_err(|source| ConfigError::Read {
                    path: dir.clone(),
                    source,
                })?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.ends_with(".tfrc") || n.ends_with(".tfrc.json"))
                })
                .collect();
            names.sort();
            for path in names {
                parts.push(load_file(&path, env)?);
                config.files.push(path);
            }
        }
        let mut installations: Vec<(&PathBuf, Vec<Method>)> = Vec::new();
        for (part, path) in parts.into_iter().zip(&config.files) {
            if config.plugin_cache_dir.is_none()
                && let Some(dir) = part.plugin_cache_dir
            {
                config.plugin_cache_dir = Some(PathBuf::from(dir));
            }
            config.credentials.extend(part.credentials);
            config.hosts.extend(part.hosts);
            // Later files win, setting by setting (cliconfig `mergeRegistryProtocolConfigs`).
            config.retry_count = part.retry_count.or(config.retry_count);
            config.request_timeout_seconds =
                (part.request_timeout_seconds).or(config.request_timeout_seconds);
            config.warnings.extend(part.warnings);
            installations.extend(part.installations.into_iter().map(|m| (path, m)));
        }
        if let [(first, _), (second, _), ..] = installations.as_slice() {
            let place = if first == second {
                "twice in this file".to_owned()
            } else {
                format!("in {} too", first.display())
            };
            return Err(ConfigError::Invalid {
                path: (*second).clone(),
                message: format!(
                    "No more than one provider_installation block may be specified; there is one \
                     {place}"
                ),
            });
        }
        config.provider_installation = installations.pop().map(|(_, methods)| methods);
        if let Some(dir) = env.var("TF_PLUGIN_CACHE_DIR") {
            config.plugin_cache_dir = Some(PathBuf::from(dir));
        }
        Ok(config)
    }
}

fn load_file(path: &Path, env: &Environment) -> Result<FileConfig, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let is_json = hcl::is_json(&text);
    let body = if is_json {
        hcl::from_json(&text)
    } else {
        hcl::parse(&text)
    }
    .map_err(|e| ConfigError::Syntax {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    decode(&body, path, env, is_json)
}

fn invalid(path: &Path, message: String) -> ConfigError {
    ConfigError::Invalid {
        path: path.to_path_buf(),
        message,
    }
}

/// The items of a block, or an error naming the block.
fn block_body<'a>(item: &'a Item, path: &Path, what: &str) -> Result<&'a Body, ConfigError> {
    match &item.value {
        Value::Object(body) => Ok(body),
        _ => Err(invalid(
            path,
            format!("the {what} at line {} must be a block", item.line),
        )),
    }
}

/// Items named `name` inside `body` (HCL 1 also allows `name { ... }` blocks for objects).
fn string_attr(
    body: &Body,
    name: &str,
    path: &Path,
    block: &str,
) -> Result<Option<String>, ConfigError> {
    let Some(item) = body.items.iter().rev().find(|i| i.keys[0] == name) else {
        return Ok(None);
    };
    match &item.value {
        Value::String(s) => Ok(Some(s.clone())),
        other => Err(invalid(
            path,
            format!(
                "Invalid {block} block at line {}: {name} must be a string, not {}.",
                item.line,
                other.kind()
            ),
        )),
    }
}

fn list_attr(
    body: &Body,
    name: &str,
    path: &Path,
    block: &str,
) -> Result<Vec<String>, ConfigError> {
    let Some(item) = body.items.iter().rev().find(|i| i.keys[0] == name) else {
        return Ok(Vec::new());
    };
    let bad = || {
        invalid(
            path,
            format!(
                "Invalid {block} block at line {}: {name} must be a list of strings.",
                item.line
            ),
        )
    };
    match &item.value {
        Value::List(values) => values
            .iter()
            .map(|v| v.as_str().map(str::to_owned).ok_or_else(bad))
            .collect(),
        Value::String(s) => Ok(vec![s.clone()]),
        _ => Err(bad()),
    }
}

fn decode(
    body: &Body,
    path: &Path,
    env: &Environment,
    is_json: bool,
) -> Result<FileConfig, ConfigError> {
    let mut out = FileConfig::default();
    for item in &body.items {
        match item.keys[0].as_str() {
            "plugin_cache_dir" => {
                if let Value::String(s) = &item.value
                    && !s.is_empty()
                {
                    out.plugin_cache_dir = Some(env.expand(s));
                }
            }
            "credentials" => decode_credentials(item, path, &mut out)?,
            "host" => decode_host(item, path, &mut out)?,
            "registry_protocols" => decode_registry_protocols(item, path, &mut out)?,
            "credentials_helper" => out.warnings.push(format!(
                "{}: the credentials_helper at line {} is ignored: this plugin does not run \
                 credentials helpers; give the token in a credentials block or in a \
                 TF_TOKEN_<host> environment variable",
                path.display(),
                item.line
            )),
            "provider_installation" => {
                if !is_json && item.assigned {
                    return Err(invalid(
                        path,
                        format!(
                            "The provider_installation block at line {} must not be introduced with an equals sign.",
                            item.line
                        ),
                    ));
                }
                if !is_json && item.keys.len() > 1 {
                    return Err(invalid(
                        path,
                        format!(
                            "The provider_installation block at line {} must not have any labels.",
                            item.line
                        ),
                    ));
                }
                let inner = block_body(item, path, "provider_installation block")?;
                let methods = decode_methods(inner, path, is_json, &mut out.warnings)?;
                out.installations.push(methods);
            }
            _ => {}
        }
    }
    Ok(out)
}

/// `credentials "host" { token = "..." }`; in JSON, `"credentials": {"host": {"token": "..."}}`.
fn decode_credentials(item: &Item, path: &Path, out: &mut FileConfig) -> Result<(), ConfigError> {
    let body = block_body(item, path, "credentials block")?;
    let entries: Vec<(String, &Body)> = if let Some(host) = item.keys.get(1) {
        vec![(host.clone(), body)]
    } else {
        body.items
            .iter()
            .filter_map(|i| match &i.value {
                Value::Object(b) => Some((i.keys[0].clone(), b)),
                _ => None,
            })
            .collect()
    };
    for (given, creds) in entries {
        // OpenTofu reports such a block and goes on without it (cliconfig `Validate`,
        // `credentialsSource`): its token can reach no host.
        let host = match Hostname::parse(&given) {
            Ok(host) => host,
            Err(e) => {
                out.warnings.push(format!(
                    "{}: the credentials {:?} block has an invalid hostname and is ignored: {e}",
                    path.display(),
                    shown_text(&given)
                ));
                continue;
            }
        };
        if let Some(token) = string_attr(creds, "token", path, "credentials")? {
            out.credentials.insert(host, token);
        }
    }
    Ok(())
}

/// `host "name" { services = { "providers.v1" = "https://..." } }`.
fn decode_host(item: &Item, path: &Path, out: &mut FileConfig) -> Result<(), ConfigError> {
    let body = block_body(item, path, "host block")?;
    let entries: Vec<(String, &Body)> = if let Some(host) = item.keys.get(1) {
        vec![(host.clone(), body)]
    } else {
        body.items
            .iter()
            .filter_map(|i| match &i.value {
                Value::Object(b) => Some((i.keys[0].clone(), b)),
                _ => None,
            })
            .collect()
    };
    for (given, host_body) in entries {
        let host = Hostname::parse(&given).map_err(|e| {
            invalid(
                path,
                format!("The host {given:?} block has an invalid hostname: {e}"),
            )
        })?;
        let mut services = BTreeMap::new();
        for svc in host_body.items.iter().filter(|i| i.keys[0] == "services") {
            if let Value::Object(map) = &svc.value {
                for entry in &map.items {
                    if let Value::String(url) = &entry.value {
                        services.insert(entry.keys[0].clone(), url.clone());
                    }
                }
            }
        }
        out.hosts.insert(host, services);
    }
    Ok(())
}

/// `registry_protocols { retry_count = N, request_timeout_seconds = N }` (cliconfig
/// `decodeRegistryProtocolsConfigFromConfigBody`). A file's second block is reported and left
/// out, as OpenTofu does ("Duplicate registry_protocols block").
fn decode_registry_protocols(
    item: &Item,
    path: &Path,
    out: &mut FileConfig,
) -> Result<(), ConfigError> {
    if let Some(first) = out.registry_protocols_line {
        out.warnings.push(format!(
            "{}: the registry_protocols block at line {} is ignored: the registry protocol \
             settings were already defined at line {first}",
            path.display(),
            item.line
        ));
        return Ok(());
    }
    out.registry_protocols_line = Some(item.line);
    let body = block_body(item, path, "registry_protocols block")?;
    let number = |name: &str| -> Result<Option<u32>, ConfigError> {
        let Some(found) = body.items.iter().rev().find(|i| i.keys[0] == name) else {
            return Ok(None);
        };
        match &found.value {
            Value::Number(n) => n.parse::<u32>().map(Some).map_err(|_| {
                invalid(
                    path,
                    format!(
                        "Invalid registry_protocols block at line {}: {name} must be a whole \
                         number of zero or more.",
                        found.line
                    ),
                )
            }),
            other => Err(invalid(
                path,
                format!(
                    "Invalid registry_protocols block at line {}: {name} must be a number, not {}.",
                    found.line,
                    other.kind()
                ),
            )),
        }
    };
    out.retry_count = number("retry_count")?;
    out.request_timeout_seconds = number("request_timeout_seconds")?;
    Ok(())
}

fn decode_methods(
    body: &Body,
    path: &Path,
    is_json: bool,
    warnings: &mut Vec<String>,
) -> Result<Vec<Method>, ConfigError> {
    let mut methods = Vec::new();
    for item in &body.items {
        if !is_json && (item.assigned || !matches!(item.value, Value::Object(_))) {
            return Err(invalid(
                path,
                format!(
                    "The items inside the provider_installation block at line {} must all be blocks.",
                    item.line
                ),
            ));
        }
        if !is_json && item.keys.len() > 1 {
            return Err(invalid(
                path,
                format!(
                    "The blocks inside the provider_installation block at line {} may not have any labels.",
                    item.line
                ),
            ));
        }
        let kind = item.keys[0].as_str();
        let inner = block_body(item, path, "installation method")?;
        let location = match kind {
            "direct" => Location::Direct,
            "filesystem_mirror" => {
                let dir = string_attr(inner, "path", path, kind)?.unwrap_or_default();
                if dir.is_empty() {
                    return Err(invalid(
                        path,
                        format!(
                            "Invalid {kind} block at line {}: \"path\" argument is required.",
                            item.line
                        ),
                    ));
                }
                Location::FilesystemMirror(PathBuf::from(dir))
            }
            "network_mirror" => {
                let url = string_attr(inner, "url", path, kind)?.unwrap_or_default();
                if url.is_empty() {
                    return Err(invalid(
                        path,
                        format!(
                            "Invalid {kind} block at line {}: \"url\" argument is required.",
                            item.line
                        ),
                    ));
                }
                let parsed = reqwest::Url::parse(&url).map_err(|e| {
                    invalid(
                        path,
                        format!(
                            "Cannot parse {:?} as a URL for a network provider mirror: {e}.",
                            shown_text(&url)
                        ),
                    )
                })?;
                if parsed.scheme() != "https" || parsed.host_str().is_none_or(str::is_empty) {
                    return Err(invalid(
                        path,
                        format!(
                            "Cannot use {:?} as a URL for a network provider mirror: the mirror must be at an https: URL.",
                            shown_text(&url)
                        ),
                    ));
                }
                let trust = inner
                    .items
                    .iter()
                    .any(|i| i.keys[0] == "trust_all_hashes" && i.value == Value::Bool(true));
                Location::NetworkMirror {
                    url: parsed,
                    trust_all_hashes: trust,
                }
            }
            // Development overrides point OpenTofu at local builds; the dynamic provider loads
            // from a path directly instead, so the block is accepted and ignored.
            "dev_overrides" => {
                warnings.push(format!(
                    "{}: dev_overrides at line {} is ignored: to use a local build of a provider, \
                     give its path to Parameterize (pulumi package add terraform-provider \
                     ./terraform-provider-<name>)",
                    path.display(),
                    item.line
                ));
                continue;
            }
            // OpenTofu 1.10's OCI registries: a valid method we cannot install from. The others
            // still serve what they serve.
            "oci_mirror" => {
                warnings.push(format!(
                    "{}: the oci_mirror at line {} is skipped: this plugin cannot install \
                     providers from OCI registries; the other installation methods are used",
                    path.display(),
                    item.line
                ));
                continue;
            }
            other => {
                return Err(invalid(
                    path,
                    format!(
                        "Unknown provider installation method {other:?} at line {}.",
                        item.line
                    ),
                ));
            }
        };
        let patterns = |name: &str| -> Result<Vec<Pattern>, ConfigError> {
            list_attr(inner, name, path, kind)?
                .iter()
                .map(|p| Pattern::parse(p))
                .collect::<Result<_, _>>()
                .map_err(|e| {
                    let what = if name == "include" {
                        "inclusion"
                    } else {
                        "exclusion"
                    };
                    invalid(
                        path,
                        format!("CLI config specifies invalid provider {what} patterns: {e}."),
                    )
                })
        };
        methods.push(Method {
            location,
            include: patterns("include")?,
            exclude: patterns("exclude")?,
        });
    }
    Ok(methods)
}
