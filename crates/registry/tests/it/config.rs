//! Credentials and the CLI configuration: `TF_TOKEN_<host>` is sent and required, tokens from
//! `credentials.tfrc.json` work too, and the Terraform plugin cache is reused offline.

use tfp_registry::{Origin, Platform};

use crate::support::{
    World, chain,
    package::{Registry, Release},
    server::Route,
};

/// Wraps every registry API route in a token check.
fn require_token(registry: &Registry, token: &str, paths: &[String]) {
    for p in paths {
        let inner = registry.server.get_route(p).expect("route exists");
        registry.server.route(
            p,
            Route::Auth {
                header: format!("Bearer {token}"),
                inner: Box::new(inner),
            },
        );
    }
}

#[tokio::test]
async fn tf_token_is_sent_and_required() {
    let world = World::new();
    let registry = Registry::start(&world.pki).await;
    registry.publish(&Release::small("private", "thing", "1.0.0"));
    let p = Platform::current();
    let versions = "/v1/providers/private/thing/versions".to_owned();
    let download = format!(
        "/v1/providers/private/thing/1.0.0/download/{}/{}",
        p.os, p.arch
    );
    require_token(&registry, "s3cret", &[versions.clone(), download]);
    let source = registry.source("private", "thing");

    let err = world
        .installer()
        .install_str(&source, "")
        .await
        .expect_err("401 without a token");
    let text = chain(&err);
    assert!(
        text.contains(&format!(
            "host {} requires authentication credentials; set TF_TOKEN_127_0_0_1:{}",
            registry.host(),
            registry.server.port
        )),
        "{text}"
    );
    assert!(!text.contains("s3cret"));
    assert_eq!(world.cache_files(), Vec::<String>::new());

    let mut env = world.env();
    env.set(
        format!("TF_TOKEN_127_0_0_1:{}", registry.server.port),
        "wrong",
    );
    let err = tfp_registry::Installer::new(world.settings(&env))
        .expect("installer")
        .install_str(&source, "")
        .await
        .expect_err("a wrong token is rejected");
    assert!(
        chain(&err).contains("rejected the given authentication credentials"),
        "{}",
        chain(&err)
    );

    env.set(
        format!("TF_TOKEN_127_0_0_1:{}", registry.server.port),
        "s3cret",
    );
    let got = tfp_registry::Installer::new(world.settings(&env))
        .expect("installer")
        .install_str(&source, "")
        .await
        .expect("install with the token");
    assert_eq!(got.version.to_string(), "1.0.0");
    assert!(
        registry.server.authorized_hits(&versions) >= 1,
        "the token was sent"
    );
}

#[tokio::test]
async fn credentials_file_in_the_config_dir() {
    let world = World::new();
    let registry = Registry::start(&world.pki).await;
    registry.publish(&Release::small("private", "thing", "1.0.0"));
    require_token(
        &registry,
        "from-file",
        &["/v1/providers/private/thing/versions".to_owned()],
    );
    let dir = world.home().join(".terraform.d");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let creds = serde_json::json!({"credentials": {registry.host(): {"token": "from-file"}}});
    std::fs::write(dir.join("credentials.tfrc.json"), creds.to_string())
        .expect("write credentials");
    let got = world
        .installer()
        .install_str(&registry.source("private", "thing"), "")
        .await
        .expect("install");
    assert_eq!(got.version.to_string(), "1.0.0");
}

#[tokio::test]
async fn plugin_cache_dir_is_reused_offline() {
    let world = World::new();
    let p = Platform::current();
    let plugin_cache = world.dir.path().join("tf-plugin-cache");
    let entry = plugin_cache
        .join("registry.opentofu.org/hashicorp/random/3.6.3")
        .join(p.to_string());
    std::fs::create_dir_all(&entry).expect("mkdir");
    std::fs::write(
        entry.join("terraform-provider-random_v3.6.3_x5"),
        crate::support::random_binary(),
    )
    .expect("write");
    let mut env = world.env();
    env.set("TF_PLUGIN_CACHE_DIR", plugin_cache.display().to_string());
    // A bare type means hashicorp/random on the default registry, which is never contacted here.
    let installer = tfp_registry::Installer::new(world.settings(&env)).expect("installer");
    let got = installer
        .install_str("random", "~> 3.6")
        .await
        .expect("install from the plugin cache");
    assert_eq!(got.origin, Origin::PluginCache(plugin_cache.clone()));
    assert_eq!(
        got.source.to_string(),
        "registry.opentofu.org/hashicorp/random"
    );
    assert!(got.dir.starts_with(world.cache()));
    let again = installer
        .install_str("hashicorp/random", "")
        .await
        .expect("then from our cache");
    assert_eq!(again.origin, Origin::Cache);
    assert_eq!(again.h1, got.h1);
}

