//! Constrain: Das–Dill refinement of the abstract transition relation (Ball, Cook, Das,
//! Rajamani, "Refining Approximations in Software Predicate Abstraction", TACAS'04, §3).
//!
//! Input: the C program, the Boolean program c2bp wrote for it and a bebop trace with the
//! valuation of the Boolean variables at every step. The trace is cut into *instructions*, one
//! per traversal of a C edge (the `.bp` statements that carry its `edge=` annotation). For each
//! instruction, `Spurious(i, a0, a1)` (§3.1) asks whether the abstract transition from `a0` to
//! `a1` has a concrete counterpart: it is spurious when `E(a0) ∧ Pre(i, E(a1))` is unsatisfiable,
//! `E` being the conjunction of the predicates' C conditions and `Pre` the pre-image computed
//! with the one weakest precondition of [`cir::wp`] (a havoc's value is a fresh variable, so the
//! satisfiability check quantifies it existentially). A spurious transition is excluded:
//!
//! | C edge | `.bp` statement | constraint |
//! |---|---|---|
//! | assignment, havoc | the edge's `assign`/`havoc` assignment | `constrain !(a0 & a1')` |
//! | assume (branch) | the edge's `assume` | `assume c & !(a0 & a1)` (the state does not change) |
//! | `return v` | the `return` assignment of the `\result` predicates | `constrain !(a0 & a1')` |
//! | call | its `actuals` assignment (`{arg …}` temporaries, read against the caller's state) | `constrain !(a0 & a1')` (the paper's `¬(a0 ∧ δ(a1'))`) |
//! | call | its `effects` assignment (the caller's predicates the call may change, read in the state it left, with its `{ret …}` temporaries) | `constrain !(a0 & a1')` |
//! | any, when `E(a1)` (or `E(a0)`) alone is unsatisfiable | the procedure | `enforce !a1` |
//!
//! **Strengthening** (§3.3): an `enforce` first — when `E(a1)` (or else `E(a0)`) alone is
//! unsatisfiable, literals are dropped while it stays so, and the pass ends there (§3.3:
//! "return immediately").
//! An `enforce` never relates a global predicate to a local one (it also holds right after a
//! call returns, before the caller's local predicates are updated — the rule c2bp follows); such
//! a cube becomes an ordinary constraint. Otherwise literals are dropped one at a time, those of
//! `a1` first, then those of `a0`, keeping each drop that leaves the transition spurious.
//!
//! Constraints name predicates (the Boolean variables' names, `{x < y}`), the procedure and the
//! statement by its `edge=`/`part=` annotations, never positions, so [`apply`] can re-apply them
//! to the program c2bp writes for a larger predicate set. Only Boolean variables already present
//! are used; predicates are never added here.
//!
//! **Soundness.** A constraint is produced only when the solver *proves* the transition
//! spurious (an `unknown` answer is "not spurious"); a weakest precondition that cannot be
//! expressed drops its conjunct (fewer conditions: harder to prove spurious). Each Boolean
//! variable is used only where its value describes the C state: a `\result` predicate after a
//! `return`, a `{ret …}` temporary right after its call, an `{arg …}` temporary after the
//! `actuals`, never the old value of an `effects` target. The paper's return check also uses
//! the caller's state at the call with the globals renamed to their values then (`ρ(E(a_c))`);
//! this version reads only the caller's literals the call cannot change. The others would
//! relate locals to the globals' values before the call, and nothing c2bp gives the caller
//! relates those to the values after it (its `{ret …}` temporaries read the callee's return
//! predicates in the state after the call), while an inconsistency of the state before the
//! call is found at the call's `actuals` instruction. Weaker questions, so possibly fewer
//! constraints, never an unsound one. Calls through a function pointer with several
//! possible callees are not examined.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;

use bp_grammar::ast::{
    BinOp as BpBin, Expr as BpExpr, Ident, Program as BpProgram, Span, Stmt, StmtKind,
};
use bp_grammar::trace::{StepKind, Trace, Valuation};
use cir::Program;
use cir::ir::{EdgeKind, Expr, ExprKind, FuncId, VarId, VarInfo, VarKind};
use cir::pointsto::PointsTo;
use cir::pred::{PredScope, parse_predicate};
use cir::smt::{Prover, SatAnswer, Semantics, Session};
use serde::{Deserialize, Serialize};

