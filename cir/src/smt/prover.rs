//! The [`Prover`]: validity and satisfiability of C formulas with a cache keyed on the
//! normalised query, Z3's deterministic resource limit, and statistics; `Unknown` is never
//! cached and never counts as proved.

use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use z3::SatResult;
use z3::ast::Bool;

use super::encode::{Encoder, Num, Repr};
use super::session::{SolverCx, in_context, query_solver, solver_with};
use super::{Answer, DEFAULT_RLIMIT, SatAnswer, Semantics, Stats, canonical, project};
use crate::ir::{Expr, Program, VarId};

/// The cached answer of a normalised query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Sat,
    Unsat,
}

/// Decides validity and satisfiability of C formulas over one program and one [`Semantics`]:
/// [`Prover::is_valid`] asks whether the assumptions imply the goal, [`Prover::is_satisfiable`]
/// whether all the formulas can hold together. A formula is an [`Expr`] used as a C condition
/// (it holds when its value is non-zero), and all formulas of one query describe **one**
/// program state; the semantics is `docs/c-semantics.md`.
///
/// - **Threads.** The z3 crate (0.22) keeps its ASTs in a thread-local context. A `Prover` holds
///   no Z3 object: every query builds a fresh Z3 context in the calling thread, encodes, solves
///   and drops it (or, inside [`one_context`](super::one_context), uses the scope's context, and
///   on one of the [`Lanes`](super::Lanes), the lane's).
///   A `Prover` is therefore `Send + Sync` and can be shared by `rayon` workers; only our own
///   normalised texts (cache keys) cross threads.
/// - **Determinism.** Limits use Z3's deterministic resource limit (`rlimit`, see
///   [`Prover::with_rlimit`], default [`DEFAULT_RLIMIT`]), never wall-clock time. With a fresh
///   context per query, the same query gets the same answer on any machine, whatever was asked
///   before, on whatever thread; every name the encoder invents is numbered per query and all
///   collections that produce facts are ordered. A [`one_context`](super::one_context) scope
///   runs a fixed sequence of queries (its caller's) in one context, which is as reproducible.
///   A lane runs the queries of all the jobs given to it in one context: a fixed sequence too,
///   but one where a model, or whether a query stops at its resource limit, may depend on the
///   earlier jobs (the [`Lanes`](super::Lanes) doc says who may use them).
/// - **Cache.** Keyed on the normalised query: the [`Semantics`], the kind of query, the sorted
///   and deduplicated canonical texts of the assumptions and the goal's text (a fully
///   parenthesised prefix form with the type of every node: two formulas with the same key are
///   the same formula). `Unknown` is **never** cached and counts as "not proved": callers must
///   treat [`Answer::Unknown`] as not valid and [`SatAnswer::Unknown`] as satisfiable.
/// - **Statistics** ([`Stats`], for `--stats`): queries, cache hits, solver calls, unknowns.
#[derive(Debug)]
pub struct Prover<'p> {
    prog: &'p Program,
    sem: Semantics,
    rlimit: u32,
    cache: Mutex<HashMap<String, Outcome>>,
    queries: AtomicU64,
    cache_hits: AtomicU64,
    solver_calls: AtomicU64,
    unknowns: AtomicU64,
}

impl<'p> Prover<'p> {
    /// A prover for `prog` under `sem`, with [`DEFAULT_RLIMIT`].
    pub fn new(prog: &'p Program, sem: Semantics) -> Prover<'p> {
        Prover {
            prog,
            sem,
            rlimit: DEFAULT_RLIMIT,
            cache: Mutex::new(HashMap::new()),
            queries: AtomicU64::new(0),
            cache_hits: AtomicU64::new(0),
            solver_calls: AtomicU64::new(0),
            unknowns: AtomicU64::new(0),
        }
    }

    /// Sets Z3's deterministic resource limit per query (`0`: no limit).
    pub fn with_rlimit(mut self, rlimit: u32) -> Prover<'p> {
        self.rlimit = rlimit;
        self
    }

    /// The resource limit per query.
    pub fn rlimit(&self) -> u32 {
        self.rlimit
    }

    /// The semantics.
    pub fn semantics(&self) -> Semantics {
        self.sem
    }

