//! The repository stands alone: no tracked file names a place outside it. A clone has no
//! sibling notes folder and no developer's home directory, so a file that names one sends its
//! reader, or a test, to nothing.
//!
//! The forbidden strings are built from pieces below, so this file does not name them itself.

use std::{path::Path, process::Command};

/// A string no tracked file may contain.
struct Forbidden {
    text: &'static str,
    /// Why it is forbidden, printed beside each hit.
    why: &'static str,
    /// Whether the match must also end at a boundary (see [`joins`]), so that a longer name such
    /// as `shared_state` does not count; it must always start at one.
    bounded_right: bool,
    /// Whether it is also looked for in [`VERBATIM`].
    in_verbatim: bool,
}

/// A name of the development notes that lived beside the repository.
const fn note(text: &'static str, why: &'static str) -> Forbidden {
    Forbidden {
        text,
        why,
        bounded_right: true,
        in_verbatim: true,
    }
}

/// The start of an absolute path that exists only on some machines.
const fn absolute(text: &'static str) -> Forbidden {
    Forbidden {
        text,
        why: "an absolute path of one machine",
        bounded_right: false,
        in_verbatim: false,
    }
}

/// Upstream recordings, kept byte for byte as published (their provenance is a hash): each
/// record's `call` field is a Go source path on the machine that recorded it, which sends no
/// one anywhere, so only the absolute-path checks skip these files.
const VERBATIM: &str = "testdata/conformance/upstream/";

const NOTES: &str = "the development notes folder beside the repository, which a clone lacks";
const CONTRIBUTORS: &str =
    "a note outside the repository; ARCHITECTURE.md holds what contributors need";

const FORBIDDEN: &[Forbidden] = &[
    note(concat!("..", "/shared"), NOTES),
    note(concat!("shared", "/spec"), NOTES),
    note(
        concat!("shared", "/conformance"),
        "the old home of the conformance data, now testdata/conformance",
    ),
    note(concat!("DESIGN", ".md"), CONTRIBUTORS),
    note(concat!("STYLE", ".md"), CONTRIBUTORS),
    absolute(concat!("/", "work/")),
    absolute(concat!("/", "root/")),
    absolute(concat!("/", "home/")),
    absolute(concat!("/", "Users/")),
];

/// Characters that make a match part of a longer name or path: `REDESIGN`, `example.com/work/`
/// and the relative `./work/` and `~/work/` do not count.
fn joins(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '~')
}

/// Every forbidden string in `line` of the tracked file `name`, as `(column, forbidden)`.
fn hits(name: &str, line: &str) -> Vec<(usize, &'static Forbidden)> {
    let verbatim = name.starts_with(VERBATIM);
    let mut found = Vec::new();
    for forbidden in FORBIDDEN.iter().filter(|f| f.in_verbatim || !verbatim) {
        for (at, _) in line.match_indices(forbidden.text) {
            let before = line[..at].chars().next_back();
            let after = line[at + forbidden.text.len()..].chars().next();
            let ends_at_boundary = !forbidden.bounded_right || !after.is_some_and(joins);
            if !before.is_some_and(joins) && ends_at_boundary {
                found.push((at + 1, forbidden));
            }
        }
    }
    found
}

/// The files git tracks, relative to the workspace root.
fn tracked_files(root: &Path) -> Vec<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["ls-files", "-z"])
        .output()
        .unwrap_or_else(|err| panic!("cannot run git to list the tracked files: {err}"));
    assert!(
        output.status.success(),
        "`git ls-files` failed in {}: {}",
        root.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("tracked file names are UTF-8")
        .split('\0')
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn no_tracked_file_names_a_place_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut problems = Vec::new();
    let mut scanned = 0;
    for name in tracked_files(root) {
        let bytes = match std::fs::read(root.join(&name)) {
            Ok(bytes) => bytes,
            // Deleted in the working tree but not yet in the index: it names nothing.
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => continue,
            Err(err) => panic!("cannot read {name}: {err}"),
        };
        // Binary files (fuzz seeds, say) are not read by people and cite nothing.
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        if text.contains('\0') {
            continue;
        }
        scanned += 1;
        for (number, line) in text.lines().enumerate() {
            for (column, forbidden) in hits(&name, line) {
                problems.push(format!(
                    "{name}:{}:{column}: `{}`: {}",
                    number + 1,
                    forbidden.text,
                    forbidden.why
                ));
            }
        }
    }
    // A broken listing would otherwise pass by reading nothing.
    assert!(scanned > 100, "only {scanned} tracked text files were read");
    assert!(
        problems.is_empty(),
        "{} line(s) of tracked files name a place outside the repository; cite the upstream \
         source, or our own README.md or ARCHITECTURE.md, instead:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_scan_flags_outside_places_and_passes_look_alikes() {
    let flagged = [
        concat!("see ", "..", "/shared", "/x"),
        concat!("(", "shared", "/spec/protocols)"),
        concat!("`", "DESIGN", ".md`"),
        concat!("cd ", "/", "work/main"),
        concat!("\"", "/", "root/.cache\""),
    ];
    for line in flagged {
        assert_eq!(hits("README.md", line).len(), 1, "flagged: {line}");
    }
    let passed = [
        concat!("REDESIGN", ".md"),
        concat!("STYLE", ".mdx"),
        concat!("..", "/shared_state"),
        concat!("https://example.com", "/", "work/"),
        concat!("./", "work/x and ~", "/", "root/"),
        "/tmp/plugin1",
    ];
    for line in passed {
        assert!(hits("README.md", line).is_empty(), "passed: {line}");
    }

    let recorded = concat!(r#""call": ""#, "/", r#"home/dev/go/pkg/mod/x.go:71""#);
    let copy = concat!("testdata/conformance/", "upstream/tf-grpc-log-x.json");
    assert!(
        hits(copy, recorded).is_empty(),
        "a verbatim recording keeps its call sites"
    );
    assert_eq!(
        hits("README.md", recorded).len(),
        1,
        "our own files may not"
    );
    let cited = concat!("..", "/shared", "/x");
    assert_eq!(hits(copy, cited).len(), 1, "no file may name the notes");
}

/// A merge conflict committed by mistake leaves its markers at the start of a line.
fn conflict_marker(line: &str) -> bool {
    [concat!("<<<<<<", "< "), concat!(">>>>>>", "> ")]
        .iter()
        .any(|marker| line.starts_with(marker))
}

#[test]
fn no_tracked_file_holds_a_merge_conflict() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut problems = Vec::new();
    for name in tracked_files(root) {
        let Ok(text) = std::fs::read_to_string(root.join(&name)) else {
            continue;
        };
        for (number, line) in text.lines().enumerate() {
            if conflict_marker(line) {
                problems.push(format!("{name}:{}: {line}", number + 1));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "merge conflict markers are committed; resolve them:\n{}",
        problems.join("\n")
    );
    assert!(conflict_marker(concat!("<<<<<<", "< HEAD")));
    assert!(!conflict_marker("<<< not a marker"));
}