/// How a pass runs.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// The C semantics (as c2bp's).
    pub sem: Semantics,
    /// Z3's resource limit per query.
    pub rlimit: u32,
    /// At most this many constraints per pass (§3.3: five when used lazily).
    pub max_constraints: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            sem: Semantics::default(),
            rlimit: 5_000_000,
            max_constraints: 5,
        }
    }
}

/// Where a constraint goes (module doc, table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Conjoined to an assignment's `constrain` clause: `!(pre & post')`.
    Constrain,
    /// Conjoined to an `assume`'s condition: `!(pre & post)` (one state).
    Assume,
    /// Conjoined to the procedure's `enforce`: `!post`.
    Enforce,
}

/// A literal: a Boolean variable's name and its value.
pub type Lit = (String, bool);

/// One constraint, named by predicates and annotations (module doc).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Constraint {
    /// The procedure.
    pub proc: String,
    /// The C edge (`f#k`); `None` for an `enforce`.
    pub edge: Option<String>,
    /// The statement's `part=` annotation (`assign`, `havoc`, `cond`, `return`, `actuals`,
    /// `effects`); `None` for an `enforce`.
    pub part: Option<String>,
    /// Where it goes.
    pub kind: Kind,
    /// Literals of the state before the transition.
    pub pre: Vec<Lit>,
    /// Literals of the state after it.
    pub post: Vec<Lit>,
}

impl Constraint {
    /// The excluded cube as `.bp` text (`!(…)`; post-state literals primed for `constrain`).
    pub fn clause_text(&self) -> String {
        bp_grammar::print::print_expr(&self.clause())
    }

    /// The excluded cube as a `.bp` expression.
    pub fn clause(&self) -> BpExpr {
        let lit = |(n, v): &Lit, primed: bool| {
            let id = Ident::new(n.clone());
            let e = if primed {
                BpExpr::Primed(id)
            } else {
                BpExpr::Var(id)
            };
            if *v {
                e
            } else {
                BpExpr::Not(Box::new(e), Span::NONE)
            }
        };
        let mut lits: Vec<BpExpr> = Vec::new();
        let mut seen = HashSet::new();
        for l in &self.pre {
            if seen.insert((l.clone(), false)) {
                lits.push(lit(l, false));
            }
        }
        let primed = self.kind == Kind::Constrain;
        for l in &self.post {
            if seen.insert((l.clone(), primed)) {
                lits.push(lit(l, primed));
            }
        }
        // One literal: its negation (`!!{x > 0}` reads badly).
        if let [one] = lits.as_slice() {
            return match one {
                BpExpr::Not(inner, _) => (**inner).clone(),
                e => BpExpr::Not(Box::new(e.clone()), Span::NONE),
            };
        }
        let cube = lits
            .into_iter()
            .reduce(|a, b| BpExpr::Binary(BpBin::And, Box::new(a), Box::new(b), Span::NONE))
            .unwrap_or(BpExpr::Const(true, Span::NONE));
        BpExpr::Not(Box::new(cube), Span::NONE)
    }

    /// One line: where it goes and the clause.
    pub fn describe(&self) -> String {
        match (&self.edge, &self.part) {
            (Some(e), Some(p)) => format!(
                "{} {} edge={e} part={p}: {}",
                self.proc,
                match self.kind {
                    Kind::Constrain => "constrain",
                    Kind::Assume => "assume",
                    Kind::Enforce => "enforce",
                },
                self.clause_text()
            ),
            _ => format!("{} enforce: {}", self.proc, self.clause_text()),
        }
    }
}

/// The result of one pass over a trace.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Pass {
    /// The constraints found (at most [`Options::max_constraints`]).
    pub constraints: Vec<Constraint>,
    /// Instructions of the trace.
    pub instructions: usize,
    /// Instructions examined (the others are calls, returns, side effects).
    pub examined: usize,
    /// Satisfiability queries.
    pub queries: u64,
}

/// A trace that does not fit the program.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ConstrainError {
    /// An `edge=` annotation names no edge of the C program.
    #[error("trace step {0}: `edge={1}` is not an edge of the C program")]
    UnknownEdge(usize, String),
    /// A Boolean variable's name does not read as a predicate.
    #[error("{0}")]
    BadPredicate(String),
}

