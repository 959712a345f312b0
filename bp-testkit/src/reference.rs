//! The reference interpreter: an explicit-state implementation of the Boolean-program
//! semantics of `docs/bp-semantics.md` ("Semantics"), written directly over the AST and
//! independently of `bebop` (no code is shared, so that a differential test between them means
//! something).
//!
//! # Semantics implemented (each rule cites `docs/bp-semantics.md`)
//!
//! - **State**: the globals plus a stack of frames; a procedure's *scope* is its globals,
//!   parameters and locals, in that order ([`Machine::scope`]). Execution starts at the first
//!   statement of `main`.
//! - **Initial values are nondeterministic**: every valuation of the globals and of `main`'s
//!   parameters and locals is a possible start; every call starts its callee with arbitrary
//!   locals.
//! - **enforce e** of P is assumed on entry to P and after every step of P, including the step
//!   that returns from a call into P; transitions into states violating it are cut.
//! - **Expressions**: every occurrence of `*` is an independent fresh value at each evaluation, so
//!   an expression evaluates to a *set* of values (`{F}`, `{T}` or `{F, T}`), computed exactly
//!   because no two occurrences are correlated. `schoose[p, n]` is T if p holds, else F if n
//!   holds, else either.
//! - **Assignment** `x̄ := ē constrain φ`: all right-hand sides are evaluated in the pre-state and
//!   assigned at once; unassigned variables keep their values; the step exists only if φ can be
//!   true with `'y` the post-state value of y (its old value when y is unassigned).
//! - **Calls** are by value; the callee starts with the caller's globals, its parameters bound
//!   to the actuals (evaluated in the caller's state) and arbitrary locals. `return ē` evaluates
//!   ē in the callee's state; falling off `end` returns arbitrary values. The caller then gets the
//!   globals as the callee left them and its targets assigned (`_` discards); all its other
//!   variables keep their values. Recursion is unbounded.
//! - **Control**: `if`/`elsif` conditions are tried in order (arm i is taken when its condition
//!   can be T and every earlier one can be F; `else`, or falling through, when all can be F);
//!   `while` goes into the body when its condition can be T and past the loop when it can be F;
//!   the end of a loop body returns to the loop head; `goto` may jump to any target; `assume e`
//!   continues only where e can be T; `skip` and `print` do nothing; `dead x̄` havocs x̄. A
//!   `return` in the outermost `main`, or falling off its end, ends the run.
//! - **The error** ([`RefProperty::AssertsAndSlicError`]): an `assert e` where e can be F (the
//!   run continues only where e can be T), or reaching (before it runs) a statement labelled
//!   `SLIC_ERROR`. With [`RefProperty::Label`]`(L)`: reaching a statement labelled L; asserts act
//!   as `assume`s. Reaching an error does not stop the exploration of other behaviours.
//!
//! # Algorithm
//!
//! [`analyze`] is a tabulation (Reps, Horwitz, Sagiv, POPL'95) over *explicit* states: a path
//! edge is (procedure, entry valuation of globals + parameters, statement, full valuation of the
//! scope), and each (procedure, entry valuation) has a summary: the set of its exit valuations
//! (globals, returned values). A call looks up or creates the callee's summary, so unbounded
//! recursion terminates. Valuations are bit vectors (`u64`, bit i = i-th variable of the scope),
//! so a scope holds at most [`MAX_SCOPE_VARS`] variables; the number of states explored is
//! exponential in the scope size, which is fine for the small programs of the test-suites.
//!
//! # Small-step API
//!
//! [`Machine`] exposes single steps over named valuations ([`Valuation`]), the form traces
//! use: [`Machine::step`] enumerates every legal outcome of one statement in one state (the
//! enforce checks included), [`Machine::return_values`] and [`Machine::return_to`] give the
//! two halves of a return. The trace replayer (module `replay`) is built on it.

use bp_grammar::ast::{Expr, Lhs, Procedure, Program, Stmt, StmtId, StmtKind};
use bp_grammar::trace::Valuation;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;

/// The most variables (globals + parameters + locals) one procedure's scope may have.
pub const MAX_SCOPE_VARS: usize = 64;

/// The label whose reach is an error under the default property.
pub const SLIC_ERROR: &str = "SLIC_ERROR";

/// The question asked (mirrors `bebop::Property`, without depending on `bebop`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum RefProperty {
    /// A failing `assert`, or reaching a statement labelled `SLIC_ERROR` (the default).
    #[default]
    AssertsAndSlicError,
    /// Reaching a statement carrying this label; asserts act as assumes.
    Label(String),
}

impl RefProperty {
    /// The label whose reach is an error.
    pub fn target_label(&self) -> &str {
        match self {
            RefProperty::AssertsAndSlicError => SLIC_ERROR,
            RefProperty::Label(l) => l,
        }
    }

    /// True when a failing `assert` is an error (otherwise asserts are assumes).
    pub fn asserts_are_errors(&self) -> bool {
        matches!(self, RefProperty::AssertsAndSlicError)
    }
}

/// Why the interpreter could not answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefError {
    /// The program breaks a well-formedness rule the interpreter relies on.
    IllFormed(String),
    /// A scope is larger than [`MAX_SCOPE_VARS`].
    TooManyVariables {
        /// The procedure.
        proc: String,
        /// Its number of globals + parameters + locals.
        count: usize,
    },
    /// The exploration exceeded [`Limits::max_path_edges`].
    Budget {
        /// The limit that was hit.
        limit: usize,
    },
    /// A query named a procedure that does not exist.
    UnknownProc(String),
    /// A query named a statement that does not exist.
    UnknownStmt {
        /// The procedure.
        proc: String,
        /// The statement index asked for.
        stmt: StmtId,
    },
    /// A valuation given to a query does not cover exactly the scope.
    BadValuation {
        /// The procedure whose scope was expected.
        proc: String,
        /// What is wrong.
        reason: String,
    },
}

