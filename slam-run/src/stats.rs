//! What a run measured: one [`Iteration`] record per round of the loop (with its typed
//! [`IterationOutcome`]), the [`RunResult`], and their two renderings: the `--stats-json`
//! document (`slam-run-stats/1`, [`StatsJson`]) and the `summary:` line printed after the
//! verdict.

use std::fmt;

use cir::pred::PredicateSet;
use serde::Serialize;

use crate::verdict::Verdict;

/// How a round ended, as far as newton got (`safe` when bebop proved the abstraction). Written
/// into `--stats-json` as its [`Display`](fmt::Display) text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IterationOutcome {
    /// The round stopped (the deadline) before an answer: the empty string.
    #[default]
    Unfinished,
    /// Bebop proved the abstraction safe: `safe`.
    Safe,
    /// Newton replayed the trace to the error: `feasible`.
    Feasible,
    /// Newton proved the trace infeasible: `infeasible`.
    Infeasible,
    /// Newton could not decide: `unknown`.
    Unknown,
}

impl IterationOutcome {
    /// The text of the outcome in `--stats-json`.
    pub fn as_str(self) -> &'static str {
        match self {
            IterationOutcome::Unfinished => "",
            IterationOutcome::Safe => "safe",
            IterationOutcome::Feasible => "feasible",
            IterationOutcome::Infeasible => "infeasible",
            IterationOutcome::Unknown => "unknown",
        }
    }
}

impl fmt::Display for IterationOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for IterationOutcome {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// What one iteration did and cost.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Iteration {
    /// From 0.
    pub index: usize,
    /// Predicates abstracted with.
    pub predicates: usize,
    /// Seconds in c2bp, bebop, newton.
    pub c2bp_seconds: f64,
    /// Seconds in bebop.
    pub bebop_seconds: f64,
    /// Seconds in newton.
    pub newton_seconds: f64,
    /// c2bp's prover queries.
    pub prover_queries: u64,
    /// Length of the abstract counterexample in C edges (0: safe).
    pub path_len: usize,
    /// Newton's answer (`safe` when bebop proved the abstraction).
    pub outcome: IterationOutcome,
    /// Predicates newton added.
    pub new_predicates: usize,
    /// Bebop–constrain alternation within the iteration (0: the abstraction c2bp wrote).
    pub alternation: usize,
    /// Whether newton found no difference (NDF) in this round.
    pub ndf: bool,
    /// Whether constrain ran (after this round's newton found no difference).
    pub constrained: bool,
    /// Seconds in constrain.
    pub constrain_seconds: f64,
    /// Constraints constrain found.
    pub constraints: usize,
    /// The predicates this round added, each with the refiner that proposed it.
    pub added: Vec<AddedPredicate>,
    /// What the Horn refiner did on this round's trace, when it ran.
    pub horn: Option<newton::HornSummary>,
    /// Whether this round's predicates continued a divergent chain (module `divergence`).
    pub divergence: bool,
}

/// A predicate added by a refinement, in `--stats-json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AddedPredicate {
    /// `global` or the function's name.
    pub scope: String,
    /// The predicate's text.
    pub predicate: String,
    /// `wp` (newton's weakest preconditions), `horn` (a path program's invariant), or for the
    /// predicates the run starts from `initial` (`--preds`) and `guard` (the error's guards).
    pub source: String,
}

impl Iteration {
    /// The record of alternation `alternation` of iteration `index`, abstracted with
    /// `predicates` predicates.
    pub fn new(index: usize, predicates: usize, alternation: usize) -> Iteration {
        Iteration {
            index,
            predicates,
            alternation,
            ..Iteration::default()
        }
    }
}

/// The result of a run.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// The verdict.
    pub verdict: Verdict,
    /// Every iteration.
    pub iterations: Vec<Iteration>,
    /// The predicates at the end.
    pub predicates: PredicateSet,
    /// The constraints constrain added (re-applied to every later abstraction).
    pub constraints: Vec<constrain::Constraint>,
    /// Wall-clock seconds (including parsing).
    pub seconds: f64,
    /// On TRUE, the Boolean program bebop proved safe (constraints applied).
    pub abstraction: Option<String>,
    /// Where each predicate of [`RunResult::predicates`] comes from.
    pub sources: Vec<AddedPredicate>,
}