/// What a `.bp` statement of an instruction does to the C state.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Role {
    /// The edge's own transition (assignment, havoc, assume, return).
    Edge,
    /// A call's `actuals` statement: sets the `{arg …}` temporaries; the C state is unchanged.
    Actuals,
    /// A call's `effects` statement, after the call: re-reads the caller's predicates the call
    /// may change (its targets) in the state the call left; that state is unchanged here.
    Effects(HashSet<String>),
}

/// One traversal of a C edge in the trace: the statement that carries its transition.
struct Instr {
    /// The step of that statement (instructions are examined in trace order).
    step: usize,
    role: Role,
    proc: String,
    func: FuncId,
    edge: cir::ir::EdgeId,
    edge_name: String,
    part: String,
    before: Valuation,
    after: Valuation,
    /// Whether the transition is that one statement's (the block's other steps change
    /// nothing) and the statement can carry a constraint.
    single: bool,
}

/// The meaning of one Boolean variable.
#[derive(Clone)]
struct PredInfo {
    /// Its C condition.
    expr: Expr,
    /// A global predicate.
    global: bool,
    /// A `\result` predicate.
    result: bool,
    /// Its value describes the C state before the instruction.
    pre: bool,
    /// Its value describes the C state after the instruction.
    post: bool,
}

impl PredInfo {
    fn new(expr: Expr, global: bool, result: bool) -> PredInfo {
        PredInfo {
            expr,
            global,
            result,
            pre: true,
            post: true,
        }
    }
}

/// The predicates behind the Boolean variables of one procedure's scope.
#[derive(Clone)]
struct Scope {
    preds: HashMap<String, PredInfo>,
}

/// The predicates in scope in each procedure, by Boolean variable name (read back by
/// [`bp_c::trace::predicate_vars_of_bp`]).
fn scopes(prog: &Program, bp: &BpProgram) -> Result<HashMap<String, Scope>, ConstrainError> {
    let vars = bp_c::trace::predicate_vars_of_bp(prog, bp).map_err(ConstrainError::BadPredicate)?;
    let info = |v: &bp_c::trace::PredicateVar| {
        PredInfo::new(
            v.pred.expr.clone(),
            v.proc.is_none(),
            v.pred.is_return_predicate(),
        )
    };
    let globals: HashMap<String, PredInfo> = vars
        .iter()
        .filter(|v| v.proc.is_none())
        .map(|v| (v.name.clone(), info(v)))
        .collect();
    let mut out: HashMap<String, Scope> = bp
        .procs
        .iter()
        .map(|p| {
            (
                p.name.name.clone(),
                Scope {
                    preds: globals.clone(),
                },
            )
        })
        .collect();
    for v in &vars {
        if let Some(proc) = &v.proc
            && let Some(scope) = out.get_mut(proc)
        {
            scope.preds.insert(v.name.clone(), info(v));
        }
    }
    Ok(out)
}

