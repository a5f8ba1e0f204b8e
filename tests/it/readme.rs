//! The README keeps its promise that each point of "Differences from the Go binary" is held by
//! a test: every bullet ends by naming its tests, `(test: `file` `name`)` or
//! `(tests: `file` `a`, `b`; `other file` `c`)`, and each named test exists in the named file as
//! a `#[test]` or `#[tokio::test]` function. So a renamed or deleted test, or a new point without
//! one, fails here instead of leaving the README quietly untrue.

use std::path::Path;

const SECTION: &str = "## Differences from the Go binary";

/// The bullets of the section, each joined into one line.
fn bullets(readme: &str) -> Vec<String> {
    let start = readme
        .find(SECTION)
        .unwrap_or_else(|| panic!("README.md has no {SECTION:?} section"));
    let body = &readme[start + SECTION.len()..];
    let body = &body[..body.find("\n## ").unwrap_or(body.len())];
    let mut bullets: Vec<String> = Vec::new();
    for line in body.lines() {
        if let Some(text) = line.strip_prefix("- ") {
            bullets.push(text.to_owned());
        } else if line.starts_with("  ")
            && let Some(last) = bullets.last_mut()
        {
            last.push(' ');
            last.push_str(line.trim());
        }
    }
    bullets
}

/// The `(file, test)` pairs that a bullet's closing `(test: …)` or `(tests: …)` names.
fn named_tests(bullet: &str) -> Result<Vec<(String, String)>, String> {
    let start = ["(test: ", "(tests: "]
        .iter()
        .filter_map(|opening| bullet.rfind(opening))
        .max()
        .ok_or("names no test: end it with (test: `file` `test_name`)")?;
    let list = &bullet[start..];
    let list = &list[..list.find(')').ok_or("its list of tests is not closed")?];
    let mut file: Option<&str> = None;
    let mut named = Vec::new();
    // Every other piece between backticks is quoted: a file (`….rs`) or a test in the last file.
    for quoted in list.split('`').skip(1).step_by(2) {
        if quoted.ends_with(".rs") {
            file = Some(quoted);
        } else {
            let file = file.ok_or_else(|| format!("`{quoted}` comes before any file"))?;
            named.push((file.to_owned(), quoted.to_owned()));
        }
    }
    if named.is_empty() {
        return Err("its list names no test function".to_owned());
    }
    Ok(named)
}

/// Whether `source` defines `name` as a test function: `fn name(` below `#[test]` or
/// `#[tokio::test…]`, with only attributes and doc comments between them.
fn defines_test(source: &str, name: &str) -> bool {
    let lines: Vec<&str> = source.lines().map(str::trim).collect();
    let signatures = [format!("fn {name}("), format!("async fn {name}(")];
    lines.iter().enumerate().any(|(i, line)| {
        signatures.iter().any(|s| line.starts_with(s.as_str()))
            && lines[..i]
                .iter()
                .rev()
                .take_while(|l| l.starts_with("#[") || l.starts_with("///"))
                .any(|l| l.starts_with("#[test]") || l.starts_with("#[tokio::test"))
    })
}

/// What is wrong with the section: one line per bullet without tests or per missing test.
fn problems(readme: &str, root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    for bullet in bullets(readme) {
        let head: String = bullet.chars().take(60).collect();
        match named_tests(&bullet) {
            Err(why) => problems.push(format!("{head}…: {why}")),
            Ok(named) => {
                for (file, test) in named {
                    match std::fs::read_to_string(root.join(&file)) {
                        Err(err) => problems.push(format!("{head}…: cannot read {file}: {err}")),
                        Ok(source) if !defines_test(&source, &test) => {
                            problems.push(format!("{head}…: {file} has no test `{test}`"));
                        }
                        Ok(_) => {}
                    }
                }
            }
        }
    }
    problems
}

#[test]
fn every_difference_from_the_go_binary_names_tests_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md reads");
    let bullets = bullets(&readme);
    assert!(
        bullets.len() >= 10,
        "the section lost its bullets: {bullets:#?}"
    );
    let problems = problems(&readme, root);
    assert!(
        problems.is_empty(),
        "README.md, {SECTION:?}:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_readme_check_finds_a_bullet_without_tests_and_a_missing_test() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = format!(
        "{SECTION}\n\n\
         - Better in some way,\n  on two lines.\n\
         - Held by a test (test: `tests/it/readme.rs` `no_such_test`).\n\
         - Held by a helper, not a test (tests: `tests/it/readme.rs` `named_tests`).\n\
         - Held (tests: `tests/it/readme.rs` \
           `the_readme_check_finds_a_bullet_without_tests_and_a_missing_test`).\n\n\
         ## Next\n\n- Not a difference.\n"
    );
    let problems = problems(&readme, root);
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(problems[0].starts_with("Better in some way, on two lines.…: names no test"));
    assert!(problems[1].ends_with("tests/it/readme.rs has no test `no_such_test`"));
    assert!(problems[2].ends_with("tests/it/readme.rs has no test `named_tests`"));
}