impl fmt::Display for RefError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RefError::IllFormed(m) => write!(f, "ill-formed program: {m}"),
            RefError::TooManyVariables { proc, count } => write!(
                f,
                "procedure `{proc}` has {count} variables in scope (at most {MAX_SCOPE_VARS})"
            ),
            RefError::Budget { limit } => {
                write!(f, "state budget exhausted ({limit} path edges)")
            }
            RefError::UnknownProc(p) => write!(f, "no procedure `{p}`"),
            RefError::UnknownStmt { proc, stmt } => {
                write!(f, "procedure `{proc}` has no statement {}", stmt.0)
            }
            RefError::BadValuation { proc, reason } => {
                write!(f, "bad valuation for `{proc}`: {reason}")
            }
        }
    }
}

impl std::error::Error for RefError {}

/// A control location inside a procedure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Loc {
    /// About to run this statement.
    Stmt(StmtId),
    /// At `end` (falling off the body).
    End,
}

/// One legal outcome of running a statement ([`Machine::step`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Successor {
    /// The statement ran (not a call, return or failing assert); control goes to `to` in
    /// `after`. `taken` is as in a trace step: the arm of an `if` (`arms.len()` for the `else`
    /// or the fall-through), 1/0 for a `while` (body/past the loop), the target index of a
    /// `goto`, `None` otherwise.
    Next {
        /// The branch taken, as in [`bp_grammar::trace::Step::taken`].
        taken: Option<u32>,
        /// Where control goes.
        to: Loc,
        /// The state afterwards (same scope).
        after: Valuation,
    },
    /// A call enters `callee` in state `entry` (over the callee's scope).
    Call {
        /// The called procedure.
        callee: String,
        /// The callee's state at its entry.
        entry: Valuation,
    },
    /// A `return` statement returns these values.
    Return {
        /// The returned values, in order.
        values: Vec<bool>,
    },
    /// An `assert` whose condition can be false (only under the default property).
    AssertFails,
}

// ---------------------------------------------------------------------------------------------
// Value sets of expressions.

/// A set of Boolean values: bit 0 = F is possible, bit 1 = T is possible.
type Vals = u8;
const CAN_F: Vals = 1;
const CAN_T: Vals = 2;

fn single(b: bool) -> Vals {
    if b { CAN_T } else { CAN_F }
}

fn bit(s: u64, i: usize) -> bool {
    (s >> i) & 1 == 1
}

fn set_bit(s: u64, i: usize, v: bool) -> u64 {
    if v { s | (1 << i) } else { s & !(1 << i) }
}

fn low_mask(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// An expression compiled against a scope.
#[derive(Clone, Debug)]
enum CExpr {
    Const(bool),
    Var(usize),
    Primed(usize),
    Nondet,
    Not(Box<CExpr>),
    Bin(bp_grammar::ast::BinOp, Box<CExpr>, Box<CExpr>),
    Schoose(Box<CExpr>, Box<CExpr>),
}

impl CExpr {
    /// The set of values in pre-state `pre` and post-state `post` (for primed variables).
    fn eval(&self, pre: u64, post: u64) -> Vals {
        match self {
            CExpr::Const(b) => single(*b),
            CExpr::Var(i) => single(bit(pre, *i)),
            CExpr::Primed(i) => single(bit(post, *i)),
            CExpr::Nondet => CAN_F | CAN_T,
            CExpr::Not(a) => {
                let v = a.eval(pre, post);
                ((v & CAN_F) << 1) | ((v & CAN_T) >> 1)
            }
            CExpr::Bin(op, a, b) => {
                let (va, vb) = (a.eval(pre, post), b.eval(pre, post));
                let mut out = 0;
                for x in [false, true] {
                    if va & single(x) == 0 {
                        continue;
                    }
                    for y in [false, true] {
                        if vb & single(y) != 0 {
                            out |= single(op.apply(x, y));
                        }
                    }
                }
                out
            }
            CExpr::Schoose(p, n) => {
                let vp = p.eval(pre, post);
                let mut out = 0;
                if vp & CAN_T != 0 {
                    out |= CAN_T;
                }
                if vp & CAN_F != 0 {
                    let vn = n.eval(pre, post);
                    if vn & CAN_T != 0 {
                        out |= CAN_F;
                    }
                    if vn & CAN_F != 0 {
                        out |= CAN_F | CAN_T;
                    }
                }
                out
            }
        }
    }

    fn can_be_true(&self, s: u64) -> bool {
        self.eval(s, s) & CAN_T != 0
    }

    fn can_be_false(&self, s: u64) -> bool {
        self.eval(s, s) & CAN_F != 0
    }
}

/// Calls `f` with every bit vector `b` (of `sets.len()` bits) such that bit i of b is in
/// `sets[i]`.
fn for_each_choice(sets: &[Vals], mut f: impl FnMut(u64)) {
    if sets.contains(&0) {
        return;
    }
    let mut fixed = 0u64;
    let mut free = Vec::new();
    for (i, &v) in sets.iter().enumerate() {
        if v == CAN_F | CAN_T {
            free.push(i);
        } else if v == CAN_T {
            fixed |= 1 << i;
        }
    }
    for k in 0..(1u64 << free.len()) {
        let mut b = fixed;
        for (j, &i) in free.iter().enumerate() {
            if bit(k, j) {
                b |= 1 << i;
            }
        }
        f(b);
    }
}

/// The values `e` may take in `state` (sorted, without duplicates: `[false]`, `[true]` or
/// `[false, true]`), with every `*` a free choice and `'x` read as x. Fails on a variable that
/// `state` does not give.
pub fn possible_values(e: &Expr, state: &Valuation) -> Result<Vec<bool>, RefError> {
    let names: Vec<&String> = state.keys().collect();
    if names.len() > MAX_SCOPE_VARS {
        return Err(RefError::TooManyVariables {
            proc: String::new(),
            count: names.len(),
        });
    }
    let index: HashMap<String, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| ((*n).clone(), i))
        .collect();
    let c = Compiler {
        index: &index,
        proc: "<expression>",
    }
    .expr(e)?;
    let s = state
        .values()
        .enumerate()
        .fold(0u64, |acc, (i, &b)| set_bit(acc, i, b));
    let v = c.eval(s, s);
    Ok([false, true]
        .into_iter()
        .filter(|&b| v & single(b) != 0)
        .collect())
}