/// The instructions of a trace (module doc).
fn instructions(
    prog: &Program,
    bp: &BpProgram,
    trace: &Trace,
) -> Result<Vec<Instr>, ConstrainError> {
    // The first statement of each edge's block, per procedure, and the statements' kinds.
    let mut entries: HashSet<(String, bp_grammar::ast::StmtId)> = HashSet::new();
    let mut stmts: HashMap<(String, bp_grammar::ast::StmtId), &Stmt> = HashMap::new();
    for p in &bp.procs {
        let mut seen = HashSet::new();
        for (id, s) in p.stmts_preorder() {
            if let Some(e) = s.annotations.get("edge")
                && seen.insert(e.to_string())
            {
                entries.insert((p.name.name.clone(), id));
            }
            stmts.insert((p.name.name.clone(), id), s);
        }
    }
    let kind_of = |proc: &str, id: Option<bp_grammar::ast::StmtId>| {
        id.and_then(|id| stmts.get(&(proc.to_string(), id)).map(|s| &s.kind))
    };
    let mut out: Vec<Instr> = Vec::new();
    // The steps of the instruction being read: (first step, its steps).
    let mut cur: Option<(usize, Vec<usize>)> = None;
    let flush = |cur: &mut Option<(usize, Vec<usize>)>,
                 out: &mut Vec<Instr>|
     -> Result<(), ConstrainError> {
        let Some((first, steps)) = cur.take() else {
            return Ok(());
        };
        let s0 = &trace.steps[first];
        let name = s0.annotations.get("edge").unwrap_or_default().to_string();
        let edge = bp_c::trace::edge_by_name(prog, &name)
            .ok_or_else(|| ConstrainError::UnknownEdge(first, name.clone()))?;
        let e = &prog.functions[edge.func.0 as usize].edges[edge.index as usize];
        let want = match e.kind {
            EdgeKind::Assign { .. } => "assign",
            EdgeKind::Havoc { .. } => "havoc",
            EdgeKind::Assume(_) => "cond",
            EdgeKind::Return(Some(_)) => "return",
            _ => "",
        };
        let carrier = steps
            .iter()
            .copied()
            .find(|&j| trace.steps[j].annotations.get("part") == Some(want));
        let (part, before, after, single) = match carrier {
            Some(j) => {
                let st = &trace.steps[j];
                let others_still = steps
                    .iter()
                    .all(|&k| k == j || trace.steps[k].before == trace.steps[k].after);
                let carries = matches!(
                    kind_of(&st.proc, st.stmt),
                    Some(StmtKind::Assign { .. } | StmtKind::Assume(_))
                );
                (
                    want.to_string(),
                    st.before.clone(),
                    st.after.clone(),
                    others_still && carries,
                )
            }
            None => (
                String::new(),
                s0.before.clone(),
                trace.steps[*steps.last().unwrap_or(&first)].after.clone(),
                false,
            ),
        };
        out.push(Instr {
            step: carrier.unwrap_or(first),
            role: Role::Edge,
            proc: s0.proc.clone(),
            func: edge.func,
            edge,
            edge_name: name,
            part,
            before,
            after,
            single,
        });
        Ok(())
    };
    for (i, step) in trace.steps.iter().enumerate() {
        // A call's `actuals` and `effects` statements are instructions of their own.
        if step.kind == StepKind::Stmt
            && let (Some(name), Some(part @ ("actuals" | "effects"))) =
                (step.annotations.get("edge"), step.annotations.get("part"))
            && let Some(edge) = bp_c::trace::edge_by_name(prog, name)
            && let EdgeKind::Call { callee, .. } =
                &prog.functions[edge.func.0 as usize].edges[edge.index as usize].kind
            && !matches!(callee, cir::ir::Callee::Indirect(_))
            && let Some(StmtKind::Assign { lhs, .. }) = kind_of(&step.proc, step.stmt)
        {
            let role = if part == "actuals" {
                Role::Actuals
            } else {
                Role::Effects(
                    lhs.iter()
                        .filter_map(|l| match l {
                            bp_grammar::ast::Lhs::Var(v) => Some(v.name.clone()),
                            bp_grammar::ast::Lhs::Discard(_) => None,
                        })
                        .collect(),
                )
            };
            out.push(Instr {
                step: i,
                role,
                proc: step.proc.clone(),
                func: edge.func,
                edge,
                edge_name: name.to_string(),
                part: part.to_string(),
                before: step.before.clone(),
                after: step.after.clone(),
                single: true,
            });
        }
        let in_block = step.kind == StepKind::Stmt && step.annotations.get("edge").is_some();
        let is_entry = step.kind == StepKind::Stmt
            && step
                .stmt
                .is_some_and(|id| entries.contains(&(step.proc.clone(), id)));
        let continues = cur.as_ref().is_some_and(|(first, _)| {
            let s0 = &trace.steps[*first];
            in_block
                && !is_entry
                && s0.proc == step.proc
                && s0.depth == step.depth
                && s0.annotations.get("edge") == step.annotations.get("edge")
        });
        if continues {
            if let Some((_, steps)) = cur.as_mut() {
                steps.push(i);
            }
            continue;
        }
        flush(&mut cur, &mut out)?;
        if is_entry {
            cur = Some((i, vec![i]));
        }
    }
    flush(&mut cur, &mut out)?;
    out.sort_by_key(|ins| ins.step);
    Ok(out)
}

fn var_expr(prog: &Program, v: VarId) -> Expr {
    Expr {
        kind: ExprKind::Var(v),
        ty: prog.var(v).ty.clone(),
    }
}

