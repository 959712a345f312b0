//! Z3 contexts and solvers: the [`one_context`] scope, solver creation and configuration,
//! and the incremental [`SolverCx`] with its [`Session`]s over assumption literals.

use z3::ast::Bool;
use z3::{Params, SatResult, Solver};

use super::encode::Encoder;
use super::syntactic::Forms;
use super::{SatAnswer, Semantics};
use crate::ir::{Expr, Program};

thread_local! {
    /// Whether this thread runs inside [`one_context`].
    static IN_ONE_CONTEXT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Whether this thread is one of the [`Lanes`](super::Lanes), whose queries share the
    /// thread's own context.
    pub(super) static IN_LANE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with one fresh Z3 context for all the queries it makes on this thread (of any
/// [`Prover`](super::Prover)): outside such a scope every query and every
/// [`Prover::with_solver`](super::Prover::with_solver) makes its own context (except on one of
/// the [`Lanes`](super::Lanes), which keep theirs), and a context is
/// costly to make (Z3 allocates and fills large tables), so a caller that makes several in a
/// row (newton, for each refinement) shares one instead. Answers stay
/// deterministic: the scope's sequence of operations is its caller's, the same on every run
/// (newton's, for one trace, standalone or inside slam-run). Nested scopes share the outer one.
pub fn one_context<R: Send + Sync>(f: impl FnOnce() -> R + Send + Sync) -> R {
    if IN_ONE_CONTEXT.with(|c| c.get()) {
        return f();
    }
    z3::with_z3_config(&z3::Config::new(), move || flagged(&IN_ONE_CONTEXT, f))
}

/// Runs `f` with the thread-local `flag` set, and gives it back its value afterwards (after a
/// panic too).
pub(super) fn flagged<R>(
    flag: &'static std::thread::LocalKey<std::cell::Cell<bool>>,
    f: impl FnOnce() -> R,
) -> R {
    struct Restore(&'static std::thread::LocalKey<std::cell::Cell<bool>>, bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            self.0.with(|c| c.set(self.1));
        }
    }
    let _restore = Restore(flag, flag.with(|c| c.replace(true)));
    f()
}

/// Makes the C library's allocator keep the memory Z3 frees, for a process that makes Z3
/// contexts one after another. To be called at the start of `main`, before any thread exists.
///
/// Every context allocates and fills tables of about 17 MB through the C library's `malloc`
/// (Rust's allocator is not involved), and newton makes a fresh context for every trace (so
/// that its predicates do not depend on the traces before). glibc serves blocks that large
/// with `mmap` and unmaps them on `free`, or trims freed memory off the top of its heap, so a
/// context faulted most of its 17 MB in afresh: about 4,000 page faults, several times the
/// cost of filling the tables. With the `mmap` threshold at its largest (32 MiB) and trimming
/// only past 1 GiB of free memory, a context reuses the pages of the one before; the process
/// keeps the memory it once used, and its peak does not change. Only glibc has these settings;
/// elsewhere this does nothing.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets glibc's allocation parameters; called before any thread
    // exists, no allocation runs concurrently. A value glibc refuses leaves its default.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
    }
}

/// Runs `f` in a fresh Z3 context of this thread, or in the [`one_context`] scope's, or on a
/// lane in the lane's context (the z3 crate's context of the thread, kept for its life).
pub(super) fn in_context<R: Send + Sync>(f: impl FnOnce() -> R + Send + Sync) -> R {
    if IN_ONE_CONTEXT.with(|c| c.get()) || IN_LANE.with(|c| c.get()) {
        f()
    } else {
        z3::with_z3_config(&z3::Config::new(), f)
    }
}

/// A solver of the current thread's context with the deterministic resource limit `rlimit`
/// (0: none) and the given assertions, for one check: Z3's default solver, whose first check
/// runs a tactic chosen for the formula (it decides `x * x == 2` unsatisfiable).
pub(super) fn solver_with<'a>(
    rlimit: u32,
    assertions: impl IntoIterator<Item = &'a Bool>,
) -> Solver {
    asserting(configure(Solver::new(), rlimit), assertions)
}

/// `solver` with the assertions asserted.
fn asserting<'a>(solver: Solver, assertions: impl IntoIterator<Item = &'a Bool>) -> Solver {
    for a in assertions {
        solver.assert(a);
    }
    solver
}

/// A solver for one check of a query whose encoding is non-linear or divides, or not
/// (`nonlinear_or_div`, from
/// [`Encoder::nonlinear_or_div`](super::encode::Encoder::nonlinear_or_div): a product of
/// non-constants, or integer division): Z3's default solver ([`solver_with`]) for those, which
/// its tactics preprocess, and otherwise the solver of a [`SolverCx`] (for the logic `QF_AUFLIA` in integer
/// mode). Z3's default solver builds its portfolio of tactics, and its preprocessing reads its
/// parameters by name, on every solver: on the linear queries of newton's refinements that cost
/// more than the checks (half of newton's time on the drivers), and the two answer the same on
/// them. Models are another matter (either solver may give any model): queries that want one
/// keep the default solver.
pub(super) fn query_solver<'a>(
    sem: Semantics,
    rlimit: u32,
    nonlinear_or_div: bool,
    assertions: impl IntoIterator<Item = &'a Bool>,
) -> Solver {
    if nonlinear_or_div {
        solver_with(rlimit, assertions)
    } else {
        asserting(session_solver(sem, rlimit), assertions)
    }
}

