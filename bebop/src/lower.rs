//! Lowering: the AST of a checked program becomes an interprocedural control-flow graph whose
//! edges carry BDD transfer relations (Ball & Rajamani, "Bebop: A Symbolic Model Checker for
//! Boolean Programs", SPIN 2000, §3).
//!
//! Each procedure gets one node per statement (pre-order, so a node's [`StmtId`] is its index
//! in [`bp_grammar::Procedure::stmts_preorder`]), an `End` node (falling off `end`) and an
//! `Exit` node (where every `return` goes; its path edges are the procedure's summary).
//! Normalisation: `if`/`elsif`/`else` becomes guarded edges from the `if` node (each condition
//! evaluated with its own fresh `*`s, in order), `while` a guarded edge into the body and one
//! past the loop, a multi-target `goto` one edge per target, `assert e` an edge guarded by `e`
//! (the error is checked on the node itself: [`TargetInfo`]), `dead x̄` a havoc.
//!
//! A transfer relation only mentions the variables the statement modifies (in version
//! [`Ver::Next`]) and the ones it reads ([`Ver::Cur`]); every other variable keeps its value
//! implicitly (the engine quantifies and renames only the modified ones). Each `*` and each
//! `schoose` is a fresh temporary, quantified away when the relation is built. `enforce` of a
//! procedure is conjoined to the post-state of every step that changes the state, to the
//! callee's entry and to the caller's state after a call returns.

use crate::apply;
use crate::ids::{EdgeId, NodeId, ProcId};
use crate::relation::Relation;
use crate::vars::{Slot, VarMap, Ver};
use crate::{BebopError, Property};
use biodivine_lib_bdd::{Bdd, BddVariable};
use bp_grammar::{BinOp, Expr, Lhs, Procedure, Program, Stmt, StmtId, StmtKind};
use std::collections::HashMap;

/// The label that marks the error under the default property.
pub const SLIC_ERROR: &str = "SLIC_ERROR";

/// A whole program ready for the engine.
pub struct Model<'p> {
    /// The program.
    pub prog: &'p Program,
    /// The BDD variable layout.
    pub vars: VarMap,
    /// Procedures, in program order (indexed by [`ProcId`]).
    pub procs: Vec<ProcInfo<'p>>,
    /// CFG nodes (indexed by [`NodeId`]).
    pub nodes: Vec<Node<'p>>,
    /// CFG edges (indexed by [`EdgeId`]).
    pub edges: Vec<Edge>,
    /// `main`.
    pub main: ProcId,
    /// Global variable names, in slot order.
    pub global_names: Vec<String>,
}

/// One conjunct of a procedure's `enforce` and the variables it reads.
pub struct CarePart {
    bdd: Bdd,
    support: Vec<BddVariable>,
}

/// A procedure after lowering.
pub struct ProcInfo<'p> {
    /// The AST.
    pub ast: &'p Procedure,
    /// Its name.
    pub name: String,
    /// Number of parameters (frame slots `0..n_params`).
    pub n_params: u32,
    /// Parameters, then locals ([`crate::order::frame_layout`]): frame slot i holds
    /// `frame_names[i]`.
    pub frame_names: Vec<String>,
    /// Frame variables by name.
    pub frame_index: HashMap<String, u32>,
    /// The node of the first statement (the `End` node for an empty body).
    pub entry: NodeId,
    /// The fall-off node.
    pub end: NodeId,
    /// The exit node.
    pub exit: NodeId,
    /// Call edges whose callee is this procedure.
    pub call_sites: Vec<EdgeId>,
    /// Whether path edges record entry values (only procedures that are called need them).
    pub tracks_entry: bool,
    /// The `enforce` clause over [`Ver::Cur`] (true when absent).
    pub enforce: Bdd,
    /// Whether there is a non-trivial `enforce`.
    pub has_enforce: bool,
    /// The conjuncts of `enforce` (over [`Ver::Cur`]), each with its variables: the care set
    /// that expressions of the procedure are compiled under (see `ExprCx::compile`).
    pub care: Vec<CarePart>,
    /// Line and column of the `end` keyword (for implicit returns).
    pub end_pos: (u32, u32),
    /// The node of each statement, by [`StmtId`].
    pub stmt_nodes: Vec<NodeId>,
}

/// What a node stands for.
#[derive(Clone, Copy)]
pub enum NodeKind<'p> {
    /// A statement.
    Stmt(StmtId, &'p Stmt),
    /// Falling off `end`.
    End,
    /// The procedure's exit (after the return values are set).
    Exit,
}