// ---------------------------------------------------------------------------------------------
// The compiled program.

#[derive(Clone, Debug)]
enum CStmt {
    /// `skip`, `print`.
    Skip,
    Goto(Vec<Loc>),
    Return(Vec<CExpr>),
    Assign {
        targets: Vec<usize>,
        rhs: Vec<CExpr>,
        constrain: Option<CExpr>,
    },
    Call {
        callee: usize,
        targets: Vec<Option<usize>>,
        args: Vec<CExpr>,
    },
    If {
        arms: Vec<(CExpr, Loc)>,
        els: Loc,
    },
    While {
        cond: CExpr,
        body: Loc,
        exit: Loc,
    },
    Assert(CExpr),
    Assume(CExpr),
    Dead(Vec<usize>),
}

#[derive(Debug)]
struct CProc<'p> {
    ast: &'p Procedure,
    name: String,
    /// The scope: globals, parameters, locals.
    vars: Vec<String>,
    index: HashMap<String, usize>,
    n_params: usize,
    ret_arity: usize,
    enforce: Option<CExpr>,
    stmts: Vec<CStmt>,
    src: Vec<&'p Stmt>,
    /// Where control goes when statement i completes normally.
    next: Vec<Loc>,
    entry: Loc,
}

/// A Boolean program compiled for explicit-state execution; the small-step API.
#[derive(Debug)]
pub struct Machine<'p> {
    prog: &'p Program,
    procs: Vec<CProc<'p>>,
    by_name: HashMap<String, usize>,
    n_globals: usize,
    main: usize,
}

struct Compiler<'a> {
    index: &'a HashMap<String, usize>,
    proc: &'a str,
}

impl Compiler<'_> {
    fn var(&self, name: &str) -> Result<usize, RefError> {
        self.index.get(name).copied().ok_or_else(|| {
            RefError::IllFormed(format!("undeclared variable `{name}` in `{}`", self.proc))
        })
    }

    fn expr(&self, e: &Expr) -> Result<CExpr, RefError> {
        Ok(match e {
            Expr::Const(b, _) => CExpr::Const(*b),
            Expr::Var(id) => CExpr::Var(self.var(&id.name)?),
            Expr::Primed(id) => CExpr::Primed(self.var(&id.name)?),
            Expr::Nondet(_) => CExpr::Nondet,
            Expr::Not(a, _) => CExpr::Not(Box::new(self.expr(a)?)),
            Expr::Binary(op, a, b, _) => {
                CExpr::Bin(*op, Box::new(self.expr(a)?), Box::new(self.expr(b)?))
            }
            Expr::Schoose(p, n, _) => {
                CExpr::Schoose(Box::new(self.expr(p)?), Box::new(self.expr(n)?))
            }
        })
    }

    fn exprs(&self, es: &[Expr]) -> Result<Vec<CExpr>, RefError> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    /// An ill-formedness error in this procedure.
    fn ill(&self, m: String) -> RefError {
        RefError::IllFormed(format!("in `{}`: {m}", self.proc))
    }

    /// A parallel assignment: distinct variable targets (no `_`), as many as values.
    fn assign(
        &self,
        lhs: &[Lhs],
        rhs: &[Expr],
        constrain: Option<&Expr>,
    ) -> Result<CStmt, RefError> {
        if lhs.len() != rhs.len() {
            return Err(self.ill("assignment count mismatch".into()));
        }
        let mut targets = Vec::new();
        for l in lhs {
            match l {
                Lhs::Var(v) => {
                    let i = self.var(&v.name)?;
                    if targets.contains(&i) {
                        return Err(self.ill(format!("`{}` assigned twice", v.name)));
                    }
                    targets.push(i);
                }
                Lhs::Discard(_) => {
                    return Err(self.ill("`_` outside a call".into()));
                }
            }
        }
        Ok(CStmt::Assign {
            targets,
            rhs: self.exprs(rhs)?,
            constrain: constrain.map(|e| self.expr(e)).transpose()?,
        })
    }

    /// A call of `callee` (a procedure of `prog`, indexed by `by_name`): the callee's arity,
    /// and no targets or one per returned value (`_` discards one).
    fn call(
        &self,
        prog: &Program,
        by_name: &HashMap<String, usize>,
        lhs: &[Lhs],
        callee: &str,
        args: &[Expr],
    ) -> Result<CStmt, RefError> {
        let q = *by_name
            .get(callee)
            .ok_or_else(|| self.ill(format!("unknown procedure `{callee}`")))?;
        let qp = &prog.procs[q];
        if args.len() != qp.params.len() {
            return Err(self.ill(format!("call of `{callee}`: arity")));
        }
        if !lhs.is_empty() && lhs.len() != qp.ret.arity() {
            return Err(self.ill(format!("call of `{callee}`: result count")));
        }
        let mut targets = Vec::new();
        for l in lhs {
            match l {
                Lhs::Var(v) => {
                    let i = self.var(&v.name)?;
                    if targets.contains(&Some(i)) {
                        return Err(self.ill(format!("`{}` assigned twice", v.name)));
                    }
                    targets.push(Some(i));
                }
                Lhs::Discard(_) => targets.push(None),
            }
        }
        Ok(CStmt::Call {
            callee: q,
            targets,
            args: self.exprs(args)?,
        })
    }
}

