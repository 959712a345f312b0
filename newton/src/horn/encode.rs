//! A path program as constrained Horn clauses ([`cir::smt::horn`]): one relation per cut
//! point of each function part, over the scalar variables the path program mentions, and one
//! summary relation per function (the relation at its exit), so that calls — recursion
//! included — are clauses through the callee's summary, as in the Horn-clause encodings of
//! procedures (Grebenshchikov et al., "Synthesizing software verifiers from proof rules",
//! PLDI 2012, §4).
//!
//! Relation parameters: in `main`, the tracked globals `G` and `main`'s tracked locals; in
//! another function `f`, the globals at `f`'s entry `G0`, its tracked formals (entry values),
//! `G` and its tracked locals; at `f`'s exit `G0`, the formals, `G` and the return value.
//! Clauses ([`ClauseKind`]):
//! - `main` starts: the globals' initial values (zero or their initialiser), locals arbitrary;
//! - a *segment*: the edges from a cut point to the next (the code between cut points is a
//!   tree), composed forward — an assignment replaces its variable's value, an `assume` is a
//!   constraint, a havoc, a nondeterministic value or a call without a body's result is a
//!   fresh value; a write through memory makes every tracked variable it may change (points-to)
//!   a fresh value; an error edge ends the segment in the query;
//! - a call: the caller's state and the callee's summary at the actuals give the state after
//!   the call (globals and result from the summary, the caller's address-taken locals fresh);
//! - entering a callee: the caller's state at the call gives the callee's entry.
//!
//! Every variable not tracked (aggregates) is read through memory, which the clause encoding
//! makes a fresh value: the clauses over-approximate the path program, which costs precision
//! only (the output is predicates, or a path that is replayed concretely).
//!
//! Cells of local arrays of scalars that the path program reads or writes at a constant
//! index (`a[1023]`) are tracked as variables of their own (stand-ins, among the function's
//! locals; [`Encoding::cells`] maps each back to the cell): a read `a[i]` is
//! `i == 1023 ? cell : a[i]`, a write `a[i] := v` makes the cell `i == 1023 ? v : cell`, a
//! write through a pointer that may reach the array and a call that may (the array's
//! address taken) make it a fresh value. So an invariant can say what the loop leaves in
//! the cell an assertion reads (`i <= 1023 || a[1023] == 1023`), which no scalar fact does.

use std::collections::{BTreeMap, BTreeSet};

use cir::ir::{
    BinOp, Callee, EdgeId, EdgeKind, Expr, ExprKind, FuncId, Function, NodeId, Program, VarId,
};
use cir::pointsto::{Loc, PointsTo};
use cir::smt::horn::{Clause, HornProblem, RelApp, RelId, Relation};
use cir::types::CType;

use crate::pathprog::PathProgram;
use crate::symbolic::fresh_var;

/// At most this many clauses: a path program beyond it is not encoded.
const MAX_CLAUSES: usize = 4000;

/// What a clause stands for, to map a derivation back to C edges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClauseKind {
    /// `main` starts.
    Init,
    /// Edges of one function from a cut point (the last an error edge when the clause is the
    /// query).
    Segment(Vec<EdgeId>),
    /// A call edge, returning through the callee's summary.
    Call(EdgeId),
    /// Entering the callee of a call edge.
    Enter(EdgeId),
}

/// Where a relation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RelSite {
    /// The function.
    pub func: FuncId,
    /// The cut point.
    pub node: NodeId,
}

/// The parameters of a function's relations.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// The globals at the function's entry (stand-ins; none for `main`).
    pub g0: Vec<VarId>,
    /// Its tracked formals (with their position).
    pub formals: Vec<(usize, VarId)>,
    /// Its tracked locals (`main`'s formals among them).
    pub locals: Vec<VarId>,
    /// The return value (a stand-in), when the function returns a scalar.
    pub ret: Option<VarId>,
}