/// What is reached when a target node is reached in a bad state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetWhat {
    /// An assert whose condition is false.
    Assert,
    /// A statement with this label.
    Label(String),
}

/// The error condition of a node.
pub struct TargetInfo {
    /// The states (over [`Ver::Cur`]) in which reaching the node is an error.
    pub bad: Bdd,
    /// Which kind of error.
    pub what: TargetWhat,
}

/// A CFG node.
pub struct Node<'p> {
    /// Its procedure.
    pub proc: ProcId,
    /// What it is.
    pub kind: NodeKind<'p>,
    /// Outgoing edges.
    pub out: Vec<EdgeId>,
    /// Incoming edges.
    pub inc: Vec<EdgeId>,
    /// Whether reaching it can be the error.
    pub target: Option<TargetInfo>,
}

/// A CFG edge.
pub struct Edge {
    /// Source node.
    pub from: NodeId,
    /// Target node.
    pub to: NodeId,
    /// For branching statements: which way (the trace's `taken`).
    pub taken: Option<u32>,
    /// What happens.
    pub kind: EdgeKind,
}

/// The kinds of edge.
pub enum EdgeKind {
    /// An intraprocedural step.
    Transfer(Transfer),
    /// A call: from the call node to its return point (the next statement).
    Call(CallEdge),
    /// A `return` (or falling off `end`) into the exit node: the relation between the callee's
    /// current state and the return slots ([`Slot::Ret`] at [`Ver::Cur`]); `None` when the
    /// values are arbitrary (falling off `end`).
    Return(Option<Bdd>),
}

/// An intraprocedural transfer relation.
pub struct Transfer {
    /// The variables the step may change.
    pub modified: Vec<Slot>,
    /// The relation over the pre-state ([`Ver::Cur`]) and the new values of `modified`
    /// ([`Ver::Next`]); a guard when nothing is modified.
    pub rel: Relation,
    /// Whether the procedure's `enforce` must hold afterwards.
    pub enforce: bool,
}

/// A call edge.
pub struct CallEdge {
    /// The callee.
    pub callee: ProcId,
    /// The actual parameters: caller state ([`Ver::Cur`]) to callee parameters
    /// ([`Ver::Next`] of frame slots `0..n`).
    pub arg_rel: Relation,
    /// Where each returned value goes (`None`: discarded); empty for a call statement.
    pub targets: Vec<Option<Slot>>,
}

impl<'p> Model<'p> {
    /// The procedure.
    pub fn proc(&self, p: ProcId) -> &ProcInfo<'p> {
        &self.procs[p.ix()]
    }

    /// The node.
    pub fn node(&self, n: NodeId) -> &Node<'p> {
        &self.nodes[n.ix()]
    }

    /// The edge.
    pub fn edge(&self, e: EdgeId) -> &Edge {
        &self.edges[e.ix()]
    }

    /// Frame slots of a procedure.
    pub fn frame_slots(&self, p: ProcId) -> Vec<Slot> {
        (0..self.proc(p).frame_names.len() as u32)
            .map(Slot::Frame)
            .collect()
    }

    /// Parameter slots of a procedure.
    pub fn param_slots(&self, p: ProcId) -> Vec<Slot> {
        (0..self.proc(p).n_params).map(Slot::Frame).collect()
    }

    /// Every variable in scope of a procedure: globals then frame.
    pub fn scope_slots(&self, p: ProcId) -> Vec<Slot> {
        let mut v = self.vars.globals();
        v.extend(self.frame_slots(p));
        v
    }

    /// The variables that define a calling context: globals then parameters.
    pub fn ctx_slots(&self, p: ProcId) -> Vec<Slot> {
        let mut v = self.vars.globals();
        v.extend(self.param_slots(p));
        v
    }

    /// The name of a scope slot in procedure `p`.
    pub fn slot_name(&self, p: ProcId, s: Slot) -> String {
        match s {
            Slot::Global(i) => self.global_names[i as usize].clone(),
            Slot::Frame(i) => self.proc(p).frame_names[i as usize].clone(),
            Slot::Ret(i) => format!("<ret{i}>"),
        }
    }

    /// The statement of a node, if any.
    pub fn stmt_of(&self, n: NodeId) -> Option<(StmtId, &'p Stmt)> {
        match self.node(n).kind {
            NodeKind::Stmt(id, s) => Some((id, s)),
            _ => None,
        }
    }

    /// Number of statements in the program.
    pub fn n_stmts(&self) -> usize {
        self.procs.iter().map(|p| p.stmt_nodes.len()).sum()
    }
}