/// The instruction's pre-image: `Pre(i, φ)` for one predicate of the post-state (`None`: not
/// expressible; the literal is then left out, which only weakens the question). Every
/// instruction examined is functional once a havoc's value is a fresh variable, so
/// `Pre(i, ¬φ) = ¬Pre(i, φ)`; an `assume`'s condition is asked separately.
struct PreImage<'a> {
    pts: &'a PointsTo,
    kind: &'a EdgeKind,
    /// The fresh variable standing for a havoc's value (every havoc examined has one).
    havoc_value: Option<Expr>,
    /// The return type of the instruction's function (for `return`).
    ret_ty: cir::types::CType,
}

impl PreImage<'_> {
    fn of(&self, phi: &Expr) -> Option<Expr> {
        match self.kind {
            EdgeKind::Assign { lhs, rhs } => cir::wp::wp_assign(lhs, rhs, phi, self.pts),
            EdgeKind::Havoc { lhs, .. } => {
                cir::wp::wp_assign(lhs, self.havoc_value.as_ref()?, phi, self.pts)
            }
            EdgeKind::Assume(_) => Some(phi.clone()),
            EdgeKind::Return(Some(v)) => Some(cir::pred::subst_result(
                phi,
                &cir::wp::convert(v, &self.ret_ty),
            )),
            // The `actuals` and `effects` statements of a call: the C state does not change
            // there (the predicates after it describe the same state).
            EdgeKind::Call { .. } => Some(phi.clone()),
            _ => None,
        }
    }
}

/// The questions `Spurious` asks for one instruction, in one solver session whose atoms are
/// the conditions of the predicates (`raw`), their pre-images (`pre_image`) and an assume's
/// condition: each question is a conjunction of literals over them.
struct Question<'q, 's> {
    s: &'q mut Session<'s>,
    raw: HashMap<String, usize>,
    pre_image: HashMap<String, usize>,
    cond: Option<usize>,
    queries: u64,
}

impl Question<'_, '_> {
    /// Whether the literals are proved unsatisfiable together (`unknown`: not proved).
    fn unsat(&mut self, lits: &[(usize, bool)]) -> bool {
        self.queries += 1;
        self.s.check(lits) == SatAnswer::Unsat
    }

    /// `E(cube)` alone is unsatisfiable.
    fn inconsistent(&mut self, cube: &[Lit]) -> bool {
        let lits: Option<Vec<(usize, bool)>> = cube
            .iter()
            .map(|(n, v)| self.raw.get(n).map(|&i| (i, *v)))
            .collect();
        lits.is_some_and(|l| self.unsat(&l))
    }

    /// `E(a0) ⇒ ¬Pre(i, E(a1))` is valid.
    fn spurious(&mut self, pre: &[Lit], post: &[Lit]) -> bool {
        let mut lits: Vec<(usize, bool)> = pre
            .iter()
            .filter_map(|(n, v)| self.raw.get(n).map(|&i| (i, *v)))
            .collect();
        lits.extend(self.cond.map(|c| (c, true)));
        lits.extend(
            post.iter()
                .filter_map(|(n, v)| self.pre_image.get(n).map(|&i| (i, *v))),
        );
        self.unsat(&lits)
    }
}

/// `Spurious` for one instruction and, when the transition is spurious, its strengthened
/// constraint (§3.3): an `enforce` when the state after (or, failing that, before) the
/// transition is impossible by itself, else a clause on the instruction's statement.
fn spurious_transition(
    q: &mut Question<'_, '_>,
    ins: &Instr,
    scope: &Scope,
    kind: &EdgeKind,
    mut pre: Vec<Lit>,
    mut post: Vec<Lit>,
) -> Option<Constraint> {
    if !q.spurious(&pre, &post) {
        return None;
    }
    for side in [&post, &pre] {
        if !q.inconsistent(side) {
            continue;
        }
        let mut cube = side.clone();
        strengthen(&mut cube, |c| q.inconsistent(c));
        let info = |l: &Lit| scope.preds.get(&l.0);
        let global = |l: &Lit| info(l).is_some_and(|p| p.global);
        let mixed = cube.iter().any(global) && !cube.iter().all(global);
        // A variable whose value describes the state only on one side of the instruction —
        // a `\result` predicate, a call temporary, an `effects` target — is not part of an
        // invariant.
        let transient = cube
            .iter()
            .any(|l| info(l).is_some_and(|p| !(p.pre && p.post)));
        if !mixed && !transient && !cube.is_empty() {
            return Some(Constraint {
                proc: ins.proc.clone(),
                edge: None,
                part: None,
                kind: Kind::Enforce,
                pre: Vec::new(),
                post: cube,
            });
        }
    }
    let pre_now = pre.clone();
    strengthen(&mut post, |p| q.spurious(&pre_now, p));
    let post_now = post.clone();
    strengthen(&mut pre, |a| q.spurious(a, &post_now));
    Some(Constraint {
        proc: ins.proc.clone(),
        edge: Some(ins.edge_name.clone()),
        part: Some(ins.part.clone()),
        kind: if matches!(kind, EdgeKind::Assume(_)) {
            Kind::Assume
        } else {
            Kind::Constrain
        },
        pre,
        post,
    })
}