/// The clauses of a path program and how to read them back.
#[derive(Debug, Clone)]
pub struct Encoding {
    /// The program extended with the stand-ins and fresh values.
    pub ext: Program,
    /// The clauses.
    pub problem: HornProblem,
    /// Per clause, what it stands for.
    pub kinds: Vec<ClauseKind>,
    /// Per relation, where it is.
    pub sites: Vec<RelSite>,
    /// The tracked globals.
    pub globals: Vec<VarId>,
    /// Per function, its relations' parameters.
    pub layouts: BTreeMap<FuncId, Layout>,
    /// The stand-ins of array cells at constant indices, each with the cell as C (`A[3]`).
    pub cells: BTreeMap<VarId, Expr>,
}

/// Why a path program is not encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// A construct the encoding does not handle.
    #[error("path program not encoded: {0}")]
    Unsupported(String),
}

fn tracked_type(t: &CType) -> bool {
    t.is_integer() || matches!(t, CType::Pointer(_))
}

fn var_expr(prog: &Program, v: VarId) -> Expr {
    Expr {
        kind: ExprKind::Var(v),
        ty: prog.var(v).ty.clone(),
    }
}

/// `(A, c)` for the cell `A[c]`: an array variable at a constant index.
pub(super) fn cell_of(e: &Expr) -> Option<(VarId, i128)> {
    match &e.kind {
        ExprKind::Index(a, k) => match (&a.kind, &k.kind) {
            (ExprKind::Var(arr), ExprKind::Const(c)) => Some((*arr, *c)),
            _ => None,
        },
        _ => None,
    }
}

/// `k op c` for an index `k` and a cell index `c`, the constant in `k`'s type; `None` when
/// that type has no value `c` (an `unsigned char` index never reaches `A[1023]`).
pub(super) fn index_against(prog: &Program, op: BinOp, k: &Expr, c: i128) -> Option<Expr> {
    let CType::Int(kind) = k.ty else {
        return None;
    };
    let (lo, hi) = kind.range(prog.data_model);
    (lo..=hi).contains(&c).then(|| Expr {
        kind: ExprKind::Binary(
            op,
            Box::new(k.clone()),
            Box::new(Expr::int(c, k.ty.clone())),
        ),
        ty: CType::INT,
    })
}

/// The scalar variables an expression reads or names.
fn mentioned(e: &Expr, out: &mut BTreeSet<VarId>) {
    e.walk(&mut |x| {
        if let ExprKind::Var(v) = x.kind {
            out.insert(v);
        }
    });
}

fn edge_vars(k: &EdgeKind, out: &mut BTreeSet<VarId>) {
    match k {
        EdgeKind::Assign { lhs, rhs } => {
            mentioned(lhs, out);
            mentioned(rhs, out);
        }
        EdgeKind::Havoc { lhs, .. } => mentioned(lhs, out),
        EdgeKind::Assume(c) => mentioned(c, out),
        EdgeKind::Call { ret, callee, args } => {
            out.extend(ret.iter().copied());
            if let Callee::Indirect(e) = callee {
                mentioned(e, out);
            }
            for a in args {
                mentioned(a, out);
            }
        }
        EdgeKind::Return(Some(e)) => mentioned(e, out),
        _ => {}
    }
}

/// The values of the tracked variables along a segment.
type Versions = BTreeMap<VarId, Expr>;