/// An entry of the shared plugin cache that cannot be read (here a symbolic link to a directory
/// beside the executable, which cannot be hashed) is skipped with a warning: the registry still
/// serves the install, and the entry is left as it was.
#[tokio::test]
async fn an_unreadable_plugin_cache_entry_is_skipped() {
    let world = World::new();
    let registry = Registry::start(&world.pki).await;
    let release = Release::small("hashicorp", "random", "1.0.0");
    registry.publish(&release);
    let plugin_cache = world.dir.path().join("tf-plugin-cache");
    let entry = plugin_cache
        .join(registry.host())
        .join("hashicorp/random/1.0.0")
        .join(Platform::current().to_string());
    std::fs::create_dir_all(&entry).expect("mkdir");
    std::fs::write(
        entry.join("terraform-provider-random_v1.0.0_x5"),
        b"#!/bin/sh\n",
    )
    .expect("write");
    let elsewhere = world.dir.path().join("a-directory");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    std::os::unix::fs::symlink(&elsewhere, entry.join("docs")).expect("symlink");
    let mut env = world.env();
    env.set("TF_PLUGIN_CACHE_DIR", plugin_cache.display().to_string());
    let got = tfp_registry::Installer::new(world.settings(&env))
        .expect("installer")
        .install_str(&registry.source("hashicorp", "random"), "")
        .await
        .expect("install from the registry despite the plugin cache");
    assert_eq!(got.origin, Origin::Registry(registry.host()));
    assert_eq!(registry.server.hits(&release.zip_path()), 1);
    assert!(got.dir.starts_with(world.cache()));
    assert!(
        std::fs::symlink_metadata(entry.join("docs")).is_ok_and(|m| m.file_type().is_symlink()),
        "the plugin cache is not changed"
    );
}

#[tokio::test]
async fn host_block_overrides_discovery() {
    let world = World::new();
    let registry = Registry::start(&world.pki).await;
    registry.publish(&Release::small("acme", "thing", "2.0.0"));
    // Discovery on this host would fail: it is a name nobody serves. The host block points
    // its providers.v1 service at the test registry instead.
    let config = format!(
        "host \"registry.acme.test\" {{\n  services = {{\n    \"providers.v1\" = \"{}\"\n  }}\n}}\n",
        registry.server.url("/v1/providers/")
    );
    let path = world.dir.path().join("tofurc");
    std::fs::write(&path, config).expect("write config");
    let mut env = world.env();
    env.set("TF_CLI_CONFIG_FILE", path.display().to_string());
    let got = tfp_registry::Installer::new(world.settings(&env))
        .expect("installer")
        .install_str("registry.acme.test/acme/thing", "")
        .await
        .expect("install through the overridden service");
    assert_eq!(got.version.to_string(), "2.0.0");
    assert_eq!(registry.server.hits("/.well-known/terraform.json"), 0);
}

/// A home directory holding `files`.
fn home_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    for (name, text) in files {
        let path = home.path().join(name);
        std::fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    home
}

/// Loads the CLI configuration of an environment whose home holds `files`.
fn load(files: &[(&str, &str)], extra: &[(&str, &str)]) -> Result<tfp_registry::CliConfig, String> {
    let home = home_with(files);
    let mut env =
        tfp_registry::Environment::from_vars([("HOME", home.path().display().to_string())]);
    for (k, v) in extra {
        env.set(*k, v.replace("$TMP", &home.path().display().to_string()));
    }
    tfp_registry::CliConfig::load(&env).map_err(|e| chain(&e))
}

