//! A random generator of small, well-formed Boolean programs for differential testing.
//!
//! [`random_program`] is a pure function of its seed and [`GenConfig`]. Programs are
//! well-formed *by construction* (they pass every error rule of `bp_grammar::check`, see
//! `docs/bp-semantics.md` "Well-formedness"): every variable used is declared in scope, globals
//! (`g0`, `g1`, ...) are never shadowed by parameters (`a0`, ...) or locals (`l0`, ...), calls
//! have the callee's arity and either no targets or exactly as many as it returns, `return`
//! carries the procedure's arity, no statement assigns a variable twice, primed variables occur
//! only in `constrain`, `_` only as a call target, labels are unique per procedure and every
//! `goto` target exists, `schoose` only at the top of a right-hand side (no `nested-schoose`
//! warning), and `main` is never called (so a `return` in `main` always ends the run).
//!
//! The programs exercise the whole sequential language: several procedures (`void`, `bool`,
//! `bool<2>`) with parameters and locals, direct and mutual recursion, calls with results and
//! `_`, falling off `end`, parallel assignments with `constrain` over primed assigned and
//! unassigned variables, `enforce`, `schoose`, `*` in expressions and as deciders, multi-target
//! `goto` forward and backward, `if`/`elsif`/`else`, `while`, `assume`, `assert`, `dead`,
//! `skip`, `print`, and now and then a `SLIC_ERROR` label. They stay small (a few variables per
//! scope, about [`GenConfig::max_stmts`] statements) so that explicit-state exploration is
//! instant, and the probabilities are tuned so that both verdicts are common.

use crate::build;
use crate::prng::SplitMix64;
use bp_grammar::ast::{BinOp, Expr, Lhs, Procedure, Program, RetType, Span, Stmt, StmtKind};

/// Shape and probabilities of generated programs.
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// At most this many globals (usually at least one).
    pub max_globals: usize,
    /// At most this many procedures, `main` included.
    pub max_procs: usize,
    /// At most this many parameters + locals per procedure.
    pub max_frame_vars: usize,
    /// About this many statements in the whole program (compound statements count one each,
    /// plus their bodies).
    pub max_stmts: usize,
    /// Deepest nesting of `if`/`while`.
    pub max_nesting: usize,
    /// Deepest expression (0 = a leaf).
    pub max_expr_depth: usize,
    /// Allow calls that may recurse (directly or mutually); otherwise calls go only to
    /// procedures later in the list.
    pub recursion: bool,
    /// Percent of procedures with an `enforce`.
    pub enforce_percent: u32,
    /// Percent of programs with a `SLIC_ERROR` label.
    pub slic_error_percent: u32,
    /// Percent of assignments with a `constrain` clause.
    pub constrain_percent: u32,
    /// Relative weight of `*` among expression leaves (variables weigh 10, constants 2).
    pub nondet_weight: u32,
    /// Percent of procedures that start by initialising variables to constants (`main`: its
    /// whole scope; others: their locals).
    pub init_percent: u32,
    /// Percent of empty bodies (non-`main` procedures, `if` arms, `else`, `while`).
    pub empty_percent: u32,
}

impl Default for GenConfig {
    fn default() -> GenConfig {
        GenConfig {
            max_globals: 3,
            max_procs: 4,
            max_frame_vars: 3,
            max_stmts: 25,
            max_nesting: 2,
            max_expr_depth: 2,
            recursion: true,
            enforce_percent: 20,
            slic_error_percent: 15,
            constrain_percent: 25,
            nondet_weight: 2,
            init_percent: 50,
            empty_percent: 6,
        }
    }
}

/// A procedure's signature, decided before any body is generated.
struct Sig {
    name: String,
    ret: RetType,
    params: Vec<String>,
    locals: Vec<String>,
}

struct Gen<'c> {
    rng: SplitMix64,
    cfg: &'c GenConfig,
    globals: Vec<String>,
    sigs: Vec<Sig>,
    /// Statements left to generate in the whole program.
    budget: usize,
}

