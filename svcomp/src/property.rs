//! SV-COMP property files (`.prp`): which function's call is the error.
//!
//! The reachability property of SV-COMP is written
//! `CHECK( init(main()), LTL(G ! call(reach_error())) )`; older tasks name `__VERIFIER_error`.
//! A file may hold several `CHECK` lines; every one must be of this form (other properties —
//! memory safety, overflow, termination — are not supported and are rejected with their line).
//! The entry point must be `main`. [`error_expected_reachable`] reads a task's expected verdict
//! (benchmarks and tests).

use std::fmt;

/// A property-file error at `line` (1-based).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct PropertyError {
    /// The line, 1-based.
    pub line: u32,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for PropertyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.line, self.message)
    }
}

/// The error functions named by the `CHECK` lines of a `.prp` file, in order.
pub fn parse_prp(text: &str) -> Result<Vec<String>, PropertyError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let l: String = raw.chars().filter(|c| !c.is_whitespace()).collect();
        if l.is_empty() || l.starts_with("//") {
            continue;
        }
        let err = |message: String| PropertyError { line, message };
        let Some(body) = l
            .strip_prefix("CHECK(init(")
            .and_then(|r| r.strip_suffix("))"))
        else {
            return Err(err(format!(
                "not an SV-COMP `CHECK( init(main()), LTL(...) )` line: `{}`",
                raw.trim()
            )));
        };
        let Some((entry, ltl)) = body.split_once("),LTL(") else {
            return Err(err(format!("expected `LTL(...)` in `{}`", raw.trim())));
        };
        if entry != "main()" {
            return Err(err(format!(
                "entry point `{entry}` is not supported (only `main()`)"
            )));
        }
        let Some(name) = ltl
            .strip_prefix("G!call(")
            .and_then(|r| r.strip_suffix("())"))
        else {
            return Err(err(format!(
                "unsupported property `LTL({ltl})`: only reachability `G ! call(f())` (unreach-call)"
            )));
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(err(format!("`{name}` is not a function name")));
        }
        out.push(name.to_string());
    }
    if out.is_empty() {
        return Err(PropertyError {
            line: 1,
            message: "no `CHECK` line".into(),
        });
    }
    Ok(out)
}

/// The expected `unreach-call` verdict of an SV-COMP task, for benchmarks and tests: `Some(true)`
/// when the error is reachable (`false` verdict), `Some(false)` when it is not, `None` when the
/// task says nothing. Read from the file name (`_false-unreach-call` / `_true-unreach-call`, the
/// 2016 format) or from the task file next to it (`NAME.yml`: the `expected_verdict` of its
/// `unreach-call.prp` entry).
pub fn error_expected_reachable(c_file: &std::path::Path) -> Option<bool> {
    let name = c_file.file_name()?.to_string_lossy().to_string();
    if name.contains("_false-unreach-call") {
        return Some(true);
    }
    if name.contains("_true-unreach-call") {
        return Some(false);
    }
    let yml = std::fs::read_to_string(c_file.with_extension("yml")).ok()?;
    let mut in_reach = false;
    for l in yml.lines() {
        if l.contains("property_file") {
            in_reach = l.contains("unreach-call.prp");
        } else if in_reach && l.trim_start().starts_with("expected_verdict:") {
            return Some(l.contains("false"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreach_call() {
        let t = "CHECK( init(main()), LTL(G ! call(reach_error())) )\n";
        assert_eq!(parse_prp(t).unwrap(), vec!["reach_error".to_string()]);
        let t = "CHECK( init(main()), LTL(G ! call(__VERIFIER_error())) )";
        assert_eq!(parse_prp(t).unwrap(), vec!["__VERIFIER_error".to_string()]);
    }

    #[test]
    fn others_rejected_with_their_line() {
        let t = "CHECK( init(main()), LTL(G ! call(reach_error())) )\nCHECK( init(main()), LTL(G valid-free) )\n";
        let e = parse_prp(t).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("unsupported property"), "{e}");
        assert!(parse_prp("").is_err());
        assert!(parse_prp("CHECK( init(start()), LTL(G ! call(f())) )").is_err());
    }
}