/// Links a statement list: fills `next` and returns the list's first location.
fn link(list: &[Stmt], follow: Loc, ids: &HashMap<*const Stmt, u32>, next: &mut [Loc]) -> Loc {
    let id_of = |s: &Stmt| ids[&(s as *const Stmt)];
    for (i, s) in list.iter().enumerate() {
        let id = id_of(s);
        let after = match list.get(i + 1) {
            Some(n) => Loc::Stmt(StmtId(id_of(n))),
            None => follow,
        };
        next[id as usize] = after;
        match &s.kind {
            StmtKind::If { arms, els } => {
                for arm in arms {
                    link(&arm.body, after, ids, next);
                }
                if let Some(e) = els {
                    link(e, after, ids, next);
                }
            }
            StmtKind::While { body, .. } => {
                link(body, Loc::Stmt(StmtId(id)), ids, next);
            }
            _ => {}
        }
    }
    list.first().map_or(follow, |s| Loc::Stmt(StmtId(id_of(s))))
}

impl<'p> Machine<'p> {
    /// Compiles `prog`. Fails on the well-formedness errors that would make execution
    /// meaningless (undeclared names, arity mismatches, unknown labels, no `main`, ...) and on
    /// scopes larger than [`MAX_SCOPE_VARS`].
    pub fn new(prog: &'p Program) -> Result<Machine<'p>, RefError> {
        let globals: Vec<String> = prog.global_vars().map(|v| v.name.clone()).collect();
        let mut by_name = HashMap::new();
        for (i, p) in prog.procs.iter().enumerate() {
            if by_name.insert(p.name.name.clone(), i).is_some() {
                return Err(RefError::IllFormed(format!(
                    "duplicate procedure `{}`",
                    p.name.name
                )));
            }
        }
        let main = *by_name
            .get("main")
            .ok_or_else(|| RefError::IllFormed("no procedure `main`".into()))?;
        let mut procs = Vec::new();
        for p in &prog.procs {
            procs.push(Self::compile_proc(prog, p, &globals, &by_name)?);
        }
        Ok(Machine {
            prog,
            procs,
            by_name,
            n_globals: globals.len(),
            main,
        })
    }

    fn compile_proc(
        prog: &'p Program,
        p: &'p Procedure,
        globals: &[String],
        by_name: &HashMap<String, usize>,
    ) -> Result<CProc<'p>, RefError> {
        let name = p.name.name.clone();
        let ill = |m: String| RefError::IllFormed(format!("in `{name}`: {m}"));
        let mut vars: Vec<String> = globals.to_vec();
        vars.extend(p.frame_vars().map(|v| v.name.clone()));
        if vars.len() > MAX_SCOPE_VARS {
            return Err(RefError::TooManyVariables {
                proc: name,
                count: vars.len(),
            });
        }
        let mut index = HashMap::new();
        for (i, v) in vars.iter().enumerate() {
            if index.insert(v.clone(), i).is_some() {
                return Err(ill(format!("variable `{v}` declared twice")));
            }
        }
        let pre = p.stmts_preorder();
        let ids: HashMap<*const Stmt, u32> = pre
            .iter()
            .map(|(id, s)| (*s as *const Stmt, id.0))
            .collect();
        let mut labels: HashMap<&str, u32> = HashMap::new();
        for (id, s) in &pre {
            for l in &s.labels {
                if labels.insert(l.name.as_str(), id.0).is_some() {
                    return Err(ill(format!("duplicate label `{}`", l.name)));
                }
            }
        }
        let mut next = vec![Loc::End; pre.len()];
        let entry = link(&p.body, Loc::End, &ids, &mut next);
        let c = Compiler {
            index: &index,
            proc: &name,
        };
        let first = |body: &[Stmt], follow: Loc| {
            body.first()
                .map_or(follow, |s| Loc::Stmt(StmtId(ids[&(s as *const Stmt)])))
        };
        let ret_arity = p.ret.arity();
        let mut stmts = Vec::with_capacity(pre.len());
        for (id, s) in &pre {
            let after = next[id.0 as usize];
            let cs = match &s.kind {
                StmtKind::Skip | StmtKind::Print(_) => {
                    if let StmtKind::Print(es) = &s.kind {
                        c.exprs(es)?;
                    }
                    CStmt::Skip
                }
                StmtKind::Goto(ls) => CStmt::Goto(
                    ls.iter()
                        .map(|l| {
                            labels
                                .get(l.name.as_str())
                                .map(|&t| Loc::Stmt(StmtId(t)))
                                .ok_or_else(|| ill(format!("unknown label `{}`", l.name)))
                        })
                        .collect::<Result<_, _>>()?,
                ),
                StmtKind::Return(es) => {
                    if es.len() != ret_arity {
                        return Err(ill(format!(
                            "return of {} values, expected {ret_arity}",
                            es.len()
                        )));
                    }
                    CStmt::Return(c.exprs(es)?)
                }
                StmtKind::Assign {
                    lhs,
                    rhs,
                    constrain,
                } => c.assign(lhs, rhs, constrain.as_ref())?,
                StmtKind::Call { lhs, callee, args } => {
                    c.call(prog, by_name, lhs, &callee.name, args)?
                }
                StmtKind::If { arms, els } => CStmt::If {
                    arms: arms
                        .iter()
                        .map(|a| Ok((c.expr(&a.cond)?, first(&a.body, after))))
                        .collect::<Result<_, RefError>>()?,
                    els: els.as_ref().map_or(after, |e| first(e, after)),
                },
                StmtKind::While { cond, body } => CStmt::While {
                    cond: c.expr(cond)?,
                    body: first(body, Loc::Stmt(*id)),
                    exit: after,
                },
                StmtKind::Assert(e) => CStmt::Assert(c.expr(e)?),
                StmtKind::Assume(e) => CStmt::Assume(c.expr(e)?),
                StmtKind::Dead(vs) => CStmt::Dead(
                    vs.iter()
                        .map(|v| c.var(&v.name))
                        .collect::<Result<_, _>>()?,
                ),
            };
            stmts.push(cs);
        }
        Ok(CProc {
            ast: p,
            n_params: p.params.len(),
            ret_arity,
            enforce: p.enforce.as_ref().map(|e| c.expr(e)).transpose()?,
            vars,
            index,
            stmts,
            src: pre.iter().map(|(_, s)| *s).collect(),
            next,
            entry,
            name,
        })
    }