/// `e` over the current values: variables read are replaced, an lvalue under `&` stays the
/// object it names (only its indices and pointers are read).
fn read(e: &Expr, vers: &Versions) -> Expr {
    let rebuild = |kind: ExprKind| Expr {
        kind,
        ty: e.ty.clone(),
    };
    match &e.kind {
        ExprKind::Var(v) => vers.get(v).cloned().unwrap_or_else(|| e.clone()),
        ExprKind::AddrOf(l) => rebuild(ExprKind::AddrOf(Box::new(read_lvalue(l, vers)))),
        ExprKind::Const(_) | ExprKind::Func(_) | ExprKind::Str(_) => e.clone(),
        ExprKind::Unary(op, a) => rebuild(ExprKind::Unary(*op, Box::new(read(a, vers)))),
        ExprKind::Binary(op, a, b) => rebuild(ExprKind::Binary(
            *op,
            Box::new(read(a, vers)),
            Box::new(read(b, vers)),
        )),
        ExprKind::Cast(a) => rebuild(ExprKind::Cast(Box::new(read(a, vers)))),
        ExprKind::Deref(p) => rebuild(ExprKind::Deref(Box::new(read(p, vers)))),
        ExprKind::Field(b, f) => {
            rebuild(ExprKind::Field(Box::new(read_lvalue(b, vers)), f.clone()))
        }
        ExprKind::Index(a, i) => rebuild(ExprKind::Index(
            Box::new(if matches!(a.ty, CType::Array(..)) {
                read_lvalue(a, vers)
            } else {
                read(a, vers)
            }),
            Box::new(read(i, vers)),
        )),
        ExprKind::Cond(c, a, b) => rebuild(ExprKind::Cond(
            Box::new(read(c, vers)),
            Box::new(read(a, vers)),
            Box::new(read(b, vers)),
        )),
    }
}

/// An lvalue as the object it names (its variable kept), its indices and pointers read.
fn read_lvalue(l: &Expr, vers: &Versions) -> Expr {
    match &l.kind {
        ExprKind::Var(_) => l.clone(),
        ExprKind::Field(b, f) => Expr {
            kind: ExprKind::Field(Box::new(read_lvalue(b, vers)), f.clone()),
            ty: l.ty.clone(),
        },
        _ => read(l, vers),
    }
}

struct Builder<'a> {
    prog: &'a Program,
    pts: &'a PointsTo,
    pp: &'a PathProgram,
    ext: Program,
    problem: HornProblem,
    kinds: Vec<ClauseKind>,
    sites: Vec<RelSite>,
    rel_at: BTreeMap<(FuncId, NodeId), RelId>,
    globals: Vec<VarId>,
    layouts: BTreeMap<FuncId, Layout>,
    main: FuncId,
    fresh: usize,
    /// The tracked cells of each local array: (index, stand-in).
    cells: BTreeMap<VarId, Vec<(i128, VarId)>>,
    /// Each cell's stand-in with the cell as C.
    cell_exprs: BTreeMap<VarId, Expr>,
}

/// Encodes the path program `pp` of `prog` (see the module doc).
pub fn encode(prog: &Program, pts: &PointsTo, pp: &PathProgram) -> Result<Encoding, EncodeError> {
    let main = prog
        .function("main")
        .ok_or_else(|| EncodeError::Unsupported("no main".into()))?
        .id;
    let mut b = Builder {
        prog,
        pts,
        pp,
        ext: prog.clone(),
        problem: HornProblem::default(),
        kinds: Vec::new(),
        sites: Vec::new(),
        rel_at: BTreeMap::new(),
        globals: Vec::new(),
        layouts: BTreeMap::new(),
        main,
        fresh: 0,
        cells: BTreeMap::new(),
        cell_exprs: BTreeMap::new(),
    };
    b.layout()?;
    b.relations();
    b.init();
    for (&fid, part) in &pp.parts {
        let f = &prog.functions[fid.0 as usize];
        for &c in &part.cuts {
            b.segments_from(f, c)?;
        }
    }
    Ok(Encoding {
        ext: b.ext,
        problem: b.problem,
        kinds: b.kinds,
        sites: b.sites,
        globals: b.globals,
        layouts: b.layouts,
        cells: b.cell_exprs,
    })
}

