//! The translation of one C function into one Boolean procedure (C2BP, PLDI'01 §4; `enforce`:
//! the Constrain paper, TACAS'04 §3.3). Each IR edge becomes one or more `.bp` statements, each
//! annotated with the edge id, its part of the edge's translation and the source position:
//!
//! | edge | statements (`part=`) |
//! |---|---|
//! | `lhs := rhs` | `b_φ := choose(F(WP(φ)), F(WP(¬φ)))` for each φ whose WP differs, one parallel assignment (`assign`); when `rhs` is the result of a `calloc` just made, the new object's scalars in WP(φ) are 0 |
//! | `lhs := *` | `b_φ := *` for each φ reading a location that may alias `lhs` (`havoc`) |
//! | `assume(c)` | `assume G(c)`, `G(c) = ¬F(¬c)`; a predicate maps to its variable (`cond`) |
//! | call of a defined `R` | actual temporaries (`actuals`), the call into return temporaries (`call`), the caller predicates the call may change (`effects`) |
//! | nondet / external call | predicates over the result or over memory the callee may write become `*` (`effects`) |
//! | `return e` | return predicates over `\result := e` (`return`); the exit node returns `E_r` (`exit`) |
//! | entry; after `assign`, `havoc`, a call's `effects` | `assume` excluding the inconsistent cubes that mix global and local predicates and contain an assigned one (`consistency`; `enforce` cannot hold them) |
//! | error | `assert F` (`error`) |
//! | `abort()`/`exit()` | `assume F` (`halt`) |
//!
//! Control flow keeps the IR's graph: every node that is jumped to gets a label `L<n>`, a node
//! with several outgoing edges jumps nondeterministically (`goto E<i>, E<j>`) to its edges'
//! blocks, and a block falls through to the next node when it can. Temporaries are named by the
//! call edge, the callee and the predicate they carry (`{arg main#7 inc: a > 0}`,
//! `{ret main#7 inc: \result > a}`), never by position.
//!
//! **Values read after a call.** A return predicate `e` of R means `e[v/\result, a/f]` in the
//! caller only when the actuals `a` have the same value after the call; an actual that reads
//! something R may modify (its mod set) or the result variable drops the return predicates
//! that mention its formal (received into `_`). The return temporaries also stay meaningful
//! for the edge right after the call (its source node has no other incoming edge), so
//! `x := f#ret#3` can use them.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::time::Instant;

use cir::ir::{Callee, Edge, EdgeKind, Expr, ExprKind, FuncId, Function, NodeId, Program, VarId};
use cir::pointsto::PointsTo;
use cir::pred::{Predicate, PredicateSet, subst_result};
use cir::smt::{Prover, SolverCx};
use cir::types::CType;
use cir::wp::{aliasing, compares_own_address, convert, mentions_var, reads_alias, wp_assign};

use bp_c::names::{CallTemp, caller_reading};

use crate::cubes::{Cube, Enumerator, Memo, PredVar, Prior, SearchStats, VarSet};
use crate::relevance::Relevance;
use crate::reuse::{EdgeSlot, EdgeText, EdgeTexts, ReuseStats, vocabulary};
use crate::signature::{ModSet, Signature, call_targets, external_mod, reads_any};
use crate::{Abstraction, Options};

/// What every procedure's translation shares (read-only, so procedures run in parallel).
pub struct Shared<'a> {
    /// The program.
    pub prog: &'a Program,
    /// The predicates.
    pub preds: &'a PredicateSet,
    /// Points-to facts.
    pub pts: &'a PointsTo,
    /// The one C semantics.
    pub prover: &'a Prover<'a>,
    /// Options.
    pub opts: &'a Options,
    /// Signatures, by `FuncId`.
    pub sigs: &'a [Signature],
    /// Mod sets, by `FuncId`.
    pub mods: &'a [ModSet],
    /// The global predicates as variables.
    pub globals: &'a VarSet,
    /// The inconsistent cubes over global predicates (computed once, shared by every
    /// `enforce`), of at most `max(2, enforce_len)` literals.
    pub global_enforce: &'a [Cube],
    /// Cube-search answers of earlier abstractions (read-only).
    pub prior: std::sync::Arc<Prior>,
    /// The local inconsistent cubes of each function in the previous abstraction (read-only).
    pub local_enforce: &'a std::collections::HashMap<String, LocalCubes>,
    /// The statements of the previous abstraction by function and edge, with their keys
    /// (read-only; [`crate::reuse`]).
    pub stmts: &'a EdgeTexts,
}

/// The inconsistent cubes of one function that contain a local predicate, by the texts of
/// their literals, with the texts of the global and local predicates they were searched over
/// (carried to the next abstraction: only cubes with a new predicate are searched again).
#[derive(Debug, Clone, Default)]
pub struct LocalCubes {
    /// The global predicates.
    pub globals: Vec<String>,
    /// The local predicates.
    pub locals: Vec<String>,
    /// The cubes.
    pub cubes: Vec<Vec<(String, bool)>>,
}

/// Counters of one procedure's translation (`--stats`).
#[derive(Debug, Clone, Default)]
pub struct ProcStats {
    /// The procedure.
    pub name: String,
    /// Predicate updates emitted (assignment targets).
    pub updates: u64,
    /// Of which `*`.
    pub star_updates: u64,
    /// Wall time of the translation, in seconds.
    pub seconds: f64,
    /// Solver queries the translation asked (0 when the text was reused).
    pub queries: u64,
    /// Cube searches stopped by the query limit.
    pub capped: u64,
    /// Statements whose exact relation stopped short (`--abstraction exact`: over
    /// `--max-cubes`, the query limit, or an `unknown`), kept Cartesian besides.
    pub exact_capped: u64,
    /// Cubes the transitions are written with: those of each Cartesian update and assume
    /// (`F(φ)`, `F(¬φ)`) and the clauses of each exact relation — the abstraction's size.
    pub cubes: u64,
    /// Cube searches answered from the procedure's memo.
    pub memo_hits: u64,
    /// Cube searches answered from earlier abstractions.
    pub prior_hits: u64,
    /// Cube searches seeded by an earlier abstraction's answer over fewer atoms.
    pub seeded: u64,
    /// The text is the previous abstraction's ([`proc_key`] unchanged): nothing was searched.
    pub reused: bool,
    /// Edges whose statements were reused or translated ([`crate::reuse`]).
    pub stmts: ReuseStats,
}

