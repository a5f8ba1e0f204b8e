//! The schema cache: after a first Parameterize, the next process answers Parameterize,
//! GetSchema and GetMapping without launching the provider, and launches it at the first RPC
//! that needs it. Entries are keyed by the provider's content (not its size and mtime), and
//! a provider that changes as it launches leaves none; a damaged entry is rebuilt with a
//! warning, processes filling the cache at once all succeed, and
//! `PULUMI_DYNAMIC_TF_SCHEMA_CACHE=off` turns it off.
//!
//! Launches are counted twice: as our processes' children in `/proc`, and as the provider
//! handshakes our debug log reports.

use std::{
    path::{Path, PathBuf},
    process::Command,
    time::Duration,
};

use pulumi_terraform_provider::proto::pulumirpc as rpc;
use serde_json::{Value as Json, json};
use tfp_schema_cache::{Entry, SWITCH};
use tfp_testkit::files::wait_until_unchanged_for;
use tonic::Code;

use crate::{
    plugin::Plugin,
    processes::{running, running_with, wait_for},
    support::{Fixtures, Mirror},
};

const BIN: &str = env!("CARGO_BIN_EXE_pulumi-resource-terraform-provider");

/// The debug line our host logs for every provider it launches.
const LAUNCHED: &str = "provider handshake";

/// Our binary with the schema cache in `cache` and our debug log on, plus `env`.
async fn plugin(cache: &Path, env: &[(&str, &Path)]) -> Plugin {
    let mut all = vec![
        ("PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR", cache),
        (SWITCH, Path::new("on")),
        (
            "RUST_LOG",
            Path::new("info,pulumi_terraform_provider=debug"),
        ),
    ];
    all.extend_from_slice(env);
    Plugin::start_with_env(&all).await
}

async fn get_schema(plugin: &mut Plugin) -> String {
    plugin
        .client
        .get_schema(rpc::GetSchemaRequest::default())
        .await
        .expect("GetSchema")
        .into_inner()
        .schema
}

/// The number of providers launched, from the debug log.
fn launches(stderr: &str) -> usize {
    stderr.matches(LAUNCHED).count()
}

/// The cache's entry files.
fn entries(cache: &Path) -> Vec<PathBuf> {
    let Ok(dir) = std::fs::read_dir(cache.join(".schemas")) else {
        return Vec::new();
    };
    dir.flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "entry"))
        .collect()
}

/// Files that a writer left half-done.
fn temporaries(cache: &Path) -> Vec<PathBuf> {
    let Ok(dir) = std::fs::read_dir(cache.join(".schemas")) else {
        return Vec::new();
    };
    dir.flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().contains(".tmp-"))
        .collect()
}

/// The only entry of `cache`.
fn entry(cache: &Path) -> PathBuf {
    let found = entries(cache);
    assert_eq!(found.len(), 1, "one entry: {found:?}");
    found.into_iter().next().expect("one entry")
}

/// Schemas are compared by equality: printing megabytes on a failure helps nobody.
fn assert_same(what: &str, got: &[u8], want: &[u8]) {
    assert!(
        got == want,
        "{what}: {} bytes differ from the {} bytes expected",
        got.len(),
        want.len()
    );
}

