//! The single Z3 encoding of C expressions (issue 3 §1, "Semantics" and "The single Z3
//! encoding"). Every tool that asks a question about C values (`c2bp`, `newton`, `constrain`)
//! asks it here, so this module doc is **the** documented C semantics of the toolkit.
//!
//! # Queries
//! A [`Prover`] answers [`Prover::is_valid`] (do the assumptions imply the goal?) and
//! [`Prover::is_satisfiable`] (can all the formulas hold together?) over one
//! [`crate::ir::Program`] and one [`Semantics`]. A formula is an [`Expr`] used as a C condition:
//! it holds when its value is non-zero. All formulas of one query describe **one** program state.
//!
//! - **Threads.** The z3 crate (0.22) keeps its ASTs in a thread-local context. A `Prover` holds
//!   no Z3 object: every query builds a fresh Z3 context in the calling thread, encodes, solves
//!   and drops it (or, inside [`one_context`], uses the scope's context). A `Prover` is
//!   therefore `Send + Sync` and can be shared by `rayon` workers; only our own normalised
//!   texts (cache keys) cross threads.
//! - **Determinism.** Limits use Z3's deterministic resource limit (`rlimit`, see
//!   [`Prover::with_rlimit`], default [`DEFAULT_RLIMIT`]), never wall-clock time. With a fresh
//!   context per query, the same query gets the same answer on any machine, whatever was asked
//!   before, on whatever thread; every name the encoder invents is numbered per query and all
//!   collections that produce facts are ordered. A [`one_context`] scope runs a fixed sequence
//!   of queries (its caller's) in one context, which is as reproducible.
//! - **Cache.** Keyed on the normalised query: the [`Semantics`], the kind of query, the sorted
//!   and deduplicated canonical texts of the assumptions and the goal's text (a fully
//!   parenthesised prefix form with the type of every node: two formulas with the same key are
//!   the same formula). `Unknown` is **never** cached and counts as "not proved": callers must
//!   treat [`Answer::Unknown`] as not valid and [`SatAnswer::Unknown`] as satisfiable.
//! - **Statistics** ([`Stats`], for `--stats`): queries, cache hits, solver calls, unknowns.
//!
//! # Semantics of values (default: mathematical integers)
//! - **Types and ranges.** Widths and signedness come from [`DataModel`] (ILP32 default, LP64:
//!   `long` and pointers are 64 bits; `char` is signed). Every variable, memory cell, and
//!   freshly invented value of an integer type lies in its type's range (a *range fact*); so do
//!   results of unsigned arithmetic (by construction, modulo 2^width).
//! - **Signed arithmetic** (`+ - *`, unary `-`, `/`, `%`, `<<` on signed types) is computed on
//!   mathematical integers with **no** range fact on the result: signed overflow is undefined
//!   behaviour, and asserting the result's range would silently remove the states where the
//!   program overflows from every query (making implications vacuously valid there). So for
//!   `int x`, `x + 1 > x` is valid.
//! - **Unsigned arithmetic wraps**: `+ - *`, unary `-`, `<<` on an unsigned type are taken
//!   modulo 2^width (Z3's `mod`, non-negative for a positive divisor). So for `unsigned x`,
//!   `x + 1 > x` is not valid (`x == UINT_MAX`).
//! - **The usual arithmetic conversions** (C11 6.3.1.8, [`usual_arithmetic`]) decide the common
//!   type of the operands of arithmetic operators and comparisons; the IR does not materialise
//!   implicit conversions, so the encoder applies them: operands are converted to the node's type
//!   for arithmetic, to the common type of the operands for comparisons (`-1 < 1u` is false:
//!   `-1` becomes `UINT_MAX`). The right operand of a shift is only promoted.
//! - **Conversions** between integer types: to `_Bool`, `v != 0`; to a type whose range contains
//!   the source range, the value is unchanged; to an unsigned type, `v mod 2^w` (from a signed
//!   type no wider: `v < 0 ? v + 2^w : v`, equal for every value of the source type and much
//!   cheaper for Z3; the projection keeps `mod`, which it reads back as a cast); to a narrower
//!   signed type (implementation-defined in C), wrap-around as gcc does
//!   (`(signed char)200 == -56`). Pointers convert to and from integers as unsigned integers of
//!   the pointer width (the same rules).
//! - **Division and remainder** truncate toward zero as in C (Z3's `div`/`mod` are Euclidean, so
//!   `/` is `sign * (|a| div |b|)` and `a % b` is `a - b * (a / b)`): `7 / -2 == -3`,
//!   `7 % -2 == 1`, `-7 % 2 == -1`. Division or remainder by zero is undefined behaviour: its
//!   value is an unconstrained (but functional: same operands, same value) value of the result
//!   type, within its range.
//! - **Comparisons and logical operators** are Boolean, with C's `int` results when used as
//!   values (`(a < b) + 1` is 1 or 2). `!e` is `e == 0`, `a && b` and `a || b` are conjunction
//!   and disjunction (no side effects in the IR, so short-circuiting does not matter), `c ? a : b`
//!   (from Morris's axiom in weakest preconditions) is an `ite` whose branches are converted to
//!   the node's type.
//! - **Bitwise operators** (Int mode) are precise where cheap: `~x` is `-x - 1` (signed) or
//!   `2^w - 1 - x` (unsigned); `x & m` with a constant `m = 2^k - 1` is `x mod 2^k` (also right
//!   for negative `x` in two's complement), `x & 0 == 0`, `x & -1 == x`, `x | 0`, `x ^ 0`;
//!   `x << c` with a constant `0 <= c < w` is `x * 2^c` (modulo 2^w when unsigned, mathematical
//!   when signed: overflow is undefined); `x >> c` is `x div 2^c` (floor: gcc's arithmetic
//!   shift for negative signed `x`). Everything else (`&`, `|`, `^` of two non-constants,
//!   shifts by a non-constant or out-of-range amount) is an **uninterpreted function** of its
//!   operands with a range fact on the result: a sound over-approximation (any real result is
//!   one of the values allowed), functional (the same `x & y` twice is the same value), but
//!   imprecise: use `--bitvector` for parity, masks and shifts.
//!
//! # `--bitvector` mode
//! Every integer is a bit-vector of its type's width (`_Bool`: 1 bit; pointers: the pointer
//! width), operations choose their signed or unsigned version by type (`bvsdiv`/`bvudiv`,
//! `bvsrem`/`bvurem`, `bvslt`/`bvult`, `bvashr`/`bvlshr`; Z3's `bvsdiv`/`bvsrem` truncate as C
//! does); conversions sign- or zero-extend by the source type or truncate. Fully precise,
//! including signed overflow, which wraps (two's complement, what gcc does in practice).
//! Division by zero and shifts by an amount outside `[0, w)` are undefined in C: they give an
//! uninterpreted-function value, as in Int mode.
//!
//! # Memory: a logical model, sufficient for predicates
//! The memory model proper (which cells an assignment changes) belongs to weakest preconditions
//! and points-to analysis, which express it with Morris's axiom (`(p == &x) ? e : x` becomes an
//! `ite` here). Within one state this module uses:
//! - **Addresses.** `&x` is a constant per variable (also per function designator and per string
//!   literal), non-null and pairwise distinct. Pointers are unsigned values of the pointer width;
//!   the null pointer is 0. Addresses are abstract: `&s.f` is `field_f(&s)` (an uninterpreted
//!   function per field name), `&a[i]` and `p + i` are `base + i` in *element units* (so
//!   `p[0] == *p`, `&a[i] == a + i`); `p - q` is the difference of the two values.
//! - **Cells.** `*p`, `p->f`, `s.f`, `a[i]` of a scalar type `T` are `mem_T(address)`, an
//!   uninterpreted function per type from addresses to values (with a range fact): functional,
//!   so `p == q` implies `*p == *q`, and `p == &s` implies `p->f == s.f`. A scalar variable `x`
//!   whose address occurs in the query is linked to its cell: `mem_T(&x) == x`, so `p == &x`
//!   implies `*p == x`. Different types are different memories (no type punning).
//! - Arrays and functions used as values decay to their address.
//! - **Not expressible** (floating-point values, structure or union values, casts to `void`,
//!   comparisons of non-scalars): a fresh constant, within its type's range when it has one —
//!   sound, since it may be any value.
//!
//! Every fact the encoder adds (ranges, distinct addresses, cell links) is a truth about every
//! state, never an assumption about the program's path.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::{self, Write as _};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use z3::ast::{Ast, BV, Bool, Int};
use z3::{FuncDecl, Params, SatResult, Solver, Sort};