#[test]
fn cli_config_files_and_precedence() {
    // ~/.tofurc wins over ~/.terraformrc; the config dir's files are merged on top.
    let c = load(
        &[
            (
                ".tofurc",
                "plugin_cache_dir = \"$HOME/pc\"\ncredentials \"a.example\" { token = \"main\" }",
            ),
            (".terraformrc", "plugin_cache_dir = \"/legacy\""),
            (
                ".terraform.d/credentials.tfrc.json",
                r#"{"credentials":{"a.example":{"token":"dir"},"b.example":{"token":"b"}}}"#,
            ),
        ],
        &[],
    )
    .expect("valid config");
    assert!(c.plugin_cache_dir.expect("set").ends_with("pc"));
    let token = |h: &str| {
        c.credentials
            .get(&tfp_registry::Hostname::parse(h).expect("host"))
            .cloned()
    };
    assert_eq!(token("a.example").as_deref(), Some("dir"));
    assert_eq!(token("b.example").as_deref(), Some("b"));
    assert_eq!(c.files.len(), 2);

    // TF_CLI_CONFIG_FILE replaces the main file and turns off the config directory.
    let c = load(
        &[
            (
                "other.rc",
                "provider_installation {\n direct {\n exclude = [\"x/y\"]\n }\n}",
            ),
            (".terraform.d/a.tfrc", "plugin_cache_dir = \"/d\""),
        ],
        &[
            ("TF_CLI_CONFIG_FILE", "$TMP/other.rc"),
            ("TF_PLUGIN_CACHE_DIR", "/env"),
        ],
    )
    .expect("valid config");
    assert_eq!(c.files.len(), 1);
    assert_eq!(
        c.plugin_cache_dir.as_deref(),
        Some(std::path::Path::new("/env"))
    );
    let methods = c
        .provider_installation
        .expect("a provider_installation block");
    assert_eq!(methods.len(), 1);
    assert_eq!(methods[0].location, tfp_registry::Location::Direct);
    assert_eq!(
        methods[0].exclude,
        vec![tfp_registry::Pattern::parse("registry.opentofu.org/x/y").expect("pattern")]
    );

    // OpenTofu's diagnostics for invalid installation blocks.
    for (text, want) in [
        (
            "provider_installation {}\nprovider_installation {}",
            "No more than one provider_installation block may be specified",
        ),
        (
            "provider_installation = {}",
            "must not be introduced with an equals sign",
        ),
        (
            "provider_installation {\n carrier_pigeon {}\n}",
            "Unknown provider installation method \"carrier_pigeon\" at line 2",
        ),
        (
            "provider_installation {\n filesystem_mirror {}\n}",
            "\"path\" argument is required",
        ),
        (
            "provider_installation {\n network_mirror { url = \"http://x/\" }\n}",
            "the mirror must be at an https: URL",
        ),
        (
            "provider_installation {\n direct { include = [\"a/b/c/d\"] }\n}",
            "must have either two or three slash-separated segments",
        ),
        ("a = \"unterminated", "line 1: unterminated string"),
    ] {
        let err = load(&[(".tofurc", text)], &[]).expect_err(text);
        assert!(
            err.contains(want),
            "{text:?}: {err:?} should mention {want:?}"
        );
    }
}