/// Cold, then warm: the same schema and mapping, and no provider process the second time.
/// `env` may name another plugin cache than `cache`.
async fn warm_answers_without_the_provider(
    fixture: &str,
    args: &[&str],
    name: &str,
    cache: &Path,
    env: &[(&str, &Path)],
) {
    let request = Plugin::parameterize_args(args);

    let mut cold = plugin(cache, env).await;
    let response = cold
        .client
        .parameterize(request.clone())
        .await
        .expect("Parameterize")
        .into_inner();
    assert_eq!(response.name, name, "{fixture}");
    let cold_schema = get_schema(&mut cold).await;
    let cold_mapping = cold.get_mapping().await;
    assert_eq!(cold.children().len(), 1, "{fixture}: launched when cold");
    assert_eq!(launches(&cold.stop().await), 1, "{fixture}");
    // Written on a thread of its own once the package schema was made; stopping waits for it.
    entry(cache);

    let mut warm = plugin(cache, env).await;
    let warm_response = warm
        .client
        .parameterize(request)
        .await
        .expect("Parameterize")
        .into_inner();
    assert_eq!(warm_response, response, "{fixture}");
    let warm_schema = get_schema(&mut warm).await;
    let warm_mapping = warm.get_mapping().await;
    assert_eq!(
        warm.children(),
        Vec::<u32>::new(),
        "{fixture}: no provider process when warm"
    );
    assert_same(fixture, warm_schema.as_bytes(), cold_schema.as_bytes());
    assert_same(fixture, &warm_mapping, &cold_mapping);
    let stderr = warm.stop().await;
    assert_eq!(launches(&stderr), 0, "{fixture}: {stderr}");
}

#[tokio::test]
async fn a_warm_cache_answers_for_aws_without_launching_it() {
    let aws = Fixtures::load().path("aws_3_39_0");
    let cache = tempfile::tempdir().expect("temp dir");
    let args = [aws.to_string_lossy()];
    let args = [args[0].as_ref()];
    warm_answers_without_the_provider("aws_3_39_0", &args, "aws", cache.path(), &[]).await;
}

#[tokio::test]
async fn a_warm_cache_answers_for_pyvider_without_launching_it() {
    let pyvider = Fixtures::load().path("pyvider");
    let cache = tempfile::tempdir().expect("temp dir");
    let args = [pyvider.to_string_lossy()];
    let args = [args[0].as_ref()];
    warm_answers_without_the_provider("pyvider", &args, "pyvider", cache.path(), &[]).await;
}

#[tokio::test]
async fn a_warm_cache_answers_for_an_installed_provider_without_launching_it() {
    let mirror = Mirror::new();
    let env = mirror.env();
    let env: Vec<(&str, &Path)> = env.iter().map(|(k, v)| (*k, v.as_path())).collect();
    warm_answers_without_the_provider(
        "registry random",
        &[Mirror::SOURCE, Mirror::VERSION],
        "random",
        &mirror.cache(),
        &env,
    )
    .await;
}

#[tokio::test]
async fn the_first_rpc_that_needs_the_provider_launches_it_and_shutdown_stops_it() {
    let cache = tempfile::tempdir().expect("temp dir");
    let pyvider = Fixtures::load().path("pyvider");
    let mut cold = plugin(cache.path(), &[]).await;
    cold.parameterize(&pyvider, "pyvider").await;
    let (cold_checked, _) = cold.configure("pyvider", json!({})).await;
    cold.stop().await;

    let mut warm = plugin(cache.path(), &[]).await;
    warm.parameterize(&pyvider, "pyvider").await;
    assert_eq!(warm.children(), Vec::<u32>::new(), "not launched yet");
    let (checked, _) = warm.configure("pyvider", json!({})).await;
    assert_eq!(checked, cold_checked, "CheckConfig answers as when cold");
    assert_eq!(warm.children().len(), 1, "launched by CheckConfig");
    // `stop` checks that the provider is gone with us.
    let stderr = warm.stop().await;
    assert_eq!(launches(&stderr), 1, "{stderr}");
    assert!(
        stderr.contains("launching the provider for the first RPC that needs it"),
        "{stderr}"
    );
}

/// A launcher script whose provider hangs before its handshake while `flag` exists, and is
/// random 3.6.3 otherwise: the cache knows it, and its launch can be made to hang.
fn launcher(dir: &tempfile::TempDir, flag: &Path, marker: &str) -> PathBuf {
    let random = Fixtures::load().path("random_3_6_3");
    let script = crate::support::script(
        dir,
        "terraform-provider-random",
        &format!(
            "if [ -e '{}' ]; then exec sleep {marker}; fi\nexec '{}' \"$@\"",
            flag.display(),
            random.display()
        ),
    );
    settle(&script);
    script
}