use crate::ir::{BinOp, Expr, ExprKind, Program, UnOp, VarId};
use crate::types::{CType, DataModel, IntKind, usual_arithmetic};

mod project;

/// Default resource limit of one query (Z3's `rlimit`, deterministic).
pub const DEFAULT_RLIMIT: u32 = 5_000_000;

/// Which C semantics a query uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Semantics {
    /// Widths of `long` and pointers.
    pub data_model: DataModel,
    /// Bit-precise reasoning (`--bitvector`) instead of mathematical integers with ranges.
    pub bitvector: bool,
}

impl fmt::Display for Semantics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}",
            self.data_model,
            if self.bitvector { "bv" } else { "int" }
        )
    }
}

/// Answer of a validity query. `Unknown` (resource limit reached, or a theory Z3 gave up on)
/// means "not proved".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Answer {
    /// The assumptions imply the goal in every state.
    Valid,
    /// Some state satisfies the assumptions and not the goal.
    NotValid,
    /// Not decided within the resource limit.
    Unknown,
}

impl Answer {
    /// Proved valid (`Unknown` is not).
    pub fn is_valid(self) -> bool {
        self == Answer::Valid
    }
}

/// Answer of a satisfiability query. `Unknown` counts as satisfiable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SatAnswer {
    /// Some state satisfies all the formulas.
    Sat,
    /// No state does.
    Unsat,
    /// Not decided within the resource limit.
    Unknown,
}

impl SatAnswer {
    /// Possibly satisfiable (`Sat` or `Unknown`): the sound reading.
    pub fn maybe_sat(self) -> bool {
        self != SatAnswer::Unsat
    }
}

/// Counters of a [`Prover`] (for `--stats`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    /// Queries asked (validity and satisfiability).
    pub queries: u64,
    /// Queries answered from the cache.
    pub cache_hits: u64,
    /// Queries sent to Z3.
    pub solver_calls: u64,
    /// Z3 answers `unknown` (never cached).
    pub unknowns: u64,
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "prover queries {}, cache hits {}, solver calls {}, unknown {}",
            self.queries, self.cache_hits, self.solver_calls, self.unknowns
        )
    }
}

/// The cached answer of a normalised query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Sat,
    Unsat,
}

/// Decides validity and satisfiability of C formulas over one program (see the module doc).
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
    /// `mod`/`div` of eliminated values are split into cases (a time bound is the safety net:
    /// Z3's tactics ignore `rlimit`; see the module `project`), read back into C: linear terms become `long long` arithmetic, `t mod 2^w`
    /// a conversion to the unsigned type of width `w`, other `mod`/`div` by a constant their
    /// C form. Only variables (no memory, no uninterpreted values) may occur. `None` when the
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
    /// [`one_context`] scope's, with a solver of its own). Its queries
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
    /// [`one_context`] scope's).
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
            let solver = solver_with(rlimit, enc.finish().iter().chain(&conj));
            match solver.check() {
                SatResult::Sat => Some(Outcome::Sat),
                SatResult::Unsat => Some(Outcome::Unsat),
                SatResult::Unknown => None,
            }
        })
    }
}

thread_local! {
    /// Whether this thread runs inside [`one_context`].
    static IN_ONE_CONTEXT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with one fresh Z3 context for all the queries it makes on this thread (of any
/// [`Prover`]): outside such a scope every query and every [`Prover::with_solver`] makes its
/// own context, which costs 2–3 ms (Z3 allocates and fills 16 MB of tables; newton made two
/// per refinement, a fifth of a locks iteration's time went into contexts). Answers stay
/// deterministic: the scope's sequence of operations is its caller's, the same on every run
/// (newton's, for one trace, standalone or inside slam-run). Nested scopes share the outer one.
pub fn one_context<R: Send + Sync>(f: impl FnOnce() -> R + Send + Sync) -> R {
    if IN_ONE_CONTEXT.with(|c| c.get()) {
        return f();
    }
    z3::with_z3_config(&z3::Config::new(), move || {
        struct Leave;
        impl Drop for Leave {
            fn drop(&mut self) {
                IN_ONE_CONTEXT.with(|c| c.set(false));
            }
        }
        IN_ONE_CONTEXT.with(|c| c.set(true));
        let _leave = Leave;
        f()
    })
}

/// Runs `f` in a fresh Z3 context of this thread, or in the [`one_context`] scope's.
fn in_context<R: Send + Sync>(f: impl FnOnce() -> R + Send + Sync) -> R {
    if IN_ONE_CONTEXT.with(|c| c.get()) {
        f()
    } else {
        z3::with_z3_config(&z3::Config::new(), f)
    }
}

/// A solver of the current thread's context with the deterministic resource limit `rlimit`
/// (0: none) and the given assertions, for one check: Z3's default solver, whose first check
/// runs a tactic chosen for the formula (it decides `x * x == 2` unsatisfiable).
fn solver_with<'a>(rlimit: u32, assertions: impl IntoIterator<Item = &'a Bool>) -> Solver {
    let solver = configure(Solver::new(), rlimit);
    for a in assertions {
        solver.assert(a);
    }
    solver
}

/// The solver of a [`SolverCx`], used incrementally (push, pop, checks under assumptions). In
/// integer mode it is made for the logic `QF_AUFLIA`: Z3's default solver builds a portfolio
/// of tactics for every logic when it is created (10–20 ms, more than most of our queries:
/// newton on a locks task spent 2/3 of its time there), one for a logic 0.5–2 ms. Used
/// incrementally, the default solver runs the same SMT kernel, and the two answer the same
/// (`tests/smt.rs`, `sessions_answer_nonlinear_queries`; c2bp's output is identical on the
/// corpus). A term of a theory the logic would not set up is treated as uninterpreted, which
/// can only weaken `unsat` to `sat`, never the other way. Bit-vector mode keeps the default.
fn session_solver(sem: Semantics, rlimit: u32) -> Solver {
    let solver = if sem.bitvector {
        Solver::new()
    } else {
        Solver::new_for_logic("QF_AUFLIA").unwrap_or_default()
    };
    configure(solver, rlimit)
}

/// Sets the resource limit and the arithmetic solver.
fn configure(solver: Solver, rlimit: u32) -> Solver {
    let mut params = Params::new();
    if rlimit > 0 {
        params.set_u32("rlimit", rlimit);
    }
    // Z3's older simplex-based arithmetic solver: the same answers on our queries (small
    // conjunctions of linear integer facts, checked incrementally under assumptions) at
    // 20–30% less time than the default (c2bp on floppy_simpl3 at 47 predicates: 3.2 → 2.3 CPU
    // s, the same `.bp`).
    params.set_u32("smt.arith.solver", 2);
    solver.set_params(&params);
    solver
}

/// One Z3 context and solver for a sequence of [`Session`]s in the calling thread (see
/// [`Prover::with_solver`]): a caller that asks many questions (c2bp abstracting one procedure)
/// pays for the context once. Each session pushes a scope, encodes its atoms afresh (with their
/// range and memory facts) and pops it at the end, so sessions do not see each other's
/// assertions. Answers are deterministic because the sequence of operations on one context is
/// the caller's (deterministic) order, and Z3's resource limit applies to each check.
pub struct SolverCx<'p> {
    prog: &'p Program,
    sem: Semantics,
    rlimit: u32,
    solver: Solver,
    queries: u64,
    unknowns: u64,
}

