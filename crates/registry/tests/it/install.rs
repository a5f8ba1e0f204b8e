//! The main path: install by constraint from the registry, then from the cache with the
//! registry gone; the package on disk is the real provider, intact and runnable.

use std::os::unix::fs::PermissionsExt;

use sha2::{Digest, Sha256};
use tfp_registry::{Constraints, Origin, Platform, Provider};
use tfp_testkit::files::wait_until_unchanged_for;

use crate::support::{
    World,
    package::{Registry, Release, sha256_hex},
};

/// The `h1:` of a zip computed here from first principles (Go's dirhash.Hash1 over the entries).
fn h1_of_zip(bytes: &[u8]) -> String {
    use base64::Engine as _;
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("valid zip");
    let mut lines = Vec::new();
    for i in 0..archive.len() {
        let mut f = archive.by_index(i).expect("entry");
        if f.is_dir() {
            continue;
        }
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut f, &mut data).expect("entry data");
        lines.push(format!(
            "{}  {}\n",
            hex::encode(Sha256::digest(&data)),
            f.name().expect("utf-8 name")
        ));
    }
    lines.sort();
    let summary = Sha256::digest(lines.concat().as_bytes());
    format!(
        "h1:{}",
        base64::engine::general_purpose::STANDARD.encode(summary)
    )
}

#[tokio::test]
async fn installs_by_constraint_then_serves_from_cache_offline() {
    let world = World::new();
    let registry = Registry::start(&world.pki).await;
    let release = Release::real("hashicorp", "random", "3.6.3");
    registry.publish(&release);
    let source = Provider::parse(&registry.source("hashicorp", "random")).expect("valid source");
    let installer = world.installer();

    let first = installer
        .install(
            &source,
            &Constraints::parse("~> 3.6").expect("valid constraint"),
        )
        .await
        .expect("install from the registry");
    let platform = Platform::current();
    let want_dir = world
        .cache()
        .join(registry.host())
        .join("hashicorp/random/3.6.3")
        .join(platform.to_string());
    assert_eq!(first.version.to_string(), "3.6.3");
    assert_eq!(first.dir, want_dir);
    assert_eq!(
        first.executable,
        want_dir.join("terraform-provider-random_v3.6.3_x5")
    );
    assert_eq!(first.protocols, vec![5]);
    assert_eq!(
        first.zh.as_deref(),
        Some(format!("zh:{}", sha256_hex(&release.zip)).as_str())
    );
    assert_eq!(first.h1, h1_of_zip(&release.zip));
    assert_eq!(first.origin, Origin::Registry(registry.host()));
    assert_eq!(registry.server.hits(&release.zip_path()), 1);

    // The executable is the real binary with its mode; LICENSE kept its own mode.
    let exe = std::fs::read(&first.executable).expect("executable readable");
    assert_eq!(exe, crate::support::random_binary());
    let mode =
        |p: &std::path::Path| std::fs::metadata(p).expect("metadata").permissions().mode() & 0o777;
    assert_eq!(mode(&first.executable), 0o755);
    assert_eq!(mode(&first.dir.join("LICENSE")), 0o644);
    // The real provider refuses to run without the plugin handshake cookie, and says so.
    let run = std::process::Command::new(&first.executable)
        .output()
        .expect("provider runs");
    let said =
        String::from_utf8_lossy(&run.stderr).to_string() + &String::from_utf8_lossy(&run.stdout);
    assert!(
        said.contains("plugin"),
        "the real provider answered: {said}"
    );

    // With the registry gone, the cache answers; nothing is fetched.
    registry.server.stop().await;
    let second = installer
        .install(&source, &Constraints::parse("").expect("empty constraint"))
        .await
        .expect("install from the cache");
    assert_eq!(second.origin, Origin::Cache);
    assert_eq!(second.dir, first.dir);
    assert_eq!(second.h1, first.h1);
    assert_eq!(second.zh, first.zh);
    assert_eq!(second.protocols, vec![5]);

    // A fresh installer (a new process) also finds it, from the record beside the entry.
    let third = world
        .installer()
        .install_str(&registry_source_offline(&second.source), ">= 3")
        .await;
    assert_eq!(third.expect("cache hit").executable, first.executable);
}

fn registry_source_offline(p: &Provider) -> String {
    p.to_string()
}

