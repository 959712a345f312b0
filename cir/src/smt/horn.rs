//! Constrained Horn clauses over the C semantics, solved by Z3's Spacer: the solver behind
//! refinement by *path invariants* (Beyer, Henzinger, Majumdar, Rybalchenko, "Path
//! invariants", PLDI 2007, §3–4: an invariant map of the program restricted to a spurious
//! path, with its loops kept as loops, refutes every unrolling of them at once; a Horn solver
//! computes such maps as the paper's constraint-based templates do).
//!
//! A [`HornProblem`] has relations over program variables (its parameters, scalar values
//! only) and clauses `body relations ∧ C conditions → head relation` (or `→ error`, the
//! query), all written as IR expressions. Each clause is encoded by this crate's one
//! `Encoder` — assignments, conversions, range facts are the C semantics of every other
//! query — in integer semantics, with every term the encoding keeps uninterpreted (memory
//! cells, field addresses, non-constant bitwise operations) a fresh unconstrained value
//! (Horn clauses with uninterpreted functions get `unknown` from Spacer at once; a fresh
//! value only adds behaviours, and the answer is only predicates or a path to replay). The
//! variables of a clause are universally quantified in it.
//!
//! [`solve`] tries a small fixed portfolio of Spacer configurations ([`PORTFOLIO`]) in
//! order, each in a fresh Z3 context with a deterministic resource limit. The limit is set on
//! the *context*: the fixedpoint parameter `rlimit` is ignored by Z3 4.8.12, while a context
//! limit stops the query (tested). Polarity: a fixedpoint query that is `sat` derives the
//! error (the path program is unsafe); `unsat` means the clauses have a solution. `unknown`
//! is never trusted and never cached: the next configuration is tried, and after the last
//! the answer is [`HornAnswer::Unknown`].
//!
//! - **Safe** ([`Solution`]): each relation's interpretation (Spacer's fixpoint lemmas,
//!   `get_cover_delta(-1, …)`) instantiated over its parameters, brought into a linear normal
//!   form (`normal`: opposite inequalities merged into equalities, `mod 2^w` dropped where
//!   the range makes it the identity) and read back as C conditions by the projection's
//!   reader; [`minimize`] then drops conjuncts (in blocks) while the rest still solves every clause
//!   ([`holds`]).
//! - [`houdini`]: a cheaper first try where the candidate invariants are given — the largest
//!   subset of candidate conjuncts that the clauses preserve, a solution when it refutes the
//!   error — one small solver query per clause and round, the conjuncts a counterexample
//!   falsifies dropped together.
//! - **Unsafe** ([`Derivation`]): the hyper-resolution proof of the query, as a tree of
//!   ground relation instances (values at the relations' arguments only; the caller recovers
//!   the edges between them and replays the path concretely).

mod normal;

use std::collections::{BTreeMap, HashSet};

use z3::ast::{Ast, Bool, Dynamic, Int, forall_const};
use z3::{AstKind, Fixedpoint, FuncDecl, Params, SatResult, Sort, SortKind};

use super::Semantics;
use super::encode::{Encoder, int_of};
use super::session::solver_with;
use crate::ir::{Expr, Program, VarId};

/// A relation of a [`HornProblem`] (index into [`HornProblem::relations`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RelId(pub u32);

/// A relation: its name (unique in the problem) and the program variables that stand for its
/// arguments (scalar types; their names are the constants its interpretation is read over).
#[derive(Debug, Clone)]
pub struct Relation {
    /// Name (for logs and the solver).
    pub name: String,
    /// The variables its arguments are values of, in order.
    pub params: Vec<VarId>,
}

/// A relation applied to values (each converted to its parameter's type).
#[derive(Debug, Clone)]
pub struct RelApp {
    /// The relation.
    pub rel: RelId,
    /// One expression per parameter.
    pub args: Vec<Expr>,
}