/// The JSON form keeps the file's order, which decides the method asked first, and a method
/// named twice; a file is JSON by its first character, not its name (HCL 1's `hcl.Parse`).
#[test]
fn json_configuration_keeps_its_order_whatever_the_files_name() {
    let json = r#"{"provider_installation": {
  "network_mirror": {"url": "https://mirror.example/"},
  "filesystem_mirror": {"path": "/one"},
  "filesystem_mirror": {"path": "/two"},
  "direct": {}
}}"#;
    let locations = |files: &[(&str, &str)]| -> Vec<tfp_registry::Location> {
        let c = load(files, &[]).expect("valid config");
        let methods = c
            .provider_installation
            .expect("a provider_installation block");
        methods.into_iter().map(|m| m.location).collect()
    };
    for name in [
        ".terraform.d/mirrors.tfrc.json",
        ".terraform.d/mirrors.tfrc",
        ".tofurc",
    ] {
        let got = locations(&[(name, json)]);
        assert_eq!(got.len(), 4, "{name}: {got:?}");
        assert!(
            matches!(&got[0], tfp_registry::Location::NetworkMirror { url, .. }
                if url.as_str() == "https://mirror.example/"),
            "{name}: {got:?}"
        );
        assert_eq!(
            got[1..],
            [
                tfp_registry::Location::FilesystemMirror("/one".into()),
                tfp_registry::Location::FilesystemMirror("/two".into()),
                tfp_registry::Location::Direct,
            ],
            "{name}"
        );
    }
    // HCL in a file named .json is read as HCL.
    let hcl = "provider_installation {\n  direct {}\n}";
    let got = locations(&[(".terraform.d/z.tfrc.json", hcl)]);
    assert_eq!(got, [tfp_registry::Location::Direct]);
    // An error in the JSON form names its line.
    let err = load(
        &[(
            ".tofurc",
            "{\"provider_installation\": {\n\"filesystem_mirror\": {}\n}}",
        )],
        &[],
    )
    .expect_err("no path");
    assert!(err.contains("at line 2"), "{err}");
}

/// What OpenTofu accepts and this plugin cannot use is a warning, not an error that stops every
/// install: an OCI mirror (OpenTofu 1.10), a credentials helper, development overrides, and a
/// credentials block whose hostname is invalid (OpenTofu reports it and goes on without it).
#[test]
fn settings_we_cannot_use_are_warnings() {
    let c = load(
        &[(
            ".tofurc",
            r#"credentials_helper "vault" {}
credentials "bad_host.example" { token = "x" }
credentials "ok.example" { token = "kept" }
provider_installation {
  dev_overrides { "hashicorp/random" = "../random-build" }
  oci_mirror { repository_template = "example.net/${namespace}/${type}" }
  direct {}
}"#,
        )],
        &[],
    )
    .expect("a configuration OpenTofu accepts");
    let warnings = c.warnings.join("\n");
    for want in [
        "the credentials_helper at line 1 is ignored",
        "the credentials \"bad_host.example\" block has an invalid hostname and is ignored",
        "dev_overrides at line 5 is ignored",
        "the oci_mirror at line 6 is skipped",
    ] {
        assert!(warnings.contains(want), "{want:?} in {warnings}");
    }
    assert!(!warnings.contains("\"x\""), "no token is shown: {warnings}");
    let host = tfp_registry::Hostname::parse("ok.example").expect("host");
    assert_eq!(c.credentials.get(&host).map(String::as_str), Some("kept"));
    assert_eq!(
        c.provider_installation.expect("the block").len(),
        1,
        "only direct is a method"
    );
}

/// `registry_protocols` sets the registry's retries and timeout, later files winning setting by
/// setting, and the environment over both; two provider_installation blocks in two files are an
/// error naming both.
#[test]
fn registry_protocols_and_a_second_installation_block() {
    let files = [
        (
            ".tofurc",
            "registry_protocols {\n retry_count = 0\n request_timeout_seconds = 30\n}\n\
             provider_installation {\n direct {}\n}",
        ),
        (
            ".terraform.d/a.tfrc",
            "registry_protocols { request_timeout_seconds = 5 }\n\
             registry_protocols { retry_count = 9 }",
        ),
    ];
    let c = load(&files, &[]).expect("valid config");
    // The second file's timeout wins; its second block is left out, as OpenTofu leaves it.
    assert!(
        c.warnings.iter().any(|w| w.contains(
            "the registry_protocols block at line 2 is ignored: the registry protocol settings \
             were already defined at line 1"
        )),
        "{:?}",
        c.warnings
    );
    assert_eq!(
        (c.retry_count, c.request_timeout_seconds),
        (Some(0), Some(5))
    );
    let home = home_with(&files);
    let mut env =
        tfp_registry::Environment::from_vars([("HOME", home.path().display().to_string())]);
    let settings = tfp_registry::Settings::from_environment(&env).expect("settings");
    assert_eq!(settings.registry_retries, 0);
    assert_eq!(settings.request_timeout, std::time::Duration::from_secs(5));
    env.set("TF_REGISTRY_DISCOVERY_RETRY", "3");
    env.set("TF_REGISTRY_CLIENT_TIMEOUT", "7");
    let settings = tfp_registry::Settings::from_environment(&env).expect("settings");
    assert_eq!(settings.registry_retries, 3);
    assert_eq!(settings.request_timeout, std::time::Duration::from_secs(7));

    let err = load(
        &[
            (".tofurc", "provider_installation {\n direct {}\n}"),
            (
                ".terraform.d/b.tfrc",
                "provider_installation {\n direct {}\n}",
            ),
        ],
        &[],
    )
    .expect_err("two blocks");
    assert!(
        err.contains("b.tfrc") && err.contains(".tofurc too"),
        "names both files: {err}"
    );
}