#[tokio::test]
async fn constraint_picks_the_newest_allowed_version() {
    let world = World::new();
    let registry = Registry::start(&world.pki).await;
    for v in ["4.0.3", "4.0.4", "4.0.5", "4.1.0-beta1"] {
        registry.publish(&Release::small("hashicorp", "tls", v));
    }
    let installer = world.installer();
    let source = registry.source("hashicorp", "tls");
    let got = installer
        .install_str(&source, "<4.0.5,>4.0.3")
        .await
        .expect("install");
    assert_eq!(got.version.to_string(), "4.0.4");
    let newest = installer
        .install_str(&source, ">= 4.0.5")
        .await
        .expect("install");
    assert_eq!(
        newest.version.to_string(),
        "4.0.5",
        "pre-releases are not picked unless named"
    );
    let pre = installer
        .install_str(&source, "4.1.0-beta1")
        .await
        .expect("install");
    assert_eq!(pre.version.to_string(), "4.1.0-beta1");
    // Cache first: an unconstrained request now returns the newest cached version.
    let cached = installer.install_str(&source, "").await.expect("install");
    assert_eq!(
        (cached.version.to_string(), cached.origin),
        ("4.0.5".to_owned(), Origin::Cache)
    );
}

#[tokio::test]
async fn a_damaged_cache_entry_is_installed_again() {
    let world = World::new();
    let registry = Registry::start(&world.pki).await;
    let release = Release::real("hashicorp", "random", "3.6.3");
    registry.publish(&release);
    let installer = world.installer();
    let source = registry.source("hashicorp", "random");
    let first = installer
        .install_str(&source, "3.6.3")
        .await
        .expect("install");
    std::fs::write(first.dir.join("LICENSE"), b"changed by someone").expect("tamper");
    let again = installer
        .install_str(&source, "3.6.3")
        .await
        .expect("reinstall");
    assert_eq!(again.origin, Origin::Registry(registry.host()));
    assert_eq!(again.h1, first.h1);
    assert_eq!(registry.server.hits(&release.zip_path()), 2);
    let license = std::fs::read_to_string(again.dir.join("LICENSE")).expect("license");
    assert!(
        license.starts_with("Mozilla"),
        "the original content is back"
    );
    let leftovers = staging_entries(&world);
    assert!(leftovers.is_empty(), "no staging leftovers: {leftovers:?}");
}

#[tokio::test]
async fn what_cannot_be_read_in_an_entry_makes_it_damaged_not_an_error() {
    use std::os::unix::fs::symlink;
    let world = World::new();
    let registry = Registry::start(&world.pki).await;
    let version_dir = publish_random_1_0_0(&world, &registry);
    let source = registry.source("hashicorp", "random");
    let entry = version_dir.join(Platform::current().to_string());
    // Each of these used to refuse the version on every run: a hash error, a read error, or a
    // rename onto a symlink that `exists` does not see.
    type Stray = fn(&std::path::Path);
    let strays: [(&str, Stray); 4] = [
        ("a FIFO", |entry| {
            let made = std::process::Command::new("mkfifo")
                .arg(entry.join("fifo"))
                .status()
                .expect("mkfifo runs");
            assert!(made.success());
        }),
        ("a dangling symlink", |entry| {
            symlink("/no/such/file", entry.join("dangling")).expect("symlink");
        }),
        ("a symlink loop", |entry| {
            symlink("loop", entry.join("loop")).expect("symlink");
        }),
        ("the entry, a symlink to itself", |entry| {
            std::fs::remove_dir_all(entry).expect("remove the entry");
            symlink(entry.file_name().expect("a name"), entry).expect("symlink");
        }),
    ];
    let first = world
        .installer()
        .install_str(&source, "1.0.0")
        .await
        .expect("install");
    for (what, stray) in strays {
        stray(&entry);
        let again = world
            .installer()
            .install_str(&source, "1.0.0")
            .await
            .unwrap_or_else(|err| panic!("with {what} in the entry: {err}"));
        assert_eq!(again.h1, first.h1, "{what}");
        assert!(
            std::fs::symlink_metadata(&entry).is_ok_and(|m| m.is_dir()),
            "{what}: the entry is a directory again"
        );
        let names: Vec<String> = std::fs::read_dir(&entry)
            .expect("read the entry")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            !names
                .iter()
                .any(|n| ["fifo", "dangling", "loop"].contains(&n.as_str())),
            "{what}: installed afresh, without the stray: {names:?}"
        );
    }
    let leftovers = staging_entries(&world);
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[tokio::test]
async fn an_install_whose_record_cannot_be_written_still_succeeds() {
    let world = World::new();
    let registry = Registry::start(&world.pki).await;
    let version_dir = publish_random_1_0_0(&world, &registry);
    // The record's place is taken (a full disk does the same): the entry is in place by then,
    // and without its record the next use hashes it again.
    let record = version_dir.join(format!("{}.json", Platform::current()));
    std::fs::create_dir_all(&record).expect("a directory where the record goes");
    let source = registry.source("hashicorp", "random");
    let installed = world
        .installer()
        .install_str(&source, "1.0.0")
        .await
        .expect("installed despite the record");
    let again = world
        .installer()
        .install_str(&source, "1.0.0")
        .await
        .expect("found again");
    assert_eq!(again.origin, Origin::Cache);
    assert_eq!(again.h1, installed.h1);
}