/// `body ∧ constraints → head` (`head: None`: the error, the query), over the variables the
/// expressions mention, universally quantified.
#[derive(Debug, Clone)]
pub struct Clause {
    /// Relation instances assumed.
    pub body: Vec<RelApp>,
    /// C conditions assumed.
    pub constraints: Vec<Expr>,
    /// The relation instance derived, or `None` for the error.
    pub head: Option<RelApp>,
}

/// A set of constrained Horn clauses over the variables of one program.
#[derive(Debug, Clone, Default)]
pub struct HornProblem {
    /// The relations.
    pub relations: Vec<Relation>,
    /// The clauses.
    pub clauses: Vec<Clause>,
}

/// One Spacer configuration of the portfolio: fixedpoint parameters besides `engine=spacer`.
#[derive(Debug, Clone, Copy)]
pub struct SpacerConfig {
    /// A short name (statistics).
    pub name: &'static str,
    /// Unsigned parameters.
    pub uints: &'static [(&'static str, u32)],
    /// Boolean parameters.
    pub bools: &'static [(&'static str, bool)],
}

/// The configurations [`solve`] tries in order. Measured with Z3 4.8.12 on the path programs
/// newton builds: the older unsat-core generation (`spacer.iuc=0`) solves the relational loop
/// `x - y == i - j` in milliseconds where the default is still running after seconds, but it
/// makes Z3 4.8.12 end the process on a failed internal check (`spacer_context.cpp`, line 2194:
/// the lemma simplification after a safe answer finds no lemma for a simplified conjunct) on
/// the path program of a two-counter loop, which no caller can recover from; so it is not
/// used. Pushing blocked proof obligations (`spacer.push_pob`) finds counterexamples behind
/// many loop iterations sooner; it comes second, for what the default gives up on.
pub const PORTFOLIO: &[SpacerConfig] = &[
    SpacerConfig {
        name: "default",
        uints: &[],
        bools: &[],
    },
    SpacerConfig {
        name: "push",
        uints: &[],
        bools: &[("spacer.push_pob", true)],
    },
];

/// Options of [`solve`].
#[derive(Debug, Clone, Copy)]
pub struct HornOptions {
    /// Z3's resource limit of each configuration's context (deterministic).
    pub rlimit: u32,
    /// The configurations to try, in order.
    pub portfolio: &'static [SpacerConfig],
}

impl Default for HornOptions {
    fn default() -> HornOptions {
        HornOptions {
            rlimit: 20_000_000,
            portfolio: PORTFOLIO,
        }
    }
}

/// A solution: per relation (by index), conjuncts over its parameters as C conditions (an
/// empty list: `true`, or nothing expressible).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solution {
    /// Per relation, its interpretation's conjuncts.
    pub interps: Vec<Vec<Expr>>,
}

/// A derivation of a relation instance (or of the error) by one clause from others: the
/// values of its arguments (`None` where the proof gave no integer) and the derivations of
/// the instances the clause assumed, in the order of the clause's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Derivation {
    /// The relation derived (`None`: the error).
    pub rel: Option<RelId>,
    /// Its arguments.
    pub args: Vec<Option<i128>>,
    /// The premises.
    pub premises: Vec<Derivation>,
}

/// What the solver answered.
#[derive(Debug, Clone)]
pub enum HornAnswer {
    /// The error is not derivable: a solution.
    Safe(Solution),
    /// The error is derivable: its derivation.
    Unsafe(Derivation),
    /// No configuration decided (the last reason).
    Unknown(String),
}

/// One configuration tried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    /// The configuration's name.
    pub config: &'static str,
    /// `sat`, `unsat` or `unknown (reason)`.
    pub result: String,
}

/// The answer and the configurations tried.
#[derive(Debug, Clone)]
pub struct HornResult {
    /// The answer.
    pub answer: HornAnswer,
    /// The configurations tried, in order.
    pub attempts: Vec<Attempt>,
}

/// The integer semantics the clauses are encoded in (the data model of `prog`).
fn semantics(prog: &Program) -> Semantics {
    Semantics {
        data_model: prog.data_model,
        bitvector: false,
    }
}

