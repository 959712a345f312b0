//! A greedy test-case reducer for Boolean programs.
//!
//! [`shrink`] repeatedly tries small edits of a failing program (drop a procedure, a
//! statement, a label or a variable; replace a statement by `skip` or an `if`/`while` by one of
//! its bodies; replace an expression by `T`, `F`, `*` or one of its operands; drop a `constrain`
//! or `enforce`) and keeps the first edit that leaves the program well-formed
//! (`bp_grammar::check` and [`crate::reference::Machine::new`] accept it) and still failing,
//! until no edit helps. Every accepted edit strictly decreases a size measure, so it
//! terminates.

use crate::reference::Machine;
use bp_grammar::ast::{Expr, Lhs, Program, Stmt, StmtKind};

/// The most predicate evaluations one [`shrink`] spends.
pub const MAX_TRIES: usize = 20_000;

/// A smaller program on which `still_fails` holds (`prog` itself if nothing smaller is found).
/// `still_fails` is only called on well-formed programs.
pub fn shrink(prog: &Program, still_fails: &mut dyn FnMut(&Program) -> bool) -> Program {
    let mut cur = prog.clone();
    let mut tries = 0;
    'outer: loop {
        let size = measure(&cur);
        for cand in candidates(&cur) {
            if measure(&cand) >= size || !well_formed(&cand) {
                continue;
            }
            tries += 1;
            if tries > MAX_TRIES {
                break 'outer;
            }
            if still_fails(&cand) {
                cur = cand;
                continue 'outer;
            }
        }
        break;
    }
    cur
}

fn well_formed(p: &Program) -> bool {
    Machine::new(p).is_ok() && !bp_grammar::check(p, "").iter().any(|d| d.is_error())
}

fn expr_size(e: &Expr) -> usize {
    match e {
        Expr::Const(..) => 10,
        Expr::Var(_) | Expr::Primed(_) | Expr::Nondet(_) => 11,
        Expr::Not(a, _) => 10 + expr_size(a),
        Expr::Binary(_, a, b, _) | Expr::Schoose(a, b, _) => 10 + expr_size(a) + expr_size(b),
    }
}

fn stmts_size(stmts: &[Stmt]) -> usize {
    stmts.iter().map(stmt_size).sum()
}

fn stmt_size(s: &Stmt) -> usize {
    let mut n = 10_000 + 500 * s.labels.len();
    let mut add = |e: &Expr| n += expr_size(e);
    match &s.kind {
        StmtKind::Skip | StmtKind::Goto(_) | StmtKind::Dead(_) => {}
        StmtKind::Print(es) | StmtKind::Return(es) => es.iter().for_each(&mut add),
        StmtKind::Assign { rhs, constrain, .. } => {
            rhs.iter().for_each(&mut add);
            constrain.iter().for_each(&mut add);
        }
        StmtKind::Call { args, .. } => args.iter().for_each(&mut add),
        StmtKind::If { arms, els } => {
            for a in arms {
                add(&a.cond);
            }
            n += arms.iter().map(|a| stmts_size(&a.body)).sum::<usize>();
            n += els.as_deref().map_or(0, stmts_size);
        }
        StmtKind::While { cond, body } => {
            add(cond);
            n += stmts_size(body);
        }
        StmtKind::Assert(e) | StmtKind::Assume(e) => add(e),
    }
    if let StmtKind::Goto(ls) = &s.kind {
        n += 100 * ls.len();
    }
    if let StmtKind::Dead(vs) = &s.kind {
        n += 100 * vs.len();
    }
    n
}

fn measure(p: &Program) -> usize {
    let vars = p.global_vars().count()
        + p.procs
            .iter()
            .map(|q| q.frame_vars().count())
            .sum::<usize>();
    p.procs
        .iter()
        .map(|q| {
            100_000
                + stmts_size(&q.body)
                + q.enforce.as_ref().map_or(0, expr_size)
                + 1000 * q.params.len()
        })
        .sum::<usize>()
        + 1000 * vars
}

/// Replaces the `k`-th statement (pre-order) of `stmts` by `with(stmt)`; false if there is no
/// such statement.
fn edit_nth(
    stmts: &mut Vec<Stmt>,
    k: &mut usize,
    with: &mut dyn FnMut(&Stmt) -> Vec<Stmt>,
) -> bool {
    let mut i = 0;
    while i < stmts.len() {
        if *k == 0 {
            let repl = with(&stmts[i]);
            stmts.splice(i..=i, repl);
            return true;
        }
        *k -= 1;
        let done = match &mut stmts[i].kind {
            StmtKind::If { arms, els } => {
                arms.iter_mut().any(|a| edit_nth(&mut a.body, k, with))
                    || els.as_mut().is_some_and(|e| edit_nth(e, k, with))
            }
            StmtKind::While { body, .. } => edit_nth(body, k, with),
            _ => false,
        };
        if done {
            return true;
        }
        i += 1;
    }
    false
}