#[tokio::test]
async fn leftovers_of_a_killed_install_are_swept() {
    let world = World::new();
    let registry = Registry::start(&world.pki).await;
    let version_dir = publish_random_1_0_0(&world, &registry);
    // What a killed install of this platform leaves: its staging names carry the platform.
    let ours = format!(".tmp-{}-", Platform::current());
    std::fs::create_dir_all(version_dir.join(format!("{ours}staging123/sub")))
        .expect("fake staging dir");
    std::fs::write(version_dir.join(format!("{ours}abc.zip")), b"partial")
        .expect("fake partial download");
    // What an earlier version left, without the platform in the name, and a record whose writer
    // was killed, long ago.
    std::fs::create_dir_all(version_dir.join(".tmp-staging456/sub")).expect("old staging dir");
    std::fs::write(version_dir.join(".tmp-def.zip"), b"partial").expect("old partial download");
    std::fs::write(version_dir.join(".tmp-rec789"), b"{\"for").expect("half a record");
    for old in [".tmp-staging456", ".tmp-def.zip", ".tmp-rec789"] {
        make_old(&version_dir.join(old));
    }
    world
        .installer()
        .install_str(&registry.source("hashicorp", "random"), "")
        .await
        .expect("install");
    let leftovers = staging_entries(&world);
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// Two machines of different platforms may share a cache: each holds only its own platform's
/// lock, so an install must leave the staging entries of another platform's install alone, and
/// the unmarked ones of an earlier version too while they may still be in use.
#[tokio::test]
async fn another_platforms_install_in_progress_is_left_alone() {
    let world = World::new();
    let registry = Registry::start(&world.pki).await;
    let version_dir = publish_random_1_0_0(&world, &registry);
    let other = if Platform::current().to_string() == "linux_arm64" {
        "linux_amd64"
    } else {
        "linux_arm64"
    };
    let kept = [
        format!(".tmp-{other}-staging123/"),
        format!(".tmp-{other}-staging123/sub/"),
        format!(".tmp-{other}-abc.zip"),
        ".tmp-staging456/".to_owned(),
        ".tmp-def.zip".to_owned(),
        // A record being written, by any process: no lock covers it.
        ".tmp-rec789".to_owned(),
    ];
    for name in &kept {
        let path = version_dir.join(name);
        if name.ends_with('/') {
            std::fs::create_dir_all(&path).expect("another install's staging dir");
        } else {
            std::fs::write(&path, b"partial").expect("another install's partial download");
        }
    }
    let got = world
        .installer()
        .install_str(&registry.source("hashicorp", "random"), "")
        .await
        .expect("install");
    assert_eq!(got.version.to_string(), "1.0.0");
    let prefix = format!("{}/hashicorp/random/1.0.0/", registry.host());
    let left: Vec<String> = staging_entries(&world)
        .into_iter()
        .filter_map(|f| f.strip_prefix(&prefix).map(str::to_owned))
        .collect();
    let mut want = kept.to_vec();
    want.sort();
    assert_eq!(
        left, want,
        "the other installs' entries are all still there"
    );
}

/// The staging directories and partial downloads in the cache, by their paths in it.
fn staging_entries(world: &World) -> Vec<String> {
    (world.cache_files().into_iter())
        .filter(|f| f.contains(".tmp-"))
        .collect()
}

/// Publishes a small `hashicorp/random` 1.0.0; returns its version directory in the cache.
fn publish_random_1_0_0(world: &World, registry: &Registry) -> std::path::PathBuf {
    registry.publish(&Release::small("hashicorp", "random", "1.0.0"));
    world
        .cache()
        .join(registry.host())
        .join("hashicorp/random/1.0.0")
}

/// Sets the modification time of `path` to two days ago, older than any install in progress.
fn make_old(path: &std::path::Path) {
    let long_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(2 * 24 * 3600);
    std::fs::File::open(path)
        .and_then(|f| f.set_modified(long_ago))
        .expect("set the modification time");
}

#[tokio::test]
async fn a_cached_binary_changed_in_place_is_installed_again() {
    let world = World::new();
    let registry = Registry::start(&world.pki).await;
    let release = Release::real("hashicorp", "random", "3.6.3");
    registry.publish(&release);
    let source = registry.source("hashicorp", "random");
    let first = world
        .installer()
        .install_str(&source, "3.6.3")
        .await
        .expect("install");
    // Only the content tells.
    flip_a_byte_in_place(&first.executable);

    // A new installer, as the next process would have.
    let again = world
        .installer()
        .install_str(&source, "3.6.3")
        .await
        .expect("reinstall");
    assert_eq!(again.origin, Origin::Registry(registry.host()));
    assert_eq!(again.h1, first.h1);
    assert_eq!(registry.server.hits(&release.zip_path()), 2);
    assert!(
        std::fs::read(&again.executable).expect("read the provider")
            == crate::support::random_binary(),
        "the original provider is back"
    );
}

#[tokio::test]
async fn a_settled_entry_is_trusted_across_processes_until_a_file_changes_in_place() {
    let world = World::new();
    let registry = Registry::start(&world.pki).await;
    let release = Release::real("hashicorp", "random", "3.6.3");
    registry.publish(&release);
    let source = registry.source("hashicorp", "random");
    let first = world
        .installer()
        .install_str(&source, "3.6.3")
        .await
        .expect("install");
    // Files written just now are hashed by the next process; once their stamps have settled,
    // that hash is recorded with them and later processes only compare stamps.
    wait_until_unchanged_for(&first.dir, tfp_registry::SETTLE);
    let checked = world
        .installer()
        .install_str(&source, "3.6.3")
        .await
        .expect("from the cache");
    assert_eq!(checked.origin, Origin::Cache);
    let record = first.dir.with_extension("json");
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&record).expect("the record")).expect("JSON");
    let checked_ns = record["checked_ns"].as_i64().expect("when it was checked");
    for file in record["files"].as_array().expect("files") {
        let ctime_ns = file["identity"]["ctime_ns"]
            .as_i64()
            .unwrap_or_else(|| panic!("a full stamp: {file}"));
        assert!(
            ctime_ns + tfp_registry::SETTLE.as_nanos() as i64 <= checked_ns,
            "settled when checked: {file}"
        );
    }

    // A record damaged on disk is not trusted: its checksum tells, and the entry is hashed again.
    let record_path = first.dir.with_extension("json");
    let text = std::fs::read_to_string(&record_path).expect("the record");
    let h1 = first.h1.strip_prefix("h1:").expect("an h1 hash");
    let flipped = if h1.starts_with('K') { 'L' } else { 'K' };
    let damaged = text.replacen(h1, &format!("{flipped}{}", &h1[1..]), 1);
    assert_ne!(damaged, text, "the record holds the hash");
    std::fs::write(&record_path, damaged).expect("damage the record");
    let rehashed = world
        .installer()
        .install_str(&source, "3.6.3")
        .await
        .expect("from the cache");
    assert_eq!(rehashed.origin, Origin::Cache);
    assert_eq!(rehashed.h1, first.h1, "the damaged hash is not taken");

    // The inode stays too: the change time tells.
    flip_a_byte_in_place(&first.executable);
    let again = world
        .installer()
        .install_str(&source, "3.6.3")
        .await
        .expect("reinstall");
    assert_eq!(again.origin, Origin::Registry(registry.host()));
    assert_eq!(registry.server.hits(&release.zip_path()), 2);
}

/// Flips one byte of `path` in place, with its size and modification time as they were.
fn flip_a_byte_in_place(path: &std::path::Path) {
    let modified = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .expect("mtime");
    let mut bytes = std::fs::read(path).expect("read the provider");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x01;
    std::fs::write(path, &bytes).expect("tamper");
    std::fs::File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(modified))
        .expect("restore the mtime");
}