    // --- internal bit-level operations -------------------------------------------------------

    fn gmask(&self) -> u64 {
        low_mask(self.n_globals)
    }

    fn enforce_ok(&self, p: usize, s: u64) -> bool {
        self.procs[p]
            .enforce
            .as_ref()
            .is_none_or(|e| e.can_be_true(s))
    }

    /// Every entry state of `q` whose globals and parameters are `gp`: arbitrary locals,
    /// filtered by q's enforce.
    fn entry_states(&self, q: usize, gp: u64) -> Vec<u64> {
        let cp = &self.procs[q];
        let shift = self.n_globals + cp.n_params;
        let n_locals = cp.vars.len() - shift;
        (0..=low_mask(n_locals))
            .map(|l| gp | if shift >= 64 { 0 } else { l << shift })
            .filter(|&s| self.enforce_ok(q, s))
            .collect()
    }

    /// The caller's state after a return from its call statement `call` (in state `s`): the
    /// globals as `exit_globals`, the targets set from `values`; `None` if the caller's enforce
    /// cuts it.
    fn return_state(
        &self,
        p: usize,
        call: usize,
        s: u64,
        exit_globals: u64,
        values: u64,
    ) -> Option<u64> {
        let CStmt::Call { targets, .. } = &self.procs[p].stmts[call] else {
            unreachable!("return_state at a call statement only");
        };
        let mut r = (s & !self.gmask()) | (exit_globals & self.gmask());
        for (i, t) in targets.iter().enumerate() {
            if let Some(v) = t {
                r = set_bit(r, *v, bit(values, i));
            }
        }
        self.enforce_ok(p, r).then_some(r)
    }

    /// Every outcome of statement `id` of `p` in state `s` (bit level).
    fn raw_step(&self, p: usize, id: usize, s: u64, asserts_fail: bool, out: &mut Vec<Raw>) {
        let cp = &self.procs[p];
        let next = cp.next[id];
        let go = |taken: Option<u32>, to: Loc, state: u64, out: &mut Vec<Raw>| {
            if self.enforce_ok(p, state) {
                out.push(Raw::Next { taken, to, state });
            }
        };
        match &cp.stmts[id] {
            CStmt::Skip => go(None, next, s, out),
            CStmt::Goto(ts) => {
                for (i, t) in ts.iter().enumerate() {
                    go(Some(i as u32), *t, s, out);
                }
            }
            CStmt::Return(es) => {
                let sets: Vec<Vals> = es.iter().map(|e| e.eval(s, s)).collect();
                for_each_choice(&sets, |values| out.push(Raw::Return { values }));
            }
            CStmt::Assign {
                targets,
                rhs,
                constrain,
            } => {
                let sets: Vec<Vals> = rhs.iter().map(|e| e.eval(s, s)).collect();
                for_each_choice(&sets, |vals| {
                    let mut post = s;
                    for (i, &t) in targets.iter().enumerate() {
                        post = set_bit(post, t, bit(vals, i));
                    }
                    if constrain
                        .as_ref()
                        .is_none_or(|c| c.eval(s, post) & CAN_T != 0)
                    {
                        go(None, next, post, out);
                    }
                });
            }
            CStmt::Call { callee, args, .. } => {
                let sets: Vec<Vals> = args.iter().map(|e| e.eval(s, s)).collect();
                let g = s & self.gmask();
                let n_g = self.n_globals;
                for_each_choice(&sets, |params| {
                    let gp = if n_g >= 64 { g } else { g | (params << n_g) };
                    out.push(Raw::Call {
                        callee: *callee,
                        gp,
                    });
                });
            }
            CStmt::If { arms, els } => {
                let mut all_false_possible = true;
                for (i, (cond, to)) in arms.iter().enumerate() {
                    let v = cond.eval(s, s);
                    if v & CAN_T != 0 {
                        go(Some(i as u32), *to, s, out);
                    }
                    if v & CAN_F == 0 {
                        all_false_possible = false;
                        break;
                    }
                }
                if all_false_possible {
                    go(Some(arms.len() as u32), *els, s, out);
                }
            }
            CStmt::While { cond, body, exit } => {
                let v = cond.eval(s, s);
                if v & CAN_T != 0 {
                    go(Some(1), *body, s, out);
                }
                if v & CAN_F != 0 {
                    go(Some(0), *exit, s, out);
                }
            }
            CStmt::Assert(e) => {
                if asserts_fail && e.can_be_false(s) {
                    out.push(Raw::AssertFails);
                }
                if e.can_be_true(s) {
                    go(None, next, s, out);
                }
            }
            CStmt::Assume(e) => {
                if e.can_be_true(s) {
                    go(None, next, s, out);
                }
            }
            CStmt::Dead(vs) => {
                let sets = vec![CAN_F | CAN_T; vs.len()];
                for_each_choice(&sets, |vals| {
                    let mut post = s;
                    for (i, &v) in vs.iter().enumerate() {
                        post = set_bit(post, v, bit(vals, i));
                    }
                    go(None, next, post, out);
                });
            }
        }
    }

