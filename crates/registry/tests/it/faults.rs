//! Every fault gives a clear error and leaves nothing in the cache.

use crate::support::{
    World, chain,
    keys::TestKey,
    package::{Entry, Registry, Release, Signing, real_package, zip},
    server::Route,
};

/// Installs `source` at `constraint`, which must fail with an error mentioning `want` and leave
/// nothing in the cache; the error's text.
async fn check(world: &World, source: &str, constraint: &str, want: &str) -> String {
    let err = world
        .installer()
        .install_str(source, constraint)
        .await
        .expect_err("the install must fail");
    let text = chain(&err);
    assert!(
        text.contains(want),
        "error {text:?} should mention {want:?}"
    );
    assert_eq!(
        world.cache_files(),
        Vec::<String>::new(),
        "nothing is left in the cache after: {text}"
    );
    text
}

async fn registry_with(world: &World, release: &Release<'_>) -> Registry {
    let registry = Registry::start(&world.pki).await;
    registry.publish(release);
    registry
}

#[tokio::test]
async fn unknown_provider_is_a_404() {
    let world = World::new();
    let registry = registry_with(&world, &Release::small("hashicorp", "random", "1.0.0")).await;
    let source = registry.source("nobody", "nothing");
    let host = registry.host();
    check(
        &world,
        &source,
        "",
        &format!("provider registry {host} does not have a provider named {host}/nobody/nothing"),
    )
    .await;
}

#[tokio::test]
async fn unknown_version() {
    let world = World::new();
    let registry = registry_with(&world, &Release::small("hashicorp", "random", "1.0.0")).await;
    check(
        &world,
        &registry.source("hashicorp", "random"),
        "9.9.9",
        "matches the constraint \"9.9.9\" (available: 1.0.0)",
    )
    .await;
}

#[tokio::test]
async fn server_error() {
    let world = World::new();
    let registry = registry_with(&world, &Release::small("hashicorp", "random", "1.0.0")).await;
    registry.server.route(
        "/v1/providers/hashicorp/random/versions",
        Route::Status(500),
    );
    check(
        &world,
        &registry.source("hashicorp", "random"),
        "",
        "500 Internal Server Error",
    )
    .await;
    assert_eq!(
        registry
            .server
            .hits("/v1/providers/hashicorp/random/versions"),
        2,
        "one retry"
    );
}

#[tokio::test]
async fn connection_reset_mid_download() {
    let world = World::new();
    let release = Release::real("hashicorp", "random", "3.6.3");
    let registry = registry_with(&world, &release).await;
    let body = release.zip.clone();
    let send = body.len() / 2;
    registry
        .server
        .route(&release.zip_path(), Route::Reset { body, send });
    check(
        &world,
        &registry.source("hashicorp", "random"),
        "",
        "failed to download",
    )
    .await;
}

#[tokio::test]
async fn truncated_zip() {
    let world = World::new();
    let mut release = Release::real("hashicorp", "random", "3.6.3");
    release.zip.truncate(release.zip.len() / 2);
    let registry = registry_with(&world, &release).await;
    check(
        &world,
        &registry.source("hashicorp", "random"),
        "",
        "not a valid zip archive",
    )
    .await;
}

#[tokio::test]
async fn checksum_mismatch() {
    let world = World::new();
    let release = Release::real("hashicorp", "random", "3.6.3");
    let registry = registry_with(&world, &release).await;
    // The signed sums name the published zip, but the server hands out another one.
    registry.server.route(
        &release.zip_path(),
        Route::Bytes(real_package("random", "9.9.9")),
    );
    check(
        &world,
        &registry.source("hashicorp", "random"),
        "",
        "archive has incorrect checksum",
    )
    .await;
}

#[tokio::test]
async fn metadata_disagreeing_with_the_sums() {
    let world = World::new();
    let mut release = Release::small("hashicorp", "random", "1.0.0");
    release.claimed_sha = Some("ab".repeat(32));
    let registry = registry_with(&world, &release).await;
    check(
        &world,
        &registry.source("hashicorp", "random"),
        "",
        "checksum list has unexpected SHA-256 hash",
    )
    .await;
}

#[tokio::test]
async fn bad_signature() {
    let world = World::new();
    let mut release = Release::small("hashicorp", "random", "1.0.0");
    release.signing = Signing::Wrong;
    let registry = registry_with(&world, &release).await;
    check(
        &world,
        &registry.source("hashicorp", "random"),
        "",
        "error checking signature",
    )
    .await;
}

/// The OpenPGP library's reason for a signature it cannot read is a debug dump, with a backtrace
/// when `RUST_BACKTRACE` is set: the error gives its first line, bounded.
#[tokio::test]
async fn a_damaged_signature_is_reported_briefly() {
    let world = World::new();
    let mut release = Release::small("hashicorp", "random", "1.0.0");
    release.signing = Signing::Damaged;
    let registry = registry_with(&world, &release).await;
    let message = check(
        &world,
        &registry.source("hashicorp", "random"),
        "",
        "error reading signature",
    )
    .await;
    assert!(message.len() < 600, "{} bytes: {message}", message.len());
    assert!(
        !message.contains("backtrace") && !message.contains('\n'),
        "{message}"
    );
    assert!(
        message.contains("Inconsistent subpacket length 42"),
        "the reason is kept: {message}"
    );
}