/// Lets the clock pass the point where `file`, written just now, has a settled stamp: only then
/// is its digest remembered, and a later Parameterize answered without hashing or launching it
/// (a file not remembered is hashed while the provider starts).
fn settle(file: &Path) {
    wait_until_unchanged_for(file, tfp_registry::SETTLE);
}

#[tokio::test]
async fn a_provider_whose_live_schema_differs_gets_its_own_package_schema() {
    // A launcher that runs tls 3.4.0, or 4.0.5 once `flag` exists: same file, same cache key.
    let dir = tempfile::tempdir().expect("temp dir");
    let flag = dir.path().join("newer");
    let fixtures = Fixtures::load();
    let script = crate::support::script(
        &dir,
        "terraform-provider-tls",
        &format!(
            "if [ -e '{}' ]; then exec '{}' \"$@\"; fi\nexec '{}' \"$@\"",
            flag.display(),
            fixtures.path("tls_4_0_5").display(),
            fixtures.path("tls_3_4_0").display()
        ),
    );
    settle(&script);
    let (cache, newer_cache) = (
        tempfile::tempdir().expect("dir"),
        tempfile::tempdir().expect("dir"),
    );
    let mut older = plugin(cache.path(), &[]).await;
    older.parameterize(&script, "tls").await;
    let older_schema = get_schema(&mut older).await;
    older.stop().await;

    std::fs::write(&flag, "").expect("flag");
    let mut newer = plugin(newer_cache.path(), &[]).await;
    newer.parameterize(&script, "tls").await;
    let newer_schema = get_schema(&mut newer).await;
    newer.stop().await;
    assert_ne!(
        older_schema, newer_schema,
        "the two releases' package schemas differ"
    );

    // Answered from the cache, then launched by CheckConfig, which finds the newer schema: from
    // then on GetSchema answers from it, as GetMapping does.
    let mut warm = plugin(cache.path(), &[]).await;
    warm.parameterize(&script, "tls").await;
    warm.configure("tls", json!({})).await;
    let schema = get_schema(&mut warm).await;
    let stderr = warm.stop().await;
    assert!(
        stderr.contains("the provider's schema differs from the cached one"),
        "{stderr}"
    );
    assert!(
        schema == newer_schema,
        "GetSchema answered the cached, older schema"
    );
}

/// A launcher of random 3.6.3 that counts its starts, one line each in the file it returns
/// beside itself, and runs the shell lines `before` first; its schemas are in the cache in
/// `cache`, and the count is empty.
async fn counting_launcher(
    dir: &tempfile::TempDir,
    cache: &Path,
    before: &str,
) -> (PathBuf, PathBuf) {
    let starts = dir.path().join("starts");
    let random = Fixtures::load().path("random_3_6_3");
    let script = crate::support::script(
        dir,
        "terraform-provider-random",
        &format!(
            "echo start >> '{starts}'\n{before}\nexec '{random}' \"$@\"",
            starts = starts.display(),
            random = random.display()
        ),
    );
    settle(&script);
    let mut cold = plugin(cache, &[]).await;
    cold.parameterize(&script, "random").await;
    cold.stop().await;
    std::fs::remove_file(&starts).expect("the count restarts");
    (script, starts)
}

/// How many times the launcher of [`counting_launcher`] started.
fn started(starts: &Path) -> usize {
    std::fs::read_to_string(starts)
        .expect("the count")
        .lines()
        .count()
}

/// CheckConfig of random's default provider, empty, through `client`: the first RPC that needs
/// the provider.
async fn check_config(
    mut client: rpc::resource_provider_client::ResourceProviderClient<tonic::transport::Channel>,
) -> Result<tonic::Response<rpc::CheckResponse>, tonic::Status> {
    client
        .check_config(rpc::CheckRequest {
            urn: "urn:pulumi:test::proj::pulumi:providers:random::default".into(),
            olds: Some(crate::plugin::object(json!({}))),
            news: Some(crate::plugin::object(json!({}))),
            ..Default::default()
        })
        .await
}