/// Without a provider_installation block, OpenTofu's implied mirrors come first, in its order,
/// each only if it is a directory, then the registry.
#[test]
fn implied_mirrors_are_opentofus() {
    let root = tempfile::tempdir().expect("temp dir");
    let (home, work, shared) = (
        root.path().join("home"),
        root.path().join("work"),
        root.path().join("share"),
    );
    let dirs = [
        work.join("terraform.d/plugins"),
        home.join(".terraform.d/plugins"),
        home.join(".local/share/terraform/plugins"),
        shared.join("terraform/plugins"),
    ];
    for dir in &dirs {
        std::fs::create_dir_all(dir).expect("mkdir");
    }
    let mut env = tfp_registry::Environment::from_vars([
        ("HOME", home.display().to_string()),
        (
            "XDG_DATA_DIRS",
            format!("relative/ignored:{}", shared.display()),
        ),
    ]);
    env.set_cwd(&work);
    let settings = tfp_registry::Settings::from_environment(&env).expect("settings");
    let mut want: Vec<tfp_registry::Location> = (dirs.iter().cloned())
        .map(tfp_registry::Location::FilesystemMirror)
        .collect();
    want.push(tfp_registry::Location::Direct);
    let got: Vec<_> = settings.methods.into_iter().map(|m| m.location).collect();
    assert_eq!(got, want);
}

/// A credentials block with a malformed token is reported by line, column and what is wrong with
/// it, never by its text, which is a secret.
#[test]
fn config_errors_never_echo_a_token() {
    for (name, text, want) in [
        (
            ".tofurc",
            "credentials \"app.terraform.io\" { token = abc123.atlasv1.xyz }",
            "line 1: unquoted text at column 42",
        ),
        (
            ".tofurc",
            "credentials \"app.terraform.io\" {\n  token = [abc123.atlasv1.xyz]\n}",
            "line 2: unquoted text at column 12",
        ),
        (
            ".tofurc",
            "credentials \"app.terraform.io\" {\n  abc123.atlasv1.xyz\n}",
            "line 2: expected \"=\" or \"{\" after the name at column 3",
        ),
        (
            ".tofurc",
            "credentials \"app.terraform.io\" { token = 123.atlasv1.xyz }",
            "Invalid credentials block at line 1: token must be a string, not a number.",
        ),
        (
            ".terraform.d/credentials.tfrc.json",
            r#"{"credentials":{"app.terraform.io":{"token":["abc123.atlasv1.xyz"]}}}"#,
            "Invalid credentials block at line 1: token must be a string, not a list.",
        ),
    ] {
        let err = load(&[(name, text)], &[]).expect_err(text);
        assert!(err.contains(want), "{err:?} should mention {want:?}");
        assert!(!err.contains("atlasv1"), "the token is echoed: {err:?}");
    }
    let err = load(
        &[(
            ".tofurc",
            "credentials \"app.terraform.io\" { token = abc123.atlasv1.xyz }",
        )],
        &[],
    )
    .expect_err("unquoted token");
    assert!(
        err.contains("strings must be in double quotes"),
        "says what to do: {err:?}"
    );
}