impl<'p> SolverCx<'p> {
    /// A new solver of the current thread's context.
    fn fresh(prog: &'p Program, sem: Semantics, rlimit: u32) -> SolverCx<'p> {
        SolverCx {
            prog,
            sem,
            rlimit,
            solver: session_solver(sem, rlimit),
            queries: 0,
            unknowns: 0,
        }
    }

    /// Answers `unknown` so far (a caller can tell whether a sequence of sessions was exact).
    pub fn unknowns(&self) -> u64 {
        self.unknowns
    }

    /// Like [`SolverCx::session`], in a fresh Z3 context and solver of its own: the answers,
    /// models and cores do not depend on what this solver was asked before (a search whose
    /// result depends on the models it meets stays the same whether earlier searches ran or
    /// were answered from a cache). Costs a context (milliseconds).
    pub fn isolated_session<R: Send + Sync>(
        &mut self,
        atoms: &[Expr],
        f: impl FnOnce(&mut Session<'_>) -> R + Send + Sync,
    ) -> R {
        let (prog, sem, rlimit) = (self.prog, self.sem, self.rlimit);
        let (r, queries, unknowns) = z3::with_z3_config(&z3::Config::new(), move || {
            let mut cx = SolverCx::fresh(prog, sem, rlimit);
            let r = cx.session(atoms, f);
            (r, cx.queries, cx.unknowns)
        });
        self.queries += queries;
        self.unknowns += unknowns;
        r
    }

    /// Runs `f` with a [`Session`] over `atoms` (C conditions about one state).
    pub fn session<R>(&mut self, atoms: &[Expr], f: impl FnOnce(&mut Session<'_>) -> R) -> R {
        self.solver.push();
        let mut enc = Encoder::new(self.prog, self.sem);
        let conds: Vec<Bool> = atoms.iter().map(|a| enc.cond(a)).collect();
        for fact in enc.finish() {
            self.solver.assert(&fact);
        }
        let mut inds = Vec::with_capacity(conds.len());
        for (i, c) in conds.iter().enumerate() {
            let a = Bool::new_const(format!("atom!{i}"));
            self.solver.assert(a.eq(c));
            inds.push(a);
        }
        let mut s = Session {
            solver: &self.solver,
            atoms: &inds,
            queries: 0,
            unknowns: 0,
        };
        let r = f(&mut s);
        self.queries += s.queries;
        self.unknowns += s.unknowns;
        self.solver.pop(1);
        r
    }
}

/// Questions over a fixed list of atoms inside a [`SolverCx`]: each atom has an indicator
/// literal `a_i ⇔ atom_i`, and a query is a conjunction of literals checked with
/// `check_assumptions` (the incremental mode of `slam-algorithms.md` §3.3, "assumption
/// literals"). `Unknown` counts as "satisfiable" (not proved), as everywhere.
pub struct Session<'s> {
    solver: &'s Solver,
    atoms: &'s [Bool],
    queries: u64,
    unknowns: u64,
}

impl Session<'_> {
    fn assume(&self, lits: &[(usize, bool)]) -> Vec<Bool> {
        lits.iter()
            .map(|&(i, pos)| {
                if pos {
                    self.atoms[i].clone()
                } else {
                    self.atoms[i].not()
                }
            })
            .collect()
    }

    /// One query under the literals as assumptions (made by [`Session::assume`]), counted.
    fn solve(&mut self, assumptions: &[Bool]) -> SatAnswer {
        self.queries += 1;
        match self.solver.check_assumptions(assumptions) {
            SatResult::Sat => SatAnswer::Sat,
            SatResult::Unsat => SatAnswer::Unsat,
            SatResult::Unknown => {
                self.unknowns += 1;
                SatAnswer::Unknown
            }
        }
    }

    /// Whether the conjunction of the literals (atom index, polarity) may hold. No model is
    /// built: building one took 70% of c2bp's enumeration of inconsistent cubes.
    pub fn check(&mut self, lits: &[(usize, bool)]) -> SatAnswer {
        let assumptions = self.assume(lits);
        self.solve(&assumptions)
    }

    /// Like [`Session::check`], with the value of every atom in a model when satisfiable.
    pub fn check_model(&mut self, lits: &[(usize, bool)]) -> (SatAnswer, Option<Vec<bool>>) {
        let answer = self.check(lits);
        let model = (answer == SatAnswer::Sat)
            .then(|| self.solver.get_model())
            .flatten()
            .and_then(|m| {
                self.atoms
                    .iter()
                    .map(|a| m.eval(a, true).and_then(|v| v.as_bool()))
                    .collect::<Option<Vec<bool>>>()
            });
        (answer, model)
    }

    /// Like [`Session::check`]; when unsatisfiable, also the literals of an unsatisfiable core
    /// (a subset of `lits`, not necessarily minimal: Z3's core of the assumptions).
    pub fn check_core(
        &mut self,
        lits: &[(usize, bool)],
    ) -> (SatAnswer, Option<Vec<(usize, bool)>>) {
        let assumed = self.assume(lits);
        let answer = self.solve(&assumed);
        if answer != SatAnswer::Unsat {
            return (answer, None);
        }
        let core = self.solver.get_unsat_core();
        let kept: Vec<(usize, bool)> = lits
            .iter()
            .zip(&assumed)
            .filter(|(_, a)| core.iter().any(|c| c == *a))
            .map(|(l, _)| *l)
            .collect();
        (answer, Some(kept))
    }

    /// Opens a scope for [`Session::block`] clauses.
    pub fn push(&mut self) {
        self.solver.push();
    }

    /// Closes the innermost scope opened by [`Session::push`], dropping its clauses.
    pub fn pop(&mut self) {
        self.solver.pop(1);
    }

    /// Asserts that the conjunction of the literals does not hold (a blocking clause, for
    /// enumerating models), until the enclosing [`Session::push`] scope is popped.
    pub fn block(&mut self, lits: &[(usize, bool)]) {
        let neg: Vec<Bool> = self.assume(lits).iter().map(Bool::not).collect();
        let refs: Vec<&Bool> = neg.iter().collect();
        self.solver.assert(Bool::or(&refs));
    }

    /// Number of atoms.
    pub fn len(&self) -> usize {
        self.atoms.len()
    }

    /// Whether there is no atom.
    pub fn is_empty(&self) -> bool {
        self.atoms.is_empty()
    }
}

/// The canonical text of an expression: a prefix form with every node's type, injective on
/// expressions of one program (the cache key material).
pub fn canonical(prog: &Program, e: &Expr) -> String {
    let mut s = String::new();
    write_canonical(prog, e, &mut s);
    s
}

fn write_canonical(prog: &Program, e: &Expr, s: &mut String) {
    let ty = prog.show_type(&e.ty);
    match &e.kind {
        ExprKind::Const(v) => {
            let _ = write!(s, "{v}:{ty}");
            return;
        }
        // Names are unique within a function, not across functions (`int x0` in `f`,
        // `unsigned x0` in `main`): the type makes two texts equal only for formulas that are
        // renamings of each other.
        ExprKind::Var(v) => {
            let info = prog.var(*v);
            let _ = write!(s, "{}:{}", info.name, prog.show_type(&info.ty));
            return;
        }
        _ => {}
    }
    s.push('(');
    match &e.kind {
        ExprKind::Func(n) => {
            let _ = write!(s, "fn {n}");
        }
        ExprKind::Str(t) => {
            let _ = write!(s, "str {t:?}");
        }
        ExprKind::Unary(op, a) => {
            s.push_str(match op {
                UnOp::Neg => "neg ",
                UnOp::BitNot => "~ ",
                UnOp::LogNot => "! ",
            });
            write_canonical(prog, a, s);
        }
        ExprKind::Binary(op, a, b) => {
            let _ = write!(s, "{} ", op.symbol());
            write_canonical(prog, a, s);
            s.push(' ');
            write_canonical(prog, b, s);
        }
        ExprKind::Cast(a) => {
            s.push_str("cast ");
            write_canonical(prog, a, s);
        }
        ExprKind::AddrOf(a) => {
            s.push_str("& ");
            write_canonical(prog, a, s);
        }
        ExprKind::Deref(a) => {
            s.push_str("* ");
            write_canonical(prog, a, s);
        }
        ExprKind::Field(a, f) => {
            let _ = write!(s, ". {f:?} ");
            write_canonical(prog, a, s);
        }
        ExprKind::Index(a, i) => {
            s.push_str("[] ");
            write_canonical(prog, a, s);
            s.push(' ');
            write_canonical(prog, i, s);
        }
        ExprKind::Cond(c, a, b) => {
            s.push_str("? ");
            write_canonical(prog, c, s);
            s.push(' ');
            write_canonical(prog, a, s);
            s.push(' ');
            write_canonical(prog, b, s);
        }
        ExprKind::Const(_) | ExprKind::Var(_) => {}
    }
    let _ = write!(s, "):{ty}");
}

/// A C value in Z3: a mathematical integer (default) or a bit-vector (`--bitvector`).
#[derive(Clone)]
enum Num {
    I(Int),
    B(BV),
}

/// How a scalar type is represented: width in bits and signedness (`None`: not a scalar the
/// encoding models, e.g. a float or a structure).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Repr {
    width: u32,
    signed: bool,
    is_bool: bool,
}