/// Drops literals of `lits` one at a time, keeping each drop for which `still` holds.
fn strengthen(lits: &mut Vec<Lit>, mut still: impl FnMut(&[Lit]) -> bool) {
    let mut k = 0;
    while k < lits.len() {
        let mut fewer = lits.clone();
        fewer.remove(k);
        if still(&fewer) {
            *lits = fewer;
        } else {
            k += 1;
        }
    }
}

/// The literals of a valuation over the predicates of `scope` whose values describe the C
/// state before (`pre`) or after the instruction.
fn literals(v: &Valuation, scope: &Scope, pre: bool) -> Vec<Lit> {
    v.iter()
        .filter(|(n, _)| {
            scope
                .preds
                .get(*n)
                .is_some_and(|p| if pre { p.pre } else { p.post })
        })
        .map(|(n, b)| (n.clone(), *b))
        .collect()
}

/// The temporaries of call edge `call` (`{ret …}` or `{arg …}` per `ret`) among `names`, with
/// their meaning in the caller ([`bp_c::names::caller_reading`]).
fn call_temps<'n>(
    prog: &Program,
    call: &cir::ir::Edge,
    ret_temps: bool,
    names: impl Iterator<Item = &'n String>,
) -> Vec<(String, Expr)> {
    let EdgeKind::Call { ret, args, .. } = &call.kind else {
        return Vec::new();
    };
    let call_name = prog.edge_name(call.id);
    let mut out = Vec::new();
    for name in names {
        let Some(t) = bp_c::names::CallTemp::parse(name) else {
            continue;
        };
        if t.ret != ret_temps || t.edge != call_name {
            continue;
        }
        let Some(g) = prog.function(&t.callee) else {
            continue;
        };
        let Ok(p) = parse_predicate(&t.text, PredScope::Function(g.id), prog) else {
            continue;
        };
        let ret = if ret_temps { *ret } else { None };
        out.push((
            name.clone(),
            bp_c::names::caller_reading(prog, g, ret, args, &p.expr),
        ));
    }
    out
}

/// The scope of an instruction: its procedure's predicates, each marked with whether its
/// value describes the C state before and after the instruction, plus the call temporaries
/// that mean something there:
/// - `\result` predicates hold a value only after a `return`;
/// - the `{ret …}` temporaries of a call describe the state right after it: at the `effects`
///   statement of that call, and at an edge whose one incoming edge is the call (where c2bp
///   reads them);
/// - a call's `{arg …}` temporaries are set by its `actuals` statement (after it);
/// - the targets of an `effects` statement held values of the state before the call.
fn instruction_scope(prog: &Program, base: &Scope, ins: &Instr) -> Scope {
    let f = &prog.functions[ins.edge.func.0 as usize];
    let e = &f.edges[ins.edge.index as usize];
    let mut scope = base.clone();
    let returning = ins.role == Role::Edge && matches!(e.kind, EdgeKind::Return(_));
    for p in scope.preds.values_mut() {
        if p.result {
            p.pre = false;
            p.post = returning;
        }
    }
    let mut add = |temps: Vec<(String, Expr)>, pre: bool, post: bool| {
        for (name, expr) in temps {
            scope.preds.insert(
                name,
                PredInfo {
                    expr,
                    global: false,
                    result: false,
                    pre,
                    post,
                },
            );
        }
    };
    let names = ins.before.keys();
    match &ins.role {
        Role::Effects(targets) => {
            add(call_temps(prog, e, true, names), true, false);
            for t in targets {
                if let Some(p) = scope.preds.get_mut(t) {
                    p.pre = false;
                }
            }
        }
        Role::Actuals | Role::Edge => {
            if ins.role == Role::Actuals {
                add(call_temps(prog, e, false, ins.after.keys()), false, true);
            }
            let incoming: Vec<&cir::ir::Edge> = f.edges.iter().filter(|x| x.to == e.from).collect();
            if let [call] = incoming.as_slice() {
                add(call_temps(prog, call, true, names), true, false);
            }
        }
    }
    scope
}