#[test]
fn patterns_route_providers() {
    let p = |s: &str| tfp_registry::Provider::parse(s).expect("provider");
    let method = |include: &[&str], exclude: &[&str]| tfp_registry::Method {
        location: tfp_registry::Location::Direct,
        include: include
            .iter()
            .map(|s| tfp_registry::Pattern::parse(s).expect("pattern"))
            .collect(),
        exclude: exclude
            .iter()
            .map(|s| tfp_registry::Pattern::parse(s).expect("pattern"))
            .collect(),
    };
    let m = method(
        &["example.com/*/*", "hashicorp/aws"],
        &["example.com/secret/*"],
    );
    for (source, want) in [
        ("example.com/a/b", true),
        ("example.com/secret/b", false),
        ("hashicorp/aws", true),
        ("hashicorp/random", false),
        ("other.com/hashicorp/aws", false),
    ] {
        assert_eq!(m.handles(&p(source)), want, "{source}");
    }
    assert!(method(&[], &[]).handles(&p("anything/at-all")));
    for (bad, want) in [
        (
            "*/x/*",
            "hostname can be a wildcard only if both namespace and provider type are also wildcards",
        ),
        (
            "*/x",
            "namespace can be a wildcard only if the provider type is also a wildcard",
        ),
        ("a/b_c", "invalid provider type \"b_c\""),
    ] {
        let err = tfp_registry::Pattern::parse(bad)
            .expect_err(bad)
            .to_string();
        assert!(err.contains(want), "{bad}: {err}");
    }
}

#[tokio::test]
async fn the_registry_token_goes_only_to_urls_on_the_registry_host() {
    let world = World::new();
    let registry = Registry::start(&world.pki).await;
    let release = Release::small("private", "thing", "1.0.0");
    registry.publish(&release);
    let p = Platform::current();
    let versions = "/v1/providers/private/thing/versions".to_owned();
    let download = format!(
        "/v1/providers/private/thing/1.0.0/download/{}/{}",
        p.os, p.arch
    );
    let sums = "/dl/private/thing/1.0.0/SHA256SUMS";
    let signature = "/dl/private/thing/1.0.0/SHA256SUMS.sig";
    // The package is served from `localhost`: the same server, but another host than the
    // registry's `127.0.0.1`, as a registry serving packages from a CDN does.
    let Some(Route::Json(status, meta)) = registry.server.get_route(&download) else {
        panic!("the download metadata is published");
    };
    let mut meta: serde_json::Value = serde_json::from_str(&meta).expect("JSON");
    meta["download_url"] = format!(
        "https://localhost:{}{}",
        registry.server.port,
        release.zip_path()
    )
    .into();
    registry
        .server
        .route(&download, Route::Json(status, meta.to_string()));
    require_token(&registry, "s3cret", &[versions.clone(), download.clone()]);

    let mut env = world.env();
    env.set(
        format!("TF_TOKEN_127_0_0_1:{}", registry.server.port),
        "s3cret",
    );
    tfp_registry::Installer::new(world.settings(&env))
        .expect("installer")
        .install_str(&registry.source("private", "thing"), "")
        .await
        .expect("install with the token");
    for path in [versions.as_str(), download.as_str(), sums, signature] {
        assert!(
            registry.server.authorized_hits(path) >= 1,
            "the token went to {path}, on the registry's host"
        );
    }
    assert!(registry.server.hits(&release.zip_path()) >= 1, "downloaded");
    assert_eq!(
        registry.server.authorized_hits(&release.zip_path()),
        0,
        "no token for the package on another host"
    );
}

#[test]
fn a_plugin_cache_that_is_a_file_is_named() {
    let home = tempfile::tempdir().expect("temp dir");
    let file = home.path().join("a-file");
    std::fs::write(&file, "").expect("write");
    let env = tfp_registry::Environment::from_vars([
        ("HOME", home.path().display().to_string()),
        (
            "PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR",
            file.display().to_string(),
        ),
    ]);
    let err = tfp_registry::cache_dir(&env).expect_err("a file is no cache");
    assert_eq!(
        err.to_string(),
        format!(
            "the plugin cache {} is not a directory; move it away, or point \
             PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR at a directory",
            file.display()
        )
    );
    // A directory, or a path not made yet, is a cache.
    let env = tfp_registry::Environment::from_vars([("HOME", home.path().display().to_string())]);
    assert_eq!(
        tfp_registry::cache_dir(&env).expect("a path to make"),
        home.path().join(".pulumi/dynamic_tf_plugins")
    );
}