/// Solves `problem` (see the module doc): the portfolio in order until one configuration
/// decides, each in a fresh context under `opts.rlimit`.
pub fn solve(prog: &Program, problem: &HornProblem, opts: &HornOptions) -> HornResult {
    let mut attempts = Vec::new();
    let mut last = "no configuration".to_string();
    for config in opts.portfolio {
        let mut cfg = z3::Config::new();
        cfg.set_param_value("rlimit", &opts.rlimit.to_string());
        let answer = z3::with_z3_config(&cfg, || solve_with(prog, problem, config));
        let result = match &answer {
            HornAnswer::Safe(_) => "unsat".to_string(),
            HornAnswer::Unsafe(_) => "sat".to_string(),
            HornAnswer::Unknown(why) => format!("unknown ({why})"),
        };
        tracing::debug!(config = config.name, %result, "horn query");
        attempts.push(Attempt {
            config: config.name,
            result,
        });
        match answer {
            HornAnswer::Unknown(why) => last = why,
            decided => {
                return HornResult {
                    answer: decided,
                    attempts,
                };
            }
        }
    }
    HornResult {
        answer: HornAnswer::Unknown(last),
        attempts,
    }
}

/// One configuration, in the current (fresh) context.
fn solve_with(prog: &Program, problem: &HornProblem, config: &SpacerConfig) -> HornAnswer {
    let fp = Fixedpoint::new();
    let mut params = Params::new();
    params.set_symbol("engine", "spacer");
    // The relations and their arguments stay as encoded: a derivation names the clause of
    // each step by its relations, which Z3's inlining and slicing would remove.
    for k in ["xform.inline_eager", "xform.inline_linear", "xform.slice"] {
        params.set_bool(k, false);
    }
    for (k, v) in config.uints {
        params.set_u32(*k, *v);
    }
    for (k, v) in config.bools {
        params.set_bool(*k, *v);
    }
    fp.set_params(&params);
    let int = Sort::int();
    let decls: Vec<FuncDecl> = problem
        .relations
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let dom: Vec<&Sort> = r.params.iter().map(|_| &int).collect();
            FuncDecl::new(format!("{}!{i}", r.name), &dom, &Sort::bool())
        })
        .collect();
    let error = FuncDecl::new("error!", &[], &Sort::bool());
    for d in decls.iter().chain(std::iter::once(&error)) {
        fp.register_relation(d);
    }
    let names: HashSet<String> = decls
        .iter()
        .chain(std::iter::once(&error))
        .map(FuncDecl::name)
        .collect();
    for c in &problem.clauses {
        let rule = clause_rule(prog, problem, &decls, &error, &names, c);
        fp.add_rule(&rule, None);
    }
    let query = error
        .apply(&[])
        .as_bool()
        .expect("the error relation is Boolean");
    tracing::trace!(config = config.name, clauses = %fp, "horn clauses");
    match fp.query(&query) {
        SatResult::Unsat => {
            let interps = decls
                .iter()
                .zip(&problem.relations)
                .map(|(d, r)| match fp.get_cover_delta(-1, d) {
                    Some(f) => normal::interpretation(prog, &r.params, &f),
                    None => Vec::new(),
                })
                .collect();
            HornAnswer::Safe(Solution { interps })
        }
        SatResult::Sat => match fp.get_answer().and_then(|a| {
            let by_name: BTreeMap<String, RelId> = decls
                .iter()
                .enumerate()
                .map(|(i, d)| (d.name(), RelId(i as u32)))
                .collect();
            derivation(&Dynamic::from_ast(&a), &by_name).map(without_query_step)
        }) {
            Some(d) => HornAnswer::Unsafe(d),
            None => HornAnswer::Unknown("no derivation in the solver's answer".into()),
        },
        SatResult::Unknown => HornAnswer::Unknown(fp.get_reason_unknown()),
    }
}