/// Number of fresh temporaries an expression needs.
fn nondet_count(e: &Expr) -> u32 {
    match e {
        Expr::Const(..) | Expr::Var(_) | Expr::Primed(_) => 0,
        Expr::Nondet(_) => 1,
        Expr::Not(a, _) => nondet_count(a),
        Expr::Binary(_, a, b, _) => nondet_count(a) + nondet_count(b),
        Expr::Schoose(a, b, _) => 1 + nondet_count(a) + nondet_count(b),
    }
}

/// Temporaries needed by one statement (all its expressions together).
fn stmt_nondets(s: &Stmt) -> u32 {
    let sum = |es: &[Expr]| es.iter().map(nondet_count).sum::<u32>();
    match &s.kind {
        StmtKind::Skip | StmtKind::Goto(_) | StmtKind::Dead(_) | StmtKind::Print(_) => 0,
        StmtKind::Return(es) => sum(es),
        StmtKind::Assign { rhs, constrain, .. } => {
            sum(rhs) + constrain.as_ref().map(nondet_count).unwrap_or(0)
        }
        StmtKind::Call { args, .. } => sum(args),
        StmtKind::If { arms, .. } => arms
            .iter()
            .map(|a| nondet_count(&a.cond))
            .max()
            .unwrap_or(0),
        StmtKind::While { cond, .. } | StmtKind::Assert(cond) | StmtKind::Assume(cond) => {
            nondet_count(cond)
        }
    }
}

/// Compiles expressions of one procedure to BDDs.
struct ExprCx<'a> {
    vars: &'a VarMap,
    globals: &'a HashMap<String, u32>,
    frame: &'a HashMap<String, u32>,
    /// Primed occurrences of these slots read [`Ver::Next`]; other primed ones read the current
    /// value (an unassigned variable keeps its value).
    assigned: &'a [Slot],
    /// The next free temporary.
    next_temp: u32,
    /// The conjuncts of the procedure's `enforce`: every state a statement of the procedure
    /// starts from satisfies them (see [`ExprCx::compile`]).
    care: &'a [CarePart],
}

/// A compiled sub-expression larger than this many BDD nodes is conjoined with the care set.
const RESTRICT_ABOVE: usize = 1024;