    /// The program.
    pub fn program(&self) -> &'p Program {
        self.prog
    }

    /// The counters so far.
    pub fn stats(&self) -> Stats {
        Stats {
            queries: self.queries.load(Ordering::Relaxed),
            cache_hits: self.cache_hits.load(Ordering::Relaxed),
            solver_calls: self.solver_calls.load(Ordering::Relaxed),
            unknowns: self.unknowns.load(Ordering::Relaxed),
        }
    }

    /// Number of cached answers.
    pub fn cache_len(&self) -> usize {
        self.cache.lock().expect("prover cache lock poisoned").len()
    }

    /// Whether the assumptions imply the goal (as C conditions, in one state).
    pub fn is_valid(&self, assumptions: &[Expr], goal: &Expr) -> Answer {
        let mut formulas: Vec<(&Expr, bool)> = assumptions.iter().map(|a| (a, true)).collect();
        formulas.push((goal, false));
        let key = self.key("valid", assumptions, Some(goal));
        match self.check(key, &formulas) {
            Some(Outcome::Unsat) => Answer::Valid,
            Some(Outcome::Sat) => Answer::NotValid,
            None => Answer::Unknown,
        }
    }

    /// Whether all the formulas can hold together (as C conditions, in one state).
    pub fn is_satisfiable(&self, formulas: &[Expr]) -> SatAnswer {
        let fs: Vec<(&Expr, bool)> = formulas.iter().map(|a| (a, true)).collect();
        let key = self.key("sat", formulas, None);
        match self.check(key, &fs) {
            Some(Outcome::Sat) => SatAnswer::Sat,
            Some(Outcome::Unsat) => SatAnswer::Unsat,
            None => SatAnswer::Unknown,
        }
    }

    /// A state satisfying all the formulas, given by the values of `terms` (integer or pointer
    /// expressions, each read as a value of its own type) — e.g. the nondeterministic inputs of
    /// a path, for replaying it on the concrete interpreter. Not cached (a model is not a
    /// verdict); `None` when the formulas are unsatisfiable, undecided, or a term has no
    /// integer value in the model (a float, a structure).
    pub fn model_values(
        &self,
        formulas: &[Expr],
        terms: &[Expr],
    ) -> (SatAnswer, Option<Vec<i128>>) {
        self.queries.fetch_add(1, Ordering::Relaxed);
        self.solver_calls.fetch_add(1, Ordering::Relaxed);
        let prog = self.prog;
        let sem = self.sem;
        let rlimit = self.rlimit;
        let out = in_context(move || {
            let mut enc = Encoder::new(prog, sem);
            let conj: Vec<Bool> = formulas.iter().map(|e| enc.cond(e)).collect();
            let vals: Vec<(Num, Option<Repr>)> = terms
                .iter()
                .map(|t| (enc.value_as(t, &t.ty), enc.repr(&t.ty)))
                .collect();
            let solver = solver_with(rlimit, enc.finish().iter().chain(&conj));
            match solver.check() {
                SatResult::Sat => {
                    let values = solver.get_model().and_then(|m| {
                        vals.iter()
                            .map(|(v, r)| match v {
                                Num::I(i) => {
                                    let x = m.eval(i, true)?;
                                    x.as_i64()
                                        .map(i128::from)
                                        .or_else(|| x.as_u64().map(i128::from))
                                }
                                Num::B(b) => {
                                    let x = i128::from(m.eval(b, true)?.as_u64()?);
                                    let r = (*r)?;
                                    Some(
                                        if r.signed && r.width < 128 && x >= 1i128 << (r.width - 1)
                                        {
                                            x - (1i128 << r.width)
                                        } else {
                                            x
                                        },
                                    )
                                }
                            })
                            .collect::<Option<Vec<i128>>>()
                    });
                    (SatAnswer::Sat, values)
                }
                SatResult::Unsat => (SatAnswer::Unsat, None),
                SatResult::Unknown => (SatAnswer::Unknown, None),
            }
        });
        if out.0 == SatAnswer::Unknown {
            self.unknowns.fetch_add(1, Ordering::Relaxed);
        }
        out
    }

    /// `∃ elim. e` without the quantifier, as a C condition over the other variables of `e`:
    /// what newton states before the havoc of a value its fact needs (a fact over program
    /// variables alone, which a weakest precondition cannot give). Z3's `qe` tactic on the
    /// encoding in integer semantics, whatever [`Semantics`] the prover has, after the
    /// `mod`/`div` of eliminated values are split into cases (under a resource limit, never a
    /// time bound; see the module `project`), read back into C: linear terms become `long long`
    /// arithmetic, `t mod 2^w` a conversion to the unsigned type of width `w`, other `mod`/`div`
    /// by a constant their C form. Only variables (no memory, no uninterpreted values) may occur. `None` when the
    /// elimination gives up or the result has no C reading. Any result is only a candidate
    /// predicate: no verdict depends on it.
    pub fn project(&self, e: &Expr, elim: &[VarId]) -> Option<Expr> {
        self.queries.fetch_add(1, Ordering::Relaxed);
        self.solver_calls.fetch_add(1, Ordering::Relaxed);
        let prog = self.prog;
        let sem = Semantics {
            bitvector: false,
            ..self.sem
        };
        let r = in_context(move || project::project(prog, sem, e, elim))?;
        Some(project::tidy(self, r))
    }

    /// `e` without conjuncts valid on their own and disjuncts that imply another (the cleaning
    /// [`Self::project`] applies to its result), for a condition a caller has weakened further.
    pub fn tidy(&self, e: Expr) -> Expr {
        project::tidy(self, e)
    }

    /// The normalised text of a query: the cache key.
    pub fn query_key(&self, assumptions: &[Expr], goal: Option<&Expr>) -> String {
        self.key(
            if goal.is_some() { "valid" } else { "sat" },
            assumptions,
            goal,
        )
    }

    fn key(&self, kind: &str, assumptions: &[Expr], goal: Option<&Expr>) -> String {
        let texts: BTreeSet<String> = assumptions
            .iter()
            .map(|a| canonical(self.prog, a))
            .collect();
        let mut k = format!("{}|{kind}|", self.sem);
        for t in &texts {
            k.push_str(t);
            k.push(';');
        }
        if let Some(g) = goal {
            k.push_str("|goal ");
            k.push_str(&canonical(self.prog, g));
        }
        k
    }

    /// Runs `f` with a [`SolverCx`] (one fresh Z3 context of the calling thread, or the
    /// [`one_context`](super::one_context) scope's, with a solver of its own). Its queries
    /// count as solver calls in [`Stats`]; they do not go through the cache.
    pub fn with_solver<R: Send + Sync>(
        &self,
        f: impl FnOnce(&mut SolverCx<'_>) -> R + Send + Sync,
    ) -> R {
        let prog = self.prog;
        let sem = self.sem;
        let rlimit = self.rlimit;
        let (r, queries, unknowns) = in_context(move || {
            let mut cx = SolverCx::fresh(prog, sem, rlimit);
            let r = f(&mut cx);
            (r, cx.queries, cx.unknowns)
        });
        self.queries.fetch_add(queries, Ordering::Relaxed);
        self.solver_calls.fetch_add(queries, Ordering::Relaxed);
        self.unknowns.fetch_add(unknowns, Ordering::Relaxed);
        r
    }

    /// Checks the conjunction of the formulas (`true`: as is; `false`: negated). `None`: unknown.
    fn check(&self, key: String, formulas: &[(&Expr, bool)]) -> Option<Outcome> {
        self.queries.fetch_add(1, Ordering::Relaxed);
        if let Some(o) = self
            .cache
            .lock()
            .expect("prover cache lock poisoned")
            .get(&key)
        {
            self.cache_hits.fetch_add(1, Ordering::Relaxed);
            return Some(*o);
        }
        self.solver_calls.fetch_add(1, Ordering::Relaxed);
        let res = self.solve(formulas);
        match res {
            Some(o) => {
                self.cache
                    .lock()
                    .expect("prover cache lock poisoned")
                    .insert(key, o);
            }
            None => {
                self.unknowns.fetch_add(1, Ordering::Relaxed);
            }
        }
        res
    }

    /// Encodes and solves in a fresh Z3 context of the calling thread (or the
    /// [`one_context`](super::one_context) scope's).
    fn solve(&self, formulas: &[(&Expr, bool)]) -> Option<Outcome> {
        let prog = self.prog;
        let sem = self.sem;
        let rlimit = self.rlimit;
        in_context(move || {
            let mut enc = Encoder::new(prog, sem);
            let mut conj = Vec::with_capacity(formulas.len());
            for (e, positive) in formulas {
                let b = enc.cond(e);
                conj.push(if *positive { b } else { b.not() });
            }
            let hard = enc.nonlinear_or_div();
            let solver = query_solver(sem, rlimit, hard, enc.finish().iter().chain(&conj));
            match solver.check() {
                SatResult::Sat => Some(Outcome::Sat),
                SatResult::Unsat => Some(Outcome::Unsat),
                SatResult::Unknown => None,
            }
        })
    }
}