/// One pass of Constrain over `trace` (module doc): the spurious transitions found, at most
/// [`Options::max_constraints`], ending at the first `enforce`.
pub fn analyze(
    prog: &Program,
    pts: &PointsTo,
    bp: &BpProgram,
    trace: &Trace,
    opts: &Options,
) -> Result<Pass, ConstrainError> {
    let scopes = scopes(prog, bp)?;
    let instrs = instructions(prog, bp, trace)?;
    // One fresh variable per havoc examined: the program extended with them.
    let mut ext = prog.clone();
    let mut havoc_values: BTreeMap<usize, Expr> = BTreeMap::new();
    for (k, ins) in instrs.iter().enumerate() {
        let e = &prog.functions[ins.edge.func.0 as usize].edges[ins.edge.index as usize];
        if let EdgeKind::Havoc { lhs, .. } = &e.kind
            && ins.single
        {
            let id = VarId(u32::try_from(ext.vars.len()).unwrap_or(u32::MAX));
            ext.vars.push(VarInfo {
                c_name: format!("havoc@{k}"),
                name: format!("havoc@{k}"),
                ty: lhs.ty.clone(),
                kind: VarKind::Temp(ins.func),
                pos: Default::default(),
            });
            havoc_values.insert(k, var_expr(&ext, id));
        }
    }
    let prover = Prover::new(&ext, opts.sem).with_rlimit(opts.rlimit);
    let pass = prover.with_solver(|cx| {
        let mut pass = Pass {
            instructions: instrs.len(),
            ..Pass::default()
        };
        let mut found: HashSet<Constraint> = HashSet::new();
        for (k, ins) in instrs.iter().enumerate() {
            if pass.constraints.len() >= opts.max_constraints {
                break;
            }
            if !ins.single {
                continue;
            }
            let Some(base) = scopes.get(&ins.proc) else {
                continue;
            };
            pass.examined += 1;
            let scope = instruction_scope(prog, base, ins);
            let f = &prog.functions[ins.edge.func.0 as usize];
            let e = &f.edges[ins.edge.index as usize];
            let image = PreImage {
                pts,
                kind: &e.kind,
                havoc_value: havoc_values.get(&k).cloned(),
                ret_ty: f.ty.ret.clone(),
            };
            let pre = literals(&ins.before, &scope, true);
            let post = literals(&ins.after, &scope, false);
            // The session's atoms: every predicate's condition, the pre-images, the condition.
            let mut atoms: Vec<Expr> = Vec::new();
            let mut raw = HashMap::new();
            for (n, _) in pre.iter().chain(&post) {
                if !raw.contains_key(n) {
                    raw.insert(n.clone(), atoms.len());
                    atoms.push(scope.preds[n].expr.clone());
                }
            }
            let mut pre_image = HashMap::new();
            for (n, _) in &post {
                if let Some(x) = image.of(&scope.preds[n].expr) {
                    pre_image.insert(n.clone(), atoms.len());
                    atoms.push(x);
                }
            }
            let cond = match &e.kind {
                EdgeKind::Assume(c) => {
                    atoms.push(c.clone());
                    Some(atoms.len() - 1)
                }
                _ => None,
            };
            let (c, queries) = cx.session(&atoms, |s| {
                let mut q = Question {
                    s,
                    raw,
                    pre_image,
                    cond,
                    queries: 0,
                };
                let c = spurious_transition(&mut q, ins, &scope, &e.kind, pre, post);
                (c, q.queries)
            });
            pass.queries += queries;
            let Some(c) = c else { continue };
            if c.kind == Kind::Enforce {
                tracing::debug!("enforce at {}: {}", ins.edge_name, c.clause_text());
                pass.constraints.push(c);
                break;
            }
            tracing::debug!("spurious transition at {}: {}", ins.edge_name, c.describe());
            if found.insert(c.clone()) {
                pass.constraints.push(c);
            }
        }
        pass
    });
    Ok(pass)
}