/// When edge `e` assigns `rhs`, the result of a `calloc` of a `T` that reaches `e` with nothing
/// but `assume`s between them (the lowering's `t := calloc(1, sizeof(T)); assume(t != 0);
/// x := t`): that temporary and `T`. Every scalar of the object still reads zero at `e`.
fn zeroed_allocation(f: &Function, e: &Edge, rhs: &Expr) -> Option<(VarId, CType)> {
    let ExprKind::Var(tmp) = rhs.kind else {
        return None;
    };
    let CType::Pointer(t) = &rhs.ty else {
        return None;
    };
    if matches!(**t, CType::Void | CType::Func(_)) {
        return None;
    }
    let mut node = e.from;
    // Each step goes to an earlier node; the bound only guards against a malformed graph.
    for _ in 0..f.edges.len() {
        let mut into = f.edges.iter().filter(|x| x.to == node);
        let (Some(p), None) = (into.next(), into.next()) else {
            return None;
        };
        match &p.kind {
            EdgeKind::Assume(_) => node = p.from,
            EdgeKind::Call {
                ret: Some(r),
                callee: Callee::External(n),
                ..
            } if *r == tmp && n == "calloc" => return Some((tmp, (**t).clone())),
            _ => return None,
        }
    }
    None
}

/// `w` with every read of a scalar of the zero-filled object `tmp` points to replaced by 0.
fn zero_contents(prog: &Program, w: &Expr, tmp: VarId, t: &CType) -> Expr {
    cir::wp::map_allocated_reads(prog, w, tmp, t, &mut |_, ty| {
        convert(&Expr::int(0, CType::INT), ty)
    })
}

/// The text of one Boolean procedure and its counters.
pub struct ProcOut {
    /// `.bp` text.
    pub text: String,
    /// Counters.
    pub stats: ProcStats,
    /// The cube-search answers computed (for later abstractions).
    pub memo: Memo,
    /// The local inconsistent cubes found (for later abstractions).
    pub local_enforce: Option<LocalCubes>,
    /// The statements of each edge with its key (for later abstractions; empty when the
    /// whole text was reused).
    pub edges: Vec<EdgeSlot>,
    /// The offset in `text` of each statement (its annotation line), in order: the procedure
    /// is parsed statement by statement ([`crate::assemble`]).
    pub stmt_starts: Vec<usize>,
}

/// One `.bp` statement of an edge's translation.
#[derive(Clone)]
struct St {
    part: &'static str,
    text: String,
}

/// Which nodes of a function's body need a label: the edges out of each node, and the nodes
/// some edge reaches other than by falling through.
struct Layout {
    out_edges: Vec<Vec<usize>>,
    needs_label: Vec<bool>,
}

impl Layout {
    fn new(f: &Function, blocks: &[Vec<Vec<St>>]) -> Layout {
        let n = f.nodes as usize;
        let mut out_edges: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, e) in f.edges.iter().enumerate() {
            out_edges[e.from.0 as usize].push(i);
        }
        let mut layout = Layout {
            out_edges,
            needs_label: vec![false; n],
        };
        for (i, e) in f.edges.iter().enumerate() {
            if !layout.falls_through(f, blocks, i) {
                layout.needs_label[e.to.0 as usize] = true;
            }
        }
        layout
    }

    /// Whether edge `i` falls through to its target: the only edge of its node, one
    /// alternative, and its target the next node.
    fn falls_through(&self, f: &Function, blocks: &[Vec<Vec<St>>], i: usize) -> bool {
        let e = &f.edges[i];
        self.out_edges[e.from.0 as usize].len() == 1
            && blocks[i].len() == 1
            && e.to.0 == e.from.0 + 1
    }
}

/// The body of a procedure being written: each statement on a line after its annotation,
/// with the label of its node (when one is pending) and its own.
#[derive(Default)]
struct BodyWriter {
    body: String,
    pending_label: Option<String>,
    /// The offset in `body` of each statement.
    starts: Vec<usize>,
}

impl BodyWriter {
    fn put(&mut self, ann: String, label: Option<String>, text: &str) {
        self.starts.push(self.body.len());
        let body = &mut self.body;
        body.push_str("  ");
        body.push_str(&ann);
        body.push('\n');
        body.push_str("  ");
        if let Some(l) = self.pending_label.take() {
            let _ = write!(body, "{l}: ");
        }
        if let Some(l) = label {
            let _ = write!(body, "{l}: ");
        }
        body.push_str(text);
        body.push('\n');
    }
}

/// Everything the translation of `f` reads that may change between two abstractions of one
/// program with one set of options: the global predicates and their inconsistent cubes, and
/// the own predicates and signature of `f` and of every function a call of `f` may enter (the
/// program, its points-to facts and mod sets, and the options are fixed). Two abstractions
/// that give `f` the same key give it the same text (a later abstraction may hold more cached
/// answers, which change the work, not the text), so [`crate::Cache`] reuses it
/// (`tests/cache.rs` compares every reused text with a fresh abstraction's).
pub fn proc_key(sh: &Shared<'_>, global_key: &str, f: &Function) -> String {
    let mut callees: BTreeSet<FuncId> = BTreeSet::new();
    for e in &f.edges {
        if let EdgeKind::Call { callee, .. } = &e.kind {
            callees.extend(call_targets(sh.prog, sh.pts, callee).0);
        }
    }
    let mut k = global_key.to_string();
    for g in std::iter::once(f.id).chain(callees) {
        let gf = &sh.prog.functions[g.0 as usize];
        let _ = write!(k, "|{}:", gf.name);
        for p in own_preds(sh.preds, gf) {
            k.push_str(&p.text);
            k.push(';');
        }
        let _ = write!(k, "{:?}", sh.sigs[g.0 as usize]);
    }
    k
}

/// The part of every [`proc_key`] that all functions share: the global predicates and their
/// inconsistent cubes (built once per abstraction).
pub fn global_key(sh: &Shared<'_>) -> String {
    let mut k = String::new();
    for v in &sh.globals.vars {
        k.push_str(&v.name);
        k.push(';');
    }
    let _ = write!(k, "|{:?}", sh.global_enforce);
    k
}

fn own_preds<'a>(preds: &'a PredicateSet, f: &Function) -> &'a [Predicate] {
    preds
        .per_function
        .get(&f.name)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

struct FnCx<'s, 'a, 'c, 'z> {
    sh: &'s Shared<'a>,
    cx: &'c mut SolverCx<'z>,
    search: SearchStats,
    known: Vec<Vec<(String, bool)>>,
    /// Each cube of `known` as it appears in an edge's key ([`FnCx::edge_key`]), and the cubes
    /// by the text of each of their literals: built once per procedure, since an edge of a
    /// state machine has hundreds of them in its key.
    known_keys: Vec<String>,
    known_by_text: HashMap<String, Vec<usize>>,
    /// What an assignment to each lvalue does to the procedure's variables, by lvalue: the
    /// edges of a state machine assign the same few lvalues over and over.
    writes: HashMap<Expr, std::rc::Rc<Written>>,
    f: &'a Function,
    own: &'a [Predicate],
    body: VarSet,
    en: Enumerator<'a>,
    temps: Vec<String>,
    stats: ProcStats,
    local_cubes: Option<LocalCubes>,
    /// The inconsistent cubes of `enforce`'s length that mix global and local predicates:
    /// excluded after each statement that assigns one of their predicates (not by `enforce`,
    /// see [`FnCx::enforce`]).
    mixed: Vec<Cube>,
    /// Per node, its only incoming edge (`None`: none or several).
    only_incoming: Vec<Option<usize>>,
    /// Per edge, its key and statements (for later abstractions).
    slots: Vec<EdgeSlot>,
}

