//! Launch and crash faults: each must be a clear error, and leave no process or socket.

use std::time::Duration;

use pulumi_terraform_provider::host::{Error, Provider};
use tfp_goplugin::{Error as LaunchError, Launch};

use crate::support::{launch, script, traces_of};

#[tokio::test]
async fn provider_killed_mid_rpc_reports_its_exit_and_stderr() {
    let fixtures = crate::support::Fixtures::load();
    // With logging on, the provider writes routine lines that the crash report leaves out.
    let mut launch = Launch::new(fixtures.path("aws_3_39_0"));
    launch.env.push(("TF_LOG".into(), "trace".into()));
    let provider = Provider::launch(launch).await.expect("aws starts");
    let traces = traces_of(&provider);
    let pid = provider.pid().expect("a launched provider has a pid");
    let client = provider.client().clone();
    let call = tokio::spawn(async move { client.get_provider_schema().await });
    // SIGQUIT makes the Go runtime print every goroutine's stack, as a panic does, and die.
    // The signal is ours to send: we started this process.
    let killed = std::process::Command::new("kill")
        .args(["-QUIT", &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let err = match call.await.expect("task joins") {
        Ok(_) => provider
            .client()
            .get_provider_schema()
            .await
            .expect_err("a dead provider cannot answer"),
        Err(err) => err,
    };
    let text = err.to_string();
    assert!(matches!(err, Error::Crashed { .. }), "{text}");
    assert!(
        text.contains("terraform-provider-aws_v3.39.0_x5"),
        "names the provider: {text}"
    );
    // Go exits with status 2 after the dump, or re-raises a signal when GOTRACEBACK asks it to
    // crash (Go 1.16 here ends with SIGSEGV).
    assert!(
        text.contains("(exit status 2") || text.contains("(killed by signal "),
        "says how it died: {text}"
    );
    assert!(
        text.contains("its last lines on stderr"),
        "quotes stderr: {text}"
    );
    assert!(
        text.contains("goroutine "),
        "quotes the Go runtime's dump: {text}"
    );
    assert!(
        !text.contains("\"@level\":\"trace\""),
        "leaves routine log lines out: {text}"
    );
    drop(provider);
    traces.assert_gone().await;
}

#[tokio::test]
async fn a_binary_that_never_prints_a_handshake_times_out() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = script(
        &dir,
        "terraform-provider-silent",
        "echo 'Usage: silent [serve]'\necho 'getting ready' >&2\nexec sleep 60",
    );
    let mut launch = Launch::new(&path);
    launch.start_timeout = Duration::from_millis(500);
    let err = Provider::launch(launch).await.expect_err("no handshake");
    let text = err.to_string();
    assert!(
        matches!(err, Error::Launch(LaunchError::StartTimeout { .. })),
        "{text}"
    );
    assert!(
        text.contains("terraform-provider-silent printed no go-plugin handshake within 500ms"),
        "{text}"
    );
    assert!(
        text.contains("; it printed on stdout instead:\n    Usage: silent [serve]"),
        "quotes stdout: {text}"
    );
    assert!(text.contains("getting ready"), "quotes stderr: {text}");
    assert_no_children_named("sleep 60");
}

#[tokio::test]
async fn a_garbage_handshake_line_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (line, reason) in [
        (
            "1|9|unix|/tmp/nowhere|grpc|",
            "the plugin chose protocol \"9\"",
        ),
        ("1|6|carrier-pigeon|coop|grpc|", "unsupported network type"),
        ("1|6|unix", "expected at least 5"),
        (
            "1|5|unix|/tmp/nowhere|netrpc|",
            "unsupported plugin protocol \"netrpc\"",
        ),
    ] {
        let path = script(
            &dir,
            "terraform-provider-garbage",
            &format!("echo '{line}'\nexec sleep 60"),
        );
        let err = Provider::launch(Launch::new(&path))
            .await
            .expect_err("garbage handshake");
        let text = format!("{err:#}");
        let chain = format!(
            "{text}: {}",
            std::error::Error::source(&err)
                .map(|s| s.to_string())
                .unwrap_or_default()
        );
        assert!(
            matches!(err, Error::Launch(LaunchError::Handshake { .. })),
            "{text}"
        );
        assert!(chain.contains(reason), "{line}: {chain}");
        assert!(text.contains(line), "quotes the line: {text}");
    }
    assert_no_children_named("sleep 60");
}