impl ExprCx<'_> {
    fn slot(&self, name: &str) -> Result<Slot, BebopError> {
        if let Some(i) = self.frame.get(name) {
            Ok(Slot::Frame(*i))
        } else if let Some(i) = self.globals.get(name) {
            Ok(Slot::Global(*i))
        } else {
            Err(BebopError::Internal(format!(
                "undeclared variable `{name}` (the program must pass the checker)"
            )))
        }
    }

    fn fresh(&mut self) -> Result<Bdd, BebopError> {
        let j = self.next_temp;
        if j >= self.vars.n_temps() {
            return Err(BebopError::Internal("ran out of temporaries".into()));
        }
        self.next_temp += 1;
        Ok(self.vars.temp_lit(j))
    }

    /// A BDD that agrees with `e` on the care set (the procedure's `enforce`): the states a
    /// statement is ever evaluated in, since the engine assumes `enforce` on entry and after
    /// every step (Ball & Rajamani, "Bebop: A Symbolic Model Checker for Boolean Programs",
    /// for the semantics; C2BP's `enforce` holds its inconsistent cubes). Outside the care set
    /// the result is left open: a large intermediate result is conjoined with the conjuncts
    /// of `enforce` over its own variables, so no variable joins its support and the
    /// relation's early quantification is unchanged. That matters for c2bp's output: an
    /// update of one state variable's predicates from another's (`{s == c} := {t == c}` for
    /// every state `c`, or a `schoose` over their pairs) is exponential in the order when the
    /// two groups lie apart, but linear among the states where each group has at most one
    /// true predicate.
    fn compile(&mut self, e: &Expr) -> Result<Bdd, BebopError> {
        let b = self.compile_node(e)?;
        if self.care.is_empty() || b.size() <= RESTRICT_ABOVE {
            return Ok(b);
        }
        let support = apply::support(&b);
        Ok(self
            .care
            .iter()
            .filter(|c| c.support.iter().all(|v| support.binary_search(v).is_ok()))
            .fold(b, |b, c| apply::and(&b, &c.bdd)))
    }

    fn compile_node(&mut self, e: &Expr) -> Result<Bdd, BebopError> {
        Ok(match e {
            Expr::Const(b, _) => self.vars.constant(*b),
            Expr::Var(id) => self.vars.lit(self.slot(&id.name)?, Ver::Cur, true),
            Expr::Primed(id) => {
                let s = self.slot(&id.name)?;
                let ver = if self.assigned.contains(&s) {
                    Ver::Next
                } else {
                    Ver::Cur
                };
                self.vars.lit(s, ver, true)
            }
            Expr::Nondet(_) => self.fresh()?,
            Expr::Not(a, _) => self.compile(a)?.not(),
            Expr::Binary(op, a, b, _) => {
                let a = self.compile(a)?;
                let b = self.compile(b)?;
                match op {
                    BinOp::And => apply::and(&a, &b),
                    BinOp::Or => apply::or(&a, &b),
                    BinOp::Xor | BinOp::Neq => apply::xor(&a, &b),
                    BinOp::Eq => apply::iff(&a, &b),
                    BinOp::Implies => apply::imp(&a, &b),
                }
            }
            Expr::Schoose(p, n, _) => {
                // T if p, else F if n, else arbitrary: p | (!n & t).
                let p = self.compile(p)?;
                let n = self.compile(n)?;
                let t = self.fresh()?;
                p.or(&n.not().and(&t))
            }
        })
    }

    /// Quantifies the temporaries used so far and resets the counter.
    fn close(&mut self, b: Bdd) -> Bdd {
        let used = self.next_temp;
        self.next_temp = 0;
        if used == 0 {
            b
        } else {
            apply::exists(&b, &self.vars.temps(used))
        }
    }

    /// The equations `targetᵢ ↔ eᵢ`, each with the `*`s of its `eᵢ` quantified away.
    ///
    /// Each `*` is a fresh value of its own occurrence, so `∃T. ∧ᵢ cᵢ(Tᵢ)` equals
    /// `∧ᵢ ∃Tᵢ. cᵢ(Tᵢ)`: the same relation, but built without the conjunction over the
    /// temporaries. That conjunction is exponential in the number of equations with a `*`,
    /// because the temporaries come after every program variable in the order and the BDD
    /// must remember, below the targets, which of them each temporary decides (c2bp's
    /// assignment to a state variable updates every predicate over it with a `schoose`).
    fn equations<'e>(
        &mut self,
        parts: impl IntoIterator<Item = (Bdd, &'e Expr)>,
    ) -> Result<Vec<Bdd>, BebopError> {
        let mut out = Vec::new();
        for (target, e) in parts {
            let val = self.compile(e)?;
            out.push(self.close(apply::iff(&target, &val)));
        }
        Ok(out)
    }

    /// `∃ *. e`: the states where `e` can evaluate to `value`.
    fn may_be(&mut self, e: &Expr, value: bool) -> Result<Bdd, BebopError> {
        let b = self.compile(e)?;
        let b = if value { b } else { b.not() };
        Ok(self.close(b))
    }
}

/// The operands of the top-level `&`s of `e`.
fn conjuncts(e: &Expr) -> Vec<&Expr> {
    let mut out = Vec::new();
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match e {
            Expr::Binary(BinOp::And, a, b, _) => {
                stack.push(b);
                stack.push(a);
            }
            _ => out.push(e),
        }
    }
    out
}

/// Byte offsets of the line starts of a text, to find line and column numbers quickly.
struct LineIndex<'s> {
    src: &'s str,
    starts: Vec<usize>,
}

impl<'s> LineIndex<'s> {
    fn new(src: &'s str) -> Self {
        let mut starts = vec![0];
        starts.extend(src.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { src, starts }
    }

    /// 1-based line and column (in characters) of a byte offset.
    fn line_col(&self, offset: usize) -> (u32, u32) {
        let line = self.starts.partition_point(|s| *s <= offset).max(1);
        let start = self.starts[line - 1];
        let col = self.src.get(start..offset).map_or(0, |t| t.chars().count());
        (line as u32, col as u32 + 1)
    }
}

/// Where the `end` keyword of a procedure is (falls back to the procedure's start).
fn end_position(proc: &Procedure, index: Option<&LineIndex>) -> (u32, u32) {
    if let Some(ix) = index {
        let end = proc.span.end;
        if end >= 3 && ix.src.get(end - 3..end) == Some("end") {
            return ix.line_col(end - 3);
        }
    }
    (proc.span.line, proc.span.col)
}

struct Builder<'p> {
    globals: HashMap<String, u32>,
    nodes: Vec<Node<'p>>,
    edges: Vec<Edge>,
}

