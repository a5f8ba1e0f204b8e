//! A readable line diff of two normal forms, each call pretty-printed, in the unified style
//! (`-` OpenTofu only, `+` our bridge only, a few lines of context around each change).

use std::fmt::Write as _;

use serde_json::Value;

/// Lines of context around each change.
const CONTEXT: usize = 3;
/// Above this many table cells the diff is not computed and both sides are shown whole.
const MAX_CELLS: usize = 16_000_000;

/// The calls as numbered, pretty-printed lines.
fn lines(calls: &[Value]) -> Vec<String> {
    let mut lines = Vec::new();
    for (index, call) in calls.iter().enumerate() {
        let method = call["method"].as_str().unwrap_or("?");
        lines.push(format!("# call {}: {method}", index + 1));
        let pretty = serde_json::to_string_pretty(call).unwrap_or_else(|_| call.to_string());
        lines.extend(pretty.lines().map(str::to_owned));
    }
    lines
}

/// The diff of `ours` against `theirs`, or `None` if they are equal.
pub(in crate::e2e) fn diff(theirs: &[Value], ours: &[Value]) -> Option<String> {
    if theirs == ours {
        return None;
    }
    let (a, b) = (lines(theirs), lines(ours));
    let methods = |calls: &[Value]| {
        calls
            .iter()
            .map(|call| call["method"].as_str().unwrap_or("?"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = format!(
        "OpenTofu's calls: {}\nour bridge's calls: {}\n--- OpenTofu 1.11.0\n+++ our bridge\n",
        methods(theirs),
        methods(ours)
    );
    if a.len().saturating_mul(b.len()) > MAX_CELLS {
        out.push_str("(too long to diff; both sides follow)\n");
        for line in &a {
            let _ = writeln!(out, "-{line}");
        }
        for line in &b {
            let _ = writeln!(out, "+{line}");
        }
        return Some(out);
    }
    let edits = edits(&a, &b);
    // Which edit positions are shown: every change and its context.
    let mut shown = vec![false; edits.len()];
    for (i, edit) in edits.iter().enumerate() {
        if !matches!(edit, Edit::Same(_)) {
            let from = i.saturating_sub(CONTEXT);
            let to = (i + CONTEXT + 1).min(edits.len());
            shown[from..to].iter_mut().for_each(|s| *s = true);
        }
    }
    // Each hunk is headed by the call it starts in, as `diff -p` names the function.
    let mut call = "";
    let mut in_hunk = false;
    for (edit, show) in edits.iter().zip(&shown) {
        let line = match edit {
            Edit::Same(line) | Edit::Theirs(line) | Edit::Ours(line) => *line,
        };
        if line.starts_with("# call ") {
            call = line;
        }
        if !show {
            in_hunk = false;
            continue;
        }
        if !in_hunk {
            let _ = writeln!(out, "@@ {} @@", call.trim_start_matches("# "));
            in_hunk = true;
        }
        let _ = match edit {
            Edit::Same(line) => writeln!(out, " {line}"),
            Edit::Theirs(line) => writeln!(out, "-{line}"),
            Edit::Ours(line) => writeln!(out, "+{line}"),
        };
    }
    Some(out)
}

enum Edit<'l> {
    Same(&'l str),
    Theirs(&'l str),
    Ours(&'l str),
}

/// The shortest edit script from `a` to `b`, by the longest common subsequence.
fn edits<'l>(a: &'l [String], b: &'l [String]) -> Vec<Edit<'l>> {
    let (n, m) = (a.len(), b.len());
    // lcs[i][j]: the LCS length of a[i..] and b[j..].
    let mut lcs = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[at(i, j)] = if a[i] == b[j] {
                lcs[at(i + 1, j + 1)] + 1
            } else {
                lcs[at(i + 1, j)].max(lcs[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(n.max(m));
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            out.push(Edit::Same(&a[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[at(i + 1, j)] >= lcs[at(i, j + 1)]) {
            out.push(Edit::Theirs(&a[i]));
            i += 1;
        } else {
            out.push(Edit::Ours(&b[j]));
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_diff_shows_the_changed_lines_with_their_call() {
        let theirs = vec![
            json!({"method": "ConfigureProvider", "request": {}}),
            json!({"method": "PlanResourceChange", "request": {"config": {"name": "a"}}}),
        ];
        let mut ours = theirs.clone();
        ours[1]["request"]["config"]["name"] = json!("b");
        assert_eq!(diff(&theirs, &theirs), None);
        let shown = diff(&theirs, &ours).expect("they differ");
        assert!(
            shown.contains("-      \"name\": \"a\"\n+      \"name\": \"b\"\n"),
            "{shown}"
        );
        assert!(
            shown.contains("@@ call 2: PlanResourceChange @@"),
            "{shown}"
        );
    }
}
