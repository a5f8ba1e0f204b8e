//! Helpers shared by the xtask subcommands: the workspace root, running child processes with errors that
//! name the command, the processes `/proc` shows and signals to them, and file hashing.
//!
//! Child processes never read our stdin (CI runs with none), and a failing command's error carries the
//! tail of its output so that a CI log shows why it failed.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

/// The PIDs `/proc` lists now; a process may end before its entry is read.
pub(crate) fn live_pids() -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .collect()
}

/// Sends `signal` (`INT`, `KILL`, …) to `pids` with `kill(1)`; nothing when there are none. A
/// process that ended since it was listed makes `kill` fail for it alone.
pub(crate) fn signal(signal: &str, pids: &[u32]) -> io::Result<()> {
    if pids.is_empty() {
        return Ok(());
    }
    Command::new("kill")
        .arg(format!("-{signal}"))
        .args(pids.iter().map(u32::to_string))
        .status()
        .map(drop)
}

/// How many trailing lines of a failed command's stdout and stderr go into its error.
const TAIL_LINES: usize = 40;

/// The cargo that runs us (cargo sets `CARGO` for `cargo run`), else the one on PATH, in the
/// workspace root.
pub(crate) fn cargo() -> Command {
    let mut cargo = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cargo.current_dir(workspace_root());
    cargo
}

/// The workspace root: the parent of the xtask package, as `cargo run` names it when it runs
/// us, else as it was when we were built. The build's own is not enough: a target directory
/// shared by two checkouts (`.ci/run` shares one) may hand one checkout the xtask another built,
/// since cargo keys it by its path inside the workspace, and that xtask would work on the other
/// checkout.
pub(crate) fn workspace_root() -> PathBuf {
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    manifest_dir
        .parent()
        .expect("the xtask package sits inside the workspace root")
        .to_path_buf()
}

/// Renders a command as the shell line a person would type, for messages.
pub(crate) fn describe(cmd: &Command) -> String {
    let mut line = cmd.get_program().to_string_lossy().into_owned();
    for arg in cmd.get_args() {
        line.push(' ');
        line.push_str(&arg.to_string_lossy());
    }
    line
}

/// Runs a command with captured output and returns its stdout; fails, showing the output's tail, unless it
/// exits with status 0.
pub(crate) fn output(cmd: &mut Command) -> Result<String> {
    let out = spawn_output(cmd)?;
    if !out.status.success() {
        bail!(
            "`{}` failed ({}){}{}",
            describe(cmd),
            out.status,
            tail("stdout", &out.stdout),
            tail("stderr", &out.stderr)
        );
    }
    String::from_utf8(out.stdout)
        .with_context(|| format!("`{}` printed non-UTF-8 output", describe(cmd)))
}

/// Runs a command with captured output, whatever its exit status, for callers that read a structured
/// error from stdout (like `go mod download -json`). After Ctrl-C it starts nothing (`interrupt`).
pub(crate) fn spawn_output(cmd: &mut Command) -> Result<Output> {
    crate::interrupt::check()?;
    cmd.stdin(Stdio::null());
    cmd.output().map_err(|err| spawn_error(cmd, err))
}

/// Runs a command with inherited stdout and stderr, for long steps whose output a person wants to see.
/// After Ctrl-C it starts nothing (`interrupt`).
pub(crate) fn run_visible(cmd: &mut Command) -> Result<()> {
    crate::interrupt::check()?;
    cmd.stdin(Stdio::null());
    let status = cmd.status().map_err(|err| spawn_error(cmd, err))?;
    if !status.success() {
        bail!("`{}` failed ({status})", describe(cmd));
    }
    Ok(())
}

/// Turns a failure to start a command into an error that says what to install.
fn spawn_error(cmd: &Command, err: io::Error) -> anyhow::Error {
    let program = cmd.get_program().to_string_lossy().into_owned();
    if err.kind() == io::ErrorKind::NotFound {
        let hint = match Path::new(&program).file_name().and_then(OsStr::to_str) {
            Some("go") => "install Go (1.25.11 or newer) and put `go` on PATH",
            Some("npm") => "install Node.js with npm (7 or newer) and put `npm` on PATH",
            Some("python3") => {
                "install Python 3 with the venv and pip modules and put `python3` on PATH"
            }
            Some("cargo") => "install Rust with rustup",
            _ => "install it or check the path",
        };
        anyhow::anyhow!("`{program}` was not found: {hint}")
    } else {
        anyhow::Error::new(err).context(format!("could not start `{}`", describe(cmd)))
    }
}

/// The last lines of a captured stream, labelled, or nothing if it is empty.
fn tail(label: &str, bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return String::new();
    }
    let start = lines.len().saturating_sub(TAIL_LINES);
    let mut shown = format!("\n--- {label} (last {} lines) ---", lines.len() - start);
    for line in &lines[start..] {
        shown.push('\n');
        shown.push_str(line);
    }
    shown
}

/// Makes `path` by having `write` make a sibling temp file, then renaming that into place, so
/// readers never see a partial file.
pub(crate) fn replace_file(path: &Path, write: impl FnOnce(&Path) -> io::Result<()>) -> Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".part");
    let tmp = PathBuf::from(tmp);
    write(&tmp).with_context(|| format!("could not write {}", tmp.display()))?;
    std::fs::rename(&tmp, path)
        .with_context(|| format!("could not rename {} into place", path.display()))
}

/// The lowercase hex sha256 of a file's contents.
pub(crate) fn sha256_file(path: &Path) -> Result<String> {
    let mut file =
        File::open(path).with_context(|| format!("could not open {}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0; 1 << 20];
    loop {
        let n = file
            .read(&mut buf)
            .with_context(|| format!("could not read {}", path.display()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex::encode(hasher.finalize()))
}

/// The lowercase hex sha256 of some bytes.
pub(crate) fn sha256_bytes(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Fails with a message naming both hashes unless a file has the expected sha256.
pub(crate) fn check_sha256(path: &Path, what: &str, expected: &str, fix: &str) -> Result<()> {
    let actual = sha256_file(path)?;
    if actual != expected {
        bail!(
            "sha256 mismatch for {what} ({}): expected {expected}, got {actual}; {fix}",
            path.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_sha256_names_both_hashes_on_mismatch() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("file");
        std::fs::write(&path, b"abc").expect("temp dir is writable");
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(sha256_bytes(b"abc"), abc);
        check_sha256(&path, "the file", abc, "fix it").expect("the hash matches");
        let err = check_sha256(&path, "the file", "00", "fix it").expect_err("the hash differs");
        assert_eq!(
            err.to_string(),
            format!(
                "sha256 mismatch for the file ({}): expected 00, got {abc}; fix it",
                path.display()
            )
        );
    }

    #[test]
    fn output_reports_the_command_and_its_output_tail() {
        let err = output(Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]))
            .expect_err("exit 3");
        assert_eq!(
            err.to_string(),
            "`sh -c echo out; echo err >&2; exit 3` failed (exit status: 3)\n\
             --- stdout (last 1 lines) ---\nout\n--- stderr (last 1 lines) ---\nerr"
        );
        let err = output(&mut Command::new("/nonexistent/go")).expect_err("no such program");
        assert_eq!(
            err.to_string(),
            "`/nonexistent/go` was not found: install Go (1.25.11 or newer) and put `go` on PATH"
        );
    }
}
