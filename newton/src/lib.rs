//! `newton`: is an abstract error trace real? (SLAM's Newton: Ball & Rajamani's Newton as
//! summarised in the Constrain paper, "Refining Approximations in Software Predicate
//! Abstraction", TACAS'04 §2.)
//!
//! Input: the C program, the C path a bebop trace follows ([`bp_c::trace::c_path`]) and the
//! predicates the Boolean program was built from. Output ([`Outcome`]):
//! - **feasible**: a [`Counterexample`] — the path replayed on the concrete interpreter
//!   ([`replay`]) with the solver's values of every nondeterministic input; only a replay that
//!   reaches the error makes a path feasible;
//! - **infeasible**: a [`Refutation`] — the shortest infeasible prefix, the assume that makes it
//!   infeasible, the minimal core, and the new predicates ([`refine`]) with their scopes;
//! - **unknown**: the solver gave up, the replay did not follow the path (the reason is given),
//!   or the path needs what the encoding does not express.
//!
//! The path formula ([`symbolic`]) is built by weakest preconditions through calls and
//! returns with the one C semantics of [`cir::smt`] (newton has no encoding of its own).

pub mod refine;
pub mod replay;
pub mod symbolic;

use std::collections::BTreeSet;
use std::fmt::Write as _;

use bp_c::trace::CStep;
use cir::Program;
use cir::ir::{Expr, ExprKind};
use cir::pointsto::PointsTo;
use cir::pred::PredicateSet;
use cir::smt::{Prover, Semantics};
use serde::Serialize;

pub use crate::refine::Reason;
pub use crate::replay::Counterexample;

/// Options.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// The C semantics (must be the abstraction's).
    pub sem: Semantics,
    /// Z3's deterministic resource limit per query.
    pub rlimit: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            sem: Semantics::default(),
            rlimit: cir::smt::DEFAULT_RLIMIT,
        }
    }
}

/// A step of the path, as reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PathStep {
    /// Index in the path.
    pub step: usize,
    /// The C edge.
    pub edge: String,
    /// `file:line:col`.
    pub pos: String,
    /// The edge's text.
    pub text: String,
}

/// Why an abstract path is not a real one.
#[derive(Debug, Clone, Serialize)]
pub struct Refutation {
    /// Length of the shortest infeasible prefix (steps).
    pub prefix_len: usize,
    /// The assume that makes the prefix infeasible (its last step).
    pub blocking: PathStep,
    /// The assumes of the minimal core.
    pub core: Vec<PathStep>,
    /// The new predicates (none already present), as a predicate file.
    pub new_predicates: String,
    /// Why each new predicate was chosen.
    pub reasons: Vec<Reason>,
    /// Conjuncts dropped because a weakest precondition was not expressible.
    pub dropped_conjuncts: usize,
    /// The new predicates.
    #[serde(skip)]
    pub preds: PredicateSet,
}

/// Newton's answer.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "verdict", rename_all = "lowercase")]
pub enum Outcome {
    /// The path is a real counterexample (replayed).
    Feasible(Box<Counterexample>),
    /// The path is infeasible.
    Infeasible(Box<Refutation>),
    /// Undecided.
    Unknown {
        /// Why.
        reason: String,
    },
}

impl Outcome {
    /// The exit code of the `newton` command (shared table, [`cli_common::exit`]): a real
    /// counterexample is "unsafe", an infeasible path "safe" (this path), unknown "unknown".
    pub fn exit_code(&self) -> i32 {
        match self {
            Outcome::Feasible(_) => cli_common::exit::UNSAFE,
            Outcome::Infeasible(_) => cli_common::exit::SAFE,
            Outcome::Unknown { .. } => cli_common::exit::UNKNOWN,
        }
    }
}

fn path_step(prog: &Program, path: &[CStep], j: usize) -> PathStep {
    let e = symbolic::edge(prog, path[j]);
    PathStep {
        step: j,
        edge: prog.edge_name(path[j].edge),
        pos: prog.show_pos(e.pos),
        text: prog.show_edge_kind(&e.kind),
    }
}

/// Decides whether `path` (a path of `prog` from `main`'s entry to an error edge) is feasible;
/// `preds` are the predicates already in use (never proposed again).
pub fn analyze(
    prog: &Program,
    pts: &PointsTo,
    preds: &PredicateSet,
    path: &[CStep],
    opts: &Options,
) -> Outcome {
    // All of newton's queries for one trace in one Z3 context (a context costs 2–3 ms).
    cir::smt::one_context(|| analyze_in(prog, pts, preds, path, opts))
}

