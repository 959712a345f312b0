//! What a run answers: the [`Verdict`] in SV-COMP's words, and for `UNKNOWN` the typed
//! [`UnknownReason`], whose text is the one the verdict line, `--stats-json` and the exit code
//! are made of.

use std::fmt;

/// The verdict, in SV-COMP's words.
#[derive(Debug, Clone)]
pub enum Verdict {
    /// The error is unreachable.
    True,
    /// The error is reachable: a replayed counterexample.
    False(Box<newton::Counterexample>),
    /// Undecided, with the reason.
    Unknown(UnknownReason),
}

impl Verdict {
    /// `TRUE`, `FALSE(unreach-call)`, `UNKNOWN (reason)`.
    pub fn line(&self) -> String {
        match self {
            Verdict::True => "TRUE".into(),
            Verdict::False(_) => "FALSE(unreach-call)".into(),
            Verdict::Unknown(r) => format!("UNKNOWN ({r})"),
        }
    }

    /// The exit code ([`cli_common::exit`]): 0 TRUE, 10 FALSE, 5 UNKNOWN.
    pub fn exit_code(&self) -> i32 {
        match self {
            Verdict::True => cli_common::exit::SAFE,
            Verdict::False(_) => cli_common::exit::UNSAFE,
            Verdict::Unknown(_) => cli_common::exit::UNKNOWN,
        }
    }
}

/// Why a run ended without a verdict, like egg's `StopReason`. Its [`Display`](fmt::Display)
/// is the text in parentheses of the `UNKNOWN (…)` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnknownReason {
    /// The deadline passed (`timeout`).
    Timeout,
    /// [`Config::max_iterations`](crate::Config::max_iterations) iterations ran
    /// (`iterations`).
    Iterations,
    /// Refinement made no difference (NDF), constrain is off or has alternated with bebop as
    /// often as its mode allows, and the cube lengths are at their cap
    /// ([`Config::max_cube_len`](crate::Config::max_cube_len)) (`no difference found`).
    NoDifferenceFound,
    /// At NDF, constrain found no spurious transition on the trace.
    NoSpuriousTransition,
    /// At NDF, constrain's constraints patched nothing in the Boolean program.
    ConstraintsDoNotApply,
    /// Newton could not decide the trace (its reason).
    Newton(String),
    /// With `--refine wp`, the predicates diverge (the detector of module `divergence`): the
    /// predicates of the chain, oldest first.
    Divergence(Vec<String>),
}

impl UnknownReason {
    /// Whether the run ended at NDF: the reason's text starts with `no difference found`.
    pub fn is_no_difference(&self) -> bool {
        matches!(
            self,
            UnknownReason::NoDifferenceFound
                | UnknownReason::NoSpuriousTransition
                | UnknownReason::ConstraintsDoNotApply
        )
    }
}

impl fmt::Display for UnknownReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnknownReason::Timeout => f.write_str("timeout"),
            UnknownReason::Iterations => f.write_str("iterations"),
            UnknownReason::NoDifferenceFound => f.write_str("no difference found"),
            UnknownReason::NoSpuriousTransition => {
                f.write_str("no difference found; no spurious transition on the trace")
            }
            UnknownReason::ConstraintsDoNotApply => {
                f.write_str("no difference found; the constraints do not apply")
            }
            UnknownReason::Newton(reason) => write!(f, "newton: {reason}"),
            UnknownReason::Divergence(chain) => write!(f, "divergence: {}", chain.join(", ")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_read_as_before() {
        let line = |r| Verdict::Unknown(r).line();
        assert_eq!(line(UnknownReason::Timeout), "UNKNOWN (timeout)");
        assert_eq!(line(UnknownReason::Iterations), "UNKNOWN (iterations)");
        assert_eq!(
            line(UnknownReason::NoDifferenceFound),
            "UNKNOWN (no difference found)"
        );
        assert_eq!(
            line(UnknownReason::NoSpuriousTransition),
            "UNKNOWN (no difference found; no spurious transition on the trace)"
        );
        assert_eq!(
            line(UnknownReason::ConstraintsDoNotApply),
            "UNKNOWN (no difference found; the constraints do not apply)"
        );
        assert_eq!(
            line(UnknownReason::Newton("rlimit".into())),
            "UNKNOWN (newton: rlimit)"
        );
        assert_eq!(
            line(UnknownReason::Divergence(vec![
                "x >= 50".into(),
                "x + 1 >= 50".into(),
                "x + 2 >= 50".into()
            ])),
            "UNKNOWN (divergence: x >= 50, x + 1 >= 50, x + 2 >= 50)"
        );
        for r in [
            UnknownReason::NoDifferenceFound,
            UnknownReason::NoSpuriousTransition,
            UnknownReason::ConstraintsDoNotApply,
        ] {
            assert!(r.is_no_difference() && r.to_string().starts_with("no difference found"));
        }
        assert!(!UnknownReason::Timeout.is_no_difference());
    }
}