#[tokio::test]
async fn a_provider_that_closes_stdout_and_keeps_running_fails_in_time() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A wrapper that sends stdout elsewhere, or closes it, leaves the launcher at EOF with a
    // process still running: the launch must end with the start timeout, not wait for the exit.
    let marker = "1000.301";
    let path = script(
        &dir,
        "terraform-provider-mute",
        &format!("echo 'closing stdout' >&2\nexec 1>&-\nsleep {marker}"),
    );
    let mut launch = Launch::new(&path);
    launch.start_timeout = Duration::from_secs(1);
    // A bound against a hang, not a timing: the launch would otherwise wait for the sleep.
    let launched = tokio::time::timeout(Duration::from_secs(10), Provider::launch(launch)).await;
    let Ok(launched) = launched else {
        // The dropped launch kills the script's process group, on this runtime: let it, and
        // kill what is left, before failing.
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_gone_with(marker, "after its launch hung");
        panic!("the launch did not end within 10 s");
    };
    let err = launched.expect_err("no handshake");
    let text = err.to_string();
    assert!(
        matches!(err, Error::Launch(LaunchError::ClosedStdout { .. })),
        "{text}"
    );
    assert!(
        text.contains("terraform-provider-mute closed its standard output"),
        "{text}"
    );
    assert!(text.contains("closing stdout"), "quotes stderr: {text}");
    assert_no_children_named("terraform-provider-mute");
    assert_gone_with(marker, "after its launch failed");
}

#[tokio::test]
async fn a_refused_handshake_leaves_no_socket_behind() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A provider for Terraform 0.11 listens on a unix socket, then is refused for its protocol:
    // its socket must go with it.
    let socket = dir.path().join("plugin302");
    let path = script(
        &dir,
        "terraform-provider-old",
        &format!(
            "python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' \
             '{socket}' || exit 3\n\
             echo '1|4|unix|{socket}|netrpc|'\nexec sleep 60.302",
            socket = socket.display()
        ),
    );
    let err = Provider::launch(Launch::new(&path))
        .await
        .expect_err("protocol 4 is refused");
    let chain = format!(
        "{err}: {}",
        std::error::Error::source(&err)
            .map(|s| s.to_string())
            .unwrap_or_default()
    );
    assert!(
        matches!(err, Error::Launch(LaunchError::Handshake { .. })),
        "{chain}"
    );
    assert!(
        chain.contains("protocol \"4\""),
        "names the protocol: {chain}"
    );
    assert!(
        chain.contains("supports plugin protocol 5 or 6"),
        "says what to do: {chain}"
    );
    assert!(!socket.exists(), "the provider's socket is left behind");
    assert_gone_with("60.302", "after its handshake was refused");

    // A line naming a file that is not a socket leaves that file alone.
    let file = dir.path().join("not-a-socket");
    std::fs::write(&file, "keep me").expect("write file");
    let path = script(
        &dir,
        "terraform-provider-old",
        &format!(
            "echo '1|4|unix|{}|netrpc|'\nexec sleep 60.303",
            file.display()
        ),
    );
    Provider::launch(Launch::new(&path))
        .await
        .expect_err("protocol 4 is refused");
    assert_eq!(
        std::fs::read_to_string(&file).expect("the file is still there"),
        "keep me"
    );
    assert_gone_with("60.303", "after its handshake was refused");
}

#[tokio::test]
async fn a_handshake_naming_another_programs_socket_leaves_it_alone() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Another program's socket, made before the provider starts (an agent, a daemon).
    let theirs = dir.path().join("agent.sock");
    let listener = std::os::unix::net::UnixListener::bind(&theirs).expect("bind");
    // In an earlier second than the provider's spawn: some file systems keep whole seconds.
    std::thread::sleep(Duration::from_millis(1100));
    // A line we refuse, then one we accept: connecting to a socket that never completes the
    // TLS handshake ends at the start's limit, or 5 s after the handshake if that is later,
    // with an error that says where it stuck.
    let certificate = "A".repeat(400);
    for (line, marker) in [
        (format!("1|4|unix|{}|netrpc|", theirs.display()), "60.305"),
        (
            format!("1|6|unix|{}|grpc|{certificate}", theirs.display()),
            "60.306",
        ),
    ] {
        let path = script(
            &dir,
            "terraform-provider-confused",
            &format!("echo '{line}'\nexec sleep {marker}"),
        );
        let mut launch = Launch::new(&path);
        launch.start_timeout = Duration::from_secs(2);
        let started = std::time::Instant::now();
        let err = Provider::launch(launch).await.expect_err("refused");
        let text = format!("{err}");
        if marker == "60.306" {
            assert!(
                matches!(err, Error::Launch(LaunchError::ConnectTimeout { .. })),
                "{text}"
            );
            assert!(
                text.contains(&format!(
                    "terraform-provider-confused printed its go-plugin handshake but did not \
                     complete the connection (TLS and HTTP/2) at unix:{} in the 5s after it",
                    theirs.display()
                )),
                "{text}"
            );
            assert!(started.elapsed() < Duration::from_secs(10), "{text}");
        }
        assert_gone_with(marker, "after its launch failed");
        assert!(theirs.exists(), "their socket was removed after: {text}");
    }
    drop(listener);
}