/// What the statement being generated may refer to.
struct Ctx {
    proc: usize,
    /// Globals, then parameters and locals.
    scope: Vec<String>,
    /// Parameters and locals only.
    frame: Vec<String>,
}

/// A random well-formed program (see the module doc); the same `seed` and `cfg` always give
/// the same program.
pub fn random_program(seed: u64, cfg: &GenConfig) -> Program {
    let mut g = Gen {
        rng: SplitMix64::new(seed),
        cfg,
        globals: Vec::new(),
        sigs: Vec::new(),
        budget: cfg.max_stmts.max(1),
    };
    g.program()
}

/// Every label of `prog` (each name once, in order of first appearance): candidates for a
/// `Label` property.
pub fn labels(prog: &Program) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in &prog.procs {
        for (_, s) in p.stmts_preorder() {
            for l in &s.labels {
                if !out.contains(&l.name) {
                    out.push(l.name.clone());
                }
            }
        }
    }
    out
}

/// Calls `f` on every statement of `stmts` in pre-order (the [`bp_grammar::ast::StmtId`]
/// order).
fn for_each_stmt_mut(stmts: &mut [Stmt], f: &mut impl FnMut(&mut Stmt)) {
    for s in stmts {
        f(s);
        match &mut s.kind {
            StmtKind::If { arms, els } => {
                for arm in arms {
                    for_each_stmt_mut(&mut arm.body, f);
                }
                if let Some(e) = els {
                    for_each_stmt_mut(e, f);
                }
            }
            StmtKind::While { body, .. } => for_each_stmt_mut(body, f),
            _ => {}
        }
    }
}

fn count_stmts(stmts: &[Stmt]) -> usize {
    let mut n = 0;
    let mut v = stmts.to_vec();
    for_each_stmt_mut(&mut v, &mut |_| n += 1);
    n
}

