//! Everything the installer needs to know, read once from an [`Environment`]: the cache
//! directory, the CLI configuration's installation methods, credentials and plugin cache, extra
//! CA certificates, OpenTofu's signature policy flags and the HTTP knobs.
//!
//! Invariant: [`Settings::from_environment`] is the only place that interprets environment
//! variables; tests adjust the public fields of the result instead of the process environment.

use std::{collections::BTreeMap, path::PathBuf, time::Duration};

use crate::{
    address::Provider,
    cliconfig::{CliConfig, ConfigError},
    credentials::Credentials,
    env::Environment,
    error::{Error, Result},
    hostname::Hostname,
    mirror::scan_filesystem,
    platform::Platform,
    progress::ProgressMode,
    source::{Location, Method, Pattern},
    unzip::Limits,
};

/// The version we report in `X-Terraform-Version`; registries use it to pick compatible answers.
pub const TERRAFORM_VERSION: &str = "1.10.0";

/// Installer configuration.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Where packages are installed.
    pub cache_dir: PathBuf,
    /// A Terraform plugin cache to reuse packages from (read only).
    pub plugin_cache_dir: Option<PathBuf>,
    /// The platform to install for.
    pub platform: Platform,
    /// Installation methods, in order.
    pub methods: Vec<Method>,
    /// Registry and mirror credentials.
    pub credentials: Credentials,
    /// Service discovery overrides from `host` blocks.
    pub host_services: BTreeMap<Hostname, BTreeMap<String, String>>,
    /// Extra trusted CA certificates (PEM), added to the system's.
    pub extra_ca_pem: Vec<Vec<u8>>,
    /// `OPENTOFU_ENFORCE_GPG_VALIDATION=true`: signatures required on the default registry too.
    pub enforce_gpg_validation: bool,
    /// `OPENTOFU_ENFORCE_GPG_EXPIRATION=true`: expired keys and signatures are refused.
    pub enforce_gpg_expiration: bool,
    /// Retries of registry and mirror API calls.
    pub registry_retries: u32,
    /// Retries of a package download that fails before its body starts.
    pub download_retries: u32,
    /// The first wait between retries; it doubles each time, up to 30 s.
    pub retry_wait: Duration,
    /// The timeout of one registry or mirror API call.
    pub request_timeout: Duration,
    /// The `User-Agent` header.
    pub user_agent: String,
    /// The `X-Terraform-Version` header.
    pub terraform_version: String,
    /// How download progress is shown.
    pub progress: ProgressMode,
    /// Bounds on package contents.
    pub limits: Limits,
    /// Problems with the configuration that did not stop us.
    pub warnings: Vec<String>,
}

/// The cache directory: `PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR`, else
/// `$PULUMI_HOME/dynamic_tf_plugins` with `PULUMI_HOME` defaulting to `~/.pulumi`.
pub fn cache_dir(env: &Environment) -> Result<PathBuf> {
    let path = if let Some(dir) = env.var("PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR") {
        PathBuf::from(dir)
    } else {
        let home = match env.var("PULUMI_HOME") {
            Some(h) => PathBuf::from(h),
            None => env.home().ok_or(Error::NoHome)?.join(".pulumi"),
        };
        home.join("dynamic_tf_plugins")
    };
    // Said here, once, rather than by the first lock or download that fails beneath it.
    if path.exists() && !path.is_dir() {
        return Err(Error::CacheNotADirectory { path });
    }
    Ok(path)
}

/// OpenTofu's implied local mirrors, in its order (`implicitProviderSource`): `terraform.d/plugins`
/// in the working directory, `~/.terraform.d/plugins`, `$XDG_DATA_HOME/opentofu/plugins`, then
/// `terraform/plugins` in each XDG data directory (`$XDG_DATA_HOME` or `~/.local/share`, then
/// `$XDG_DATA_DIRS` or `/usr/local/share:/usr/share`, absolute paths only); followed by the
/// registry, which then skips any provider those directories have.
fn implicit_methods(env: &Environment) -> Vec<Method> {
    let mut dirs = Vec::new();
    if let Some(cwd) = env.cwd() {
        dirs.push(cwd.join("terraform.d").join("plugins"));
    }
    if let Some(home) = env.home() {
        dirs.push(home.join(".terraform.d").join("plugins"));
    }
    if let Some(xdg) = env.var("XDG_DATA_HOME") {
        dirs.push(PathBuf::from(xdg).join("opentofu").join("plugins"));
    }
    // go-userdirs' `xdgbase`: a relative path in either variable is not one.
    let data_home = (env.var("XDG_DATA_HOME").map(PathBuf::from))
        .filter(|p| p.is_absolute())
        .or_else(|| Some(env.home()?.join(".local").join("share")));
    let data_dirs: Vec<PathBuf> = match env.var("XDG_DATA_DIRS") {
        Some(list) => std::env::split_paths(list)
            .filter(|p| p.is_absolute())
            .collect(),
        None => vec!["/usr/local/share".into(), "/usr/share".into()],
    };
    for dir in data_home.into_iter().chain(data_dirs) {
        dirs.push(dir.join("terraform").join("plugins"));
    }
    let mut methods = Vec::new();
    let mut local = Vec::new();
    for dir in dirs.into_iter().filter(|d| d.is_dir()) {
        local.extend(providers_in(&dir));
        methods.push(Method {
            location: Location::FilesystemMirror(dir),
            include: Vec::new(),
            exclude: Vec::new(),
        });
    }
    local.sort_by_key(ToString::to_string);
    local.dedup();
    methods.push(Method {
        location: Location::Direct,
        include: Vec::new(),
        exclude: local.iter().map(Pattern::exact).collect(),
    });
    methods
}