    fn has_label(&self, p: usize, id: usize, label: &str) -> bool {
        self.procs[p].src[id].labels.iter().any(|l| l.name == label)
    }

    // --- the public small-step API ------------------------------------------------------------

    /// The program this machine runs.
    pub fn program(&self) -> &'p Program {
        self.prog
    }

    fn proc_index(&self, proc: &str) -> Result<usize, RefError> {
        self.by_name
            .get(proc)
            .copied()
            .ok_or_else(|| RefError::UnknownProc(proc.to_string()))
    }

    fn stmt_index(&self, p: usize, stmt: StmtId) -> Result<usize, RefError> {
        let i = stmt.0 as usize;
        if i < self.procs[p].stmts.len() {
            Ok(i)
        } else {
            Err(RefError::UnknownStmt {
                proc: self.procs[p].name.clone(),
                stmt,
            })
        }
    }

    /// The variables in scope in `proc`: globals, then parameters, then locals.
    pub fn scope(&self, proc: &str) -> Result<&[String], RefError> {
        Ok(&self.procs[self.proc_index(proc)?].vars)
    }

    /// The procedure's AST.
    pub fn procedure(&self, proc: &str) -> Result<&'p Procedure, RefError> {
        Ok(self.procs[self.proc_index(proc)?].ast)
    }

    /// Where `proc` starts: its first statement, or [`Loc::End`] for an empty body.
    pub fn entry(&self, proc: &str) -> Result<Loc, RefError> {
        Ok(self.procs[self.proc_index(proc)?].entry)
    }

    /// Where control goes when `stmt` completes normally (for a call: after the return).
    pub fn fallthrough(&self, proc: &str, stmt: StmtId) -> Result<Loc, RefError> {
        let p = self.proc_index(proc)?;
        Ok(self.procs[p].next[self.stmt_index(p, stmt)?])
    }

    /// The statement `stmt` of `proc`.
    pub fn stmt(&self, proc: &str, stmt: StmtId) -> Result<&'p Stmt, RefError> {
        let p = self.proc_index(proc)?;
        Ok(self.procs[p].src[self.stmt_index(p, stmt)?])
    }

    /// True when reaching `stmt` of `proc` is the error of `property` (it carries the target
    /// label).
    pub fn is_target(
        &self,
        proc: &str,
        stmt: StmtId,
        property: &RefProperty,
    ) -> Result<bool, RefError> {
        let p = self.proc_index(proc)?;
        let i = self.stmt_index(p, stmt)?;
        Ok(self.has_label(p, i, property.target_label()))
    }

    /// The bit vector of a valuation over `p`'s scope (exactly the scope's names).
    fn encode(&self, p: usize, v: &Valuation) -> Result<u64, RefError> {
        let cp = &self.procs[p];
        let bad = |reason: String| RefError::BadValuation {
            proc: cp.name.clone(),
            reason,
        };
        let mut s = 0;
        for (name, &val) in v {
            let i = *cp
                .index
                .get(name)
                .ok_or_else(|| bad(format!("`{name}` is not in scope")))?;
            s = set_bit(s, i, val);
        }
        if v.len() != cp.vars.len() {
            let missing: Vec<&str> = cp
                .vars
                .iter()
                .filter(|n| !v.contains_key(*n))
                .map(String::as_str)
                .collect();
            return Err(bad(format!("no value for {}", missing.join(", "))));
        }
        Ok(s)
    }

    fn decode(&self, p: usize, s: u64) -> Valuation {
        self.procs[p]
            .vars
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), bit(s, i)))
            .collect()
    }

    /// Does `proc`'s `enforce` hold (can it be true) in `state`? True without an enforce.
    pub fn enforce_holds(&self, proc: &str, state: &Valuation) -> Result<bool, RefError> {
        let p = self.proc_index(proc)?;
        Ok(self.enforce_ok(p, self.encode(p, state)?))
    }

    /// Every state in which a run may start: any globals, parameters and locals of `main`
    /// satisfying main's enforce. (Exponential in the size of main's scope.)
    pub fn initial_states(&self) -> Vec<Valuation> {
        let m = self.main;
        (0..=low_mask(self.procs[m].vars.len()))
            .filter(|&s| self.enforce_ok(m, s))
            .map(|s| self.decode(m, s))
            .collect()
    }

    /// Every legal outcome of running `stmt` of `proc` in `state` (over `proc`'s scope), with
    /// the enforce checks applied: [`Successor::Next`] states satisfy `proc`'s enforce,
    /// [`Successor::Call`] entry states the callee's. A `Return` yields the possible value
    /// vectors; use [`Machine::return_to`] to get the caller's state. Reaching a target label is
    /// not an outcome (see [`Machine::is_target`]): it happens before the statement runs.
    pub fn step(
        &self,
        proc: &str,
        stmt: StmtId,
        state: &Valuation,
        property: &RefProperty,
    ) -> Result<Vec<Successor>, RefError> {
        let p = self.proc_index(proc)?;
        let id = self.stmt_index(p, stmt)?;
        let s = self.encode(p, state)?;
        let mut raw = Vec::new();
        self.raw_step(p, id, s, property.asserts_are_errors(), &mut raw);
        let mut out = Vec::new();
        for r in raw {
            match r {
                Raw::Next { taken, to, state } => out.push(Successor::Next {
                    taken,
                    to,
                    after: self.decode(p, state),
                }),
                Raw::Call { callee, gp } => {
                    for e in self.entry_states(callee, gp) {
                        out.push(Successor::Call {
                            callee: self.procs[callee].name.clone(),
                            entry: self.decode(callee, e),
                        });
                    }
                }
                Raw::Return { values } => out.push(Successor::Return {
                    values: (0..self.procs[p].ret_arity)
                        .map(|i| bit(values, i))
                        .collect(),
                }),
                Raw::AssertFails => out.push(Successor::AssertFails),
            }
        }
        Ok(out)
    }

    /// The value vectors `proc` may return at `at` in `state`: the values of the `return`
    /// statement's expressions, or every vector when falling off `end` ([`Loc::End`]). Fails if
    /// `at` is a statement other than `return`.
    pub fn return_values(
        &self,
        proc: &str,
        at: Loc,
        state: &Valuation,
    ) -> Result<Vec<Vec<bool>>, RefError> {
        let p = self.proc_index(proc)?;
        let s = self.encode(p, state)?;
        let arity = self.procs[p].ret_arity;
        let sets = match at {
            Loc::End => vec![CAN_F | CAN_T; arity],
            Loc::Stmt(id) => match &self.procs[p].stmts[self.stmt_index(p, id)?] {
                CStmt::Return(es) => es.iter().map(|e| e.eval(s, s)).collect(),
                _ => {
                    return Err(RefError::IllFormed(format!(
                        "statement {} of `{proc}` is not a return",
                        id.0
                    )));
                }
            },
        };
        let mut out = Vec::new();
        for_each_choice(&sets, |v| out.push((0..arity).map(|i| bit(v, i)).collect()));
        Ok(out)
    }

    /// The caller's state after `callee_exit`'s procedure returns `values` to the call
    /// statement `call` of `caller`, which was in `caller_state` when it called: the globals as
    /// in `callee_exit` (a valuation over the callee's scope; only its globals are read), the
    /// call's targets assigned `values`, everything else as in `caller_state`. `None` when the
    /// caller's enforce cuts that state.
    pub fn return_to(
        &self,
        caller: &str,
        call: StmtId,
        caller_state: &Valuation,
        callee_exit: &Valuation,
        values: &[bool],
    ) -> Result<Option<Valuation>, RefError> {
        let p = self.proc_index(caller)?;
        let id = self.stmt_index(p, call)?;
        let CStmt::Call {
            callee, targets, ..
        } = &self.procs[p].stmts[id]
        else {
            return Err(RefError::IllFormed(format!(
                "statement {} of `{caller}` is not a call",
                call.0
            )));
        };
        if !targets.is_empty() && values.len() != targets.len() {
            return Err(RefError::IllFormed(format!(
                "{} values returned to {} targets",
                values.len(),
                targets.len()
            )));
        }
        let s = self.encode(p, caller_state)?;
        let exit = self.encode(*callee, callee_exit)?;
        let vbits = values
            .iter()
            .enumerate()
            .fold(0u64, |acc, (i, &b)| set_bit(acc, i, b));
        Ok(self
            .return_state(p, id, s, exit, vbits)
            .map(|r| self.decode(p, r)))
    }
}

