//! slam-run's `--stats-json` as slam-bench reads it: the totals of a run that go into its row
//! ([`Phases`], the refinement counts) and the per-iteration breakdown `slam-bench table
//! --breakdown` prints. slam-bench does not link slam-run: these are the fields it reads, by
//! name, of the `slam-run-stats/2` document (whose schema is slam-run's `stats` module); a
//! field that is missing (a `/1` document, a stand-in) reads as absent or zero.

use serde::{Deserialize, Serialize};

/// The document.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct RunStats {
    /// `slam-run-stats/2`.
    pub format: String,
    /// Every round of the loop.
    pub iterations: Vec<Round>,
    /// Final predicate count.
    pub predicates: Option<u64>,
    /// Constraints generated.
    pub constraints: Option<u64>,
    /// Calls of constrain.
    pub constrain_calls: Option<u64>,
    /// NDF rounds.
    pub ndf: Option<u64>,
    /// c2bp's prover queries.
    pub prover_queries: Option<u64>,
    /// Seconds per phase, over all rounds.
    #[serde(flatten)]
    pub time: PhaseTimes,
    /// The phase a limit stopped the run in.
    pub stopped_in: Option<String>,
    /// slam-run's own peak resident memory, MiB.
    pub peak_rss_mib: Option<f64>,
}

/// Wall-clock and CPU seconds of each phase (slam-run's field names).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct PhaseTimes {
    /// Wall-clock seconds in c2bp.
    pub c2bp_seconds: f64,
    /// CPU seconds while c2bp ran.
    pub c2bp_cpu_seconds: f64,
    /// Wall-clock seconds in bebop.
    pub bebop_seconds: f64,
    /// CPU seconds while bebop ran.
    pub bebop_cpu_seconds: f64,
    /// Wall-clock seconds in newton.
    pub newton_seconds: f64,
    /// CPU seconds while newton ran.
    pub newton_cpu_seconds: f64,
    /// Wall-clock seconds in constrain.
    pub constrain_seconds: f64,
    /// CPU seconds while constrain ran.
    pub constrain_cpu_seconds: f64,
}

/// One round of the loop.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Round {
    /// The iteration.
    pub index: u64,
    /// Constrain alternation (0: the abstraction c2bp wrote).
    pub alternation: u64,
    /// Predicates abstracted with.
    pub predicates: u64,
    /// Predicates the round added.
    pub predicates_added: u64,
    /// Seconds per phase.
    #[serde(flatten)]
    pub time: PhaseTimes,
    /// c2bp's prover queries.
    pub prover_queries: u64,
    /// c2bp's breakdown.
    pub c2bp: Option<C2bpRound>,
    /// Bebop's measurements.
    pub bebop: Option<BebopRound>,
    /// Newton's answer (`""`: the round a limit cut).
    pub outcome: String,
    /// Peak memory of slam-run when the round ended, MiB.
    pub peak_rss_mib: f64,
}

/// c2bp's part of a round.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct C2bpRound {
    /// Queries answered from the prover's cache.
    pub cache_hits: u64,
    /// Cubes the abstraction's transitions are written with.
    pub cubes: u64,
    /// Statements whose exact relation stopped short.
    pub exact_capped: u64,
    /// Per procedure.
    pub procedures: Vec<C2bpProcedure>,
}

/// c2bp on one procedure.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct C2bpProcedure {
    /// The C function.
    pub name: String,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Solver queries.
    pub queries: u64,
    /// Cube searches answered from the procedure's memo.
    pub memo_hits: u64,
    /// Cube searches answered from earlier abstractions.
    pub prior_hits: u64,
    /// The text was reused.
    pub reused: bool,
}

/// Bebop's part of a round.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct BebopRound {
    /// BDD variables.
    pub bdd_vars: u64,
    /// The largest sum of live BDD nodes.
    pub peak_live_nodes: u64,
}

impl C2bpRound {
    /// Cube searches answered without the solver: from the memo, from earlier abstractions,
    /// or not asked at all (a reused text counts one).
    pub fn hits(&self) -> u64 {
        self.procedures
            .iter()
            .map(|p| p.memo_hits + p.prior_hits + u64::from(p.reused))
            .sum()
    }
}