/// A relation instance, its arguments encoded and converted to the parameters' types.
fn apply_rel(
    enc: &mut Encoder<'_>,
    prog: &Program,
    problem: &HornProblem,
    decls: &[FuncDecl],
    app: &RelApp,
) -> Bool {
    let rel = &problem.relations[app.rel.0 as usize];
    let args: Vec<Int> = app
        .args
        .iter()
        .zip(&rel.params)
        .map(|(a, p)| int_of(&enc.value_as(a, &prog.var(*p).ty)))
        .collect();
    let refs: Vec<&dyn Ast> = args.iter().map(|a| a as &dyn Ast).collect();
    decls[app.rel.0 as usize]
        .apply(&refs)
        .as_bool()
        .expect("relations are Boolean")
}

/// The rule of one clause: `∀ vars. body ∧ constraints ∧ facts → head`.
fn clause_rule(
    prog: &Program,
    problem: &HornProblem,
    decls: &[FuncDecl],
    error: &FuncDecl,
    relations: &HashSet<String>,
    c: &Clause,
) -> Bool {
    let mut enc = Encoder::new(prog, semantics(prog));
    enc.opaque_fresh = true;
    let mut body: Vec<Bool> = c
        .body
        .iter()
        .map(|app| apply_rel(&mut enc, prog, problem, decls, app))
        .collect();
    body.extend(c.constraints.iter().map(|e| enc.cond(e)));
    let head = match &c.head {
        Some(app) => apply_rel(&mut enc, prog, problem, decls, app),
        None => error.apply(&[]).as_bool().expect("Boolean"),
    };
    body.extend(enc.finish());
    let rule = Bool::and(&body).implies(&head);
    let vars = free_constants(&Dynamic::from_ast(&rule), relations);
    if vars.is_empty() {
        return rule;
    }
    let refs: Vec<&dyn Ast> = vars.iter().map(|v| v as &dyn Ast).collect();
    forall_const(&refs, &[], &rule)
}

/// The uninterpreted constants of `t` (every value of a clause), other than the relations.
fn free_constants(t: &Dynamic, relations: &HashSet<String>) -> Vec<Dynamic> {
    let mut seen: HashSet<Dynamic> = HashSet::new();
    let mut out = Vec::new();
    let mut stack = vec![t.clone()];
    while let Some(x) = stack.pop() {
        if !seen.insert(x.clone()) {
            continue;
        }
        if x.kind() != AstKind::App {
            continue;
        }
        if x.num_children() == 0 {
            let decl = x.decl();
            let name = decl.name();
            let interpreted = name == "true" || name == "false";
            if !interpreted && !relations.contains(&name) && decl.arity() == 0 {
                out.push(x);
            }
            continue;
        }
        stack.extend(x.children());
    }
    // A deterministic order of the quantified variables (by name).
    out.sort_by_key(|d| d.to_string());
    out
}

/// The derivation in Spacer's answer to a `sat` query: its hyper-resolution steps, each
/// concluding a ground relation instance (the last argument of a proof step is what it
/// proves; the first of a `hyper-res` step is the rule, the others its premises).
fn derivation(proof: &Dynamic, rels: &BTreeMap<String, RelId>) -> Option<Derivation> {
    let kids = proof.children();
    let name = (proof.kind() == AstKind::App).then(|| proof.decl().name())?;
    let concl = kids.last()?;
    if name.starts_with("hyper-res") {
        let head = instance(concl, rels)?;
        let premises = kids[1..kids.len() - 1]
            .iter()
            .map(|p| derivation(p, rels))
            .collect::<Option<Vec<_>>>()?;
        return Some(Derivation {
            rel: head.0,
            args: head.1,
            premises,
        });
    }
    // Another proof step (`mp` of the query, a rewrite): the derivation below it.
    kids[..kids.len() - 1]
        .iter()
        .find_map(|k| derivation(k, rels))
}

/// `d` without Z3's own query step: Z3 answers a query through a fresh symbol derived from
/// the error relation, a step that stands for no clause of the problem.
fn without_query_step(mut d: Derivation) -> Derivation {
    while d.rel.is_none() && d.premises.len() == 1 && d.premises[0].rel.is_none() {
        d = d.premises.remove(0);
    }
    d
}