impl Repr {
    fn range(self) -> (i128, i128) {
        if self.signed {
            (
                -(1i128 << (self.width - 1)),
                (1i128 << (self.width - 1)) - 1,
            )
        } else {
            (0, (1i128 << self.width) - 1)
        }
    }
}

fn pow2(k: u32) -> Int {
    Int::from_i128(1i128 << k)
}

fn int_of(n: &Num) -> Int {
    match n {
        Num::I(i) => i.clone(),
        Num::B(_) => unreachable!("bit-vector value in integer mode"),
    }
}

fn bv_of(n: &Num) -> BV {
    match n {
        Num::B(b) => b.clone(),
        Num::I(_) => unreachable!("integer value in bit-vector mode"),
    }
}

/// Encodes the expressions of one query in the current thread's Z3 context.
struct Encoder<'p> {
    prog: &'p Program,
    sem: Semantics,
    /// Range facts, distinctness, links: truths about every state.
    facts: Vec<Bool>,
    vars: BTreeMap<VarId, Num>,
    /// Addresses of variables, function designators and string literals, by name.
    addrs: BTreeMap<String, Num>,
    /// Variables whose address occurs, with their address.
    addr_vars: BTreeMap<VarId, Num>,
    /// Uninterpreted functions by name (memories, fields, imprecise operators).
    funcs: BTreeMap<String, FuncDecl>,
    /// Memories used: type text → its scalar type.
    mems: BTreeMap<String, CType>,
    fresh: u32,
    /// A signed value converted to an unsigned type at least as wide is `v mod 2^w`, the form
    /// [`Prover::project`] reads back as a conversion (`(unsigned)x`); otherwise it is
    /// `v < 0 ? v + 2^w : v`, the same value for every `v` of the signed type (so in every
    /// state without signed overflow) and far cheaper for Z3 (c2bp on progress seed 185: 10.7 s
    /// → 0.3 s for 2,200 queries).
    modular: bool,
}