impl Builder<'_> {
    fn add_edge(&mut self, from: NodeId, to: NodeId, taken: Option<u32>, kind: EdgeKind) -> EdgeId {
        let id = EdgeId(self.edges.len() as u32);
        self.edges.push(Edge {
            from,
            to,
            taken,
            kind,
        });
        self.nodes[from.ix()].out.push(id);
        self.nodes[to.ix()].inc.push(id);
        id
    }
}

/// Lowers a checked program.
pub fn lower<'p>(
    prog: &'p Program,
    property: &Property,
    source: Option<&str>,
) -> Result<Model<'p>, BebopError> {
    let global_names = global_names(prog);
    let globals: HashMap<String, u32> = global_names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.clone(), i as u32))
        .collect();
    let proc_ids: HashMap<&str, ProcId> = prog
        .procs
        .iter()
        .enumerate()
        .map(|(i, p)| (p.name.name.as_str(), ProcId(i as u32)))
        .collect();
    let main = *proc_ids.get("main").ok_or(BebopError::NoMain)?;
    let frames = crate::order::frame_layout(prog);
    let vars = layout(prog, global_names.len(), &frames.slot_order)?;
    let line_index = source.map(LineIndex::new);
    let called = called_procs(prog, &proc_ids)?;

    // Nodes.
    let mut b = Builder {
        globals,
        nodes: Vec::new(),
        edges: Vec::new(),
    };
    let mut procs: Vec<ProcInfo<'p>> = Vec::new();
    for ((pi, p), frame_names) in prog.procs.iter().enumerate().zip(frames.frames) {
        let info = b.proc_nodes(
            &vars,
            ProcId(pi as u32),
            p,
            frame_names,
            called[pi],
            line_index.as_ref(),
        )?;
        procs.push(info);
    }

    // Edges.
    for pi in 0..procs.len() {
        let mut lw = ProcLowerer {
            b: &mut b,
            vars: &vars,
            procs: &procs,
            proc_ids: &proc_ids,
            pid: ProcId(pi as u32),
            property,
            node_of: HashMap::new(),
            labels: HashMap::new(),
        };
        lw.run()?;
    }
    for (ei, e) in b.edges.iter().enumerate() {
        if let EdgeKind::Call(c) = &e.kind {
            procs[c.callee.ix()].call_sites.push(EdgeId(ei as u32));
        }
    }

    Ok(Model {
        prog,
        vars,
        procs,
        nodes: b.nodes,
        edges: b.edges,
        main,
        global_names,
    })
}

/// The globals in BDD order (see `order`): slot k holds the global declared `order[k]`-th.
fn global_names(prog: &Program) -> Vec<String> {
    let declared: Vec<String> = prog.global_vars().map(|g| g.name.clone()).collect();
    crate::order::global_order(prog)
        .into_iter()
        .map(|i| declared[i].clone())
        .collect()
}

/// The BDD variable layout of `prog`: its globals, the most return slots, frame slots and
/// temporaries (`*` in one statement) any procedure needs.
fn layout(prog: &Program, n_globals: usize, frame_order: &[u32]) -> Result<VarMap, BebopError> {
    // (The layout orders every frame slot any procedure needs.)
    let n_frame = frame_order.len();
    let n_ret = prog.procs.iter().map(|p| p.ret.arity()).max().unwrap_or(0);
    let mut n_temps = 0u32;
    for p in &prog.procs {
        if let Some(e) = &p.enforce {
            n_temps = n_temps.max(nondet_count(e));
        }
        for (_, s) in p.stmts_preorder() {
            n_temps = n_temps.max(stmt_nondets(s));
        }
    }
    VarMap::with_frame_order(
        n_globals as u32,
        n_ret as u32,
        n_frame as u32,
        n_temps,
        frame_order,
    )
}

/// Per procedure, whether some statement calls it (only those track their entry contexts).
fn called_procs(prog: &Program, proc_ids: &HashMap<&str, ProcId>) -> Result<Vec<bool>, BebopError> {
    let mut called = vec![false; prog.procs.len()];
    for p in &prog.procs {
        for (_, s) in p.stmts_preorder() {
            if let StmtKind::Call { callee, .. } = &s.kind {
                let q = proc_ids.get(callee.name.as_str()).ok_or_else(|| {
                    BebopError::Internal(format!("call of undeclared procedure `{}`", callee.name))
                })?;
                called[q.ix()] = true;
            }
        }
    }
    Ok(called)
}