fn count(stmts: &[Stmt]) -> usize {
    stmts
        .iter()
        .map(|s| {
            1 + match &s.kind {
                StmtKind::If { arms, els } => {
                    arms.iter().map(|a| count(&a.body)).sum::<usize>()
                        + els.as_deref().map_or(0, count)
                }
                StmtKind::While { body, .. } => count(body),
                _ => 0,
            }
        })
        .sum()
}

/// The expressions directly in a statement (not in nested statements).
fn expr_slots(s: &mut Stmt) -> Vec<&mut Expr> {
    match &mut s.kind {
        StmtKind::Skip | StmtKind::Goto(_) | StmtKind::Dead(_) => Vec::new(),
        StmtKind::Print(es) | StmtKind::Return(es) => es.iter_mut().collect(),
        StmtKind::Assign { rhs, constrain, .. } => {
            rhs.iter_mut().chain(constrain.iter_mut()).collect()
        }
        StmtKind::Call { args, .. } => args.iter_mut().collect(),
        StmtKind::If { arms, .. } => arms.iter_mut().map(|a| &mut a.cond).collect(),
        StmtKind::While { cond, .. } => vec![cond],
        StmtKind::Assert(e) | StmtKind::Assume(e) => vec![e],
    }
}

/// Smaller versions of an expression: constants, `*`, operands.
fn expr_alternatives(e: &Expr) -> Vec<Expr> {
    let mut out = vec![Expr::constant(true), Expr::constant(false)];
    if !matches!(e, Expr::Primed(_)) {
        out.push(Expr::Nondet(bp_grammar::ast::Span::NONE));
    }
    match e {
        Expr::Not(a, _) => out.push((**a).clone()),
        Expr::Binary(_, a, b, _) | Expr::Schoose(a, b, _) => {
            out.push((**a).clone());
            out.push((**b).clone());
        }
        _ => {}
    }
    out
}

/// Statement-level alternatives of one statement.
fn stmt_alternatives(s: &Stmt) -> Vec<Vec<Stmt>> {
    let mut out: Vec<Vec<Stmt>> = vec![Vec::new()];
    let skip = Stmt {
        kind: StmtKind::Skip,
        ..s.clone()
    };
    if !matches!(s.kind, StmtKind::Skip) {
        out.push(vec![skip]);
    }
    for i in 0..s.labels.len() {
        let mut t = s.clone();
        t.labels.remove(i);
        out.push(vec![t]);
    }
    match &s.kind {
        StmtKind::If { arms, els } => {
            for a in arms {
                out.push(a.body.clone());
            }
            if let Some(e) = els {
                out.push(e.clone());
                let mut t = s.clone();
                if let StmtKind::If { els, .. } = &mut t.kind {
                    *els = None;
                }
                out.push(vec![t]);
            }
            if arms.len() > 1 {
                for i in 0..arms.len() {
                    let mut t = s.clone();
                    if let StmtKind::If { arms, .. } = &mut t.kind {
                        arms.remove(i);
                    }
                    out.push(vec![t]);
                }
            }
        }
        StmtKind::While { body, .. } => out.push(body.clone()),
        StmtKind::Goto(ls) if ls.len() > 1 => {
            for i in 0..ls.len() {
                let mut t = s.clone();
                if let StmtKind::Goto(ls) = &mut t.kind {
                    ls.remove(i);
                }
                out.push(vec![t]);
            }
        }
        StmtKind::Dead(vs) if vs.len() > 1 => {
            for i in 0..vs.len() {
                let mut t = s.clone();
                if let StmtKind::Dead(vs) = &mut t.kind {
                    vs.remove(i);
                }
                out.push(vec![t]);
            }
        }
        StmtKind::Assign {
            lhs,
            rhs,
            constrain,
        } => {
            if constrain.is_some() {
                let mut t = s.clone();
                if let StmtKind::Assign { constrain, .. } = &mut t.kind {
                    *constrain = None;
                }
                out.push(vec![t]);
            }
            if lhs.len() > 1 {
                for i in 0..lhs.len() {
                    let mut t = s.clone();
                    if let StmtKind::Assign { lhs, rhs: r, .. } = &mut t.kind {
                        lhs.remove(i);
                        r.remove(i);
                    }
                    out.push(vec![t]);
                }
            }
            let _ = rhs;
        }
        StmtKind::Call { lhs, .. } if !lhs.is_empty() => {
            let mut t = s.clone();
            if let StmtKind::Call { lhs, .. } = &mut t.kind {
                lhs.clear();
            }
            out.push(vec![t]);
        }
        _ => {}
    }
    out
}