fn and(a: BpExpr, b: BpExpr) -> BpExpr {
    BpExpr::Binary(BpBin::And, Box::new(a), Box::new(b), Span::NONE)
}

fn find_stmt<'a>(body: &'a mut [Stmt], edge: &str, part: &str) -> Option<&'a mut Stmt> {
    for s in body.iter_mut() {
        if s.annotations.get("edge") == Some(edge) && s.annotations.get("part") == Some(part) {
            return Some(s);
        }
        let found = match &mut s.kind {
            StmtKind::If { arms, els } => {
                let mut r = None;
                for a in arms.iter_mut() {
                    if let Some(x) = find_stmt(&mut a.body, edge, part) {
                        r = Some(x);
                        break;
                    }
                }
                match r {
                    Some(x) => Some(x),
                    None => els.as_mut().and_then(|b| find_stmt(b, edge, part)),
                }
            }
            StmtKind::While { body, .. } => find_stmt(body, edge, part),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Adds the constraints to `bp` (module doc, table): each one whose procedure, statement and
/// Boolean variables are all present (after c2bp regenerated the program for more predicates,
/// some may not be). Returns how many were applied.
pub fn apply(bp: &mut BpProgram, constraints: &[Constraint]) -> usize {
    let globals: HashSet<String> = bp
        .globals
        .iter()
        .flat_map(|d| d.vars.iter().map(|v| v.name.clone()))
        .collect();
    let mut applied = 0;
    for c in constraints {
        let Some(proc) = bp.procs.iter_mut().find(|p| p.name.name == c.proc) else {
            continue;
        };
        let in_scope = |n: &str| {
            globals.contains(n)
                || proc.params.iter().any(|p| p.name == n)
                || proc
                    .locals
                    .iter()
                    .any(|d| d.vars.iter().any(|v| v.name == n))
        };
        if !c.pre.iter().chain(&c.post).all(|(n, _)| in_scope(n)) {
            continue;
        }
        let clause = c.clause();
        match (c.kind, &c.edge, &c.part) {
            (Kind::Enforce, _, _) => {
                // Checked again in this program: a predicate local where the constraint was
                // found may be global here (newton files predicates over globals as global),
                // and an `enforce` relating a global and a local predicate also holds right
                // after a call returns, before `effects` updates the local one.
                let global = |(n, _): &Lit| globals.contains(n);
                let mixed = c.post.iter().any(global) && !c.post.iter().all(global);
                if mixed
                    || c.post
                        .iter()
                        .any(|(n, _)| bp_c::names::CallTemp::parse(n).is_some())
                {
                    continue;
                }
                proc.enforce = Some(match proc.enforce.take() {
                    Some(old) => and(old, clause),
                    None => clause,
                });
                applied += 1;
            }
            (_, Some(edge), Some(part)) => {
                let Some(s) = find_stmt(&mut proc.body, edge, part) else {
                    continue;
                };
                match (&mut s.kind, c.kind) {
                    (StmtKind::Assign { constrain, .. }, Kind::Constrain) => {
                        *constrain = Some(match constrain.take() {
                            Some(old) => and(old, clause),
                            None => clause,
                        });
                        applied += 1;
                    }
                    (StmtKind::Assume(cond), Kind::Assume) => {
                        let old = std::mem::replace(cond, BpExpr::Const(true, Span::NONE));
                        *cond = and(old, clause);
                        applied += 1;
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    applied
}

/// The constraints as text, one per line (stdout of `constrain`).
pub fn constraints_text(cs: &[Constraint]) -> String {
    let mut s = String::new();
    for c in cs {
        let _ = writeln!(s, "{}", c.describe());
    }
    s
}

/// The result as JSON (format `constrain-result/1`).
pub fn pass_json(p: &Pass) -> String {
    #[derive(Serialize)]
    struct J<'a> {
        format: &'static str,
        #[serde(flatten)]
        pass: &'a Pass,
    }
    serde_json::to_string_pretty(&J {
        format: "constrain-result/1",
        pass: p,
    })
    .expect("a pass always serialises")
}