#[tokio::test]
async fn signature_by_an_unknown_key() {
    let world = World::new();
    let stranger = TestKey::new(7, "stranger");
    let mut release = Release::small("hashicorp", "random", "1.0.0");
    release.signing = Signing::Other(&stranger);
    let registry = registry_with(&world, &release).await;
    check(
        &world,
        &registry.source("hashicorp", "random"),
        "",
        "authentication signature from unknown issuer",
    )
    .await;
}

#[tokio::test]
async fn no_keys_on_a_private_registry_is_refused() {
    let world = World::new();
    let mut release = Release::small("hashicorp", "random", "1.0.0");
    release.list_key = false;
    let registry = registry_with(&world, &release).await;
    check(
        &world,
        &registry.source("hashicorp", "random"),
        "",
        "not signed with a valid signing key",
    )
    .await;
}

#[tokio::test]
async fn expired_signature_is_accepted_unless_enforced() {
    let world = World::new();
    let mut release = Release::small("hashicorp", "random", "1.0.0");
    release.signing = Signing::Expired;
    let registry = registry_with(&world, &release).await;
    let mut env = world.env();
    env.set("OPENTOFU_ENFORCE_GPG_EXPIRATION", "true");
    let enforced = tfp_registry::Installer::new(world.settings(&env)).expect("installer");
    let err = enforced
        .install_str(&registry.source("hashicorp", "random"), "")
        .await
        .expect_err("expired signature refused when enforced");
    assert!(chain(&err).contains("unknown issuer"), "{}", chain(&err));
    assert_eq!(world.cache_files(), Vec::<String>::new());
    let lenient = world.installer();
    lenient
        .install_str(&registry.source("hashicorp", "random"), "")
        .await
        .expect("expired signature accepted by default, as OpenTofu does");
}

#[tokio::test]
async fn zip_entry_escaping_the_directory() {
    let world = World::new();
    let mut release = Release::small("hashicorp", "random", "1.0.0");
    release.zip = zip(&[
        Entry::new("terraform-provider-random_v1.0.0_x5", b"#!/bin/sh\n", 0o755),
        Entry::new("../../../../escaped", b"gotcha", 0o644),
    ]);
    let registry = registry_with(&world, &release).await;
    check(
        &world,
        &registry.source("hashicorp", "random"),
        "",
        "entry contains '..': ../../../../escaped",
    )
    .await;
    let escaped: Vec<_> = walk_names(world.dir.path())
        .into_iter()
        .filter(|n| n == "escaped")
        .collect();
    assert!(
        escaped.is_empty(),
        "nothing was written outside the staging directory"
    );
}

fn walk_names(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        out.push(e.file_name().to_string_lossy().into_owned());
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            out.extend(walk_names(&e.path()));
        }
    }
    out
}

#[tokio::test]
async fn zip_without_the_executable() {
    let world = World::new();
    let mut release = Release::small("hashicorp", "random", "1.0.0");
    release.zip = zip(&[
        Entry::new("LICENSE", b"text", 0o644),
        Entry::new("terraform-provider-randomx", b"x", 0o755),
    ]);
    let registry = registry_with(&world, &release).await;
    check(
        &world,
        &registry.source("hashicorp", "random"),
        "",
        "could not find executable file starting with terraform-provider-random",
    )
    .await;
}

#[tokio::test]
async fn protocol_4_only_provider() {
    let world = World::new();
    let registry = Registry::start(&world.pki).await;
    let mut old = Release::small("hashicorp", "random", "2.0.0");
    old.protocols = vec!["4.0"];
    let mut older = Release::small("hashicorp", "random", "1.0.0");
    older.protocols = vec!["4.0", "5.0"];
    registry.publish(&older);
    registry.publish(&old);
    check(
        &world,
        &registry.source("hashicorp", "random"),
        "2.0.0",
        "offers plugin protocols 4 and only 5 and 6 are supported; the newest version that supports them is 1.0.0",
    )
    .await;
}

#[tokio::test]
async fn expired_key_is_accepted_unless_enforced() {
    let world = World::new();
    let registry = Registry::start_with_key(&world.pki, TestKey::expired(9, "old")).await;
    registry.publish(&Release::small("hashicorp", "random", "1.0.0"));
    let mut env = world.env();
    env.set("OPENTOFU_ENFORCE_GPG_EXPIRATION", "true");
    let enforced = tfp_registry::Installer::new(world.settings(&env)).expect("installer");
    let err = enforced
        .install_str(&registry.source("hashicorp", "random"), "")
        .await
        .expect_err("an expired key is refused when enforced");
    assert!(chain(&err).contains("unknown issuer"), "{}", chain(&err));
    world
        .installer()
        .install_str(&registry.source("hashicorp", "random"), "")
        .await
        .expect("an expired key is accepted by default, as OpenTofu does");
}