#[tokio::test]
async fn calls_waiting_on_a_launch_that_fails_share_its_failure() {
    // A launcher that fails after a second while `flag` exists, and is random 3.6.3 otherwise.
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    let flag = dir.path().join("broken");
    let before = format!(
        "if [ -e '{}' ]; then sleep 1; echo 'cannot start' >&2; exit 1; fi",
        flag.display()
    );
    let (script, starts) = counting_launcher(&dir, cache.path(), &before).await;

    std::fs::write(&flag, "").expect("flag");
    let mut warm = plugin(cache.path(), &[]).await;
    warm.parameterize(&script, "random").await;
    let calls: Vec<_> = (0..4)
        .map(|_| tokio::spawn(check_config(warm.client.clone())))
        .collect();
    for call in calls {
        let failed = call.await.expect("joins").expect_err("the launch fails");
        assert!(failed.message().contains("cannot start"), "{failed:?}");
    }
    warm.stop().await;
    assert_eq!(started(&starts), 1, "one launch for the four calls");
}

#[tokio::test]
async fn a_caller_that_goes_away_leaves_the_launch_to_those_waiting_for_it() {
    // A launcher that takes a second before it runs random 3.6.3.
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    let (script, starts) = counting_launcher(&dir, cache.path(), "sleep 1").await;

    let mut warm = plugin(cache.path(), &[]).await;
    warm.parameterize(&script, "random").await;
    // The first call starts the launch and hangs up in the middle of it, as the engine does
    // with a call it gives up on; the second waits for the same launch.
    let gone = tokio::spawn(tokio::time::timeout(
        Duration::from_millis(300),
        check_config(warm.client.clone()),
    ));
    tokio::time::sleep(Duration::from_millis(100)).await;
    let waiting = tokio::spawn(check_config(warm.client.clone()));
    assert!(
        gone.await.expect("joins").is_err(),
        "the first call hung up before the launch was done"
    );
    waiting
        .await
        .expect("joins")
        .expect("the launch the first call started serves the second");
    let children = warm.children();
    warm.stop().await;
    assert_eq!(children.len(), 1, "one provider runs");
    assert_eq!(started(&starts), 1, "one launch for the two calls");
}

#[tokio::test]
async fn cancel_and_shutdown_end_a_launch_under_way() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    let flag = dir.path().join("hang");
    let marker = "298.625";
    let provider = launcher(&dir, &flag, marker);
    let mut cold = plugin(cache.path(), &[]).await;
    cold.parameterize(&provider, "random").await;
    get_schema(&mut cold).await;
    cold.stop().await;

    std::fs::write(&flag, b"").expect("flag");
    let mut warm = plugin(cache.path(), &[]).await;
    warm.parameterize(&provider, "random").await;
    for round in ["Cancel", "SIGTERM"] {
        let mut client = warm.client.clone();
        let check = tokio::spawn(async move {
            client
                .check_config(rpc::CheckRequest {
                    urn: "urn:pulumi:test::proj::pulumi:providers:random::default".into(),
                    ..Default::default()
                })
                .await
        });
        let hanging = tokio::task::spawn_blocking(move || {
            wait_for(Duration::from_secs(30), || {
                running_with(marker).into_iter().next()
            })
        })
        .await
        .expect("joins")
        .expect("the launch starts the provider");
        if round == "SIGTERM" {
            // `stop` sends SIGTERM and checks that our binary exits cleanly and that what it
            // launched is gone.
            warm.stop().await;
            assert!(!running(hanging), "the launch under way ended with us");
            let failed = check.await.expect("joins").expect_err("no provider");
            assert!(
                matches!(failed.code(), Code::Unavailable | Code::Cancelled),
                "{failed:?}"
            );
            return;
        }
        warm.client.cancel(()).await.expect("Cancel");
        let failed = check.await.expect("joins").expect_err("cancelled");
        assert_eq!(failed.code(), Code::Cancelled, "{failed:?}");
        let gone = wait_for(Duration::from_secs(5), || (!running(hanging)).then_some(()));
        assert!(gone.is_some(), "the cancelled launch's provider is gone");
    }
}

