//! Concurrent installs of one package, by tasks and by processes: one download, every caller
//! gets the same intact entry.

use std::process::Command;

use tfp_registry::{Environment, Installer, ProgressMode, Settings};

use crate::support::{
    World,
    package::{Registry, Release},
};

const CHILD_ENV: &str = "TFP_REGISTRY_IT_CHILD";

#[tokio::test]
async fn tasks_install_once() {
    let world = World::new();
    let registry = Registry::start(&world.pki).await;
    let release = Release::real("hashicorp", "random", "3.6.3");
    registry.publish(&release);
    let source = registry.source("hashicorp", "random");
    let mut tasks = Vec::new();
    for _ in 0..8 {
        // Separate installers, as separate processes would have.
        let installer = world.installer();
        let source = source.clone();
        tasks.push(tokio::spawn(async move {
            installer.install_str(&source, "3.6.3").await
        }));
    }
    let mut dirs = Vec::new();
    for t in tasks {
        dirs.push(t.await.expect("task finished").expect("install").dir);
    }
    dirs.dedup();
    assert_eq!(dirs.len(), 1, "everyone got the same entry");
    assert_eq!(registry.server.hits(&release.zip_path()), 1, "one download");
    let exe = std::fs::read(dirs[0].join("terraform-provider-random_v3.6.3_x5")).expect("exe");
    assert_eq!(exe, crate::support::random_binary());
}

/// In a child process, installs what the parent describes and prints the entry directory.
async fn child(spec: &str) {
    let spec: serde_json::Value = serde_json::from_str(spec).expect("child spec");
    let s = |k: &str| spec[k].as_str().expect("spec field").to_owned();
    let env = Environment::from_vars([
        ("HOME", s("home")),
        ("PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR", s("cache")),
        ("SSL_CERT_FILE", s("ca")),
    ]);
    let mut settings = Settings::from_environment(&env).expect("settings");
    settings.progress = ProgressMode::Events;
    let installed = Installer::new(settings)
        .expect("installer")
        .install_str(&s("source"), "3.6.3")
        .await
        .expect("child install");
    println!("INSTALLED {}", installed.dir.display());
}

#[tokio::test]
async fn processes_install_once() {
    if let Ok(spec) = std::env::var(CHILD_ENV) {
        return child(&spec).await;
    }
    let world = World::new();
    let registry = Registry::start(&world.pki).await;
    let release = Release::real("hashicorp", "random", "3.6.3");
    registry.publish(&release);
    let spec = serde_json::json!({
        "home": world.home(),
        "cache": world.cache(),
        "ca": world.pki.ca_file,
        "source": registry.source("hashicorp", "random"),
    })
    .to_string();
    let exe = std::env::current_exe().expect("test binary path");
    let children: Vec<_> = (0..8)
        .map(|_| {
            Command::new(&exe)
                .args([
                    "concurrency::processes_install_once",
                    "--exact",
                    "--nocapture",
                    "--test-threads",
                    "1",
                ])
                .env(CHILD_ENV, &spec)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn child")
        })
        .collect();
    let mut dirs = Vec::new();
    for c in children {
        let out = tokio::task::spawn_blocking(move || c.wait_with_output())
            .await
            .expect("join")
            .expect("child output");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "child failed: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let dir = stdout
            .lines()
            // libtest may print "test <name> ... " on the same line first.
            .find_map(|l| l.split_once("INSTALLED ").map(|(_, dir)| dir))
            .expect("child printed its result")
            .to_owned();
        dirs.push(dir);
    }
    dirs.dedup();
    assert_eq!(dirs.len(), 1, "all processes got the same entry");
    assert_eq!(
        registry.server.hits(&release.zip_path()),
        1,
        "one download across 8 processes"
    );
    let exe_path = std::path::Path::new(&dirs[0]).join("terraform-provider-random_v3.6.3_x5");
    assert_eq!(
        std::fs::read(exe_path).expect("exe"),
        crate::support::random_binary()
    );
    let leftovers: Vec<String> = world
        .cache_files()
        .into_iter()
        .filter(|f| f.contains(".tmp-") || f.ends_with(".lock"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "no staging or lock leftovers: {leftovers:?}"
    );
}