/// Translates functions one after the other in one Z3 context and solver: a solver costs
/// 10–20 ms to create (Z3's default solver builds its tactic portfolio), more than the cube
/// searches of most procedures (cdaudio has 30 procedures, mostly small). Each cube search runs
/// in its own pushed scope ([`SolverCx::session`]), so functions do not see each other's
/// assertions; the sequence of operations on the solver is the list's, so answers do not depend
/// on a thread schedule.
pub fn translate_all(sh: &Shared<'_>, fids: &[FuncId]) -> Vec<ProcOut> {
    sh.prover
        .with_solver(|cx| fids.iter().map(|&f| translate_in(sh, cx, f)).collect())
}

fn translate_in(sh: &Shared<'_>, cx: &mut SolverCx<'_>, fid: FuncId) -> ProcOut {
    let start = Instant::now();
    let queries_before = cx.queries();
    let prog = sh.prog;
    let f = &prog.functions[fid.0 as usize];
    let own = own_preds(sh.preds, f);
    let mut body = sh.globals.clone();
    for p in own.iter().filter(|p| !p.is_return_predicate()) {
        body.push(prog, sh.pts, p.name(), &p.expr);
    }
    let mut cx = FnCx {
        sh,
        cx,
        search: SearchStats {
            prior: sh.prior.clone(),
            scope: f.name.clone(),
            ..SearchStats::default()
        },
        known: Vec::new(),
        known_keys: Vec::new(),
        known_by_text: HashMap::new(),
        writes: HashMap::new(),
        f,
        own,
        body,
        en: Enumerator {
            pts: sh.pts,
            prog,
            max_len: sh.opts.cube_len,
            max_queries: sh.opts.max_queries,
        },
        temps: Vec::new(),
        stats: ProcStats {
            name: f.name.clone(),
            ..ProcStats::default()
        },
        local_cubes: None,
        mixed: Vec::new(),
        only_incoming: only_incoming(f),
        slots: Vec::new(),
    };
    let (text, stmt_starts) = cx.procedure();
    cx.stats.seconds = start.elapsed().as_secs_f64();
    cx.stats.queries = cx.cx.queries() - queries_before;
    cx.stats.capped = cx.search.capped;
    cx.stats.memo_hits = cx.search.memo_hits;
    cx.stats.prior_hits = cx.search.prior_hits;
    cx.stats.seeded = cx.search.seeded;
    ProcOut {
        text,
        stats: cx.stats,
        memo: std::mem::take(&mut cx.search.memo),
        local_enforce: cx.local_cubes.take(),
        edges: std::mem::take(&mut cx.slots),
        stmt_starts,
    }
}

/// Per node of `f`, the only edge into it (`None`: no edge or several).
fn only_incoming(f: &Function) -> Vec<Option<usize>> {
    let mut count = vec![0usize; f.nodes as usize];
    let mut last = vec![None; f.nodes as usize];
    for (i, e) in f.edges.iter().enumerate() {
        count[e.to.0 as usize] += 1;
        last[e.to.0 as usize] = Some(i);
    }
    last.into_iter()
        .zip(count)
        .map(|(l, c)| if c == 1 { l } else { None })
        .collect()
}

fn annotation(prog: &Program, edge: Option<&Edge>, part: &str, pos: cir::ir::SrcPos) -> String {
    use bp_grammar::print::annotation_value as q;
    let mut s = String::from("//@");
    if let Some(e) = edge {
        let _ = write!(s, " edge={}", q(&prog.edge_name(e.id)));
    }
    let _ = write!(s, " part={part} line={}", q(&prog.show_pos(pos)));
    s
}

impl FnCx<'_, '_, '_, '_> {
    fn prog(&self) -> &Program {
        self.sh.prog
    }

    fn havoc_all(&self) -> bool {
        self.sh.opts.havoc_all
    }

    /// `choose(F(w), F(¬w))` over `vs`, counted as one update.
    fn choose(&mut self, vs: &VarSet, w: Option<&Expr>) -> String {
        self.stats.updates += 1;
        let text = match w {
            Some(w) if !self.havoc_all() => {
                let a = self
                    .en
                    .approx(self.cx, &mut self.search, &self.known, vs, w);
                self.stats.cubes += (a.pos.len() + a.neg.len()) as u64;
                a.choose_text(vs)
            }
            _ => "*".to_string(),
        };
        if text == "*" {
            self.stats.star_updates += 1;
        }
        text
    }

    /// Whether statements get their exact relation ([`crate::exact`]).
    fn exact(&self) -> bool {
        self.sh.opts.abstraction == Abstraction::Exact && !self.havoc_all()
    }

    /// The parallel assignment of `updates` (a variable and its new value as a condition on
    /// the state before; `None`: unknown) over the variables `vs`: each by
    /// [`FnCx::choose`], or all `*` constrained by their exact relation (its clauses found
    /// conjoined with the former when its search stopped short).
    fn update(&mut self, vs: &VarSet, updates: &[(String, Option<Expr>)]) -> Option<String> {
        if updates.is_empty() {
            return None;
        }
        let rel = self.exact().then(|| {
            let max = self.sh.opts.max_cubes;
            crate::exact::transition(&self.en, self.cx, vs, updates, max)
        });
        let mut targets = Vec::with_capacity(updates.len());
        for (k, (name, w)) in updates.iter().enumerate() {
            let text = match &rel {
                Some(r) if r.complete => {
                    self.stats.updates += 1;
                    self.stats.star_updates += u64::from(!r.constrained[k]);
                    "*".to_string()
                }
                _ => self.choose(vs, w.as_ref()),
            };
            targets.push((name.clone(), text));
        }
        let plain = Self::assignment(&targets)?;
        let Some(rel) = rel else {
            return Some(plain);
        };
        self.stats.exact_capped += u64::from(!rel.complete);
        self.stats.cubes += rel.cubes;
        Some(match rel.text {
            Some(r) => format!("{} constrain {r};", plain.trim_end_matches(';')),
            None => plain,
        })
    }

    /// `assume(c)`'s condition: `G(c)`, or the exact set of valuations consistent with `c`
    /// (conjoined with `G(c)` when its search stopped short).
    fn condition(&mut self, vs: &VarSet, c: &Expr) -> String {
        if self.havoc_all() {
            return "*".to_string();
        }
        let rel = self.exact().then(|| {
            let max = self.sh.opts.max_cubes;
            crate::exact::condition(&self.en, self.cx, vs, c, max)
        });
        let cartesian = |me: &mut Self| {
            let a = me.en.approx(me.cx, &mut me.search, &me.known, vs, c);
            me.stats.cubes += a.neg.len() as u64;
            a.weaken_text(vs)
        };
        if let Some(r) = &rel {
            self.stats.cubes += r.cubes;
        }
        match rel {
            None => cartesian(self),
            Some(r) if r.complete => r.text.unwrap_or_else(|| "T".to_string()),
            Some(r) => {
                self.stats.exact_capped += 1;
                let g = cartesian(self);
                match r.text {
                    Some(t) => crate::cubes::chain_text(vec![g, t], "&"),
                    None => g,
                }
            }
        }
    }

