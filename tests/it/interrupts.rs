//! Signals end the process promptly whatever it waits on, and leave the cache consistent.
//!
//! The wait here is another installer holding the package's lock: the test takes the lock
//! itself, as a second `install` or plugin would.

use std::{
    io::{BufRead as _, BufReader},
    process::{Command, Stdio},
    time::Duration,
};

use crate::{
    plugin::Plugin,
    processes::{StopOnDrop, exited_within, has_open, signal, wait_for},
    support::Mirror,
};

const BIN: &str = env!("CARGO_BIN_EXE_pulumi-resource-terraform-provider");

/// How long a process may take to exit after a signal before the test calls it stuck. The
/// promise is five seconds; the bound leaves room for a loaded machine.
const EXIT_BOUND: Duration = Duration::from_secs(10);

#[test]
fn sigint_ends_an_install_waiting_for_the_cache_lock() {
    let mirror = Mirror::new();
    let held = mirror.hold_lock();
    let mut install = Command::new(BIN)
        .args(["install", Mirror::SOURCE, Mirror::VERSION])
        .envs(mirror.env())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let stop_install = StopOnDrop::new(install.id());
    // It says that it waits, and for what, before it waits.
    let (lines, said) = std::sync::mpsc::channel();
    let mut reader = BufReader::new(install.stderr.take().expect("piped"));
    let reading = std::thread::spawn(move || {
        let mut all = String::new();
        let mut line = String::new();
        while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
            let _ = lines.send(line.clone());
            all.push_str(&line);
            line.clear();
        }
        all
    });
    let notice = std::iter::from_fn(|| said.recv_timeout(Duration::from_secs(30)).ok())
        .find(|line| line.contains("waiting for another installer of this package"));
    let notice = notice.expect("install says it waits for the lock");
    assert!(
        notice.contains(&mirror.lock_path().display().to_string()),
        "{notice}"
    );
    assert!(has_open(install.id(), &mirror.lock_path()));
    signal(install.id(), "INT");
    // Still running, it is stopped on the way out.
    let status = exited_within(&mut install, EXIT_BOUND)
        .unwrap_or_else(|| panic!("install still running {EXIT_BOUND:?} after SIGINT"));
    stop_install.dismiss();
    let stderr = reading.join().expect("stderr read to its end");
    assert!(!status.success(), "interrupted, so not a success");
    assert!(stderr.contains("stopped by SIGINT"), "{stderr}");
    assert!(!mirror.entry().exists(), "no entry appeared");
    assert_eq!(mirror.leftovers(), Vec::<String>::new());

    // The cache is usable once the other holder is done.
    drop(held);
    let again = Command::new(BIN)
        .args(["install", Mirror::SOURCE, Mirror::VERSION])
        .envs(mirror.env())
        .output()
        .expect("runs");
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert!(mirror.entry().join(Mirror::EXECUTABLE).is_file());
}

#[tokio::test]
async fn sigterm_ends_the_plugin_while_parameterize_waits_for_the_cache_lock() {
    let mirror = Mirror::new();
    let held = mirror.hold_lock();
    let (mut plugin, parameterize) = parameterize_waiting_for_the_lock(&mirror).await;
    let pid = plugin.pid();
    signal(pid, "TERM");
    let exited =
        tokio::task::spawn_blocking(move || plugin.exited_within(EXIT_BOUND).map(|s| (s, plugin)))
            .await
            .expect("joins");
    let Some((status, _plugin)) = exited else {
        panic!("the plugin still runs {EXIT_BOUND:?} after SIGTERM");
    };
    assert!(
        status.success(),
        "SIGTERM stops the server cleanly: {status}"
    );
    let answer = parameterize.await.expect("joins");
    assert!(answer.is_err(), "Parameterize did not finish: {answer:?}");
    assert!(!mirror.entry().exists(), "no entry appeared");
    assert_eq!(mirror.leftovers(), Vec::<String>::new());
    drop(held);
}

/// Our binary, in a Parameterize of the mirror's provider that waits for the package's lock
/// (which the caller holds): the plugin, and the Parameterize call's task.
pub(crate) async fn parameterize_waiting_for_the_lock(
    mirror: &Mirror,
) -> (
    Plugin,
    tokio::task::JoinHandle<
        Result<
            tonic::Response<pulumi_terraform_provider::proto::pulumirpc::ParameterizeResponse>,
            tonic::Status,
        >,
    >,
) {
    let env = mirror.env();
    let env: Vec<(&str, &std::path::Path)> = env.iter().map(|(k, v)| (*k, v.as_path())).collect();
    let plugin = Plugin::start_with_env(&env).await;
    let mut client = plugin.client.clone();
    let parameterize = tokio::spawn(async move {
        client
            .parameterize(Plugin::parameterize_args(&[
                Mirror::SOURCE,
                Mirror::VERSION,
            ]))
            .await
    });
    let (pid, lock) = (plugin.pid(), mirror.lock_path());
    let waiting = tokio::task::spawn_blocking(move || {
        wait_for(Duration::from_secs(30), || {
            has_open(pid, &lock).then_some(())
        })
    })
    .await
    .expect("joins");
    assert!(waiting.is_some(), "Parameterize never opened the lock file");
    (plugin, parameterize)
}
