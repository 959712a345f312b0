//! What a run answers: the [`Verdict`] in SV-COMP's words, its verdict line and exit code.

/// The verdict, in SV-COMP's words.
#[derive(Debug, Clone)]
pub enum Verdict {
    /// The error is unreachable.
    True,
    /// The error is reachable: a replayed counterexample.
    False(Box<newton::Counterexample>),
    /// Undecided, with the reason (`timeout`, `iterations`, `no difference found`, …).
    Unknown(String),
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