/// A ground instance: the relation (`None` for the error or the query symbol) and its
/// arguments' values.
#[allow(clippy::type_complexity)]
fn instance(
    t: &Dynamic,
    rels: &BTreeMap<String, RelId>,
) -> Option<(Option<RelId>, Vec<Option<i128>>)> {
    if t.kind() != AstKind::App || t.sort_kind() != SortKind::Bool {
        return None;
    }
    let name = t.decl().name();
    match rels.get(&name) {
        Some(r) => Some((
            Some(*r),
            t.children()
                .iter()
                .map(|a| a.as_int().and_then(|i| i.as_i128()))
                .collect(),
        )),
        None if t.num_children() == 0 => Some((None, Vec::new())),
        None => None,
    }
}

/// Whether `interps` (per relation, conjuncts over its parameters) solves every clause of
/// `problem` (only those with a body relation in `only`, when given): each clause, with its
/// relations replaced by their interpretations, is valid. Each check in a solver with
/// `rlimit`; `unknown` counts as "does not hold".
pub fn holds(
    prog: &Program,
    problem: &HornProblem,
    interps: &[Vec<Expr>],
    only: Option<RelId>,
    rlimit: u32,
) -> bool {
    super::session::in_context(|| {
        problem
            .clauses
            .iter()
            .filter(|c| only.is_none_or(|r| c.body.iter().any(|b| b.rel == r)))
            .all(|c| clause_holds(prog, problem, interps, c, rlimit))
    })
}

/// The conjuncts of a relation's interpretation at an instance.
fn instantiate(
    prog: &Program,
    problem: &HornProblem,
    interps: &[Vec<Expr>],
    app: &RelApp,
) -> Vec<Expr> {
    instantiate_conjs(prog, problem, &interps[app.rel.0 as usize], app)
}

/// The conjuncts `conjs` (over the parameters of `app`'s relation) at the instance `app`.
fn instantiate_conjs(
    prog: &Program,
    problem: &HornProblem,
    conjs: &[Expr],
    app: &RelApp,
) -> Vec<Expr> {
    let rel = &problem.relations[app.rel.0 as usize];
    let map: BTreeMap<VarId, Expr> = rel
        .params
        .iter()
        .zip(&app.args)
        .map(|(p, a)| (*p, crate::wp::convert(a, &prog.var(*p).ty)))
        .collect();
    conjs
        .iter()
        .map(|e| crate::wp::subst_vars(e, &|v| map.get(&v).cloned()))
        .collect()
}

fn clause_holds(
    prog: &Program,
    problem: &HornProblem,
    interps: &[Vec<Expr>],
    c: &Clause,
    rlimit: u32,
) -> bool {
    let head = c
        .head
        .as_ref()
        .map(|app| interps[app.rel.0 as usize].as_slice());
    clause_implies(prog, problem, interps, c, head, rlimit)
}

/// The clause `c` with its body relations replaced by their interpretations in `interps`:
/// what it assumes (the encoder's facts included), and the encoding of each conjunct of
/// `head` at its head instance (none when the clause is a query).
fn clause_query(
    prog: &Program,
    problem: &HornProblem,
    interps: &[Vec<Expr>],
    c: &Clause,
    head: &[Expr],
) -> (Vec<Bool>, Vec<Bool>) {
    let mut enc = Encoder::new(prog, semantics(prog));
    enc.opaque_fresh = true;
    let mut assumed: Vec<Bool> = Vec::new();
    for app in &c.body {
        for e in instantiate(prog, problem, interps, app) {
            assumed.push(enc.cond(&e));
        }
    }
    assumed.extend(c.constraints.iter().map(|e| enc.cond(e)));
    let goals: Vec<Bool> = match &c.head {
        Some(app) => instantiate_conjs(prog, problem, head, app)
            .iter()
            .map(|e| enc.cond(e))
            .collect(),
        None => Vec::new(),
    };
    assumed.extend(enc.finish());
    (assumed, goals)
}