    fn assignment(targets: &[(String, String)]) -> Option<String> {
        if targets.is_empty() {
            return None;
        }
        let lhs: Vec<&str> = targets.iter().map(|t| t.0.as_str()).collect();
        let rhs: Vec<&str> = targets.iter().map(|t| t.1.as_str()).collect();
        Some(format!("{} := {};", lhs.join(", "), rhs.join(", ")))
    }

    /// After a statement that assigns the predicates `assigned` (indices into the body's),
    /// when every predicate of the procedure holds its true value again: `assume` that
    /// excludes the inconsistent cubes mixing global and local predicates that contain one of
    /// them, if any. Cartesian abstraction updates each predicate on its own, so without it an
    /// update can pair a global predicate with local ones no concrete state satisfies together
    /// (`g == 0`, with `q == &g` and `*q == 2` local); `enforce` cannot exclude these cubes
    /// (see [`FnCx::enforce`]).
    fn excluding(&self, assigned: &BTreeSet<usize>) -> Option<St> {
        if self.mixed.is_empty() || assigned.is_empty() {
            return None;
        }
        let mut parts: Vec<String> = self
            .mixed
            .iter()
            .filter(|c| c.iter().any(|l| assigned.contains(&l.0)))
            .map(|c| format!("!{}", self.body.cube_text(c)))
            .collect();
        let cond = match parts.len() {
            0 => return None,
            1 => parts.remove(0),
            // The printer's form, as for `enforce`.
            _ => crate::cubes::chain_text(parts, "&"),
        };
        Some(St {
            part: "consistency",
            text: format!("assume {cond};"),
        })
    }

    /// The variables in scope for an edge: the body's, plus the return temporaries of the call
    /// edge that is the only way into the edge's source node.
    fn scope_for(&self, e: &Edge) -> VarSet {
        let mut vs = self.body.clone();
        for (name, expr) in self.scope_temps(e) {
            vs.push(self.prog(), self.sh.pts, name, &expr);
        }
        vs
    }

    /// The return temporaries in scope for an edge besides the body's variables (see
    /// [`FnCx::scope_for`]).
    fn scope_temps(&self, e: &Edge) -> Vec<(String, Expr)> {
        self.only_incoming[e.from.0 as usize]
            .and_then(|c| self.call_returns(&self.f.edges[c]))
            .unwrap_or_default()
    }

    /// The return temporaries of a call edge with a single defined callee, with their meaning
    /// in the caller (`None`: not such a call).
    fn call_returns(&self, e: &Edge) -> Option<Vec<(String, Expr)>> {
        let EdgeKind::Call { ret, callee, args } = &e.kind else {
            return None;
        };
        let (targets, external) = call_targets(self.prog(), self.sh.pts, callee);
        match (targets.as_slice(), external) {
            ([g], false) if self.prog().functions[g.0 as usize].name != "main" => {
                Some(self.returns_of(e, *g, *ret, args).1)
            }
            _ => None,
        }
    }

    /// For a call of `g`: the `.bp` targets of the call (a name or `_` per return predicate)
    /// and the kept temporaries with their meaning in the caller (module doc).
    fn returns_of(
        &self,
        e: &Edge,
        g: FuncId,
        ret: Option<VarId>,
        args: &[Expr],
    ) -> (Vec<String>, Vec<(String, Expr)>) {
        let prog = self.prog();
        let gf = &prog.functions[g.0 as usize];
        let gown = own_preds(self.sh.preds, gf);
        let mods = &self.sh.mods[g.0 as usize];
        let changed: Vec<bool> = args
            .iter()
            .map(|a| reads_any(self.sh.pts, a, mods) || ret.is_some_and(|r| mentions_var(a, r)))
            .collect();
        let mut targets = Vec::new();
        let mut kept = Vec::new();
        for &i in &self.sh.sigs[g.0 as usize].returns {
            let p = &gown[i];
            let formals_ok = gf
                .formals
                .iter()
                .enumerate()
                .all(|(k, v)| !mentions_var(&p.expr, *v) || (k < args.len() && !changed[k]));
            let result_ok = !p.is_return_predicate() || ret.is_some();
            if formals_ok && result_ok {
                let name = CallTemp {
                    ret: true,
                    edge: prog.edge_name(e.id),
                    callee: gf.name.clone(),
                    text: p.text.clone(),
                }
                .name();
                let x = caller_reading(prog, gf, ret, args, &p.expr);
                targets.push(name.clone());
                kept.push((name, x));
            } else {
                targets.push("_".to_string());
            }
        }
        (targets, kept)
    }

    /// The procedure's text and the offset of each statement in it.
    fn procedure(&mut self) -> (String, Vec<usize>) {
        let f = self.f;
        // The inconsistent cubes first: they prune every cube search of the procedure.
        let enforce = self.enforce();
        // Translate every edge (alternatives of statement lists).
        let mut blocks: Vec<Vec<Vec<St>>> = Vec::with_capacity(f.edges.len());
        for (i, e) in f.edges.iter().enumerate() {
            let alts = self.edge_reusing(i, e);
            blocks.push(alts);
        }
        let init = if f.name == "main" {
            self.global_init()
        } else {
            None
        };
        let layout = Layout::new(f, &blocks);
        let body = self.body(&blocks, init.as_deref(), &layout);
        let text = self.with_header(enforce, &body.body);
        let head = text.len() - body.body.len() - "end\n".len();
        (text, body.starts.iter().map(|s| s + head).collect())
    }

    /// The statements of the procedure, node by node: `main`'s initialisation of the globals,
    /// the exclusion of the mixed inconsistent cubes at the entry, then each node's blocks
    /// ([`Self::node_blocks`]), `return` at the exit and `assume F;` at a node without
    /// successors.
    fn body(&self, blocks: &[Vec<Vec<St>>], init: Option<&str>, layout: &Layout) -> BodyWriter {
        let prog = self.sh.prog;
        let f = self.f;
        let mut w = BodyWriter::default();
        if let Some(text) = init {
            w.put(annotation(prog, None, "init", f.pos), None, text);
        }
        // At the entry (after `main`'s initialisation of the globals) the local predicates
        // start arbitrary next to the caller's global ones: every mixed inconsistent cube is
        // excluded there, as after an assignment of all of them.
        let every: BTreeSet<usize> = (0..self.body.vars.len()).collect();
        if let Some(st) = self.excluding(&every) {
            w.put(annotation(prog, None, st.part, f.pos), None, &st.text);
        }
        for node in 0..f.nodes as usize {
            if layout.needs_label[node] {
                w.pending_label = Some(format!("L{node}"));
            }
            let outs = &layout.out_edges[node];
            if NodeId(node as u32) == f.exit {
                let names: Vec<String> = self.sh.sigs[f.id.0 as usize]
                    .returns
                    .iter()
                    .map(|&i| self.own[i].name())
                    .collect();
                let text = if names.is_empty() {
                    "return;".to_string()
                } else {
                    format!("return {};", names.join(", "))
                };
                w.put(annotation(prog, None, "exit", f.pos), None, &text);
                continue;
            }
            if outs.is_empty() {
                w.put(annotation(prog, None, "sink", f.pos), None, "assume F;");
                continue;
            }
            self.node_blocks(&mut w, blocks, layout, outs);
        }
        w
    }