fn analyze_in(
    prog: &Program,
    pts: &PointsTo,
    preds: &PredicateSet,
    path: &[CStep],
    opts: &Options,
) -> Outcome {
    let pf = match symbolic::path_formula(prog, pts, path) {
        Ok(pf) => pf,
        Err(e) => {
            return Outcome::Unknown {
                reason: e.to_string(),
            };
        }
    };
    tracing::debug!(
        steps = path.len(),
        conjuncts = pf.conjuncts.len(),
        symbols = pf.symbols.len(),
        dropped = pf.dropped,
        "path formula"
    );
    match refine::feasibility(&pf, opts.sem, opts.rlimit) {
        refine::Feasibility::Infeasible { prefix_end, core } => {
            let prover = Prover::new(prog, opts.sem).with_rlimit(opts.rlimit);
            let (new, reasons) = refine::predicates(prog, pts, &pf, path, &core, preds, &prover);
            let core_steps: BTreeSet<usize> =
                core.iter().map(|&c| pf.conjuncts[c].origin).collect();
            Outcome::Infeasible(Box::new(Refutation {
                prefix_len: prefix_end + 1,
                blocking: path_step(prog, path, prefix_end),
                core: core_steps
                    .into_iter()
                    .map(|j| path_step(prog, path, j))
                    .collect(),
                new_predicates: cir::pred::predicate_file_text(&new),
                reasons,
                dropped_conjuncts: pf.dropped,
                preds: new,
            }))
        }
        f @ (refine::Feasibility::Feasible | refine::Feasibility::Unknown) => {
            let prover = Prover::new(&pf.ext, opts.sem).with_rlimit(opts.rlimit);
            let formulas: Vec<Expr> = pf
                .conjuncts
                .iter()
                .filter_map(|c| c.at_start.clone())
                .collect();
            // Integer symbols, and the pointers of allocated contents (null or not decides
            // the replay's draw).
            let ints: Vec<usize> = (0..pf.symbols.len())
                .filter(|&i| match pf.ext.var(pf.symbols[i].var).ty {
                    cir::types::CType::Int(_) => true,
                    cir::types::CType::Pointer(_) => {
                        matches!(pf.symbols[i].kind, symbolic::SymKind::Content { .. })
                    }
                    _ => false,
                })
                .collect();
            let terms: Vec<Expr> = ints
                .iter()
                .map(|&i| {
                    let v = pf.symbols[i].var;
                    Expr {
                        kind: ExprKind::Var(v),
                        ty: pf.ext.var(v).ty.clone(),
                    }
                })
                .collect();
            let (_, model) = prover.model_values(&formulas, &terms);
            let Some(model) = model else {
                return Outcome::Unknown {
                    reason: if f == refine::Feasibility::Unknown {
                        "the solver could not decide the path formula (resource limit)".into()
                    } else {
                        "the solver gave no model of the path formula".into()
                    },
                };
            };
            let mut values = vec![None; pf.symbols.len()];
            for (&i, v) in ints.iter().zip(model) {
                values[i] = Some(v);
            }
            match replay::replay(prog, &pf, path, &values) {
                Ok(cex) => Outcome::Feasible(Box::new(cex)),
                Err(m) => Outcome::Unknown {
                    reason: if pf.dropped > 0 {
                        format!(
                            "{m} ({} condition(s) of the path could not be encoded)",
                            pf.dropped
                        )
                    } else {
                        m.to_string()
                    },
                },
            }
        }
    }
}

/// The counterexample as text (stdout of `newton` and `slam-run`).
pub fn counterexample_text(cex: &Counterexample) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "inputs:");
    if cex.inputs.is_empty() {
        let _ = writeln!(s, "  (none)");
    }
    for i in &cex.inputs {
        let _ = writeln!(s, "  {} = {}    (at {})", i.what, i.value, i.pos);
    }
    let _ = writeln!(s, "path:");
    for st in &cex.steps {
        let indent = "  ".repeat(st.depth as usize + 1);
        let vals: Vec<String> = st
            .values
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        let _ = write!(s, "{indent}{:<10} {:<8} {}", st.pos, st.edge, st.text);
        if !vals.is_empty() {
            let _ = write!(s, "    [{}]", vals.join(", "));
        }
        s.push('\n');
    }
    s
}

/// The outcome as text.
pub fn outcome_text(o: &Outcome) -> String {
    let mut s = String::new();
    match o {
        Outcome::Feasible(cex) => {
            let _ = writeln!(
                s,
                "FEASIBLE: the trace is a real error path (replayed on the concrete program)"
            );
            s.push_str(&counterexample_text(cex));
        }
        Outcome::Infeasible(r) => {
            let _ = writeln!(
                s,
                "INFEASIBLE: the first {} steps cannot execute; step {} ({} at {}: {}) is where",
                r.prefix_len, r.blocking.step, r.blocking.edge, r.blocking.pos, r.blocking.text
            );
            let _ = writeln!(s, "core:");
            for c in &r.core {
                let _ = writeln!(s, "  step {} {} at {}: {}", c.step, c.edge, c.pos, c.text);
            }
            if r.preds.is_empty() {
                let _ = writeln!(s, "new predicates: none");
            } else {
                let _ = writeln!(s, "new predicates:");
                for line in r.new_predicates.lines() {
                    let _ = writeln!(s, "  {line}");
                }
            }
        }
        Outcome::Unknown { reason } => {
            let _ = writeln!(s, "UNKNOWN: {reason}");
        }
    }
    s
}

/// JSON of an outcome (`format: "newton-result/1"`).
pub fn outcome_json(o: &Outcome) -> String {
    let mut v = serde_json::to_value(o).unwrap_or(serde_json::Value::Null);
    if let serde_json::Value::Object(m) = &mut v {
        m.insert("format".into(), "newton-result/1".into());
    }
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

pub use bp_c::trace::predicates_of_bp;