/// Whether the clause `c`, with its body relations replaced by their interpretations in
/// `interps`, implies the conjuncts `head` at its head instance (`None`: the clause is a
/// query, and the body must be unsatisfiable).
fn clause_implies(
    prog: &Program,
    problem: &HornProblem,
    interps: &[Vec<Expr>],
    c: &Clause,
    head: Option<&[Expr]>,
    rlimit: u32,
) -> bool {
    let head = if c.head.is_some() { head } else { None };
    let (assumed, goals) = clause_query(prog, problem, interps, c, head.unwrap_or(&[]));
    let goal = match head {
        Some(_) => Bool::and(&goals),
        None => Bool::from_bool(false),
    };
    let solver = solver_with(rlimit, assumed.iter().chain(std::iter::once(&goal.not())));
    solver.check() == SatResult::Unsat
}

/// Houdini (Flanagan, Leino, "Houdini, an annotation assistant for ESC/Java", FME 2001, §2):
/// the largest subset of the candidate conjuncts `cands` (per relation, over its parameters)
/// that every clause with a head preserves — a conjunct some clause does not establish from
/// the current ones is dropped, until none is — and that subset as a [`Solution`] when it
/// also refutes every query clause. A cheap first try before Spacer: invariants whose atoms
/// the program itself spells out (`x % 2 == 0` from the property, which Spacer's
/// interpolation over `mod` does not find within its limit).
///
/// As in the paper's algorithm, one query per clause asks whether the clause establishes all
/// of its head's conjuncts at once; a counterexample's model names the conjuncts it falsifies,
/// which are dropped together, and the clause is asked again (with a relation in its own body,
/// a loop's clause assumes less after a drop). Where the model names none (`unknown`, or a
/// value the model leaves open), each conjunct is checked on its own. `None` when the error
/// is not refuted, or after `max_checks` checks; each check in a solver with `rlimit`,
/// `unknown` counting as "not established" (the subset stays sound).
pub fn houdini(
    prog: &Program,
    problem: &HornProblem,
    cands: Vec<Vec<Expr>>,
    rlimit: u32,
    max_checks: usize,
) -> Option<Solution> {
    super::session::in_context(|| {
        let mut interps = cands;
        let mut checks = 0usize;
        loop {
            let mut changed = false;
            for c in &problem.clauses {
                let Some(app) = &c.head else { continue };
                let r = app.rel.0 as usize;
                while !interps[r].is_empty() {
                    checks += 1;
                    if checks > max_checks {
                        return None;
                    }
                    let falsified = match houdini_check(prog, problem, &interps, c, rlimit) {
                        None => break,
                        Some(f) if !f.is_empty() => f,
                        Some(_) => {
                            let n = interps[r].len();
                            checks += n;
                            if checks > max_checks {
                                return None;
                            }
                            (0..n)
                                .filter(|&j| {
                                    let conj = [interps[r][j].clone()];
                                    !clause_implies(prog, problem, &interps, c, Some(&conj), rlimit)
                                })
                                .collect()
                        }
                    };
                    if falsified.is_empty() {
                        break;
                    }
                    for j in falsified.into_iter().rev() {
                        interps[r].remove(j);
                    }
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        tracing::trace!(
            checks,
            kept = ?interps
                .iter()
                .map(|c| c.iter().map(|e| prog.show_expr(e)).collect::<Vec<_>>())
                .collect::<Vec<_>>(),
            "houdini fixpoint"
        );
        problem
            .clauses
            .iter()
            .filter(|c| c.head.is_none())
            .all(|c| clause_holds(prog, problem, &interps, c, rlimit))
            .then_some(Solution { interps })
    })
}

/// One query of [`houdini`]: `None` when the clause `c` establishes every conjunct of its
/// head relation's current candidates; otherwise the positions of the conjuncts a
/// counterexample's model falsifies (empty when there is no model to read them from).
fn houdini_check(
    prog: &Program,
    problem: &HornProblem,
    interps: &[Vec<Expr>],
    c: &Clause,
    rlimit: u32,
) -> Option<Vec<usize>> {
    let r = c.head.as_ref().map_or(0, |h| h.rel.0 as usize);
    let (assumed, goals) = clause_query(prog, problem, interps, c, &interps[r]);
    let goal = Bool::and(&goals);
    let solver = solver_with(rlimit, assumed.iter().chain(std::iter::once(&goal.not())));
    match solver.check() {
        SatResult::Unsat => None,
        SatResult::Unknown => Some(Vec::new()),
        SatResult::Sat => {
            let Some(model) = solver.get_model() else {
                return Some(Vec::new());
            };
            Some(
                goals
                    .iter()
                    .enumerate()
                    .filter(|(_, g)| model.eval(*g, true).and_then(|v| v.as_bool()) == Some(false))
                    .map(|(j, _)| j)
                    .collect(),
            )
        }
    }
}

/// Whether `clause` can take the instances of its body relations with the argument values
/// `body` (per body relation) to its head with the values `head` (`None`: a value not
/// given): one step of a [`Derivation`], recovered by the caller that maps it back to the
/// code the clause stands for. In its own context, with `rlimit`; `unknown` is "no".
pub fn clause_admits(
    prog: &Program,
    problem: &HornProblem,
    clause: &Clause,
    body: &[Vec<Option<i128>>],
    head: &[Option<i128>],
    rlimit: u32,
) -> bool {
    super::session::in_context(|| {
        let mut enc = Encoder::new(prog, semantics(prog));
        enc.opaque_fresh = true;
        let mut conj: Vec<Bool> = Vec::new();
        let mut pin = |enc: &mut Encoder<'_>, app: &RelApp, vals: &[Option<i128>]| {
            let rel = &problem.relations[app.rel.0 as usize];
            for ((a, p), v) in app.args.iter().zip(&rel.params).zip(vals) {
                if let Some(v) = v {
                    let x = int_of(&enc.value_as(a, &prog.var(*p).ty));
                    conj.push(x.eq(Int::from_i128(*v)));
                }
            }
        };
        for (app, vals) in clause.body.iter().zip(body) {
            pin(&mut enc, app, vals);
        }
        if let Some(app) = &clause.head {
            pin(&mut enc, app, head);
        }
        conj.extend(clause.constraints.iter().map(|e| enc.cond(e)));
        let facts = enc.finish();
        let solver = solver_with(rlimit, facts.iter().chain(&conj));
        solver.check() == SatResult::Sat
    })
}

/// `sol` with conjuncts dropped while the rest still solves every clause ([`holds`]);
/// unchanged when `sol` itself does not (a conjunct that did not read back as C leaves a map
/// that may not be inductive). Each relation's conjuncts are dropped in blocks, halved from
/// all of them down to one at a time (the coarse passes of Zeller and Hildebrandt's delta
/// debugging, "Simplifying and Isolating Failure-Inducing Input", TSE 2002): a solution of
/// Houdini's holds dozens of candidates of which a few refute the error, and whole blocks of
/// the others go in one check. Each check costs a check of the clauses that assume the
/// relation; after `max_checks` of them the solution is returned as far as it got.
pub fn minimize(
    prog: &Program,
    problem: &HornProblem,
    sol: Solution,
    max_checks: usize,
    rlimit: u32,
) -> Solution {
    let total: usize = sol.interps.iter().map(Vec::len).sum();
    if total == 0 || max_checks == 0 || !holds(prog, problem, &sol.interps, None, rlimit) {
        return sol;
    }
    let mut interps = sol.interps;
    let mut checks = 0usize;
    for r in 0..interps.len() {
        let mut block = interps[r].len();
        while block > 0 {
            let mut j = 0;
            while j < interps[r].len() {
                if checks == max_checks {
                    return Solution { interps };
                }
                checks += 1;
                let end = (j + block).min(interps[r].len());
                let dropped: Vec<Expr> = interps[r].drain(j..end).collect();
                if holds(prog, problem, &interps, Some(RelId(r as u32)), rlimit) {
                    continue;
                }
                let n = dropped.len();
                interps[r].splice(j..j, dropped);
                j += n;
            }
            block = if block == 1 { 0 } else { block.div_ceil(2) };
        }
    }
    Solution { interps }
}