    /// The blocks of the edges `outs` of one node: a `goto` to all of them when there is a
    /// choice, then each alternative of each edge, labelled `E{edge}` or `E{edge}_{alternative}`,
    /// followed by a `goto` to the edge's target unless it falls through.
    fn node_blocks(
        &self,
        w: &mut BodyWriter,
        blocks: &[Vec<Vec<St>>],
        layout: &Layout,
        outs: &[usize],
    ) {
        let prog = self.sh.prog;
        let f = self.f;
        // The labelled blocks of this node: (label, edge index, alternative).
        let mut entries: Vec<(Option<String>, usize, usize)> = Vec::new();
        for &i in outs {
            let k = blocks[i].len();
            for a in 0..k {
                let label = if outs.len() == 1 && k == 1 {
                    None
                } else if k == 1 {
                    Some(format!("E{i}"))
                } else {
                    Some(format!("E{i}_{a}"))
                };
                entries.push((label, i, a));
            }
        }
        if entries.len() > 1 {
            let labels: Vec<String> = entries.iter().filter_map(|x| x.0.clone()).collect();
            let e = &f.edges[outs[0]];
            w.put(
                annotation(prog, None, "branch", e.pos),
                None,
                &format!("goto {};", labels.join(", ")),
            );
        }
        for (label, i, a) in entries {
            let e = &f.edges[i];
            let stmts = &blocks[i][a];
            let mut label = label;
            for (si, st) in stmts.iter().enumerate() {
                let l = if si == 0 { label.take() } else { None };
                w.put(annotation(prog, Some(e), st.part, e.pos), l, &st.text);
            }
            if !layout.falls_through(f, blocks, i) {
                w.put(
                    annotation(prog, Some(e), "goto", e.pos),
                    None,
                    &format!("goto L{};", e.to.0),
                );
            }
        }
    }

    /// The whole procedure: its `//@ c-function` annotation, signature, declarations (own
    /// predicates that are not parameters, then call temporaries) and `enforce`, then `body`.
    fn with_header(&self, enforce: Option<String>, body: &str) -> String {
        let prog = self.sh.prog;
        let f = self.f;
        let sig = &self.sh.sigs[f.id.0 as usize];
        let params: Vec<String> = sig.formals.iter().map(|&i| self.own[i].name()).collect();
        let ret = match sig.returns.len() {
            0 => "void".to_string(),
            1 => "bool".to_string(),
            k => format!("bool<{k}>"),
        };
        let mut locals: Vec<String> = self
            .own
            .iter()
            .enumerate()
            .filter(|(i, _)| !sig.formals.contains(i))
            .map(|(_, p)| p.name())
            .collect();
        locals.extend(self.temps.iter().cloned());
        let mut s = String::new();
        let _ = writeln!(
            s,
            "//@ c-function={} line={}",
            bp_grammar::print::annotation_value(&f.name),
            bp_grammar::print::annotation_value(&prog.show_pos(f.pos))
        );
        let _ = writeln!(s, "{ret} {}({}) begin", f.name, params.join(", "));
        if !locals.is_empty() {
            let _ = writeln!(s, "  decl {};", locals.join(", "));
        }
        if let Some(en) = enforce {
            let _ = writeln!(s, "  enforce {en};");
        }
        s.push_str(body);
        s.push_str("end\n");
        s
    }

    /// `enforce`: the negation of the inconsistent cubes of at most `--enforce-len` literals over
    /// the predicates in scope. Those of at most `max(2, --enforce-len)` literals are also kept
    /// (in `self.known`) to prune the cube searches.
    fn enforce(&mut self) -> Option<String> {
        let len = self.sh.opts.enforce_len;
        if self.havoc_all() {
            return None;
        }
        let g = self.sh.globals.vars.len();
        let local: BTreeSet<usize> = (g..self.body.vars.len()).collect();
        let mut cubes: Vec<Cube> = self.sh.global_enforce.to_vec();
        if !local.is_empty() {
            cubes.extend(self.local_cubes(&local, len.max(2)));
        }
        self.known = cubes.iter().map(|c| self.body.cube_key(c)).collect();
        self.known_keys = self.known.iter().map(|c| format!("|{c:?}")).collect();
        self.known_by_text.clear();
        for (n, c) in self.known.iter().enumerate() {
            for (text, _) in c {
                let at = self.known_by_text.entry(text.clone()).or_default();
                if at.last() != Some(&n) {
                    at.push(n);
                }
            }
        }
        // A cube mixing a global and a local predicate is left out of `enforce` (it still
        // prunes the searches): `enforce` also holds right after a call returns, when the
        // callee has updated the global predicates but this procedure's local ones (which may
        // read the same globals) wait for the `effects` statement — the clause would cut real
        // runs there (found by slam-run's end-to-end fuzzing: `g == 0` global, `g < 1` local).
        let mixed = |c: &Cube| c.iter().any(|l| l.0 < g) && c.iter().any(|l| l.0 >= g);
        self.mixed = cubes
            .iter()
            .filter(|c| c.len() <= len && mixed(c))
            .cloned()
            .collect();
        let mut parts: Vec<String> = cubes
            .iter()
            .filter(|c| c.len() <= len && !mixed(c))
            .map(|c| format!("!{}", self.body.cube_text(c)))
            .collect();
        match parts.len() {
            0 => None,
            1 => parts.pop(),
            // In the printer's form (a flat chain in one pair of parentheses), so that c2bp's
            // text is already canonical and needs no second parse.
            _ => Some(crate::cubes::chain_text(parts, "&")),
        }
    }