impl Builder<'_> {
    /// A fresh variable of the extended program (a unique name: its Z3 constant).
    fn fresh(&mut self, base: &str, ty: CType) -> VarId {
        self.fresh += 1;
        let name = format!("{base}!h{}", self.fresh);
        fresh_var(&mut self.ext, ty, name, self.main)
    }

    fn fresh_expr(&mut self, v: VarId) -> Expr {
        let info = self.ext.var(v);
        let (name, ty) = (info.name.clone(), info.ty.clone());
        let f = self.fresh(&name, ty);
        var_expr(&self.ext, f)
    }

    /// The tracked globals and every function's parameters.
    fn layout(&mut self) -> Result<(), EncodeError> {
        let prog = self.prog;
        let mut globals = BTreeSet::new();
        let mut per_func: BTreeMap<FuncId, BTreeSet<VarId>> = BTreeMap::new();
        for (&fid, part) in &self.pp.parts {
            let f = &prog.functions[fid.0 as usize];
            let mut vs = BTreeSet::new();
            for &i in &part.edges {
                let e = &f.edges[i as usize];
                if let EdgeKind::Call {
                    callee: Callee::Indirect(_),
                    ..
                } = e.kind
                {
                    return Err(EncodeError::Unsupported("a call through a pointer".into()));
                }
                if let EdgeKind::Call {
                    callee: Callee::Defined(g),
                    ..
                } = e.kind
                    && g == self.main
                {
                    return Err(EncodeError::Unsupported("a call of main".into()));
                }
                edge_vars(&e.kind, &mut vs);
            }
            for v in vs {
                if !tracked_type(&prog.var(v).ty) {
                    continue;
                }
                if prog.var(v).is_global() {
                    globals.insert(v);
                } else {
                    per_func.entry(fid).or_default().insert(v);
                }
            }
        }
        self.globals = globals.into_iter().collect();
        for &fid in self.pp.parts.keys() {
            let f = &prog.functions[fid.0 as usize];
            let own = per_func.remove(&fid).unwrap_or_default();
            let mut lay = Layout::default();
            let is_main = fid == self.main;
            for (pos, &fm) in f.formals.iter().enumerate() {
                if own.contains(&fm) && !is_main {
                    lay.formals.push((pos, fm));
                }
            }
            lay.locals = own
                .iter()
                .copied()
                .filter(|v| is_main || !f.formals.contains(v))
                .collect();
            // The cells `A[c]` of local arrays of scalars the part reads or writes at a
            // constant index: tracked as variables of their own (module doc).
            let mut cells: BTreeSet<(VarId, i128)> = BTreeSet::new();
            for &i in &self.pp.parts[&fid].edges {
                for e in f.edges[i as usize].kind.exprs() {
                    e.walk(&mut |x| {
                        if let Some((arr, c)) = cell_of(x)
                            && let CType::Array(t, Some(n)) = &prog.var(arr).ty
                            && tracked_type(t)
                            && !prog.var(arr).is_global()
                            && (0..i128::from(*n)).contains(&c)
                        {
                            cells.insert((arr, c));
                        }
                    });
                }
            }
            for (arr, c) in cells {
                let info = prog.var(arr);
                let CType::Array(t, _) = &info.ty else {
                    continue;
                };
                let name = format!("{}[{c}]", info.name);
                let stand = self.fresh(&name, (**t).clone());
                let cell = Expr {
                    kind: ExprKind::Index(
                        Box::new(var_expr(prog, arr)),
                        Box::new(Expr::int(c, CType::INT)),
                    ),
                    ty: (**t).clone(),
                };
                self.cells.entry(arr).or_default().push((c, stand));
                self.cell_exprs.insert(stand, cell);
                lay.locals.push(stand);
            }
            if !is_main {
                for g in self.globals.clone() {
                    let name = format!("{}@entry.{}", prog.var(g).name, f.name);
                    let v = self.fresh(&name, prog.var(g).ty.clone());
                    lay.g0.push(v);
                }
                if tracked_type(&f.ty.ret) {
                    let name = format!("{}@result", f.name);
                    lay.ret = Some(self.fresh(&name, f.ty.ret.clone()));
                }
            }
            self.layouts.insert(fid, lay);
        }
        Ok(())
    }

    /// The parameters of the relation at `node` of `f`.
    fn params(&self, f: &Function, node: NodeId) -> Vec<VarId> {
        let lay = &self.layouts[&f.id];
        let mut ps: Vec<VarId> = lay.g0.clone();
        ps.extend(lay.formals.iter().map(|(_, v)| *v));
        ps.extend(self.globals.iter().copied());
        if f.id != self.main && node == f.exit {
            ps.extend(lay.ret);
        } else {
            ps.extend(lay.locals.iter().copied());
        }
        ps
    }

    fn relations(&mut self) {
        let prog = self.prog;
        for (&fid, part) in &self.pp.parts {
            let f = &prog.functions[fid.0 as usize];
            for &c in &part.cuts {
                let id = RelId(self.problem.relations.len() as u32);
                let params = self.params(f, c);
                self.problem.relations.push(Relation {
                    name: format!("{}@{}", f.name, c),
                    params,
                });
                self.sites.push(RelSite { func: fid, node: c });
                self.rel_at.insert((fid, c), id);
            }
        }
    }

    /// The identity values of the parameters of the relation at `node` of `f`.
    fn identity(&self, f: &Function, node: NodeId) -> Versions {
        self.params(f, node)
            .into_iter()
            .map(|v| (v, var_expr(&self.ext, v)))
            .collect()
    }

    /// The relation at `node` of `f` applied to the values `vers` of its parameters.
    fn app(&self, f: &Function, node: NodeId, vers: &Versions) -> RelApp {
        let rel = self.rel_at[&(f.id, node)];
        let args = self.problem.relations[rel.0 as usize]
            .params
            .iter()
            .map(|p| {
                let ty = self.ext.var(*p).ty.clone();
                let v = vers
                    .get(p)
                    .cloned()
                    .unwrap_or_else(|| var_expr(&self.ext, *p));
                cir::wp::convert(&v, &ty)
            })
            .collect();
        RelApp { rel, args }
    }

    fn push(&mut self, clause: Clause, kind: ClauseKind) {
        self.problem.clauses.push(clause);
        self.kinds.push(kind);
    }

    /// `main`'s entry: globals zero or initialised, locals arbitrary.
    fn init(&mut self) {
        let prog = self.prog;
        let main = &prog.functions[self.main.0 as usize];
        if !self.pp.parts.contains_key(&main.id) {
            return;
        }
        let mut vers: Versions = BTreeMap::new();
        for &g in &self.globals {
            vers.insert(
                g,
                cir::wp::convert(&Expr::int(0, CType::INT), &prog.var(g).ty),
            );
        }
        for init in &prog.global_inits {
            let ExprKind::Var(g) = init.lhs.kind else {
                continue;
            };
            if !vers.contains_key(&g) {
                continue;
            }
            let v = match &init.value {
                Some(e) => cir::wp::convert(&read(e, &vers), &prog.var(g).ty),
                None => self.fresh_expr(g),
            };
            vers.insert(g, v);
        }
        for l in self.layouts[&main.id].locals.clone() {
            let v = self.fresh_expr(l);
            vers.insert(l, v);
        }
        let head = self.app(main, main.entry, &vers);
        self.push(
            Clause {
                body: Vec::new(),
                constraints: Vec::new(),
                head: Some(head),
            },
            ClauseKind::Init,
        );
    }

    /// The clauses from cut point `c` of `f`: its call edge, or the segments to the next cut
    /// points.
    fn segments_from(&mut self, f: &Function, c: NodeId) -> Result<(), EncodeError> {
        let part = &self.pp.parts[&f.id];
        let out: Vec<u32> = part
            .edges
            .iter()
            .copied()
            .filter(|&i| f.edges[i as usize].from == c)
            .collect();
        let mut stack: Vec<(u32, Vec<EdgeId>)> = out.iter().map(|&i| (i, Vec::new())).collect();
        while let Some((i, mut edges)) = stack.pop() {
            let e = &f.edges[i as usize];
            if let EdgeKind::Call {
                callee: Callee::Defined(g),
                ret,
                args,
            } = &e.kind
            {
                // Call sources are cut points: a call edge starts at one.
                self.call(f, e.id, *g, *ret, args)?;
                continue;
            }
            edges.push(e.id);
            match &e.kind {
                EdgeKind::Error { .. } => self.segment(f, c, edges, None)?,
                EdgeKind::Halt { .. } => {}
                _ if part.cuts.contains(&e.to) => self.segment(f, c, edges, Some(e.to))?,
                _ => {
                    for &j in &part.edges {
                        if f.edges[j as usize].from == e.to {
                            stack.push((j, edges.clone()));
                        }
                    }
                }
            }
            if self.problem.clauses.len() > MAX_CLAUSES {
                return Err(EncodeError::Unsupported(format!(
                    "more than {MAX_CLAUSES} clauses"
                )));
            }
        }
        Ok(())
    }

    /// Tracked variables that a write to the lvalue `lv` may change other than by name.
    fn aliased(&self, f: &Function, lv: &Expr) -> Vec<VarId> {
        let objs = self.pts.objects(lv);
        self.in_scope(f)
            .into_iter()
            .filter(|v| objs.contains(&Loc::Var(*v)))
            .collect()
    }

    /// The tracked variables of `f`'s relations (not the entry stand-ins).
    fn in_scope(&self, f: &Function) -> Vec<VarId> {
        let lay = &self.layouts[&f.id];
        let mut vs: Vec<VarId> = self.globals.clone();
        vs.extend(lay.locals.iter().copied());
        vs
    }

    /// Every tracked variable whose address is taken (what an unknown callee may write).
    fn address_taken(&self, f: &Function) -> Vec<VarId> {
        self.in_scope(f)
            .into_iter()
            .filter(|v| self.pts.is_address_taken(&Loc::Var(*v)))
            .collect()
    }

    /// `e` with the tracked cells read through their stand-ins: `A[c]` is the stand-in of
    /// cell `c`, and `A[i]` at another index is `i == c ? stand-in : A[i]` over the tracked
    /// cells of `A` (an untracked cell stays a read of memory, which the clauses make a fresh
    /// value). An expression that takes the address of such an array's element is kept as it
    /// is: its reads of the cells go to memory, which only costs precision.
    fn cellify(&self, e: &Expr) -> Expr {
        if self.cells.is_empty() {
            return e.clone();
        }
        let mut addressed = false;
        e.walk(&mut |x| {
            if let ExprKind::AddrOf(l) = &x.kind {
                l.walk(&mut |y| {
                    if let ExprKind::Var(v) = y.kind
                        && self.cells.contains_key(&v)
                    {
                        addressed = true;
                    }
                });
            }
        });
        if addressed {
            return e.clone();
        }
        e.map_bottom_up(&mut |x| {
            let ExprKind::Index(a, k) = &x.kind else {
                return x;
            };
            let ExprKind::Var(arr) = a.kind else {
                return x;
            };
            let Some(cells) = self.cells.get(&arr) else {
                return x;
            };
            let stand = |s: VarId| Expr {
                kind: ExprKind::Var(s),
                ty: x.ty.clone(),
            };
            if let Some((_, c)) = cell_of(&x) {
                return match cells.iter().find(|(i, _)| *i == c) {
                    Some(&(_, s)) => stand(s),
                    None => x,
                };
            }
            cells.iter().fold(x.clone(), |acc, &(c, s)| {
                match index_against(self.prog, BinOp::Eq, k, c) {
                    Some(hit) => Expr {
                        kind: ExprKind::Cond(Box::new(hit), Box::new(stand(s)), Box::new(acc)),
                        ty: x.ty.clone(),
                    },
                    None => acc,
                }
            })
        })
    }

    /// The stand-ins of the tracked cells of `f`'s arrays that a pointer may reach (what a
    /// callee may write).
    fn taken_cells(&self, f: &Function) -> Vec<VarId> {
        let locals = &self.layouts[&f.id].locals;
        self.cells
            .iter()
            .filter(|(a, _)| self.pts.is_address_taken(&Loc::Var(**a)))
            .flat_map(|(_, cs)| cs.iter().map(|&(_, s)| s))
            .filter(|s| locals.contains(s))
            .collect()
    }

    fn havoc(&mut self, vers: &mut Versions, vs: &[VarId]) {
        for &v in vs {
            let x = self.fresh_expr(v);
            vers.insert(v, x);
        }
    }

    /// The clause of the edges `edges` from cut point `c` to `to` (`None`: the error).
    fn segment(
        &mut self,
        f: &Function,
        c: NodeId,
        edges: Vec<EdgeId>,
        to: Option<NodeId>,
    ) -> Result<(), EncodeError> {
        let prog = self.prog;
        let lay_ret = self.layouts[&f.id].ret;
        let mut vers = self.identity(f, c);
        let mut constraints = Vec::new();
        for id in &edges {
            let e = prog.edge(*id);
            match &e.kind {
                EdgeKind::Assign { lhs, rhs } => {
                    let val = read(&self.cellify(rhs), &vers);
                    self.write(f, lhs, Some(val), &mut vers);
                }
                EdgeKind::Havoc { lhs, .. } => self.write(f, lhs, None, &mut vers),
                EdgeKind::Assume(cond) => constraints.push(read(&self.cellify(cond), &vers)),
                EdgeKind::Call { ret, callee, .. } => {
                    if !matches!(callee, Callee::Nondet(_)) {
                        let mut vs = self.address_taken(f);
                        vs.extend(self.taken_cells(f));
                        self.havoc(&mut vers, &vs);
                    }
                    if let Some(r) = ret
                        && vers.contains_key(r)
                    {
                        self.havoc(&mut vers, &[*r]);
                    }
                }
                EdgeKind::Return(Some(x)) => {
                    if let Some(rv) = lay_ret {
                        let v = cir::wp::convert(&read(&self.cellify(x), &vers), &f.ty.ret);
                        vers.insert(rv, v);
                    }
                }
                _ => {}
            }
        }
        let body = vec![self.app(f, c, &self.identity(f, c))];
        let head = to.map(|n| self.app(f, n, &vers));
        self.push(
            Clause {
                body,
                constraints,
                head,
            },
            ClauseKind::Segment(edges),
        );
        Ok(())
    }

    /// `lhs := value` (`None`: an arbitrary value) on the versions.
    fn write(&mut self, f: &Function, lhs: &Expr, value: Option<Expr>, vers: &mut Versions) {
        if let ExprKind::Var(x) = lhs.kind {
            match value {
                Some(v) => {
                    if let Some(slot) = vers.get_mut(&x) {
                        *slot = cir::wp::convert(&v, &lhs.ty);
                    }
                }
                None if vers.contains_key(&x) => self.havoc(vers, &[x]),
                None => {}
            }
            // The whole of a tracked array written (a havoc of the object): its cells too.
            if let Some(cells) = self.cells.get(&x) {
                let vs: Vec<VarId> = cells
                    .iter()
                    .map(|&(_, s)| s)
                    .filter(|s| vers.contains_key(s))
                    .collect();
                self.havoc(vers, &vs);
            }
            return;
        }
        // A write to a tracked array: each cell it may be becomes the value where the index
        // is that cell's.
        if let ExprKind::Index(a, k) = &lhs.kind
            && let ExprKind::Var(arr) = a.kind
            && let Some(cells) = self.cells.get(&arr).cloned()
        {
            let idx = read(&self.cellify(k), vers);
            for (c, st) in cells {
                if !vers.contains_key(&st) {
                    continue;
                }
                let new = match &value {
                    Some(v) => cir::wp::convert(v, &lhs.ty),
                    None => self.fresh_expr(st),
                };
                let cur = vers[&st].clone();
                let next = match idx.kind {
                    ExprKind::Const(i) if i == c => new,
                    ExprKind::Const(_) => cur,
                    _ => match index_against(self.prog, BinOp::Eq, &idx, c) {
                        Some(hit) => Expr {
                            kind: ExprKind::Cond(Box::new(hit), Box::new(new), Box::new(cur)),
                            ty: lhs.ty.clone(),
                        },
                        None => cur,
                    },
                };
                vers.insert(st, next);
            }
            return;
        }
        let mut vs = self.aliased(f, lhs);
        // A write through a pointer that may reach a tracked array havocs its cells.
        let objs = self.pts.objects(lhs);
        for (arr, cs) in &self.cells {
            if objs.contains(&Loc::Var(*arr)) {
                vs.extend(cs.iter().map(|&(_, s)| s).filter(|s| vers.contains_key(s)));
            }
        }
        self.havoc(vers, &vs);
    }

    /// The clauses of the call edge `id` of `f` (from a cut point to a cut point) to `g`:
    /// entering `g`, and returning through its summary when the path program reaches its
    /// exit.
    fn call(
        &mut self,
        f: &Function,
        id: EdgeId,
        g: FuncId,
        ret: Option<VarId>,
        args: &[Expr],
    ) -> Result<(), EncodeError> {
        let prog = self.prog;
        let e = prog.edge(id);
        let callee = &prog.functions[g.0 as usize];
        let Some(glay) = self.layouts.get(&g).cloned() else {
            // The path program never enters the callee (the path ends at the call).
            return Ok(());
        };
        let here = self.identity(f, e.from);
        let body = self.app(f, e.from, &here);
        // The callee's entry: G0 = G, the formals the actuals, the locals arbitrary.
        let mut entry: Versions = BTreeMap::new();
        for (k, &g0) in glay.g0.iter().enumerate() {
            let g = self.globals[k];
            entry.insert(g0, here[&g].clone());
            entry.insert(g, here[&g].clone());
        }
        for &(pos, fm) in &glay.formals {
            let a = args.get(pos).ok_or_else(|| {
                EncodeError::Unsupported(format!(
                    "a call of {} with too few arguments",
                    callee.name
                ))
            })?;
            entry.insert(
                fm,
                cir::wp::convert(&read(&self.cellify(a), &here), &prog.var(fm).ty),
            );
        }
        for &l in &glay.locals {
            let x = self.fresh_expr(l);
            entry.insert(l, x);
        }
        let head = self.app(callee, callee.entry, &entry);
        self.push(
            Clause {
                body: vec![body.clone()],
                constraints: Vec::new(),
                head: Some(head),
            },
            ClauseKind::Enter(id),
        );
        if !self.rel_at.contains_key(&(g, callee.exit)) {
            return Ok(());
        }
        // The return: the summary at (G, actuals) gives the globals after and the result.
        let mut summary = entry.clone();
        let mut after = here.clone();
        for &gv in &self.globals.clone() {
            let x = self.fresh_expr(gv);
            summary.insert(gv, x.clone());
            after.insert(gv, x);
        }
        let result = glay.ret.map(|rv| {
            let x = self.fresh_expr(rv);
            summary.insert(rv, x.clone());
            x
        });
        let taken: Vec<VarId> = self.layouts[&f.id]
            .locals
            .iter()
            .copied()
            .filter(|v| self.pts.is_address_taken(&Loc::Var(*v)))
            .chain(self.taken_cells(f))
            .collect();
        self.havoc(&mut after, &taken);
        if let Some(r) = ret
            && after.contains_key(&r)
        {
            match &result {
                Some(x) => {
                    after.insert(r, cir::wp::convert(x, &prog.var(r).ty));
                }
                None => self.havoc(&mut after, &[r]),
            }
        }
        let sum = self.app(callee, callee.exit, &summary);
        let head = self.app(f, e.to, &after);
        self.push(
            Clause {
                body: vec![body, sum],
                constraints: Vec::new(),
                head: Some(head),
            },
            ClauseKind::Call(id),
        );
        Ok(())
    }
}