/// Statistics as JSON (`--stats-json`).
#[derive(Debug, Serialize)]
pub struct StatsJson<'a> {
    /// `slam-run-stats/1`.
    pub format: &'static str,
    /// The C file.
    pub file: String,
    /// The verdict line.
    pub verdict: String,
    /// Iterations.
    pub iterations: &'a [Iteration],
    /// Final predicate count.
    pub predicates: usize,
    /// Final predicates (predicate-file text).
    pub predicates_file: String,
    /// Where each final predicate comes from (`initial`, `guard`, `wp`, `horn`).
    pub predicate_sources: &'a [AddedPredicate],
    /// Rounds in which the Horn refiner ran.
    pub horn_calls: usize,
    /// Seconds in the Horn refiner (included in `newton_seconds`).
    pub horn_seconds: f64,
    /// Seconds per stage and in all.
    pub c2bp_seconds: f64,
    /// Seconds in bebop.
    pub bebop_seconds: f64,
    /// Seconds in newton.
    pub newton_seconds: f64,
    /// Seconds in constrain.
    pub constrain_seconds: f64,
    /// Calls of constrain (the Constrain paper's Fig. 5).
    pub constrain_calls: usize,
    /// Constraints generated.
    pub constraints: usize,
    /// Rounds in which newton found no difference (NDF).
    pub ndf: usize,
    /// c2bp's prover queries over all iterations.
    pub prover_queries: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// The counterexample of a FALSE verdict.
    pub counterexample: Option<&'a newton::Counterexample>,
}

impl RunResult {
    /// Seconds spent in one stage over all iterations.
    fn stage_seconds(&self, stage: fn(&Iteration) -> f64) -> f64 {
        self.iterations.iter().map(stage).sum()
    }

    /// The `--stats-json` document.
    pub fn stats_json(&self, file: &str) -> String {
        let s = StatsJson {
            format: "slam-run-stats/1",
            file: file.to_string(),
            verdict: self.verdict.line(),
            iterations: &self.iterations,
            predicates: self.predicates.len(),
            predicates_file: cir::pred::predicate_file_text(&self.predicates),
            predicate_sources: &self.sources,
            horn_calls: self.iterations.iter().filter(|i| i.horn.is_some()).count(),
            horn_seconds: self
                .iterations
                .iter()
                .filter_map(|i| i.horn.as_ref().map(|h| h.seconds))
                .sum(),
            c2bp_seconds: self.stage_seconds(|i| i.c2bp_seconds),
            bebop_seconds: self.stage_seconds(|i| i.bebop_seconds),
            newton_seconds: self.stage_seconds(|i| i.newton_seconds),
            constrain_seconds: self.stage_seconds(|i| i.constrain_seconds),
            constrain_calls: self.constrain_calls(),
            constraints: self.iterations.iter().map(|i| i.constraints).sum(),
            ndf: self.iterations.iter().filter(|i| i.ndf).count(),
            prover_queries: self.iterations.iter().map(|i| i.prover_queries).sum(),
            seconds: self.seconds,
            counterexample: match &self.verdict {
                Verdict::False(c) => Some(c),
                _ => None,
            },
        };
        serde_json::to_string_pretty(&s).unwrap_or_default()
    }

    /// Calls of constrain.
    pub fn constrain_calls(&self) -> usize {
        self.iterations.iter().filter(|i| i.constrained).count()
    }

    /// The summary printed after the verdict.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "summary: iterations={} predicates={} seconds={:.2} (c2bp {:.2}, bebop {:.2}, newton {:.2}",
            self.iterations
                .iter()
                .filter(|i| i.alternation == 0)
                .count(),
            self.predicates.len(),
            self.seconds,
            self.stage_seconds(|i| i.c2bp_seconds),
            self.stage_seconds(|i| i.bebop_seconds),
            self.stage_seconds(|i| i.newton_seconds),
        );
        let calls = self.constrain_calls();
        if calls > 0 {
            s.push_str(&format!(
                ", constrain {:.2}) constrain-calls={calls} constraints={}",
                self.stage_seconds(|i| i.constrain_seconds),
                self.iterations.iter().map(|i| i.constraints).sum::<usize>()
            ));
        } else {
            s.push(')');
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_serialise_as_their_text() {
        for o in [
            IterationOutcome::Unfinished,
            IterationOutcome::Safe,
            IterationOutcome::Feasible,
            IterationOutcome::Infeasible,
            IterationOutcome::Unknown,
        ] {
            let json = serde_json::to_string(&o).expect("serialises");
            assert_eq!(json, format!("\"{o}\""));
        }
        assert_eq!(IterationOutcome::default().to_string(), "");
    }
}