#[tokio::test]
async fn a_provider_that_dies_after_its_handshake_says_how() {
    let dir = tempfile::tempdir().expect("temp dir");
    let socket = dir.path().join("plugin.sock");
    let path = script(
        &dir,
        "terraform-provider-fragile",
        &format!(
            "echo '1|6|unix|{}|grpc|'\necho 'panic: the region is not set' >&2\nexit 2",
            socket.display()
        ),
    );
    let err = Provider::launch(Launch::new(&path))
        .await
        .expect_err("it died");
    let text = err.to_string();
    assert!(
        matches!(err, Error::Launch(LaunchError::ExitedAfterHandshake { .. })),
        "{text}"
    );
    assert!(
        text.contains(
            "terraform-provider-fragile exited right after its go-plugin handshake, before we \
             could connect to unix:"
        ),
        "{text}"
    );
    assert!(text.contains("(exit status 2)"), "{text}");
    assert!(
        text.contains("panic: the region is not set"),
        "quotes stderr: {text}"
    );
}

#[tokio::test]
async fn an_executable_that_is_not_a_provider_is_refused() {
    let err = Provider::launch(Launch::new("/bin/ls"))
        .await
        .expect_err("ls is not a provider");
    let text = err.to_string();
    assert!(
        matches!(
            err,
            Error::Launch(LaunchError::ExitedBeforeHandshake { .. })
        ),
        "{text}"
    );
    assert!(
        text.contains("ls exited before completing the go-plugin handshake (exit status 0)"),
        "{text}"
    );
    // What it printed is what says it is not a provider: here, the working directory's listing.
    let (_, stdout) = text
        .split_once("; it printed on stdout instead:\n")
        .unwrap_or_else(|| panic!("quotes stdout: {text}"));
    assert!(stdout.contains("    Cargo.toml\n"), "{text}");

    let err = Provider::launch(Launch::new("/nonexistent/terraform-provider-x"))
        .await
        .expect_err("no such file");
    assert!(
        matches!(err, Error::Launch(LaunchError::Spawn { .. })),
        "{err}"
    );
}

#[tokio::test]
async fn shutdown_leaves_nothing_behind() {
    let provider = launch("random_3_6_3").await;
    let traces = traces_of(&provider);
    let report = provider
        .shutdown()
        .await
        .expect("a launched provider reports its exit");
    assert_eq!(
        report.status.and_then(|s| s.code()),
        Some(0),
        "clean exit after Shutdown: {report}"
    );
    traces.assert_gone().await;
}

#[tokio::test]
async fn dropping_a_provider_kills_it() {
    let provider = launch("random_3_6_3").await;
    let traces = traces_of(&provider);
    drop(provider);
    traces.assert_gone().await;
}