impl<'p> Builder<'p> {
    /// The nodes of procedure `p` (one per statement, in pre-order, then `end` and the exit)
    /// and its description: frame layout, `enforce`, entry.
    fn proc_nodes(
        &mut self,
        vars: &VarMap,
        pid: ProcId,
        p: &'p Procedure,
        frame_names: Vec<String>,
        called: bool,
        line_index: Option<&LineIndex>,
    ) -> Result<ProcInfo<'p>, BebopError> {
        let frame_index: HashMap<String, u32> = frame_names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i as u32))
            .collect();
        let mut stmt_nodes = Vec::new();
        for (id, s) in p.stmts_preorder() {
            stmt_nodes.push(self.add_node(pid, NodeKind::Stmt(id, s)));
        }
        let end = self.add_node(pid, NodeKind::End);
        let exit = self.add_node(pid, NodeKind::Exit);
        let mut cx = ExprCx {
            vars,
            globals: &self.globals,
            frame: &frame_index,
            assigned: &[],
            next_temp: 0,
            care: &[],
        };
        let mut care = Vec::new();
        if let Some(e) = &p.enforce {
            for part in conjuncts(e) {
                let bdd = cx.may_be(part, true)?;
                if !bdd.is_true() {
                    let support = apply::support(&bdd);
                    care.push(CarePart { bdd, support });
                }
            }
        }
        // (`*`s in different conjuncts are different values, so this is `∃ *. e`.)
        let enforce = care
            .iter()
            .fold(vars.tt(), |acc, c| apply::and(&acc, &c.bdd));
        let has_enforce = !enforce.is_true();
        Ok(ProcInfo {
            ast: p,
            name: p.name.name.clone(),
            n_params: p.params.len() as u32,
            frame_names,
            frame_index,
            entry: stmt_nodes.first().copied().unwrap_or(end),
            end,
            exit,
            call_sites: Vec::new(),
            tracks_entry: called,
            enforce,
            has_enforce,
            care,
            end_pos: end_position(p, line_index),
            stmt_nodes,
        })
    }

    /// A new node of procedure `pid`, without edges.
    fn add_node(&mut self, pid: ProcId, kind: NodeKind<'p>) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node {
            proc: pid,
            kind,
            out: Vec::new(),
            inc: Vec::new(),
            target: None,
        });
        id
    }
}

struct ProcLowerer<'a, 'p> {
    b: &'a mut Builder<'p>,
    vars: &'a VarMap,
    procs: &'a [ProcInfo<'p>],
    proc_ids: &'a HashMap<&'p str, ProcId>,
    pid: ProcId,
    property: &'a Property,
    node_of: HashMap<*const Stmt, NodeId>,
    labels: HashMap<&'p str, NodeId>,
}

impl<'a, 'p> ProcLowerer<'a, 'p> {
    fn info(&self) -> &'a ProcInfo<'p> {
        &self.procs[self.pid.ix()]
    }