    /// The inconsistent cubes of at most `max_len` literals with a literal over `local` (the
    /// local predicates), not covered by the global ones. Incremental
    /// ([`crate::cubes::inconsistent_cubes_since`]) when the global predicates are those of the
    /// previous abstraction and its local ones are all still there.
    fn local_cubes(&mut self, local: &BTreeSet<usize>, max_len: usize) -> Vec<Cube> {
        let g = self.sh.globals.vars.len();
        let text = |v: &crate::cubes::PredVar| v.text.clone();
        let globals: Vec<String> = self.body.vars[..g].iter().map(text).collect();
        let locals: Vec<String> = self.body.vars[g..].iter().map(text).collect();
        let earlier = self
            .sh
            .local_enforce
            .get(&self.f.name)
            .filter(|e| e.globals == globals)
            .filter(|e| e.locals.iter().all(|t| self.body.find(t).is_some()))
            .and_then(|e| {
                let known = e
                    .cubes
                    .iter()
                    .map(|c| self.body.cube_of_key(c))
                    .collect::<Option<Vec<Cube>>>()?;
                let fresh = local
                    .iter()
                    .copied()
                    .filter(|&i| !e.locals.contains(&locals[i - g]))
                    .collect();
                Some((known, fresh))
            });
        let (en, cx, body) = (&self.en, &mut *self.cx, &self.body);
        let (cubes, capped) = crate::cubes::inconsistent_cubes_since(
            earlier,
            Some(local),
            self.sh.global_enforce,
            |must, known| en.inconsistent_cubes(cx, body, must, max_len, known),
        );
        // Incomplete cubes are no base for an incremental search.
        if capped {
            self.search.capped += 1;
            self.local_cubes = None;
        } else {
            self.local_cubes = Some(LocalCubes {
                globals,
                locals,
                cubes: cubes.iter().map(|c| self.body.cube_key(c)).collect(),
            });
        }
        cubes
    }

    /// The initial values of the global predicates, at the start of `main` (C's static storage:
    /// globals are zero unless initialised).
    fn global_init(&mut self) -> Option<String> {
        let prog = self.sh.prog;
        let globals = self.sh.globals;
        if globals.vars.is_empty() {
            return None;
        }
        let empty = VarSet::default();
        let mut targets = Vec::new();
        for v in &globals.vars {
            let mut w = Some(v.expr.clone());
            for init in prog.global_inits.iter().rev() {
                w = w.and_then(|w| match &init.value {
                    Some(val) => wp_assign(&init.lhs, val, &w, self.sh.pts),
                    None => (!reads_alias(&w, &init.lhs, self.sh.pts)).then_some(w),
                });
            }
            let w = w.map(|w| zero_globals(prog, &w));
            let text = self.choose(&empty, w.as_ref());
            targets.push((v.name.clone(), text));
        }
        Self::assignment(&targets)
    }

    fn stmt(part: &'static str, text: Option<String>) -> St {
        St {
            part,
            text: text.unwrap_or_else(|| "skip;".into()),
        }
    }

    /// The translation of edge `i` (`e`): the previous abstraction's statements when the
    /// edge's key ([`FnCx::edge_key`]) is unchanged, else [`FnCx::edge`]'s, kept with the key
    /// for the next abstraction unless one of its searches stopped at its budget or met an
    /// `unknown` (answers a fresh translation need not reproduce).
    fn edge_reusing(&mut self, i: usize, e: &Edge) -> Vec<Vec<St>> {
        let key = self.edge_key(e);
        let earlier = self.sh.stmts.get(&self.f.id).and_then(|v| v.get(i));
        if let Some(Some((k, t))) = earlier
            && *k == key
        {
            self.stats.updates += t.updates;
            self.stats.star_updates += t.star_updates;
            self.stats.exact_capped += t.exact_capped;
            self.stats.cubes += t.cubes;
            self.temps.extend(t.temps.iter().cloned());
            self.stats.stmts.reused += 1;
            let alts = t
                .blocks
                .iter()
                .map(|alt| {
                    alt.iter()
                        .map(|(part, text)| St {
                            part,
                            text: text.clone(),
                        })
                        .collect()
                })
                .collect();
            self.slots.push(Some((key, t.clone())));
            return alts;
        }
        let (updates, stars, exact_capped, cubes, temps) = (
            self.stats.updates,
            self.stats.star_updates,
            self.stats.exact_capped,
            self.stats.cubes,
            self.temps.len(),
        );
        let (capped, unknowns) = (self.search.capped, self.cx.unknowns());
        let alts = self.edge(e);
        self.stats.stmts.translated += 1;
        let kept = self.search.capped == capped && self.cx.unknowns() == unknowns;
        if !kept {
            self.stats.stmts.not_kept += 1;
        }
        let text = kept.then(|| {
            std::sync::Arc::new(EdgeText {
                blocks: alts
                    .iter()
                    .map(|alt| alt.iter().map(|s| (s.part, s.text.clone())).collect())
                    .collect(),
                updates: self.stats.updates - updates,
                star_updates: self.stats.star_updates - stars,
                exact_capped: self.stats.exact_capped - exact_capped,
                cubes: self.stats.cubes - cubes,
                temps: self.temps[temps..].to_vec(),
            })
        });
        self.slots.push(text.map(|t| (key, t)));
        alts
    }

    /// What an assignment to `lhs` does to the variables of the procedure ([`Written`]).
    fn written(&mut self, lhs: &Expr) -> std::rc::Rc<Written> {
        let pts = self.sh.pts;
        if let Some(w) = self.writes.get(lhs) {
            return w.clone();
        }
        let mut compares = compares_own_address(lhs, pts);
        let reads = self
            .body
            .vars
            .iter()
            .map(|v| {
                let a = aliasing(&v.expr, lhs, pts);
                compares |= a.elsewhere;
                a.reads
            })
            .collect();
        let w = std::rc::Rc::new(Written { reads, compares });
        self.writes.insert(lhs.clone(), w.clone());
        w
    }