/// The `schema` subcommand with the cache in `cache` and our debug log on.
fn schema_command(cache: &Path, args: &[&Path]) -> Command {
    let mut command = Command::new(BIN);
    command
        .arg("schema")
        .args(args)
        .env("PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR", cache)
        .env(SWITCH, "on")
        .env("RUST_LOG", "info,pulumi_terraform_provider=debug");
    command
}

/// The package schema of `provider` from the `schema` subcommand, and its stderr.
fn schema_of(cache: &Path, provider: &Path) -> (Json, String) {
    let output = schema_command(cache, &[provider])
        .output()
        .expect("schema runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    let schema = serde_json::from_slice(&output.stdout).expect("a JSON schema");
    (schema, stderr)
}

#[test]
fn a_provider_rewritten_in_place_with_the_same_size_and_mtime_is_not_taken_for_the_old_one() {
    let fixtures = Fixtures::load();
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    let provider = dir.path().join("terraform-provider-x");
    // Two launchers of the same length, for random 3.6.3 and for tls 3.4.0.
    let launch = |target: PathBuf| format!("#!/bin/sh\nexec '{}' \"$@\"\n", target.display());
    let (random, tls) = (
        launch(fixtures.path("random_3_6_3")),
        launch(fixtures.path("tls_3_4_0")),
    );
    let width = random.len().max(tls.len());
    let pad = |text: String| format!("{text}#{}\n", " ".repeat(width - text.len()));
    let (random, tls) = (pad(random), pad(tls));
    assert_eq!(random.len(), tls.len());
    std::fs::write(&provider, &random).expect("write the launcher");
    let mut permissions = std::fs::metadata(&provider).expect("stat").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&provider, permissions).expect("chmod");
    // So that the memory of the first launcher's digest is what is tested.
    settle(&provider);

    let (first, stderr) = schema_of(cache.path(), &provider);
    assert_eq!(launches(&stderr), 1, "{stderr}");
    let (again, stderr) = schema_of(cache.path(), &provider);
    assert_eq!(launches(&stderr), 0, "warm: {stderr}");
    assert_eq!(again, first);
    let resources = |schema: &Json| -> Vec<String> {
        schema["resources"]
            .as_object()
            .map(|r| r.keys().cloned().collect())
            .unwrap_or_default()
    };
    assert!(
        resources(&first).contains(&"x:index/pet:Pet".to_owned()),
        "{:?}",
        resources(&first)
    );

    // The same file, rewritten in place (same inode), with the same size and mtime.
    let before = std::fs::metadata(&provider).expect("stat");
    std::fs::write(&provider, &tls).expect("rewrite in place");
    std::fs::File::options()
        .write(true)
        .open(&provider)
        .and_then(|f| f.set_modified(before.modified().expect("mtime")))
        .expect("restore the mtime");
    let after = std::fs::metadata(&provider).expect("stat");
    assert_eq!(
        (after.len(), after.modified().ok()),
        (before.len(), before.modified().ok())
    );
    assert_eq!(
        std::os::unix::fs::MetadataExt::ino(&after),
        std::os::unix::fs::MetadataExt::ino(&before)
    );

    let (second, stderr) = schema_of(cache.path(), &provider);
    assert_eq!(
        launches(&stderr),
        1,
        "the new content is launched: {stderr}"
    );
    assert!(
        resources(&second).contains(&"x:index/privateKey:PrivateKey".to_owned()),
        "the new provider's schema: {:?}",
        resources(&second)
    );
    assert!(!resources(&second).contains(&"x:index/pet:Pet".to_owned()));
}