/// A bit-level outcome of one statement.
#[derive(Clone, Copy, Debug)]
enum Raw {
    Next {
        taken: Option<u32>,
        to: Loc,
        state: u64,
    },
    Call {
        callee: usize,
        /// The callee's globals and parameters.
        gp: u64,
    },
    Return {
        values: u64,
    },
    AssertFails,
}

// ---------------------------------------------------------------------------------------------
// Tabulation.

/// Bounds of an exploration.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Give up ([`RefError::Budget`]) after this many path edges.
    pub max_path_edges: usize,
    /// Stop as soon as an error is found (the reachable sets are then incomplete).
    pub stop_at_first_error: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_path_edges: 5_000_000,
            stop_at_first_error: false,
        }
    }
}

type PathEdge = (u32, u64, u32, u64);

#[derive(Default)]
struct Summary {
    seeded: bool,
    exits: HashSet<(u64, u64)>,
    exit_list: Vec<(u64, u64)>,
    callers: Vec<PathEdge>,
}

struct Tab<'m, 'p> {
    m: &'m Machine<'p>,
    property: &'m RefProperty,
    limits: &'m Limits,
    path: HashSet<PathEdge>,
    work: Vec<PathEdge>,
    sums: HashMap<(u32, u64), Summary>,
    reached: HashMap<(u32, u32), BTreeSet<u64>>,
    error_sites: BTreeSet<(u32, u32)>,
}

impl Tab<'_, '_> {
    fn propagate(&mut self, p: u32, e: u64, loc: Loc, s: u64) -> Result<(), RefError> {
        match loc {
            Loc::End => {
                let g = s & self.m.gmask();
                let arity = self.m.procs[p as usize].ret_arity;
                for v in 0..=low_mask(arity) {
                    self.add_exit(p, e, g, v)?;
                }
            }
            Loc::Stmt(id) => {
                if self.path.insert((p, e, id.0, s)) {
                    if self.path.len() > self.limits.max_path_edges {
                        return Err(RefError::Budget {
                            limit: self.limits.max_path_edges,
                        });
                    }
                    self.reached.entry((p, id.0)).or_default().insert(s);
                    self.work.push((p, e, id.0, s));
                }
            }
        }
        Ok(())
    }

    fn add_exit(&mut self, p: u32, e: u64, g: u64, v: u64) -> Result<(), RefError> {
        let sum = self.sums.entry((p, e)).or_default();
        if !sum.exits.insert((g, v)) {
            return Ok(());
        }
        sum.exit_list.push((g, v));
        let callers = sum.callers.clone();
        for (q, eq, pc, cs) in callers {
            if let Some(r) = self.m.return_state(q as usize, pc as usize, cs, g, v) {
                let to = self.m.procs[q as usize].next[pc as usize];
                self.propagate(q, eq, to, r)?;
            }
        }
        Ok(())
    }