/// A call to `name` replaced by an assignment of `*` to its targets (or `skip`).
fn without_calls_to(stmts: &mut [Stmt], name: &str) {
    for s in stmts {
        let repl = match &mut s.kind {
            StmtKind::Call { lhs, callee, .. } if callee.name == name => {
                let targets: Vec<Lhs> = lhs
                    .iter()
                    .filter(|l| matches!(l, Lhs::Var(_)))
                    .cloned()
                    .collect();
                Some(if targets.is_empty() {
                    StmtKind::Skip
                } else {
                    StmtKind::Assign {
                        rhs: vec![Expr::Nondet(bp_grammar::ast::Span::NONE); targets.len()],
                        lhs: targets,
                        constrain: None,
                    }
                })
            }
            StmtKind::If { arms, els } => {
                for a in arms {
                    without_calls_to(&mut a.body, name);
                }
                if let Some(e) = els {
                    without_calls_to(e, name);
                }
                None
            }
            StmtKind::While { body, .. } => {
                without_calls_to(body, name);
                None
            }
            _ => None,
        };
        if let Some(k) = repl {
            s.kind = k;
        }
    }
}

/// Every single-edit variant of `p` (not necessarily well-formed or smaller).
fn candidates(p: &Program) -> Vec<Program> {
    let mut out = Vec::new();
    // Drop a procedure.
    for (i, q) in p.procs.iter().enumerate() {
        if q.name.name == "main" {
            continue;
        }
        let mut c = p.clone();
        let name = c.procs.remove(i).name.name;
        for r in &mut c.procs {
            without_calls_to(&mut r.body, &name);
        }
        out.push(c);
    }
    // Statements.
    for (i, q) in p.procs.iter().enumerate() {
        let n = count(&q.body);
        for k in 0..n {
            let mut alts = Vec::new();
            let mut kk = k;
            let mut body = q.body.clone();
            edit_nth(&mut body, &mut kk, &mut |s| {
                alts = stmt_alternatives(s);
                vec![s.clone()]
            });
            for alt in alts {
                let mut c = p.clone();
                let mut kk = k;
                let mut alt = Some(alt);
                edit_nth(&mut c.procs[i].body, &mut kk, &mut |_| {
                    alt.take().expect("called once")
                });
                out.push(c);
            }
        }
    }
    // Expressions.
    for (i, q) in p.procs.iter().enumerate() {
        if let Some(e) = &q.enforce {
            let mut c = p.clone();
            c.procs[i].enforce = None;
            out.push(c);
            for a in expr_alternatives(e) {
                let mut c = p.clone();
                c.procs[i].enforce = Some(a);
                out.push(c);
            }
        }
        for k in 0..count(&q.body) {
            let mut slots = Vec::new();
            let mut kk = k;
            let mut body = q.body.clone();
            edit_nth(&mut body, &mut kk, &mut |s| {
                let mut s2 = s.clone();
                slots = expr_slots(&mut s2)
                    .into_iter()
                    .map(|e| expr_alternatives(e))
                    .collect();
                vec![s.clone()]
            });
            for (j, alts) in slots.into_iter().enumerate() {
                for a in alts {
                    let mut c = p.clone();
                    let mut kk = k;
                    let mut a = Some(a);
                    edit_nth(&mut c.procs[i].body, &mut kk, &mut |s| {
                        let mut s2 = s.clone();
                        *expr_slots(&mut s2)[j] = a.take().expect("called once");
                        vec![s2]
                    });
                    out.push(c);
                }
            }
        }
    }
    // Variables (only useful once unused).
    for d in 0..p.globals.len() {
        for v in 0..p.globals[d].vars.len() {
            let mut c = p.clone();
            c.globals[d].vars.remove(v);
            if c.globals[d].vars.is_empty() {
                c.globals.remove(d);
            }
            out.push(c);
        }
    }
    for (i, q) in p.procs.iter().enumerate() {
        for d in 0..q.locals.len() {
            for v in 0..q.locals[d].vars.len() {
                let mut c = p.clone();
                c.procs[i].locals[d].vars.remove(v);
                if c.procs[i].locals[d].vars.is_empty() {
                    c.procs[i].locals.remove(d);
                }
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generator::{GenConfig, random_program};
    use crate::reference::{RefProperty, reachable_error};

    #[test]
    fn shrinks_an_unsafe_program_to_a_small_one() {
        let prop = RefProperty::AssertsAndSlicError;
        let cfg = GenConfig::default();
        let mut done = 0;
        for seed in 0..40 {
            let p = random_program(seed, &cfg);
            if !reachable_error(&p, &prop) {
                continue;
            }
            let small = shrink(&p, &mut |q| reachable_error(q, &prop));
            assert!(reachable_error(&small, &prop));
            assert!(measure(&small) <= measure(&p));
            // An unsafe program shrinks to (about) one failing assert or label in main.
            let stmts: usize = small.procs.iter().map(|q| count(&q.body)).sum();
            assert!(
                stmts <= 3,
                "seed {seed}: {}",
                crate::text::program_text(&small)
            );
            done += 1;
        }
        assert!(done > 5);
    }
}