    /// What the translation of edge `e` reads ([`crate::reuse`]): its vocabulary — the
    /// variables in its scope connected to the locations it reads or writes and to the
    /// predicates it may change (those reading a location it may write, or a call's result
    /// variable), with the return temporaries of a call — by name and meaning in scope order,
    /// the inconsistent cubes over it (pruning, mixed ones excluded after an update), the own
    /// return predicates for a `return`, and for a call the predicates and signature of every
    /// function it may enter.
    fn edge_key(&mut self, e: &Edge) -> String {
        let (prog, pts) = (self.sh.prog, self.sh.pts);
        let mut extra = VarSet::default();
        for (name, x) in self.scope_temps(e) {
            extra.push(prog, pts, name, &x);
        }
        let mut locs = Relevance::default();
        // Whether the weakest preconditions may compare addresses ([`crate::reuse`]).
        let mut promote = false;
        let mut k = String::new();
        let mut mods: Vec<ModSet> = Vec::new();
        let mut writes: Option<&Expr> = None;
        let mut result: Option<VarId> = None;
        match &e.kind {
            EdgeKind::Assign { lhs, rhs } => {
                locs.extend(&Relevance::of(lhs, pts));
                locs.extend(&Relevance::of(rhs, pts));
                writes = Some(lhs);
            }
            EdgeKind::Havoc { lhs, .. } => writes = Some(lhs),
            EdgeKind::Assume(c) => locs.extend(&Relevance::of(c, pts)),
            EdgeKind::Return(val) => {
                promote = true;
                if let Some(v) = val {
                    locs.extend(&Relevance::of(v, pts));
                }
                for p in self.own.iter().filter(|p| p.is_return_predicate()) {
                    locs.extend(&Relevance::of(&p.expr, pts));
                    let _ = write!(k, "{}={};", p.name(), p.text);
                }
            }
            EdgeKind::Error { .. } | EdgeKind::Halt { .. } | EdgeKind::Skip => return k,
            EdgeKind::Call { ret, callee, args } => {
                for a in args {
                    locs.extend(&Relevance::of(a, pts));
                }
                result = *ret;
                promote = true;
                let (targets, external) = call_targets(prog, pts, callee);
                for &g in &targets {
                    mods.push(self.sh.mods[g.0 as usize].clone());
                    let gf = &prog.functions[g.0 as usize];
                    let _ = write!(k, "|{}:", gf.name);
                    let gown = own_preds(self.sh.preds, gf);
                    for p in gown {
                        k.push_str(&p.text);
                        k.push(';');
                    }
                    let sig = &self.sh.sigs[g.0 as usize];
                    let _ = write!(k, "{sig:?}");
                    if gf.name == "main" {
                        continue;
                    }
                    for &i in &sig.formals {
                        let w = caller_reading(prog, gf, None, args, &gown[i].expr);
                        locs.extend(&Relevance::of(&w, pts));
                    }
                    for (name, x) in self.returns_of(e, g, *ret, args).1 {
                        extra.push(prog, pts, name, &x);
                    }
                }
                if external || targets.is_empty() {
                    mods.push(match callee {
                        Callee::Nondet(_) => ModSet::default(),
                        _ => external_mod(pts, args),
                    });
                }
            }
        }
        let written = writes.map(|lhs| self.written(lhs));
        let vars: Vec<&PredVar> = self.body.vars.iter().chain(&extra.vars).collect();
        let seeds: Vec<bool> = vars
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let written_to = match (&written, writes) {
                    (Some(w), _) if i < w.reads.len() => w.reads[i],
                    (_, Some(lhs)) => reads_alias(&v.expr, lhs, pts),
                    _ => false,
                };
                written_to
                    || result.is_some_and(|r| mentions_var(&v.expr, r))
                    || mods.iter().any(|m| reads_any(pts, &v.expr, m))
            })
            .collect();
        if let (EdgeKind::Assign { .. }, Some(lhs), Some(w)) = (&e.kind, writes, &written) {
            promote = w.compares
                || extra
                    .vars
                    .iter()
                    .any(|v| aliasing(&v.expr, lhs, pts).elsewhere);
        }
        if promote {
            for (v, _) in vars.iter().zip(&seeds).filter(|(_, s)| **s) {
                locs.extend(&v.locs);
            }
            locs.promote();
        }
        let voc = vocabulary(self.body.graph(), &vars, &locs, |i| seeds[i], pts);
        let mut inside = vec![false; vars.len()];
        // A cube with any literal in the vocabulary: the statement's searches and the cubes it
        // excludes read no other (a larger key only costs reuse). In `known`'s order.
        let mut known: Vec<usize> = Vec::new();
        k.push('|');
        for &i in &voc {
            inside[i] = true;
            let _ = write!(k, "{}={};", vars[i].name, vars[i].text);
            if let Some(cubes) = self.known_by_text.get(&vars[i].text) {
                known.extend(cubes);
            }
        }
        known.sort_unstable();
        known.dedup();
        for c in known {
            k.push_str(&self.known_keys[c]);
        }
        for c in &self.mixed {
            if c.iter().any(|l| inside[l.0]) {
                let _ = write!(k, "|{c:?}");
            }
        }
        k
    }

    /// The translation of one edge: alternatives (more than one only for a call through a
    /// pointer with several possible callees), each a list of statements.
    fn edge(&mut self, e: &Edge) -> Vec<Vec<St>> {
        let vs = self.scope_for(e);
        match &e.kind {
            EdgeKind::Assign { lhs, rhs } => {
                let mut updates = Vec::new();
                let mut assigned = BTreeSet::new();
                let zeroed = zeroed_allocation(self.f, e, rhs);
                for i in 0..self.body.vars.len() {
                    let phi = self.body.vars[i].expr.clone();
                    let w = wp_assign(lhs, rhs, &phi, self.sh.pts);
                    if w.as_ref() == Some(&phi) {
                        continue;
                    }
                    let w = match (w, &zeroed) {
                        (Some(w), Some((tmp, t))) => Some(zero_contents(self.sh.prog, &w, *tmp, t)),
                        (w, _) => w,
                    };
                    let w = w.map(cir::pred::normalize);
                    updates.push((self.body.vars[i].name.clone(), w));
                    assigned.insert(i);
                }
                let mut st = vec![Self::stmt("assign", self.update(&vs, &updates))];
                st.extend(self.excluding(&assigned));
                vec![st]
            }
            EdgeKind::Havoc { lhs, .. } => {
                let mut targets = Vec::new();
                let mut assigned = BTreeSet::new();
                for i in 0..self.body.vars.len() {
                    if reads_alias(&self.body.vars[i].expr, lhs, self.sh.pts) {
                        let t = self.choose(&vs, None);
                        targets.push((self.body.vars[i].name.clone(), t));
                        assigned.insert(i);
                    }
                }
                let mut st = vec![Self::stmt("havoc", Self::assignment(&targets))];
                st.extend(self.excluding(&assigned));
                vec![st]
            }
            EdgeKind::Assume(c) => {
                let g = self.condition(&vs, c);
                vec![vec![St {
                    part: "cond",
                    text: format!("assume {g};"),
                }]]
            }
            EdgeKind::Return(val) => {
                let ret_ty = self.f.ty.ret.clone();
                let updates: Vec<(String, Option<Expr>)> = self
                    .own
                    .iter()
                    .filter(|p| p.is_return_predicate())
                    .map(|p| {
                        let w = val
                            .as_ref()
                            .map(|v| subst_result(&p.expr, &convert(v, &ret_ty)));
                        (p.name(), w)
                    })
                    .collect();
                vec![vec![Self::stmt("return", self.update(&vs, &updates))]]
            }
            EdgeKind::Error { .. } => vec![vec![St {
                part: "error",
                text: "assert F;".into(),
            }]],
            EdgeKind::Halt { .. } => vec![vec![St {
                part: "halt",
                text: "assume F;".into(),
            }]],
            EdgeKind::Skip => vec![vec![Self::stmt("skip", None)]],
            EdgeKind::Call { ret, callee, args } => self.call(e, &vs, *ret, callee, args),
        }
    }

    /// A call summarised by what it may write: the predicates of the body a call makes `*`
    /// (those over the result variable or over memory in `m`), then the `assume` excluding
    /// the mixed inconsistent cubes over them, as after an assignment (a read of a
    /// nondeterministic value sets `n == -3` and `n + 1 + g >= 2` each on its own, next to a
    /// global `g >= 4` the path knows).
    fn havoc_call(&mut self, vs: &VarSet, ret: Option<VarId>, m: &ModSet) -> Vec<St> {
        let mut targets = Vec::new();
        let mut assigned = BTreeSet::new();
        for i in 0..self.body.vars.len() {
            let x = &vs.vars[i].expr;
            if ret.is_some_and(|r| mentions_var(x, r)) || reads_any(self.sh.pts, x, m) {
                let t = self.choose(vs, None);
                targets.push((vs.vars[i].name.clone(), t));
                assigned.insert(i);
            }
        }
        let mut st = vec![Self::stmt("effects", Self::assignment(&targets))];
        st.extend(self.excluding(&assigned));
        st
    }

    fn call(
        &mut self,
        e: &Edge,
        vs: &VarSet,
        ret: Option<VarId>,
        callee: &Callee,
        args: &[Expr],
    ) -> Vec<Vec<St>> {
        let prog = self.sh.prog;
        let (targets, external) = call_targets(prog, self.sh.pts, callee);
        let mut alts = Vec::new();
        for g in targets {
            if prog.functions[g.0 as usize].name == "main" {
                // `main` re-entered: its Boolean procedure (re)initialises the global
                // predicates, so the call is summarised by its mod set instead.
                let m = self.sh.mods[g.0 as usize].clone();
                alts.push(self.havoc_call(vs, ret, &m));
            } else {
                alts.push(self.defined_call(e, vs, g, ret, args));
            }
        }
        if external || alts.is_empty() {
            let m = match callee {
                Callee::Nondet(_) => ModSet::default(),
                _ => external_mod(self.sh.pts, args),
            };
            alts.push(self.havoc_call(vs, ret, &m));
        }
        alts
    }

    fn defined_call(
        &mut self,
        e: &Edge,
        vs: &VarSet,
        g: FuncId,
        ret: Option<VarId>,
        args: &[Expr],
    ) -> Vec<St> {
        let prog = self.sh.prog;
        let gf = &prog.functions[g.0 as usize];
        let gown = own_preds(self.sh.preds, gf);
        let sig = &self.sh.sigs[g.0 as usize];
        let mut out = Vec::new();
        // 1. actuals
        let mut actuals = Vec::new();
        for &i in &sig.formals {
            let p = &gown[i];
            let name = CallTemp {
                ret: false,
                edge: prog.edge_name(e.id),
                callee: gf.name.clone(),
                text: p.text.clone(),
            }
            .name();
            let bound = gf
                .formals
                .iter()
                .enumerate()
                .all(|(k, v)| !mentions_var(&p.expr, *v) || k < args.len());
            let w = bound.then(|| caller_reading(prog, gf, None, args, &p.expr));
            self.temps.push(name.clone());
            actuals.push((name, w));
        }
        if let Some(a) = self.update(vs, &actuals) {
            out.push(St {
                part: "actuals",
                text: a,
            });
        }
        // 2. the call
        let (targets, kept) = self.returns_of(e, g, ret, args);
        for (name, _) in &kept {
            self.temps.push(name.clone());
        }
        let call_args: Vec<&str> = actuals.iter().map(|a| a.0.as_str()).collect();
        let call = format!("{}({});", gf.name, call_args.join(", "));
        out.push(St {
            part: "call",
            text: if targets.is_empty() {
                call
            } else {
                format!("{} := {call}", targets.join(", "))
            },
        });
        // 3. effects on the caller's predicates
        let m = &self.sh.mods[g.0 as usize];
        let g_count = self.sh.globals.vars.len();
        let mut changed = Vec::new();
        let mut after = self.sh.globals.clone();
        for i in g_count..self.body.vars.len() {
            let x = &self.body.vars[i].expr;
            if ret.is_some_and(|r| mentions_var(x, r)) || reads_any(self.sh.pts, x, m) {
                changed.push(i);
            } else {
                let v = &self.body.vars[i];
                after.push(prog, self.sh.pts, v.name.clone(), &v.expr);
            }
        }
        for (name, x) in kept {
            after.push(prog, self.sh.pts, name, &x);
        }
        let mut effects = Vec::new();
        // The predicates the call may change: global ones over what it modifies, and the
        // caller's it updates.
        let mut assigned: BTreeSet<usize> = (0..g_count)
            .filter(|&i| reads_any(self.sh.pts, &self.body.vars[i].expr, m))
            .collect();
        for i in changed {
            let x = self.body.vars[i].expr.clone();
            effects.push((self.body.vars[i].name.clone(), Some(x)));
            assigned.insert(i);
        }
        if let Some(a) = self.update(&after, &effects) {
            out.push(St {
                part: "effects",
                text: a,
            });
        }
        out.extend(self.excluding(&assigned));
        out
    }
}