    fn process(&mut self, edge: PathEdge, raw: &mut Vec<Raw>) -> Result<(), RefError> {
        let (p, e, pc, s) = edge;
        let (pu, pcu) = (p as usize, pc as usize);
        if self.m.has_label(pu, pcu, self.property.target_label()) {
            self.error_sites.insert((p, pc));
        }
        raw.clear();
        self.m
            .raw_step(pu, pcu, s, self.property.asserts_are_errors(), raw);
        for r in raw.iter().copied() {
            match r {
                Raw::Next { to, state, .. } => self.propagate(p, e, to, state)?,
                Raw::Return { values } => self.add_exit(p, e, s & self.m.gmask(), values)?,
                Raw::AssertFails => {
                    self.error_sites.insert((p, pc));
                }
                Raw::Call { callee, gp } => {
                    let key = (callee as u32, gp);
                    let sum = self.sums.entry(key).or_default();
                    sum.callers.push(edge);
                    let exits = sum.exit_list.clone();
                    let seeded = std::mem::replace(&mut sum.seeded, true);
                    let to = self.m.procs[pu].next[pcu];
                    for (g, v) in exits {
                        if let Some(r) = self.m.return_state(pu, pcu, s, g, v) {
                            self.propagate(p, e, to, r)?;
                        }
                    }
                    if !seeded {
                        let entry = self.m.procs[callee].entry;
                        for s0 in self.m.entry_states(callee, gp) {
                            self.propagate(callee as u32, gp, entry, s0)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn run(&mut self) -> Result<(), RefError> {
        let m = self.m.main;
        let cp = &self.m.procs[m];
        let n_gp = self.m.n_globals + cp.n_params;
        let entry = cp.entry;
        for gp in 0..=low_mask(n_gp) {
            self.sums.entry((m as u32, gp)).or_default().seeded = true;
            for s0 in self.m.entry_states(m, gp) {
                self.propagate(m as u32, gp, entry, s0)?;
            }
        }
        let mut raw = Vec::new();
        while let Some(edge) = self.work.pop() {
            self.process(edge, &mut raw)?;
            if self.limits.stop_at_first_error && !self.error_sites.is_empty() {
                break;
            }
        }
        Ok(())
    }
}

/// The result of an exploration ([`analyze`]).
#[derive(Debug)]
pub struct Analysis<'p> {
    machine: Machine<'p>,
    reached: HashMap<(u32, u32), BTreeSet<u64>>,
    error_sites: BTreeSet<(u32, u32)>,
    path_edges: usize,
}

impl<'p> Analysis<'p> {
    /// Is the error of the property reachable?
    pub fn error_reachable(&self) -> bool {
        !self.error_sites.is_empty()
    }

    /// Where errors happen: failing asserts and reached target labels, as (procedure,
    /// statement), sorted.
    pub fn error_sites(&self) -> Vec<(String, StmtId)> {
        self.error_sites
            .iter()
            .map(|&(p, s)| (self.machine.procs[p as usize].name.clone(), StmtId(s)))
            .collect()
    }

    /// Every state (over `proc`'s scope) in which `stmt` of `proc` is reached, in any calling
    /// context; empty for an unreachable statement. (Complete unless the analysis stopped at
    /// the first error.)
    pub fn reachable_states(&self, proc: &str, stmt: StmtId) -> Result<Vec<Valuation>, RefError> {
        let p = self.machine.proc_index(proc)?;
        let i = self.machine.stmt_index(p, stmt)?;
        Ok(self
            .reached
            .get(&(p as u32, i as u32))
            .map(|set| set.iter().map(|&s| self.machine.decode(p, s)).collect())
            .unwrap_or_default())
    }

    /// Is `stmt` of `proc` reachable at all?
    pub fn is_reachable(&self, proc: &str, stmt: StmtId) -> Result<bool, RefError> {
        let p = self.machine.proc_index(proc)?;
        let i = self.machine.stmt_index(p, stmt)?;
        Ok(self.reached.contains_key(&(p as u32, i as u32)))
    }

    /// The number of path edges explored (a measure of the work done).
    pub fn path_edges(&self) -> usize {
        self.path_edges
    }

    /// The compiled program (for small-step queries).
    pub fn machine(&self) -> &Machine<'p> {
        &self.machine
    }
}

/// Explores every behaviour of `prog` (see the module doc) and reports whether the error of
/// `property` is reachable, where, and which states reach each statement.
pub fn analyze<'p>(
    prog: &'p Program,
    property: &RefProperty,
    limits: &Limits,
) -> Result<Analysis<'p>, RefError> {
    let machine = Machine::new(prog)?;
    let mut tab = Tab {
        m: &machine,
        property,
        limits,
        path: HashSet::new(),
        work: Vec::new(),
        sums: HashMap::new(),
        reached: HashMap::new(),
        error_sites: BTreeSet::new(),
    };
    tab.run()?;
    let Tab {
        path,
        reached,
        error_sites,
        ..
    } = tab;
    Ok(Analysis {
        path_edges: path.len(),
        reached,
        error_sites,
        machine,
    })
}

/// Is the error of `property` reachable in `prog`? Stops at the first error found.
pub fn try_reachable_error(prog: &Program, property: &RefProperty) -> Result<bool, RefError> {
    let limits = Limits {
        stop_at_first_error: true,
        ..Limits::default()
    };
    Ok(analyze(prog, property, &limits)?.error_reachable())
}

/// Is the error of `property` reachable in `prog`?
///
/// # Panics
/// If the program is ill-formed, a scope exceeds [`MAX_SCOPE_VARS`] or the default state
/// budget is exhausted; use [`try_reachable_error`] or [`analyze`] to get these as errors.
pub fn reachable_error(prog: &Program, property: &RefProperty) -> bool {
    try_reachable_error(prog, property)
        .unwrap_or_else(|e| panic!("reference interpreter cannot answer: {e}"))
}