/// The solver of a [`SolverCx`], used incrementally (push, pop, checks under assumptions). In
/// integer mode it is made for the logic `QF_AUFLIA`: Z3's default solver builds a portfolio
/// of tactics for every logic when it is created, which costs more than most of our queries;
/// a solver for one logic is an order of magnitude cheaper to make. Used
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
    // conjunctions of linear integer facts, checked incrementally under assumptions) in less
    // time than the default, and the same `.bp` from c2bp.
    params.set_u32("smt.arith.solver", 2);
    // No compaction of the models' function graphs: compacting them took more time than the
    // checks of c2bp's cube searches, which ask for a model after every satisfiable check
    // (for the atoms' values, which compaction does not change).
    params.set_bool("model.compact", false);
    solver.set_params(&params);
    solver
}

/// One Z3 context and solver for a sequence of [`Session`]s in the calling thread (see
/// [`Prover::with_solver`](super::Prover::with_solver)): a caller that asks many questions (c2bp abstracting one procedure)
/// pays for the context once. Each session pushes a scope, encodes its atoms afresh (with their
/// range and memory facts) and pops it at the end, so sessions do not see each other's
/// assertions. Answers are deterministic because the sequence of operations on one context is
/// the caller's (deterministic) order, and Z3's resource limit applies to each check.
pub struct SolverCx<'p> {
    prog: &'p Program,
    sem: Semantics,
    rlimit: u32,
    solver: Solver,
    pub(super) queries: u64,
    pub(super) unknowns: u64,
}

impl<'p> SolverCx<'p> {
    /// A new solver of the current thread's context.
    pub(super) fn fresh(prog: &'p Program, sem: Semantics, rlimit: u32) -> SolverCx<'p> {
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

    /// Queries asked so far (a caller can attribute them to its own parts of the work).
    pub fn queries(&self) -> u64 {
        self.queries
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
            prog: self.prog,
            solver: &self.solver,
            atoms: &inds,
            forms: Forms::of(self.prog, atoms),
            blocks: 0,
            scopes: Vec::new(),
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
/// `check_assumptions` (the solver's incremental mode: the atoms are asserted once, and each
/// query only chooses which literals to assume). `Unknown` counts as "satisfiable" (not
/// proved), as everywhere.
pub struct Session<'s> {
    prog: &'s Program,
    solver: &'s Solver,
    atoms: &'s [Bool],
    /// What the atoms say as tests of constants, for the answers that need no query.
    forms: Forms,
    /// Blocking clauses asserted ([`Session::block`]), and their number at each open scope:
    /// the syntactic answers do not see them, so "satisfiable" is only answered without any.
    blocks: usize,
    scopes: Vec<usize>,
    queries: u64,
    unknowns: u64,
}

impl Session<'_> {
    /// Tells the session that its atoms' lvalues alias only where `pts` says they may: then a
    /// conjunction of literals over tests and equalities of lvalues that cannot alias is
    /// answered "satisfiable" without a query too, with a model (the `syntactic` module of
    /// `cir::smt`).
    pub fn know_aliasing(&mut self, pts: &crate::pointsto::PointsTo) {
        self.forms.know_aliasing(pts);
    }

    /// Whether the forms see every constraint the solver holds, so that they may answer
    /// "satisfiable": not once a blocking clause is asserted.
    fn forms_see_all(&self) -> bool {
        self.blocks == 0
    }

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
    ///
    /// Literals that fix an lvalue to two constants, or contradict what such tests decide, are
    /// answered without a query (the `syntactic` module of `cir::smt`), and so are literals
    /// over lvalues that cannot alias, once the session knows it ([`Session::know_aliasing`]).
    pub fn check(&mut self, lits: &[(usize, bool)]) -> SatAnswer {
        if self.forms.conflict(lits).is_some() {
            return SatAnswer::Unsat;
        }
        if self.forms_see_all() && self.forms.satisfiable(self.prog, lits) {
            return SatAnswer::Sat;
        }
        let assumptions = self.assume(lits);
        self.solve(&assumptions)
    }

    /// Like [`Session::check`], with the value of every atom in a model when satisfiable.
    pub fn check_model(&mut self, lits: &[(usize, bool)]) -> (SatAnswer, Option<Vec<bool>>) {
        if self.forms.conflict(lits).is_some() {
            return (SatAnswer::Unsat, None);
        }
        if self.forms_see_all()
            && let Some(model) = self.forms.model(self.prog, lits)
        {
            return (SatAnswer::Sat, Some(model));
        }
        let assumptions = self.assume(lits);
        let answer = self.solve(&assumptions);
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
        if let Some(core) = self.forms.conflict(lits) {
            return (SatAnswer::Unsat, Some(core));
        }
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
        self.scopes.push(self.blocks);
        self.solver.push();
    }

    /// Closes the innermost scope opened by [`Session::push`], dropping its clauses.
    pub fn pop(&mut self) {
        if let Some(b) = self.scopes.pop() {
            self.blocks = b;
        }
        self.solver.pop(1);
    }

    /// Asserts that the conjunction of the literals does not hold (a blocking clause, for
    /// enumerating models), until the enclosing [`Session::push`] scope is popped.
    pub fn block(&mut self, lits: &[(usize, bool)]) {
        self.blocks += 1;
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
