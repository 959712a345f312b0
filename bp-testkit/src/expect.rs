//! Golden files: the one blessing convention of the workspace's tests. A test compares its
//! output with an expected file; with `UPDATE_EXPECT=1` in the environment it writes the file
//! instead (creating or rewriting it), and otherwise a missing or different file fails with a
//! line diff and the command that blesses it. Read the diff before committing a blessed file.

use std::path::Path;

/// The environment variable that blesses golden files, when set to `1`.
pub const BLESS_VAR: &str = "UPDATE_EXPECT";

/// Whether this run blesses golden files (`UPDATE_EXPECT=1`).
pub fn blessing() -> bool {
    std::env::var_os(BLESS_VAR).is_some_and(|v| v == "1")
}

/// Checks `actual` against the golden file `golden`, or writes it when [`blessing`]. The error
/// names the file, shows a diff (or the whole output, for a missing file) and says how to bless
/// with `bless_cmd`.
pub fn check_file(golden: &Path, actual: &str, bless_cmd: &str) -> Result<(), String> {
    if blessing() {
        let same = std::fs::read_to_string(golden).is_ok_and(|t| t == actual);
        if same {
            return Ok(());
        }
        return std::fs::write(golden, actual)
            .map_err(|e| format!("cannot write {}: {e}", golden.display()));
    }
    let expected = match std::fs::read_to_string(golden) {
        Ok(text) => text,
        Err(_) => {
            return Err(format!(
                "missing golden file {}; read the output below, and if it is right bless it with `{bless_cmd}`\n{}",
                golden.display(),
                actual
                    .lines()
                    .map(|l| format!("    {l}\n"))
                    .collect::<String>()
            ));
        }
    };
    if expected == actual {
        return Ok(());
    }
    Err(format!(
        "output differs from {} (- expected, + actual):\n{}\nif the new output is right, bless it with `{bless_cmd}`",
        golden.display(),
        line_diff(&expected, actual)
    ))
}

/// A unified-style line diff with 3 lines of context.
fn line_diff(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    // lcs[i][j] = length of the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut ops: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(('-', a[i]));
            i += 1;
        } else {
            ops.push(('+', b[j]));
            j += 1;
        }
    }
    if expected.ends_with('\n') != actual.ends_with('\n') {
        ops.push(('!', "(the files differ in their final newline)"));
    }
    let near_change = |k: usize| {
        let lo = k.saturating_sub(3);
        let hi = (k + 3).min(ops.len() - 1);
        (lo..=hi).any(|m| ops[m].0 != ' ')
    };
    let mut out = String::new();
    let mut skipped = false;
    for (k, (op, line)) in ops.iter().enumerate() {
        if near_change(k) {
            if skipped {
                out.push_str("    ...\n");
                skipped = false;
            }
            out.push_str(&format!("  {op} {line}\n"));
        } else {
            skipped = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_shows_the_changed_lines_with_context() {
        let d = line_diff("a\nb\nc\n", "a\nB\nc\n");
        assert!(d.contains("  - b\n") && d.contains("  + B\n"), "{d}");
        assert!(line_diff("x\n", "x").contains("final newline"));
    }

    #[test]
    fn a_missing_or_different_file_fails_with_the_bless_command() {
        let dir = std::env::temp_dir().join(format!("bp-testkit-expect-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let f = dir.join("out.expected");
        let _ = std::fs::remove_file(&f);
        if blessing() {
            return; // the checks below are about not blessing
        }
        let e = check_file(&f, "one\n", "BLESS-ME").expect_err("missing");
        assert!(
            e.contains("missing golden file") && e.contains("BLESS-ME"),
            "{e}"
        );
        std::fs::write(&f, "one\n").expect("write");
        assert!(check_file(&f, "one\n", "BLESS-ME").is_ok());
        let e = check_file(&f, "two\n", "BLESS-ME").expect_err("different");
        assert!(e.contains("- one") && e.contains("+ two"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
