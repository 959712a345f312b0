//! The one table of exit codes shared by every tool of the toolkit, and the text of it that
//! every tool's `--help` prints ([`help`]).
//!
//! | code | meaning |
//! |---|---|
//! | 0 | safe / TRUE: the error is unreachable (or: success) |
//! | 10 | unsafe / FALSE: the error is reachable (a trace or counterexample was printed) |
//! | 5 | unknown: no verdict (timeout, limits, unsupported feature); the reason is printed |
//! | 1 | usage error (bad command-line flags) |
//! | 2 | input error (malformed or ill-typed input file, missing file) |
//! | 6 | internal error (a bug in the toolkit) |
//!
//! The same numbers as CBMC's `exit_codes.h` where they overlap (CBMC, too, exits 1 on a usage
//! error: clap's default of 2 would collide with the input error).

use std::process::ExitCode;

/// The error is unreachable.
pub const SAFE: i32 = 0;
/// A usage error (bad flags).
pub const USAGE: i32 = 1;
/// An input error: the file is missing, malformed or ill-typed.
pub const INPUT_ERROR: i32 = 2;
/// No verdict: the reason is printed.
pub const UNKNOWN: i32 = 5;
/// An internal error.
pub const INTERNAL: i32 = 6;
/// The error is reachable.
pub const UNSAFE: i32 = 10;

/// The table: every code with its meaning, in the order `--help` lists them.
pub const TABLE: [(i32, &str); 6] = [
    (SAFE, "safe / TRUE: the error is unreachable; success"),
    (
        UNSAFE,
        "unsafe / FALSE: the error is reachable (a trace or counterexample follows)",
    ),
    (UNKNOWN, "unknown: no verdict; the reason is printed"),
    (USAGE, "usage error: bad command-line flags"),
    (
        INPUT_ERROR,
        "input error: a missing, malformed or ill-typed input file (file:line:col)",
    ),
    (INTERNAL, "internal error: a bug in the toolkit"),
];

/// The exit-code section of a tool's `--help`: the whole [`TABLE`], each code followed by
/// what it means for this tool when `notes` says (`(code, note)`).
pub fn help(notes: &[(i32, &str)]) -> String {
    let mut s = String::from("Exit codes (the same for every tool of the toolkit):");
    for (code, meaning) in TABLE {
        s.push_str(&format!("\n  {code:>2}  {meaning}"));
        for (c, note) in notes {
            if *c == code {
                s.push_str(&format!(" — here: {note}"));
            }
        }
    }
    s
}

/// `code` as a process exit code (a code outside 0..=255 is an internal error).
pub fn code(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code).unwrap_or(INTERNAL as u8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_lists_every_code_once_with_the_tools_notes() {
        let h = help(&[(UNSAFE, "VERIFICATION FAILED")]);
        for (c, m) in TABLE {
            assert_eq!(h.matches(m).count(), 1, "{c}: {h}");
        }
        assert!(h.contains("  10  unsafe"), "{h}");
        assert!(h.contains("— here: VERIFICATION FAILED"), "{h}");
        assert!(h.contains("   1  usage error"), "{h}");
    }
}