/// A run's per-phase totals in its row (and the CSV): wall-clock and CPU seconds of each phase
/// of slam-run's loop, and the phase a limit stopped it in.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Phases {
    /// Wall-clock seconds in c2bp.
    pub c2bp_s: f64,
    /// CPU seconds in c2bp.
    pub c2bp_cpu_s: f64,
    /// Wall-clock seconds in bebop.
    pub bebop_s: f64,
    /// CPU seconds in bebop.
    pub bebop_cpu_s: f64,
    /// Wall-clock seconds in newton.
    pub newton_s: f64,
    /// CPU seconds in newton.
    pub newton_cpu_s: f64,
    /// Wall-clock seconds in constrain.
    pub constrain_s: f64,
    /// CPU seconds in constrain.
    pub constrain_cpu_s: f64,
    /// The phase a limit stopped the run in (`c2bp`, `bebop`, …), if one did and slam-run
    /// could say.
    pub stopped_in: Option<String>,
}

impl RunStats {
    /// Reads a document (`None`: not JSON, or not an object).
    pub fn parse(text: &str) -> Option<RunStats> {
        serde_json::from_str(text).ok()
    }

    /// Iterations: the rounds on an abstraction c2bp wrote (not the constrain alternations),
    /// as slam-run's summary line counts them.
    pub fn iteration_count(&self) -> u64 {
        self.iterations
            .iter()
            .filter(|r| r.alternation == 0)
            .count() as u64
    }

    /// c2bp's part of the last round that ran it: the last abstraction's size.
    pub fn last_abstraction(&self) -> Option<&C2bpRound> {
        self.iterations.iter().rev().find_map(|r| r.c2bp.as_ref())
    }

    /// The per-phase totals.
    pub fn phases(&self) -> Phases {
        let t = &self.time;
        Phases {
            c2bp_s: t.c2bp_seconds,
            c2bp_cpu_s: t.c2bp_cpu_seconds,
            bebop_s: t.bebop_seconds,
            bebop_cpu_s: t.bebop_cpu_seconds,
            newton_s: t.newton_seconds,
            newton_cpu_s: t.newton_cpu_seconds,
            constrain_s: t.constrain_seconds,
            constrain_cpu_s: t.constrain_cpu_seconds,
            stopped_in: self.stopped_in.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_it_needs_and_tolerates_the_rest() {
        let doc = r#"{"format":"slam-run-stats/2","verdict":"UNKNOWN (timeout)",
            "stopped_in":"newton","predicates":5,"c2bp_seconds":1.5,"c2bp_cpu_seconds":2.5,
            "unknown_field":[1,2],
            "iterations":[
              {"index":0,"alternation":0,"outcome":"infeasible","c2bp":{"cache_hits":0,
               "cubes":7,"exact_capped":1,"procedures":[{"name":"main","queries":9,"prior_hits":2,"reused":false},
                             {"name":"f","reused":true}]}},
              {"index":0,"alternation":1,"outcome":"infeasible"},
              {"index":1,"alternation":0,"outcome":""}]}"#;
        let s = RunStats::parse(doc).expect("reads");
        assert_eq!(s.iteration_count(), 2);
        assert_eq!(s.predicates, Some(5));
        assert_eq!(s.constraints, None);
        let p = s.phases();
        assert_eq!((p.c2bp_s, p.c2bp_cpu_s), (1.5, 2.5));
        assert_eq!(p.stopped_in.as_deref(), Some("newton"));
        assert_eq!(s.iterations[0].c2bp.as_ref().unwrap().hits(), 3);
        // The last round that abstracted (the later ones did not: an alternation, a cut).
        let last = s.last_abstraction().expect("a round ran c2bp");
        assert_eq!((last.cubes, last.exact_capped), (7, 1));
        // A stand-in's or an older document: the counts it has.
        let old = RunStats::parse(r#"{"iterations":[{},{},{}],"predicates":4}"#).unwrap();
        assert_eq!(old.iteration_count(), 3);
        assert_eq!(old.phases(), Phases::default());
        assert!(old.last_abstraction().is_none());
        assert!(RunStats::parse("not json").is_none());
    }
}