impl<'p> Encoder<'p> {
    fn new(prog: &'p Program, sem: Semantics) -> Encoder<'p> {
        Encoder {
            prog,
            sem,
            facts: Vec::new(),
            vars: BTreeMap::new(),
            addrs: BTreeMap::new(),
            addr_vars: BTreeMap::new(),
            funcs: BTreeMap::new(),
            mems: BTreeMap::new(),
            fresh: 0,
            modular: false,
        }
    }

    fn bv(&self) -> bool {
        self.sem.bitvector
    }

    fn ptr_repr(&self) -> Repr {
        Repr {
            width: match self.sem.data_model {
                DataModel::Ilp32 => 32,
                DataModel::Lp64 => 64,
            },
            signed: false,
            is_bool: false,
        }
    }

    /// The representation of a value of this type (arrays and functions decay to pointers).
    fn repr(&self, ty: &CType) -> Option<Repr> {
        match ty {
            CType::Int(k) => Some(Repr {
                width: k.width(self.sem.data_model),
                signed: k.is_signed(),
                is_bool: *k == IntKind::Bool,
            }),
            CType::Pointer(_) | CType::Array(..) | CType::Func(_) => Some(self.ptr_repr()),
            _ => None,
        }
    }

    /// The representation used for values of a type the encoding does not model.
    fn repr_or_opaque(&self, ty: &CType) -> Repr {
        self.repr(ty).unwrap_or(Repr {
            width: self.ptr_repr().width,
            signed: true,
            is_bool: false,
        })
    }

    fn sort(&self, r: Repr) -> Sort {
        if self.bv() {
            Sort::bitvector(r.width)
        } else {
            Sort::int()
        }
    }

    /// All facts of the query (call after encoding every formula).
    fn finish(mut self) -> Vec<Bool> {
        // Addresses are non-null and pairwise distinct.
        let addrs: Vec<Num> = self.addrs.values().cloned().collect();
        let pr = self.ptr_repr();
        let zero = self.constant(0, pr);
        for a in &addrs {
            let nz = self.eq(a, &zero).not();
            self.facts.push(nz);
        }
        if addrs.len() > 1 {
            let d = match &addrs[0] {
                Num::I(_) => {
                    let v: Vec<Int> = addrs.iter().map(int_of).collect();
                    Int::distinct(&v)
                }
                Num::B(_) => {
                    let v: Vec<BV> = addrs.iter().map(bv_of).collect();
                    BV::distinct(&v)
                }
            };
            self.facts.push(d);
        }
        // A scalar variable whose address occurs is its cell: mem_T(&x) == x.
        let links: Vec<(VarId, Num)> = self
            .addr_vars
            .iter()
            .map(|(v, a)| (*v, a.clone()))
            .collect();
        for (v, a) in links {
            let ty = self.prog.var(v).ty.clone();
            let key = self.prog.show_type(&ty);
            if self.mems.contains_key(&key) {
                let cell = self.load(&ty, &a);
                let val = self.var(v);
                let f = self.eq(&cell, &val);
                self.facts.push(f);
            }
        }
        self.facts
    }

    fn fresh_name(&mut self, what: &str) -> String {
        self.fresh += 1;
        format!("{what}!{}", self.fresh)
    }

    /// A named constant of a representation.
    fn named(&self, name: &str, r: Repr) -> Num {
        if self.bv() {
            Num::B(BV::new_const(name, r.width))
        } else {
            Num::I(Int::new_const(name))
        }
    }

    /// A fresh value of a type, within its range.
    fn fresh_value(&mut self, ty: &CType, what: &str) -> Num {
        let name = self.fresh_name(what);
        let r = self.repr_or_opaque(ty);
        let v = self.named(&name, r);
        if self.repr(ty).is_some() {
            self.range_fact(&v, r);
        }
        v
    }

    /// `lo <= v <= hi` (Int mode; bit-vectors are in range by construction).
    fn range_fact(&mut self, v: &Num, r: Repr) {
        if let Num::I(i) = v {
            let (lo, hi) = r.range();
            self.facts.push(i.ge(Int::from_i128(lo)));
            self.facts.push(i.le(Int::from_i128(hi)));
        }
    }

    fn constant(&self, v: i128, r: Repr) -> Num {
        let w = wrap_i128(v, r);
        if self.bv() {
            // The two's complement bits of `w` in `r.width` bits (width <= 64).
            Num::B(BV::from_u64(w as u64, r.width))
        } else {
            Num::I(Int::from_i128(w))
        }
    }

    fn eq(&self, a: &Num, b: &Num) -> Bool {
        match (a, b) {
            (Num::I(x), Num::I(y)) => x.eq(y),
            (Num::B(x), Num::B(y)) => x.eq(y),
            _ => unreachable!("mixed integer and bit-vector values"),
        }
    }

    fn ite(&self, c: &Bool, a: &Num, b: &Num) -> Num {
        match (a, b) {
            (Num::I(x), Num::I(y)) => Num::I(c.ite(x, y)),
            (Num::B(x), Num::B(y)) => Num::B(c.ite(x, y)),
            _ => unreachable!("mixed integer and bit-vector values"),
        }
    }

    fn bool_to_num(&self, b: &Bool, r: Repr) -> Num {
        let one = self.constant(1, r);
        let zero = self.constant(0, r);
        self.ite(b, &one, &zero)
    }

    fn is_zero(&self, v: &Num, r: Repr) -> Bool {
        let zero = self.constant(0, r);
        self.eq(v, &zero)
    }

    /// An uninterpreted function application (created on first use, by name).
    fn apply(&mut self, name: &str, args: &[(&Num, Repr)], result: Repr) -> Num {
        if !self.funcs.contains_key(name) {
            let dom: Vec<Sort> = args.iter().map(|(_, r)| self.sort(*r)).collect();
            let dom_refs: Vec<&Sort> = dom.iter().collect();
            let f = FuncDecl::new(name, &dom_refs, &self.sort(result));
            self.funcs.insert(name.to_string(), f);
        }
        let f = &self.funcs[name];
        let asts: Vec<&dyn Ast> = args
            .iter()
            .map(|(a, _)| match a {
                Num::I(i) => i as &dyn Ast,
                Num::B(b) => b as &dyn Ast,
            })
            .collect();
        let d = f.apply(&asts);
        if self.bv() {
            Num::B(
                d.as_bv()
                    .expect("uninterpreted function has a bit-vector sort"),
            )
        } else {
            Num::I(
                d.as_int()
                    .expect("uninterpreted function has the integer sort"),
            )
        }
    }

    /// An uninterpreted operator of a type: a function of its operands, within the type's range.
    fn opaque_op(&mut self, op: &str, args: &[(&Num, Repr)], ty: &CType) -> Num {
        let r = self.repr_or_opaque(ty);
        let mut name = format!("op:{op}:{}", self.prog.show_type(ty));
        for (_, ar) in args {
            let _ = write!(name, ":{}{}", if ar.signed { 's' } else { 'u' }, ar.width);
        }
        let v = self.apply(&name, args, r);
        if self.repr(ty).is_some() {
            self.range_fact(&v, r);
        }
        v
    }

    // ---- conditions ------------------------------------------------------------------------

    /// The expression as a C condition (non-zero).
    fn cond(&mut self, e: &Expr) -> Bool {
        match &e.kind {
            ExprKind::Binary(op, a, b) if op.is_comparison() => self.compare(*op, a, b),
            ExprKind::Binary(BinOp::LogAnd, a, b) => {
                let x = self.cond(a);
                let y = self.cond(b);
                Bool::and(&[x, y])
            }
            ExprKind::Binary(BinOp::LogOr, a, b) => {
                let x = self.cond(a);
                let y = self.cond(b);
                Bool::or(&[x, y])
            }
            ExprKind::Unary(UnOp::LogNot, a) => self.cond(a).not(),
            ExprKind::Cond(c, a, b) => {
                let c = self.cond(c);
                let x = self.cond(a);
                let y = self.cond(b);
                c.ite(&x, &y)
            }
            _ => match self.repr(&e.ty) {
                Some(r) => {
                    let v = self.value(e);
                    self.is_zero(&v, r).not()
                }
                None => {
                    let name = self.fresh_name("cond");
                    Bool::new_const(name)
                }
            },
        }
    }

    fn compare(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Bool {
        let common = if a.ty.is_integer() && b.ty.is_integer() {
            usual_arithmetic(&a.ty, &b.ty, self.sem.data_model)
        } else if self.is_pointerish(&a.ty) || self.is_pointerish(&b.ty) {
            CType::Int(IntKind::ULong).ptr_to()
        } else {
            let name = self.fresh_name("cmp");
            return Bool::new_const(name);
        };
        if (!a.ty.is_integer() && !self.is_pointerish(&a.ty))
            || (!b.ty.is_integer() && !self.is_pointerish(&b.ty))
        {
            let name = self.fresh_name("cmp");
            return Bool::new_const(name);
        }
        let r = self.repr(&common).expect("comparison type is scalar");
        let x = self.value_as(a, &common);
        let y = self.value_as(b, &common);
        match (&x, &y) {
            (Num::I(x), Num::I(y)) => match op {
                BinOp::Lt => x.lt(y),
                BinOp::Le => x.le(y),
                BinOp::Gt => x.gt(y),
                BinOp::Ge => x.ge(y),
                BinOp::Eq => x.eq(y),
                BinOp::Ne => x.eq(y).not(),
                _ => unreachable!("not a comparison"),
            },
            (Num::B(x), Num::B(y)) => match (op, r.signed) {
                (BinOp::Lt, true) => x.bvslt(y),
                (BinOp::Lt, false) => x.bvult(y),
                (BinOp::Le, true) => x.bvsle(y),
                (BinOp::Le, false) => x.bvule(y),
                (BinOp::Gt, true) => x.bvsgt(y),
                (BinOp::Gt, false) => x.bvugt(y),
                (BinOp::Ge, true) => x.bvsge(y),
                (BinOp::Ge, false) => x.bvuge(y),
                (BinOp::Eq, _) => x.eq(y),
                (BinOp::Ne, _) => x.eq(y).not(),
                _ => unreachable!("not a comparison"),
            },
            _ => unreachable!("mixed integer and bit-vector values"),
        }
    }

    /// The value of an integer constant expression made of constants, casts and unary minus
    /// (enough to recognise masks, divisors and shift amounts), in its own type.
    fn const_value(&self, e: &Expr) -> Option<i128> {
        let r = self.repr(&e.ty).filter(|_| e.ty.is_integer())?;
        let v = match &e.kind {
            ExprKind::Const(v) => *v,
            ExprKind::Unary(UnOp::Neg, a) => -self.const_value(a)?,
            ExprKind::Cast(a) => self.const_value(a)?,
            _ => return None,
        };
        Some(wrap_i128(v, r))
    }

    fn is_pointerish(&self, ty: &CType) -> bool {
        matches!(ty, CType::Pointer(_) | CType::Array(..) | CType::Func(_))
    }

    // ---- values ----------------------------------------------------------------------------

    /// The value of `e` converted to type `to`.
    fn value_as(&mut self, e: &Expr, to: &CType) -> Num {
        let v = self.value(e);
        self.convert(v, &e.ty, to)
    }

    /// Converts a value of type `from` to type `to` (C11 6.3.1.3, gcc's wrap-around for the
    /// implementation-defined case).
    fn convert(&mut self, v: Num, from: &CType, to: &CType) -> Num {
        if from == to {
            return v;
        }
        let (Some(rf), Some(rt)) = (self.repr(from), self.repr(to)) else {
            return self.fresh_value(to, "conv");
        };
        if rt.is_bool {
            let z = self.is_zero(&v, rf);
            return self.bool_to_num(&z.not(), rt);
        }
        match v {
            Num::I(i) => {
                let (flo, fhi) = rf.range();
                let (tlo, thi) = rt.range();
                if tlo <= flo && fhi <= thi {
                    return Num::I(i);
                }
                if rf.signed && !rt.signed && rf.width <= rt.width && !self.modular {
                    let neg = i.lt(Int::from_i128(0));
                    return Num::I(neg.ite(&(&i + pow2(rt.width)), &i));
                }
                let m = i.modulo(pow2(rt.width));
                if rt.signed {
                    let big = m.ge(pow2(rt.width - 1));
                    Num::I(big.ite(&(&m - pow2(rt.width)), &m))
                } else {
                    Num::I(m)
                }
            }
            Num::B(b) => {
                if rt.width > rf.width {
                    let extra = rt.width - rf.width;
                    Num::B(if rf.signed {
                        b.sign_ext(extra)
                    } else {
                        b.zero_ext(extra)
                    })
                } else if rt.width < rf.width {
                    Num::B(b.extract(rt.width - 1, 0))
                } else {
                    Num::B(b)
                }
            }
        }
    }

    /// Wraps a mathematical result into an unsigned type (Int mode).
    fn wrap_unsigned(&self, v: Int, r: Repr) -> Int {
        if r.signed { v } else { v.modulo(pow2(r.width)) }
    }

    fn var(&mut self, v: VarId) -> Num {
        if let Some(n) = self.vars.get(&v) {
            return n.clone();
        }
        let info = self.prog.var(v);
        let r = self.repr_or_opaque(&info.ty);
        let n = self.named(&info.name, r);
        if let Some(r) = self.repr(&info.ty) {
            self.range_fact(&n, r);
        }
        self.vars.insert(v, n.clone());
        n
    }

    /// The address constant of a named object (variable, function, string literal).
    fn object_addr(&mut self, name: String) -> Num {
        if let Some(a) = self.addrs.get(&name) {
            return a.clone();
        }
        let pr = self.ptr_repr();
        let a = self.named(&name, pr);
        self.range_fact(&a, pr);
        self.addrs.insert(name, a.clone());
        a
    }

    /// The address of an lvalue (or of a function designator / string literal).
    fn address(&mut self, e: &Expr) -> Num {
        let pr = self.ptr_repr();
        match &e.kind {
            ExprKind::Var(v) => {
                let a = self.object_addr(format!("&{}", self.prog.var(*v).name));
                self.addr_vars.insert(*v, a.clone());
                a
            }
            ExprKind::Func(n) => self.object_addr(format!("&fn {n}")),
            ExprKind::Str(t) => self.object_addr(format!("&str {t:?}")),
            ExprKind::Deref(p) => self.value_as_pointer(p),
            ExprKind::Field(b, f) => {
                let base = self.address(b);
                let name = format!("field:{f}");
                let a = self.apply(&name, &[(&base, pr)], pr);
                self.range_fact(&a, pr);
                a
            }
            ExprKind::Index(a, i) => {
                let base = self.value_as_pointer(a);
                self.offset(base, i, false)
            }
            ExprKind::Cond(c, a, b) => {
                let c = self.cond(c);
                let x = self.address(a);
                let y = self.address(b);
                self.ite(&c, &x, &y)
            }
            _ => self.fresh_value(&CType::Void.ptr_to(), "addr"),
        }
    }

    /// A pointer-valued expression (arrays and functions decay to their address).
    fn value_as_pointer(&mut self, e: &Expr) -> Num {
        let v = self.value(e);
        let ptr = CType::Void.ptr_to();
        if self.is_pointerish(&e.ty) {
            v
        } else {
            self.convert(v, &e.ty, &ptr)
        }
    }

    /// `base + i` (or `base - i`) in element units.
    fn offset(&mut self, base: Num, i: &Expr, subtract: bool) -> Num {
        let pr = self.ptr_repr();
        let idx = self.value(i);
        match (base, idx) {
            (Num::I(b), Num::I(x)) => Num::I(if subtract { b - x } else { b + x }),
            (Num::B(b), Num::B(x)) => {
                let ri = self.repr_or_opaque(&i.ty);
                let x = if ri.width < pr.width {
                    if ri.signed {
                        x.sign_ext(pr.width - ri.width)
                    } else {
                        x.zero_ext(pr.width - ri.width)
                    }
                } else if ri.width > pr.width {
                    x.extract(pr.width - 1, 0)
                } else {
                    x
                };
                Num::B(if subtract { b.bvsub(&x) } else { b.bvadd(&x) })
            }
            _ => unreachable!("mixed integer and bit-vector values"),
        }
    }

    /// The cell of a scalar type at an address: `mem_T(addr)`.
    fn load(&mut self, ty: &CType, addr: &Num) -> Num {
        let key = self.prog.show_type(ty);
        self.mems.entry(key.clone()).or_insert_with(|| ty.clone());
        let r = self.repr_or_opaque(ty);
        let pr = self.ptr_repr();
        let v = self.apply(&format!("mem:{key}"), &[(addr, pr)], r);
        self.range_fact(&v, r);
        v
    }

    /// The value of an expression of its own type.
    fn value(&mut self, e: &Expr) -> Num {
        match &e.kind {
            ExprKind::Const(v) => match self.repr(&e.ty) {
                Some(r) => self.constant(*v, r),
                None => self.fresh_value(&e.ty, "const"),
            },
            ExprKind::Var(v) => {
                if matches!(e.ty, CType::Array(..) | CType::Func(_)) {
                    self.address(e)
                } else {
                    self.var(*v)
                }
            }
            ExprKind::Func(_) | ExprKind::Str(_) => self.address(e),
            ExprKind::Deref(p) if matches!(e.ty, CType::Func(_)) => self.value_as_pointer(p),
            ExprKind::Deref(_) | ExprKind::Field(..) | ExprKind::Index(..) => match &e.ty {
                CType::Array(..) | CType::Func(_) => self.address(e),
                CType::Int(_) | CType::Pointer(_) => {
                    let a = self.address(e);
                    self.load(&e.ty, &a)
                }
                _ => self.fresh_value(&e.ty, "cell"),
            },
            ExprKind::AddrOf(a) => self.address(a),
            ExprKind::Cast(a) => {
                if self.repr(&e.ty).is_none() {
                    return self.fresh_value(&e.ty, "cast");
                }
                self.value_as(a, &e.ty)
            }
            ExprKind::Cond(c, a, b) => {
                if self.repr(&e.ty).is_none() {
                    return self.fresh_value(&e.ty, "cond");
                }
                let c = self.cond(c);
                let x = self.value_as(a, &e.ty);
                let y = self.value_as(b, &e.ty);
                self.ite(&c, &x, &y)
            }
            ExprKind::Unary(op, a) => self.unary(*op, a, &e.ty),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, &e.ty),
        }
    }

    fn unary(&mut self, op: UnOp, a: &Expr, ty: &CType) -> Num {
        let Some(r) = self.repr(ty) else {
            return self.fresh_value(ty, "unop");
        };
        if op == UnOp::LogNot {
            let c = self.cond(a);
            return self.bool_to_num(&c.not(), r);
        }
        if self.repr(&a.ty).is_none() {
            return self.fresh_value(ty, "unop");
        }
        let v = self.value_as(a, ty);
        match (op, v) {
            (UnOp::Neg, Num::I(i)) => Num::I(self.wrap_unsigned(i.unary_minus(), r)),
            (UnOp::Neg, Num::B(b)) => Num::B(b.bvneg()),
            (UnOp::BitNot, Num::I(i)) => Num::I(if r.signed {
                i.unary_minus() - Int::from_i64(1)
            } else {
                Int::from_i128((1i128 << r.width) - 1) - i
            }),
            (UnOp::BitNot, Num::B(b)) => Num::B(b.bvnot()),
            (UnOp::LogNot, _) => unreachable!("handled above"),
        }
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, ty: &CType) -> Num {
        if op.is_comparison() || matches!(op, BinOp::LogAnd | BinOp::LogOr) {
            let Some(r) = self.repr(ty) else {
                return self.fresh_value(ty, "binop");
            };
            let c = match op {
                BinOp::LogAnd => Bool::and(&[self.cond(a), self.cond(b)]),
                BinOp::LogOr => Bool::or(&[self.cond(a), self.cond(b)]),
                _ => self.compare(op, a, b),
            };
            return self.bool_to_num(&c, r);
        }
        // Pointer arithmetic (element units).
        if matches!(op, BinOp::Add | BinOp::Sub) && self.is_pointerish(ty) {
            let (p, i, subtract) = if self.is_pointerish(&a.ty) {
                (a, b, op == BinOp::Sub)
            } else {
                (b, a, false)
            };
            if !i.ty.is_integer() {
                return self.fresh_value(ty, "ptrarith");
            }
            let base = self.value_as_pointer(p);
            return self.offset(base, i, subtract);
        }
        if op == BinOp::Sub && self.is_pointerish(&a.ty) && self.is_pointerish(&b.ty) {
            let x = self.value_as_pointer(a);
            let y = self.value_as_pointer(b);
            let d = match (x, y) {
                (Num::I(x), Num::I(y)) => return Num::I(x - y),
                (Num::B(x), Num::B(y)) => Num::B(x.bvsub(&y)),
                _ => unreachable!("mixed integer and bit-vector values"),
            };
            // Bit-vector mode: the difference as a signed value of the result type.
            let signed_ptr = CType::Int(match self.sem.data_model {
                DataModel::Ilp32 => IntKind::Int,
                DataModel::Lp64 => IntKind::Long,
            });
            return self.convert(d, &signed_ptr, ty);
        }
        let (Some(r), Some(_), Some(_)) = (self.repr(ty), self.repr(&a.ty), self.repr(&b.ty))
        else {
            return self.fresh_value(ty, "binop");
        };
        if !ty.is_integer() {
            return self.fresh_value(ty, "binop");
        }
        if matches!(op, BinOp::Shl | BinOp::Shr) {
            return self.shift(op, a, b, ty, r);
        }
        let x = self.value_as(a, ty);
        let y = self.value_as(b, ty);
        let bconst = self.const_value(b).map(|v| wrap_i128(v, r));
        let aconst = self.const_value(a).map(|v| wrap_i128(v, r));
        match (x, y) {
            (Num::I(x), Num::I(y)) => self.binary_int(op, x, y, aconst, bconst, ty, r),
            (Num::B(x), Num::B(y)) => self.binary_bv(op, x, y, bconst, ty, r),
            _ => unreachable!("mixed integer and bit-vector values"),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn binary_int(
        &mut self,
        op: BinOp,
        x: Int,
        y: Int,
        xc: Option<i128>,
        yc: Option<i128>,
        ty: &CType,
        r: Repr,
    ) -> Num {
        let wrap = |s: &Self, v: Int| s.wrap_unsigned(v, r);
        match op {
            BinOp::Add => Num::I(wrap(self, x + y)),
            BinOp::Sub => Num::I(wrap(self, x - y)),
            BinOp::Mul => Num::I(wrap(self, x * y)),
            BinOp::Div | BinOp::Rem => {
                let q = if r.signed {
                    let zero = Int::from_i64(0);
                    let ax = x.ge(&zero).ite(&x, &x.unary_minus());
                    // A constant divisor folded: `n % 4` stays linear in `n`, which the
                    // quantifier elimination of `Prover::project` needs.
                    let (ay, same) = match yc {
                        Some(c) => (
                            Int::from_i128(c.abs()),
                            if c >= 0 { x.ge(&zero) } else { x.lt(&zero) },
                        ),
                        None => (
                            y.ge(&zero).ite(&y, &y.unary_minus()),
                            x.ge(&zero).iff(y.ge(&zero)),
                        ),
                    };
                    let q0 = ax.div(&ay);
                    same.ite(&q0, &q0.unary_minus())
                } else {
                    x.div(&y)
                };
                let res = if op == BinOp::Div { q } else { &x - &y * &q };
                if yc.is_some_and(|c| c != 0) {
                    return Num::I(res);
                }
                // Division by zero: undefined, a functional value of the result type.
                let name = if op == BinOp::Div { "/0" } else { "%0" };
                let xn = Num::I(x);
                let z = self.opaque_op(name, &[(&xn, r)], ty);
                Num::I(y.eq(Int::from_i64(0)).ite(&int_of(&z), &res))
            }
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                // Cheap precise cases with a constant operand.
                let (v, c) = match (xc, yc) {
                    (_, Some(c)) => (Some(x.clone()), Some(c)),
                    (Some(c), None) => (Some(y.clone()), Some(c)),
                    _ => (None, None),
                };
                if let (Some(v), Some(c)) = (v, c) {
                    let all_ones = if r.signed { -1 } else { (1i128 << r.width) - 1 };
                    match op {
                        BinOp::BitAnd if c == 0 => return Num::I(Int::from_i64(0)),
                        BinOp::BitAnd if c == all_ones => return Num::I(v),
                        BinOp::BitAnd if c > 0 && (c & (c + 1)) == 0 => {
                            return Num::I(v.modulo(Int::from_i128(c + 1)));
                        }
                        BinOp::BitOr | BinOp::BitXor if c == 0 => return Num::I(v),
                        _ => {}
                    }
                }
                let xn = Num::I(x);
                let yn = Num::I(y);
                self.opaque_op(op.symbol(), &[(&xn, r), (&yn, r)], ty)
            }
            _ => unreachable!("handled by the caller"),
        }
    }

    fn binary_bv(&mut self, op: BinOp, x: BV, y: BV, yc: Option<i128>, ty: &CType, r: Repr) -> Num {
        match op {
            BinOp::Add => Num::B(x.bvadd(&y)),
            BinOp::Sub => Num::B(x.bvsub(&y)),
            BinOp::Mul => Num::B(x.bvmul(&y)),
            BinOp::BitAnd => Num::B(x.bvand(&y)),
            BinOp::BitOr => Num::B(x.bvor(&y)),
            BinOp::BitXor => Num::B(x.bvxor(&y)),
            BinOp::Div | BinOp::Rem => {
                let res = match (op, r.signed) {
                    (BinOp::Div, true) => x.bvsdiv(&y),
                    (BinOp::Div, false) => x.bvudiv(&y),
                    (_, true) => x.bvsrem(&y),
                    (_, false) => x.bvurem(&y),
                };
                if yc.is_some_and(|c| c != 0) {
                    return Num::B(res);
                }
                let name = if op == BinOp::Div { "/0" } else { "%0" };
                let xn = Num::B(x);
                let z = self.opaque_op(name, &[(&xn, r)], ty);
                let zero = BV::from_u64(0, r.width);
                Num::B(y.eq(&zero).ite(&bv_of(&z), &res))
            }
            _ => unreachable!("handled by the caller"),
        }
    }

    fn shift(&mut self, op: BinOp, a: &Expr, b: &Expr, ty: &CType, r: Repr) -> Num {
        let x = self.value_as(a, ty);
        let Some(rb) = self.repr(&b.ty) else {
            return self.fresh_value(ty, "shift");
        };
        let bpromoted = b.ty.promoted();
        let y = self.value_as(b, &bpromoted);
        let rbp = self.repr(&bpromoted).unwrap_or(rb);
        let name = op.symbol();
        match (x, y) {
            (Num::I(x), y) => {
                if let Some(c) = self
                    .const_value(b)
                    .filter(|c| (0..r.width as i128).contains(c))
                {
                    let k = pow2(c as u32);
                    return Num::I(match op {
                        BinOp::Shl => self.wrap_unsigned(x * k, r),
                        _ => x.div(&k),
                    });
                }
                let xn = Num::I(x);
                self.opaque_op(name, &[(&xn, r), (&y, rbp)], ty)
            }
            (Num::B(x), Num::B(yb)) => {
                // The amount, in the width of the shifted value.
                let amount = if rbp.width < r.width {
                    yb.zero_ext(r.width - rbp.width)
                } else if rbp.width > r.width {
                    yb.extract(r.width - 1, 0)
                } else {
                    yb.clone()
                };
                let shifted = match (op, r.signed) {
                    (BinOp::Shl, _) => x.bvshl(&amount),
                    (_, true) => x.bvashr(&amount),
                    (_, false) => x.bvlshr(&amount),
                };
                // Amount outside [0, w): undefined, a functional value.
                let in_range = if rbp.signed {
                    Bool::and(&[
                        yb.bvsge(BV::from_u64(0, rbp.width)),
                        yb.bvslt(BV::from_u64(r.width as u64, rbp.width)),
                    ])
                } else {
                    yb.bvult(BV::from_u64(r.width as u64, rbp.width))
                };
                let xn = Num::B(x);
                let yn = Num::B(yb);
                let undef = self.opaque_op(name, &[(&xn, r), (&yn, rbp)], ty);
                Num::B(in_range.ite(&shifted, &bv_of(&undef)))
            }
            _ => unreachable!("mixed integer and bit-vector values"),
        }
    }
}

/// `v` wrapped into the range of a representation (two's complement).
fn wrap_i128(v: i128, r: Repr) -> i128 {
    let (lo, hi) = r.range();
    if (lo..=hi).contains(&v) {
        return v;
    }
    let m = 1i128 << r.width;
    let u = v.rem_euclid(m);
    if r.signed && u > hi { u - m } else { u }
}