impl Gen<'_> {
    fn program(&mut self) -> Program {
        let n_globals = if self.cfg.max_globals == 0 || self.rng.chance(5) {
            0
        } else {
            self.rng.range(1, self.cfg.max_globals)
        };
        self.globals = (0..n_globals).map(|i| format!("g{i}")).collect();
        let n_procs = self.rng.range(1, self.cfg.max_procs.max(1));
        for i in 0..n_procs {
            let sig = self.signature(i);
            self.sigs.push(sig);
        }
        // Share the statement budget: main gets more.
        let mut procs = Vec::new();
        for i in 0..n_procs {
            let len = if i == 0 {
                self.rng.range(3, (self.cfg.max_stmts / 3).max(3))
            } else {
                self.rng.range(1, (self.cfg.max_stmts / 5).max(1))
            };
            procs.push(self.procedure(i, len));
        }
        self.add_slic_error(&mut procs);
        for p in &mut procs {
            self.fill_gotos(p);
        }
        // `main` is procs[0]; put it anywhere in the file.
        let at = self.rng.below(procs.len());
        let main = procs.remove(0);
        procs.insert(at, main);
        let globals: Vec<&str> = self.globals.iter().map(String::as_str).collect();
        build::program(&globals, procs)
    }

    fn signature(&mut self, i: usize) -> Sig {
        let max_frame = self.cfg.max_frame_vars;
        let (name, ret, n_params) = if i == 0 {
            let ret = match self.rng.weighted(&[85, 10, 5]) {
                0 => RetType::Void,
                1 => RetType::Bool(1),
                _ => RetType::Bool(2),
            };
            let n_params = usize::from(max_frame > 0 && self.rng.chance(10));
            ("main".to_string(), ret, n_params)
        } else {
            let ret = match self.rng.weighted(&[40, 40, 20]) {
                0 => RetType::Void,
                1 => RetType::Bool(1),
                _ => RetType::Bool(2),
            };
            (format!("f{i}"), ret, self.rng.range(0, 2.min(max_frame)))
        };
        let n_locals = self.rng.range(0, max_frame - n_params);
        Sig {
            name,
            ret,
            params: (0..n_params).map(|k| format!("a{k}")).collect(),
            locals: (0..n_locals).map(|k| format!("l{k}")).collect(),
        }
    }

    fn procedure(&mut self, i: usize, len: usize) -> Procedure {
        let sig = &self.sigs[i];
        let frame: Vec<String> = sig.params.iter().chain(&sig.locals).cloned().collect();
        let mut scope = self.globals.clone();
        scope.extend(frame.iter().cloned());
        let ctx = Ctx {
            proc: i,
            scope,
            frame,
        };
        let enforce = if !ctx.scope.is_empty() && self.rng.chance(self.cfg.enforce_percent) {
            Some(self.enforce_expr(&ctx))
        } else {
            None
        };
        let mut body = Vec::new();
        // Like C code: often start by initialising (main: globals and locals; others: locals),
        // which makes asserts provable more often.
        let init: Vec<String> = if i == 0 {
            ctx.scope.clone()
        } else {
            self.sigs[i].locals.clone()
        };
        if !init.is_empty() && self.rng.chance(self.cfg.init_percent) {
            let names: Vec<&str> = init.iter().map(String::as_str).collect();
            let values = init
                .iter()
                .map(|_| {
                    if self.rng.chance(15) {
                        build::nondet()
                    } else {
                        Expr::constant(self.rng.coin())
                    }
                })
                .collect();
            body.push(build::assign(&names, values));
        }
        if i == 0 || !self.rng.chance(self.cfg.empty_percent) {
            body.extend(self.block(&ctx, 0, len));
        }
        let sig = &self.sigs[i];
        let params: Vec<&str> = sig.params.iter().map(String::as_str).collect();
        let locals: Vec<&str> = sig.locals.iter().map(String::as_str).collect();
        build::procedure(&sig.name, sig.ret, &params, &locals, enforce, body)
    }

    /// An enforce: a small satisfiable-looking constraint such as `a | b` or `!(x & y)`.
    fn enforce_expr(&mut self, ctx: &Ctx) -> Expr {
        // Mostly over globals, which callees change: then the enforce also cuts returns.
        let var = |g: &mut Self| {
            if !g.globals.is_empty() && g.rng.chance(70) {
                g.rng.pick(&g.globals).clone()
            } else {
                g.rng.pick(&ctx.scope).clone()
            }
        };
        let x = var(self);
        let y = var(self);
        match self.rng.below(4) {
            0 => build::or(build::var(&x), build::var(&y)),
            1 => build::not(build::and(build::var(&x), build::var(&y))),
            2 => build::bin(BinOp::Implies, build::var(&x), build::var(&y)),
            _ => self.expr(ctx, 1, false),
        }
    }

    /// A nested body: empty now and then, otherwise `len` statements (at least one).
    fn body(&mut self, ctx: &Ctx, depth: usize, len: usize) -> Vec<Stmt> {
        if self.rng.chance(self.cfg.empty_percent) {
            Vec::new()
        } else {
            self.block(ctx, depth, len)
        }
    }

    fn block(&mut self, ctx: &Ctx, depth: usize, len: usize) -> Vec<Stmt> {
        let mut out = Vec::new();
        for _ in 0..len.max(1) {
            if self.budget == 0 && !out.is_empty() {
                break;
            }
            self.budget = self.budget.saturating_sub(1);
            let s = self.stmt(ctx, depth);
            let is_call = matches!(s.kind, StmtKind::Call { .. });
            out.push(s);
            // Observe the state right after a return now and then (returned values, globals,
            // the caller's enforce), before any later step can cut or hide it.
            if is_call && self.budget > 0 && self.rng.chance(30) {
                self.budget -= 1;
                let cond = self.assert_cond(ctx);
                out.push(build::assert_(cond));
            }
        }
        out
    }

    fn stmt(&mut self, ctx: &Ctx, depth: usize) -> Stmt {
        let can_nest = depth < self.cfg.max_nesting && self.budget > 0;
        let callees = self.callees(ctx.proc);
        let in_main = ctx.proc == 0;
        // assign, call, if, while, assert, assume, goto, return, skip, print, dead
        let weights = [
            24,
            if callees.is_empty() { 0 } else { 14 },
            if can_nest { 10 } else { 0 },
            if can_nest { 4 } else { 0 },
            14,
            5,
            5,
            if in_main { 1 } else { 5 },
            2,
            2,
            3,
        ];
        match self.rng.weighted(&weights) {
            0 => self.assign(ctx),
            1 => self.call(ctx, &callees),
            2 => self.if_stmt(ctx, depth),
            3 => {
                let cond = self.cond(ctx, 40);
                let len = self.rng.range(1, 2);
                let body = self.body(ctx, depth + 1, len);
                build::while_(cond, body)
            }
            4 => {
                let cond = self.assert_cond(ctx);
                build::assert_(cond)
            }
            5 => {
                let cond = self.cond(ctx, 10);
                build::assume(cond)
            }
            // A placeholder; `fill_gotos` chooses the targets once labels are placed.
            6 => build::stmt(StmtKind::Goto(Vec::new())),
            7 => {
                let n = self.sigs[ctx.proc].ret.arity();
                let values = (0..n).map(|_| self.expr(ctx, 1, false)).collect();
                build::return_(values)
            }
            8 => build::skip(),
            9 => {
                let n = self.rng.range(1, 2);
                build::print((0..n).map(|_| self.expr(ctx, 1, false)).collect())
            }
            _ => {
                if ctx.scope.is_empty() {
                    return build::skip();
                }
                let pool = if !ctx.frame.is_empty() && self.rng.chance(70) {
                    &ctx.frame
                } else {
                    &ctx.scope
                };
                let k = self.rng.range(1, 2);
                let vars = self.distinct(pool, k);
                let names: Vec<&str> = vars.iter().map(String::as_str).collect();
                build::dead(&names)
            }
        }
    }

    /// The procedures `proc` may call (never `main`).
    fn callees(&self, proc: usize) -> Vec<usize> {
        (1..self.sigs.len())
            .filter(|&q| self.cfg.recursion || q > proc)
            .collect()
    }

    /// Up to `n` distinct names from `pool`.
    fn distinct(&mut self, pool: &[String], n: usize) -> Vec<String> {
        let mut left: Vec<String> = pool.to_vec();
        let mut out = Vec::new();
        while out.len() < n && !left.is_empty() {
            out.push(left.remove(self.rng.below(left.len())));
        }
        out
    }

    fn assign(&mut self, ctx: &Ctx) -> Stmt {
        if ctx.scope.is_empty() {
            return build::skip();
        }
        let n = self.rng.range(1, 3.min(ctx.scope.len()));
        let targets = self.distinct(&ctx.scope, n);
        let rhs = (0..n)
            .map(|_| {
                if self.rng.chance(10) {
                    let p = self.expr(ctx, 0, false);
                    let q = self.expr(ctx, 1, false);
                    build::schoose(p, q)
                } else {
                    let d = self.rng.range(0, self.cfg.max_expr_depth);
                    self.expr(ctx, d, false)
                }
            })
            .collect();
        let constrain = self.rng.chance(self.cfg.constrain_percent).then(|| {
            // Mention a primed target most of the time so the clause restricts the choice.
            let t = self.rng.pick(&targets).clone();
            let other = self.expr(ctx, 1, true);
            match self.rng.below(3) {
                0 => build::or(build::primed(&t), other),
                1 => build::eq(build::primed(&t), other),
                _ => other,
            }
        });
        let names: Vec<&str> = targets.iter().map(String::as_str).collect();
        match constrain {
            Some(c) => build::assign_constrain(&names, rhs, c),
            None => build::assign(&names, rhs),
        }
    }

    fn call(&mut self, ctx: &Ctx, callees: &[usize]) -> Stmt {
        let q = *self.rng.pick(callees);
        let n_args = self.sigs[q].params.len();
        let args = (0..n_args).map(|_| self.expr(ctx, 1, false)).collect();
        let arity = self.sigs[q].ret.arity();
        let mut lhs = Vec::new();
        if arity > 0 && self.rng.chance(75) {
            let mut free = ctx.scope.clone();
            for _ in 0..arity {
                if free.is_empty() || self.rng.chance(25) {
                    lhs.push(Lhs::Discard(Span::NONE));
                } else {
                    let v = free.remove(self.rng.below(free.len()));
                    lhs.push(Lhs::Var(bp_grammar::ast::Ident::new(v)));
                }
            }
        }
        build::stmt(StmtKind::Call {
            lhs,
            callee: bp_grammar::ast::Ident::new(self.sigs[q].name.clone()),
            args,
        })
    }

    fn if_stmt(&mut self, ctx: &Ctx, depth: usize) -> Stmt {
        let n_arms = 1 + self.rng.weighted(&[70, 25, 5]);
        let mut arms = Vec::new();
        for _ in 0..n_arms {
            let cond = self.cond(ctx, 25);
            let len = self.rng.range(1, 2);
            arms.push((cond, self.body(ctx, depth + 1, len)));
        }
        let els = self.rng.coin().then(|| {
            let len = self.rng.range(1, 2);
            self.body(ctx, depth + 1, len)
        });
        build::if_arms(arms, els)
    }

    /// A decider: `*` with probability `nondet_percent`, now and then a `schoose`, otherwise an
    /// expression.
    fn cond(&mut self, ctx: &Ctx, nondet_percent: u32) -> Expr {
        if ctx.scope.is_empty() || self.rng.chance(nondet_percent) {
            build::nondet()
        } else if self.rng.chance(5) {
            let p = self.expr(ctx, 0, false);
            let q = self.expr(ctx, 1, false);
            build::schoose(p, q)
        } else {
            let d = self.rng.range(0, 1);
            self.expr(ctx, d, false)
        }
    }

    /// An assertion: mostly over variables (and so sometimes provable), rarely `*`.
    fn assert_cond(&mut self, ctx: &Ctx) -> Expr {
        if ctx.scope.is_empty() || self.rng.chance(3) {
            return if self.rng.coin() {
                build::nondet()
            } else {
                Expr::constant(self.rng.chance(70))
            };
        }
        match self.rng.below(4) {
            // x | y, x => y: weak claims, often provable.
            0 => {
                let x = self.leaf_var(ctx);
                let y = self.expr(ctx, 1, false);
                build::or(x, y)
            }
            1 => {
                let x = self.leaf_var(ctx);
                let y = self.leaf_var(ctx);
                build::bin(BinOp::Implies, x, y)
            }
            2 => self.leaf_var(ctx),
            _ => self.expr(ctx, 1, false),
        }
    }

    fn leaf_var(&mut self, ctx: &Ctx) -> Expr {
        let v = self.rng.pick(&ctx.scope).clone();
        let e = build::var(&v);
        if self.rng.chance(30) {
            build::not(e)
        } else {
            e
        }
    }

    /// A random expression of depth at most `depth`; `primed` allows `'x` leaves.
    fn expr(&mut self, ctx: &Ctx, depth: usize, primed: bool) -> Expr {
        if depth == 0 || self.rng.chance(40) {
            let has_vars = !ctx.scope.is_empty();
            let w = [
                if has_vars { 10 } else { 0 },
                2,
                self.cfg.nondet_weight,
                if primed && has_vars { 6 } else { 0 },
            ];
            return match self.rng.weighted(&w) {
                0 => build::var(&self.rng.pick(&ctx.scope).clone()),
                1 => Expr::constant(self.rng.coin()),
                2 => build::nondet(),
                _ => build::primed(&self.rng.pick(&ctx.scope).clone()),
            };
        }
        let ops = [
            (2, None),
            (3, Some(BinOp::And)),
            (3, Some(BinOp::Or)),
            (1, Some(BinOp::Xor)),
            (1, Some(BinOp::Eq)),
            (1, Some(BinOp::Neq)),
            (1, Some(BinOp::Implies)),
        ];
        let w: Vec<u32> = ops.iter().map(|(w, _)| *w).collect();
        match ops[self.rng.weighted(&w)].1 {
            None => build::not(self.expr(ctx, depth - 1, primed)),
            Some(op) => {
                let a = self.expr(ctx, depth - 1, primed);
                let b = self.expr(ctx, depth - 1, primed);
                build::bin(op, a, b)
            }
        }
    }

    fn add_slic_error(&mut self, procs: &mut [Procedure]) {
        if !self.rng.chance(self.cfg.slic_error_percent) {
            return;
        }
        let i = self.rng.below(procs.len());
        let n = count_stmts(&procs[i].body);
        if n == 0 {
            return;
        }
        let at = self.rng.below(n);
        let mut k = 0;
        for_each_stmt_mut(&mut procs[i].body, &mut |s| {
            if k == at {
                s.labels.push(bp_grammar::ast::Ident::new("SLIC_ERROR"));
            }
            k += 1;
        });
    }

    /// Places labels `L0`, `L1`, ... on random statements of `p` and gives every goto
    /// placeholder one to three targets.
    fn fill_gotos(&mut self, p: &mut Procedure) {
        let n = count_stmts(&p.body);
        if n == 0 {
            return;
        }
        let mut n_gotos = 0;
        for_each_stmt_mut(&mut p.body, &mut |s| {
            if matches!(&s.kind, StmtKind::Goto(t) if t.is_empty()) {
                n_gotos += 1;
            }
        });
        let n_labels = if n_gotos > 0 {
            self.rng.range(1, 3)
        } else {
            usize::from(self.rng.chance(30))
        };
        let mut positions: Vec<usize> = Vec::new();
        for _ in 0..n_labels {
            positions.push(self.rng.below(n));
        }
        let mut names: Vec<String> = Vec::new();
        let mut k = 0;
        for_each_stmt_mut(&mut p.body, &mut |s| {
            for _ in positions.iter().filter(|&&x| x == k) {
                let name = format!("L{}", names.len());
                s.labels.push(bp_grammar::ast::Ident::new(name.clone()));
                names.push(name);
            }
            k += 1;
        });
        // Existing labels (e.g. SLIC_ERROR) are targets too.
        for_each_stmt_mut(&mut p.body, &mut |s| {
            for l in &s.labels {
                if !names.contains(&l.name) {
                    names.push(l.name.clone());
                }
            }
        });
        let rng = &mut self.rng;
        for_each_stmt_mut(&mut p.body, &mut |s| {
            if matches!(&s.kind, StmtKind::Goto(t) if t.is_empty()) {
                let count = rng.weighted(&[60, 30, 10]) + 1;
                let targets = (0..count)
                    .map(|_| bp_grammar::ast::Ident::new(rng.pick(&names).clone()))
                    .collect();
                s.kind = StmtKind::Goto(targets);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic() {
        let cfg = GenConfig::default();
        for seed in 0..50 {
            assert_eq!(random_program(seed, &cfg), random_program(seed, &cfg));
        }
    }

    #[test]
    fn every_program_has_main_and_compiles() {
        let cfg = GenConfig::default();
        for seed in 0..500 {
            let p = random_program(seed, &cfg);
            assert!(p.proc("main").is_some());
            crate::reference::Machine::new(&p).expect("generated programs are well-formed");
        }
    }
}