/// Every provider with at least one package in a filesystem mirror.
fn providers_in(dir: &std::path::Path) -> Vec<Provider> {
    let mut out = Vec::new();
    let children = |p: &std::path::Path| -> Vec<(String, PathBuf)> {
        std::fs::read_dir(p)
            .map(|r| {
                r.flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                    .filter_map(|e| Some((e.file_name().into_string().ok()?, e.path())))
                    .collect()
            })
            .unwrap_or_default()
    };
    for (host, host_dir) in children(dir) {
        for (ns, ns_dir) in children(&host_dir) {
            for (kind, _) in children(&ns_dir) {
                if let Ok(p) = Provider::parse(&format!("{host}/{ns}/{kind}"))
                    && !scan_filesystem(dir, &p).is_empty()
                {
                    out.push(p);
                }
            }
        }
    }
    out
}

impl Settings {
    /// Reads the settings from an environment snapshot and the CLI configuration files it
    /// points at.
    pub fn from_environment(env: &Environment) -> Result<Self> {
        let platform = Platform::current();
        let config = CliConfig::load(env)?;
        let mut warnings = config.warnings.clone();
        let plugin_cache_dir = config.plugin_cache_dir.clone().filter(|dir| {
            let ok = dir.is_dir();
            if !ok {
                warnings.push(format!(
                    "The specified plugin cache dir {} cannot be opened; it is ignored.",
                    dir.display()
                ));
            }
            ok
        });
        let methods = match &config.provider_installation {
            Some(methods) => methods.clone(),
            None => implicit_methods(env),
        };
        let mut extra_ca_pem = Vec::new();
        if let Some(path) = env.var("SSL_CERT_FILE") {
            let pem = std::fs::read(path).map_err(|e| ConfigError::CaFile {
                path: PathBuf::from(path),
                reason: e.to_string(),
            })?;
            extra_ca_pem.push(pem);
        }
        let positive = |name: &str| {
            env.var(name)
                .and_then(|v| v.parse::<u32>().ok())
                .filter(|n| *n > 0)
        };
        let mut user_agent = env.var("OPENTOFU_USER_AGENT").map_or_else(
            || format!("tfp-registry/{}", env!("CARGO_PKG_VERSION")),
            str::to_owned,
        );
        if let Some(extra) = env.var("TF_APPEND_USER_AGENT") {
            user_agent.push(' ');
            user_agent.push_str(extra.trim());
        }
        Ok(Settings {
            cache_dir: cache_dir(env)?,
            plugin_cache_dir,
            platform,
            methods,
            credentials: Credentials::from_sources(env, &config),
            host_services: config.hosts.clone(),
            extra_ca_pem,
            enforce_gpg_validation: env.is_true("OPENTOFU_ENFORCE_GPG_VALIDATION"),
            enforce_gpg_expiration: env.is_true("OPENTOFU_ENFORCE_GPG_EXPIRATION"),
            // The environment wins over `registry_protocols` (cliconfig `LoadConfig`).
            registry_retries: positive("TF_REGISTRY_DISCOVERY_RETRY")
                .or(config.retry_count)
                .unwrap_or(1),
            download_retries: positive("TF_PROVIDER_DOWNLOAD_RETRY").unwrap_or(2),
            retry_wait: Duration::from_secs(1),
            request_timeout: Duration::from_secs(
                positive("TF_REGISTRY_CLIENT_TIMEOUT")
                    .or(config.request_timeout_seconds.filter(|s| *s > 0))
                    .unwrap_or(10)
                    .into(),
            ),
            user_agent,
            terraform_version: TERRAFORM_VERSION.to_owned(),
            progress: ProgressMode::Auto,
            limits: Limits::default(),
            warnings,
        })
    }
}