/// No process of ours runs `command` any more (the launcher must have killed and reaped them).
fn assert_no_children_named(command: &str) {
    let me = std::process::id().to_string();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").expect("procfs").flatten() {
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            // Field 4 of stat is the parent pid; the command name may contain spaces, so split
            // after its closing parenthesis.
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1));
            if ppid == Some(me.as_str()) && cmdline.contains(command) {
                found.push(entry.file_name());
            }
        }
        if found.is_empty() {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "children still running {command:?}: {found:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[tokio::test]
async fn a_provider_still_being_written_is_retried_until_it_can_run() {
    use std::io::Write as _;
    use std::os::unix::fs::PermissionsExt as _;
    let fixtures = crate::support::Fixtures::load();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("terraform-provider-random_v3.6.3");
    // Copy the provider while keeping the file open for writing, as an unpacker that has not yet
    // closed it would: exec then fails with ETXTBSY until the writer closes it.
    let bytes = std::fs::read(fixtures.path("random_3_6_3")).expect("read provider");
    let mut file = std::fs::File::create(&path).expect("create copy");
    file.write_all(&bytes).expect("write copy");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    // The writer lets go once the launch has said it will try again, so the first exec always
    // meets the busy file. The launch runs on this thread, whose events go to `retries`.
    let (retried, retries) = std::sync::mpsc::channel();
    let writer = std::thread::spawn(move || {
        retries
            .recv_timeout(Duration::from_secs(10))
            .expect("the launch says it will try again");
        drop(file);
    });
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_writer(move || Retries(retried.clone()))
        .finish();
    let launched = {
        let _events = tracing::subscriber::set_default(subscriber);
        Provider::launch(Launch::new(&path)).await
    };
    writer.join().expect("writer thread");
    let provider = launched.expect("started after a retry");
    let traces = traces_of(&provider);
    provider.shutdown().await.expect("exits");
    traces.assert_gone().await;

    // A writer that never lets go exhausts the retries with a clear error.
    let held = std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .expect("reopen for writing");
    let err = Provider::launch(Launch::new(&path))
        .await
        .expect_err("still busy");
    assert!(
        matches!(err, Error::Launch(LaunchError::TextFileBusy { .. })),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("exec failed with ETXTBSY after 4 attempts"),
        "{err}"
    );
    drop(held);
}

/// A `tracing` writer that sends a message on `0` for each line announcing a retry of a busy
/// executable.
struct Retries(std::sync::mpsc::Sender<()>);

impl std::io::Write for Retries {
    fn write(&mut self, line: &[u8]) -> std::io::Result<usize> {
        if String::from_utf8_lossy(line).contains("still open for writing; trying again") {
            // The writer may be gone already: it needs one message only.
            let _ = self.0.send(());
        }
        Ok(line.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A wrapper script that leaves a long-lived child of its own (`sleep <marker>`), then becomes
/// the real random provider, as shell wrappers and providers with helper processes do.
fn forking_provider(dir: &tempfile::TempDir, marker: &str) -> std::path::PathBuf {
    let fixtures = crate::support::Fixtures::load();
    script(
        dir,
        "terraform-provider-random",
        &format!(
            "sleep {marker} &\nexec '{}'",
            fixtures.path("random_3_6_3").display()
        ),
    )
}

/// Fails if a process running `sleep <marker>` is still alive after a bounded wait, and then
/// kills it: it is ours, started by a provider we launched.
fn assert_gone_with(marker: &str, after: &str) {
    let survivors = crate::processes::wait_for(Duration::from_secs(5), || {
        let left = crate::processes::running_with(&format!("sleep {marker}"));
        left.is_empty().then_some(())
    });
    if survivors.is_none() {
        let left = crate::processes::running_with(&format!("sleep {marker}"));
        for pid in &left {
            crate::processes::signal(*pid, "KILL");
        }
        panic!("the provider's child {left:?} outlived it {after}");
    }
}

#[tokio::test]
async fn what_a_provider_started_ends_with_it() {
    let dir = tempfile::tempdir().expect("temp dir");

    let marker = "298.101";
    let provider = Provider::launch(Launch::new(forking_provider(&dir, marker)))
        .await
        .expect("the wrapped provider starts");
    assert_eq!(
        crate::processes::running_with(&format!("sleep {marker}")).len(),
        1
    );
    let traces = traces_of(&provider);
    provider
        .shutdown()
        .await
        .expect("a launched provider reports its exit");
    traces.assert_gone().await;
    assert_gone_with(marker, "after Shutdown");

    let marker = "298.102";
    let provider = Provider::launch(Launch::new(forking_provider(&dir, marker)))
        .await
        .expect("the wrapped provider starts");
    let traces = traces_of(&provider);
    drop(provider);
    traces.assert_gone().await;
    assert_gone_with(marker, "after it was dropped");

    let marker = "298.103";
    let provider = Provider::launch(Launch::new(forking_provider(&dir, marker)))
        .await
        .expect("the wrapped provider starts");
    let traces = traces_of(&provider);
    crate::processes::signal(provider.pid().expect("launched"), "KILL");
    let err = provider
        .client()
        .get_provider_schema()
        .await
        .expect_err("a dead provider cannot answer");
    assert!(matches!(err, Error::Crashed { .. }), "{err}");
    assert_gone_with(marker, "after it crashed");
    drop(provider);
    traces.assert_gone().await;
}