/// Runs `schema` on `provider`, a launcher of random 3.6.3 that appends to itself as it launches,
/// and checks that random's schema came back and that nothing was stored.
fn launched_changed_and_not_stored(cache: &Path, provider: &Path) {
    let (schema, stderr) = schema_of(cache, provider);
    assert_eq!(launches(&stderr), 1, "{stderr}");
    assert!(
        schema["resources"].get("random:index/pet:Pet").is_some(),
        "random's schema"
    );
    let launcher = std::fs::read_to_string(provider).expect("read the launcher");
    assert!(launcher.ends_with("# launched\n"), "{launcher}");
    assert!(
        stderr.contains("not cached: the file changed after it was launched"),
        "{stderr}"
    );
    assert_eq!(entries(cache), Vec::<PathBuf>::new(), "{stderr}");
}

/// A local provider not seen before is keyed by its content, read once its schemas are made, and
/// only if the file still has the stamp it had before it was launched. Here the file changes as
/// it launches (a launcher that appends to itself, then runs random 3.6.3): what would be read is
/// not what ran, and nothing is stored.
#[test]
fn a_provider_that_changes_as_it_launches_is_not_stored() {
    let random = Fixtures::load().path("random_3_6_3");
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    let provider = crate::support::script(
        &dir,
        "terraform-provider-random",
        &format!(
            "echo '# launched' >> \"$0\"\nexec '{}' \"$@\"",
            random.display()
        ),
    );

    launched_changed_and_not_stored(cache.path(), &provider);
}

/// A local provider whose digest is remembered is keyed by it at once; on a miss, what its launch
/// reads is stored only if the file still has the stamp the digest was remembered by. Here the
/// file is known, its entry gone, and it changes as it launches (appending to itself once `flag`
/// exists): nothing is stored under the digest of what it was.
#[test]
fn a_remembered_provider_that_changes_as_it_launches_is_not_stored() {
    let random = Fixtures::load().path("random_3_6_3");
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    let flag = dir.path().join("append");
    let provider = crate::support::script(
        &dir,
        "terraform-provider-random",
        &format!(
            "if [ -e '{}' ]; then echo '# launched' >> \"$0\"; fi\nexec '{}' \"$@\"",
            flag.display(),
            random.display()
        ),
    );
    settle(&provider);
    let (_, stderr) = schema_of(cache.path(), &provider);
    assert_eq!(launches(&stderr), 1, "{stderr}");
    let stored = entries(cache.path());
    assert_eq!(stored.len(), 1, "{stderr}");
    for entry in stored {
        std::fs::remove_file(entry).expect("remove the entry");
    }

    std::fs::write(&flag, "").expect("the flag");
    launched_changed_and_not_stored(cache.path(), &provider);
}

#[tokio::test]
async fn a_damaged_entry_is_reported_and_rebuilt() {
    let random = Fixtures::load().path("random_3_6_3");
    let cache = tempfile::tempdir().expect("temp dir");
    let mut cold = plugin(cache.path(), &[]).await;
    cold.parameterize(&random, "random").await;
    let want = get_schema(&mut cold).await;
    cold.stop().await;
    let path = entry(cache.path());
    let whole = std::fs::read(&path).expect("the entry");

    type Damage = fn(&mut Vec<u8>);
    let damages: [(&str, Damage); 3] = [
        ("cut short", |bytes| bytes.truncate(bytes.len() / 2)),
        ("one byte flipped", |bytes| {
            let middle = bytes.len() / 2;
            bytes[middle] ^= 0x20;
        }),
        ("emptied", Vec::clear),
    ];
    for (damage, apply) in damages {
        let mut bytes = whole.clone();
        apply(&mut bytes);
        std::fs::write(&path, &bytes).expect("damage the entry");

        let mut rebuilt = plugin(cache.path(), &[]).await;
        rebuilt.parameterize(&random, "random").await;
        assert_eq!(rebuilt.children().len(), 1, "{damage}: launched");
        assert_same(
            damage,
            get_schema(&mut rebuilt).await.as_bytes(),
            want.as_bytes(),
        );
        let stderr = rebuilt.stop().await;
        assert!(
            stderr
                .lines()
                .any(|l| l.contains("WARN") && l.contains("schema cache entry is damaged")),
            "{damage}: {stderr}"
        );
        assert_eq!(entry(cache.path()), path, "{damage}: rebuilt");

        let mut warm = plugin(cache.path(), &[]).await;
        warm.parameterize(&random, "random").await;
        assert_same(
            damage,
            get_schema(&mut warm).await.as_bytes(),
            want.as_bytes(),
        );
        assert_eq!(warm.children(), Vec::<u32>::new(), "{damage}: warm again");
        warm.stop().await;
    }
}