    fn cx(&self) -> ExprCx<'_> {
        let info = self.info();
        ExprCx {
            vars: self.vars,
            globals: &self.b.globals,
            frame: &info.frame_index,
            assigned: &[],
            next_temp: 0,
            care: &info.care,
        }
    }

    fn run(&mut self) -> Result<(), BebopError> {
        let info = self.info();
        let ast: &'p Procedure = info.ast;
        for ((_, s), n) in ast.stmts_preorder().into_iter().zip(info.stmt_nodes.iter()) {
            self.node_of.insert(s as *const Stmt, *n);
            for l in &s.labels {
                self.labels.entry(l.name.as_str()).or_insert(*n);
            }
        }
        let (end, exit, tracks) = (info.end, info.exit, info.tracks_entry);
        self.block(&ast.body, end)?;
        if tracks {
            self.b.add_edge(end, exit, None, EdgeKind::Return(None));
        }
        Ok(())
    }

    fn first(&self, stmts: &[Stmt], follow: NodeId) -> NodeId {
        stmts
            .first()
            .map(|s| self.node_of[&(s as *const Stmt)])
            .unwrap_or(follow)
    }

    fn block(&mut self, stmts: &'p [Stmt], follow: NodeId) -> Result<(), BebopError> {
        for (i, s) in stmts.iter().enumerate() {
            let succ = match stmts.get(i + 1) {
                Some(n) => self.node_of[&(n as *const Stmt)],
                None => follow,
            };
            self.stmt(s, succ)?;
        }
        Ok(())
    }

    fn slot(&self, name: &str) -> Result<Slot, BebopError> {
        self.cx().slot(name)
    }

    fn guard(&mut self, from: NodeId, to: NodeId, taken: Option<u32>, g: Bdd) {
        if g.is_false() {
            return;
        }
        self.b.add_edge(
            from,
            to,
            taken,
            EdgeKind::Transfer(Transfer {
                modified: Vec::new(),
                rel: self.vars.relation([g]),
                enforce: false,
            }),
        );
    }

    /// The edges out of statement `s` (whose successor in its block is `succ`), and its
    /// target, if the property makes it one; nested blocks recursively.
    fn stmt(&mut self, s: &'p Stmt, succ: NodeId) -> Result<(), BebopError> {
        let v = self.node_of[&(s as *const Stmt)];
        let tt = self.vars.tt();
        self.mark_label_target(v, s);
        match &s.kind {
            StmtKind::Skip | StmtKind::Print(_) => self.guard(v, succ, None, tt),
            StmtKind::Goto(targets) => {
                for (i, l) in targets.iter().enumerate() {
                    let to = *self.labels.get(l.name.as_str()).ok_or_else(|| {
                        BebopError::Internal(format!("unknown label `{}`", l.name))
                    })?;
                    self.guard(v, to, Some(i as u32), tt.clone());
                }
            }
            StmtKind::Return(es) => self.return_stmt(v, es)?,
            StmtKind::Assign {
                lhs,
                rhs,
                constrain,
            } => self.assign(v, succ, lhs, rhs, constrain.as_ref())?,
            StmtKind::Dead(xs) => {
                let mut modified = Vec::new();
                for x in xs {
                    let sl = self.slot(&x.name)?;
                    if !modified.contains(&sl) {
                        modified.push(sl);
                    }
                }
                let enforce = self.info().has_enforce;
                self.b.add_edge(
                    v,
                    succ,
                    None,
                    EdgeKind::Transfer(Transfer {
                        modified,
                        rel: self.vars.relation([tt]),
                        enforce,
                    }),
                );
            }
            StmtKind::Call { lhs, callee, args } => self.call(v, succ, lhs, &callee.name, args)?,
            StmtKind::If { arms, els } => {
                let mut not_before = self.vars.tt();
                for (i, arm) in arms.iter().enumerate() {
                    let mut cx = self.cx();
                    let may_t = cx.may_be(&arm.cond, true)?;
                    let may_f = cx.may_be(&arm.cond, false)?;
                    let to = self.first(&arm.body, succ);
                    self.guard(v, to, Some(i as u32), apply::and(&not_before, &may_t));
                    not_before = apply::and(&not_before, &may_f);
                }
                let to = match els {
                    Some(b) => self.first(b, succ),
                    None => succ,
                };
                self.guard(v, to, Some(arms.len() as u32), not_before);
                for arm in arms {
                    self.block(&arm.body, succ)?;
                }
                if let Some(b) = els {
                    self.block(b, succ)?;
                }
            }
            StmtKind::While { cond, body } => {
                let mut cx = self.cx();
                let may_t = cx.may_be(cond, true)?;
                let may_f = cx.may_be(cond, false)?;
                let to = self.first(body, v);
                self.guard(v, to, Some(1), may_t);
                self.guard(v, succ, Some(0), may_f);
                self.block(body, v)?;
            }
            StmtKind::Assert(e) => {
                let mut cx = self.cx();
                let may_t = cx.may_be(e, true)?;
                if matches!(self.property, Property::AssertsAndSlicError) {
                    let may_f = cx.may_be(e, false)?;
                    if self.b.nodes[v.ix()].target.is_none() && !may_f.is_false() {
                        self.b.nodes[v.ix()].target = Some(TargetInfo {
                            bad: may_f,
                            what: TargetWhat::Assert,
                        });
                    }
                }
                self.guard(v, succ, None, may_t);
            }
            StmtKind::Assume(e) => {
                let mut cx = self.cx();
                let may_t = cx.may_be(e, true)?;
                self.guard(v, succ, None, may_t);
            }
        }
        Ok(())
    }

    /// Makes node `v` a target (in every state) when statement `s` carries the property's
    /// label: `SLIC_ERROR` by default, else the label asked for.
    fn mark_label_target(&mut self, v: NodeId, s: &Stmt) {
        let target_label = match self.property {
            Property::AssertsAndSlicError => SLIC_ERROR,
            Property::Label(l) => l.as_str(),
        };
        if s.labels.iter().any(|l| l.name == target_label) {
            self.b.nodes[v.ix()].target = Some(TargetInfo {
                bad: self.vars.tt(),
                what: TargetWhat::Label(target_label.to_string()),
            });
        }
    }

    /// The edge of `return es` at `v` into the exit, setting the return slots (none when the
    /// procedure is never called: `main`'s return ends the run).
    fn return_stmt(&mut self, v: NodeId, es: &[Expr]) -> Result<(), BebopError> {
        if es.len() != self.info().ast.ret.arity() {
            return Err(BebopError::Internal(format!(
                "`return` with {} values in `{}`, which returns {}",
                es.len(),
                self.info().name,
                self.info().ast.ret.arity()
            )));
        }
        if self.info().tracks_entry {
            let mut cx = self.cx();
            let rel = cx
                .equations(
                    es.iter()
                        .enumerate()
                        .map(|(i, e)| (self.vars.lit(Slot::Ret(i as u32), Ver::Cur, true), e)),
                )?
                .iter()
                .fold(self.vars.tt(), |acc, b| apply::and(&acc, b));
            let exit = self.info().exit;
            self.b.add_edge(v, exit, None, EdgeKind::Return(Some(rel)));
        }
        Ok(())
    }

    /// The edge of a parallel assignment at `v`: each target's next value is its right-hand
    /// side, and the `constrain` clause holds.
    fn assign(
        &mut self,
        v: NodeId,
        succ: NodeId,
        lhs: &[Lhs],
        rhs: &[Expr],
        constrain: Option<&Expr>,
    ) -> Result<(), BebopError> {
        let mut modified = Vec::new();
        let mut pairs = Vec::new();
        for (l, e) in lhs.iter().zip(rhs.iter()) {
            if let Lhs::Var(id) = l {
                let sl = self.slot(&id.name)?;
                modified.push(sl);
                pairs.push((sl, e));
            }
        }
        let mut cx = self.cx();
        cx.assigned = &modified;
        let mut parts = cx.equations(
            pairs
                .iter()
                .map(|(sl, e)| (self.vars.lit(*sl, Ver::Next, true), *e)),
        )?;
        if let Some(c) = constrain {
            parts.push(cx.may_be(c, true)?);
        }
        let rel = self.vars.relation(parts);
        let enforce = self.info().has_enforce;
        self.b.add_edge(
            v,
            succ,
            None,
            EdgeKind::Transfer(Transfer {
                modified,
                rel,
                enforce,
            }),
        );
        Ok(())
    }

    /// The call edge at `v`: the callee's parameters (version `Next`) are the actuals, the
    /// targets receive the returned values (`_` discards one).
    fn call(
        &mut self,
        v: NodeId,
        succ: NodeId,
        lhs: &[Lhs],
        callee: &str,
        args: &[Expr],
    ) -> Result<(), BebopError> {
        let q = *self.proc_ids.get(callee).ok_or_else(|| {
            BebopError::Internal(format!("call of undeclared procedure `{callee}`"))
        })?;
        let qi = &self.procs[q.ix()];
        if args.len() != qi.n_params as usize {
            return Err(BebopError::Internal(format!(
                "call of `{}` with {} arguments (it has {} parameters)",
                qi.name,
                args.len(),
                qi.n_params
            )));
        }
        if !lhs.is_empty() && lhs.len() != qi.ast.ret.arity() {
            return Err(BebopError::Internal(format!(
                "call of `{}` assigns {} results (it returns {})",
                qi.name,
                lhs.len(),
                qi.ast.ret.arity()
            )));
        }
        let mut cx = self.cx();
        let arg_rel = self.vars.relation(
            cx.equations(
                args.iter()
                    .enumerate()
                    .map(|(i, a)| (self.vars.lit(Slot::Frame(i as u32), Ver::Next, true), a)),
            )?,
        );
        let mut targets = Vec::new();
        for l in lhs {
            targets.push(match l {
                Lhs::Var(id) => Some(self.slot(&id.name)?),
                Lhs::Discard(_) => None,
            });
        }
        self.b.add_edge(
            v,
            succ,
            None,
            EdgeKind::Call(CallEdge {
                callee: q,
                arg_rel,
                targets,
            }),
        );
        Ok(())
    }
}