/// `e` with every read of global storage that no initialiser touched replaced by zero (C11
/// 6.7.9: objects with static storage duration are zero-initialised): scalar global variables,
/// and scalar fields and elements of global aggregates.
fn zero_globals(prog: &Program, e: &Expr) -> Expr {
    fn root_global(prog: &Program, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Var(v) => prog.var(*v).is_global(),
            ExprKind::Field(b, _) => root_global(prog, b),
            ExprKind::Index(a, _) if matches!(a.ty, CType::Array(..)) => root_global(prog, a),
            _ => false,
        }
    }
    fn go(prog: &Program, e: &Expr) -> Expr {
        if e.ty.is_scalar() && root_global(prog, e) {
            return Expr::int(0, e.ty.clone());
        }
        if let ExprKind::AddrOf(_) = e.kind {
            return e.clone();
        }
        match &e.kind {
            ExprKind::Const(_) | ExprKind::Var(_) | ExprKind::Func(_) | ExprKind::Str(_) => {
                e.clone()
            }
            _ => {
                // Rebuild with zeroed children (one level at a time, top-down).
                let children: Vec<Expr> = e.children().into_iter().map(|c| go(prog, c)).collect();
                let mut it = children.into_iter();
                let mut next = || Box::new(it.next().expect("same arity"));
                let kind = match &e.kind {
                    ExprKind::Unary(op, _) => ExprKind::Unary(*op, next()),
                    ExprKind::Binary(op, _, _) => ExprKind::Binary(*op, next(), next()),
                    ExprKind::Cast(_) => ExprKind::Cast(next()),
                    ExprKind::Deref(_) => ExprKind::Deref(next()),
                    ExprKind::Field(_, f) => ExprKind::Field(next(), f.clone()),
                    ExprKind::Index(_, _) => ExprKind::Index(next(), next()),
                    ExprKind::Cond(_, _, _) => ExprKind::Cond(next(), next(), next()),
                    k => k.clone(),
                };
                Expr {
                    kind,
                    ty: e.ty.clone(),
                }
            }
        }
    }
    go(prog, e)
}

/// What an assignment to one lvalue does to the variables of a procedure (its own and the
/// global ones, [`FnCx::written`]).
struct Written {
    /// Per variable, whether it reads a location the assignment may write.
    reads: Vec<bool>,
    /// Whether the weakest preconditions may compare addresses over one of the variables:
    /// [`compares_own_address`], or [`cir::wp::Aliasing::elsewhere`] for one of them.
    compares: bool,
}