#[test]
fn processes_filling_the_cache_at_once_all_succeed() {
    let fixtures = Fixtures::load();
    let cache = tempfile::tempdir().expect("temp dir");
    let mut reads = 0;
    for fixture in ["random_3_6_3", "aws_3_39_0"] {
        let provider = fixtures.path(fixture);
        // Each on a thread that drains its output, so that none blocks on a full pipe.
        let running: Vec<_> = (0..3)
            .map(|_| {
                let child = schema_command(cache.path(), &[&provider])
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .expect("schema runs");
                std::thread::spawn(move || child.wait_with_output().expect("schema ends"))
            })
            .collect();
        // Meanwhile, a reader sees whole entries or none.
        while !running.iter().all(std::thread::JoinHandle::is_finished) {
            for path in entries(cache.path()) {
                if let Ok(bytes) = std::fs::read(&path) {
                    if let Err(err) = Entry::decode(bytes) {
                        panic!("{fixture}: a reader saw {}: {err}", path.display());
                    }
                    reads += 1;
                }
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        let outputs: Vec<_> = running
            .into_iter()
            .map(|t| t.join().expect("joins"))
            .collect();
        for output in &outputs {
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(output.status.success(), "{fixture}: {stderr}");
            // Not even a write that failed quietly, or a reader that saw half an entry.
            assert!(!stderr.contains("WARN"), "{fixture}: {stderr}");
            assert_same(fixture, &output.stdout, &outputs[0].stdout);
        }
        assert_eq!(temporaries(cache.path()), Vec::<PathBuf>::new());
        let warm = schema_command(cache.path(), &[&provider])
            .output()
            .expect("schema runs");
        let stderr = String::from_utf8_lossy(&warm.stderr);
        assert_eq!(
            launches(&stderr),
            0,
            "{fixture}: the entry is valid: {stderr}"
        );
        assert_same(fixture, &warm.stdout, &outputs[0].stdout);
    }
    assert_eq!(entries(cache.path()).len(), 2);
    assert!(reads > 0, "the reader read entries while they were written");
}

#[tokio::test]
async fn the_switch_turns_the_cache_off() {
    let random = Fixtures::load().path("random_3_6_3");
    let cache = tempfile::tempdir().expect("temp dir");
    let off = [(SWITCH, Path::new("off"))];
    let mut plugin_off = plugin(cache.path(), &off).await;
    plugin_off.parameterize(&random, "random").await;
    get_schema(&mut plugin_off).await;
    plugin_off.stop().await;
    assert!(
        !cache.path().join(".schemas").exists(),
        "nothing is written with the cache off"
    );

    let mut warm_up = plugin(cache.path(), &[]).await;
    warm_up.parameterize(&random, "random").await;
    get_schema(&mut warm_up).await;
    warm_up.stop().await;
    entry(cache.path());

    for value in ["off", "false", "0"] {
        let mut plugin_off = plugin(cache.path(), &[(SWITCH, Path::new(value))]).await;
        plugin_off.parameterize(&random, "random").await;
        assert_eq!(
            plugin_off.children().len(),
            1,
            "{SWITCH}={value}: the provider is launched despite the entry"
        );
        plugin_off.stop().await;
    }

    let mut unclear = plugin(cache.path(), &[(SWITCH, Path::new("sometimes"))]).await;
    unclear.parameterize(&random, "random").await;
    assert_eq!(unclear.children(), Vec::<u32>::new(), "the cache stays on");
    let stderr = unclear.stop().await;
    assert!(
        stderr.contains("\"sometimes\" is neither on nor off"),
        "{stderr}"
    );
}
