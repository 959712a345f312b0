//! A plain `.bp` writer for test reports, independent of `bp_grammar::print`.
//!
//! The canonical printer lives in `bp_grammar::print`; this one exists so that failing seeds
//! and shrunk programs can be shown even while that printer is unavailable or suspected. Its
//! output is valid `.bp` (expressions fully parenthesised, statement ids in comments) but makes
//! no promise of canonical form.

use bp_grammar::ast::{Expr, Lhs, Procedure, Program, RetType, Stmt, StmtKind};
use std::fmt::Write;

/// An expression, fully parenthesised.
pub fn expr_text(e: &Expr) -> String {
    match e {
        Expr::Const(b, _) => if *b { "T" } else { "F" }.to_string(),
        Expr::Var(id) => id.name.clone(),
        Expr::Primed(id) => format!("'{}", id.name),
        Expr::Nondet(_) => "*".to_string(),
        Expr::Not(a, _) => format!("!{}", expr_text(a)),
        Expr::Binary(op, a, b, _) => {
            format!("({} {} {})", expr_text(a), op.symbol(), expr_text(b))
        }
        Expr::Schoose(p, n, _) => format!("schoose[{}, {}]", expr_text(p), expr_text(n)),
    }
}

fn list(es: &[Expr]) -> String {
    es.iter().map(expr_text).collect::<Vec<_>>().join(", ")
}

fn lhs_text(l: &[Lhs]) -> String {
    l.iter()
        .map(|x| match x {
            Lhs::Var(v) => v.name.clone(),
            Lhs::Discard(_) => "_".to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

struct W {
    out: String,
    id: u32,
}

impl W {
    fn stmts(&mut self, stmts: &[Stmt], indent: usize) {
        for s in stmts {
            self.stmt(s, indent);
        }
    }

    fn stmt(&mut self, s: &Stmt, indent: usize) {
        let pad = "  ".repeat(indent);
        let labels: String = s.labels.iter().map(|l| format!("{}: ", l.name)).collect();
        let id = self.id;
        self.id += 1;
        let head = match &s.kind {
            StmtKind::Skip => "skip;".to_string(),
            StmtKind::Print(es) => format!("print({});", list(es)),
            StmtKind::Goto(ls) => format!(
                "goto {};",
                ls.iter()
                    .map(|l| l.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            StmtKind::Return(es) if es.is_empty() => "return;".to_string(),
            StmtKind::Return(es) => format!("return {};", list(es)),
            StmtKind::Assign {
                lhs,
                rhs,
                constrain,
            } => {
                let mut t = format!("{} := {}", lhs_text(lhs), list(rhs));
                if let Some(c) = constrain {
                    let _ = write!(t, " constrain {}", expr_text(c));
                }
                t.push(';');
                t
            }
            StmtKind::Call { lhs, callee, args } => {
                let target = if lhs.is_empty() {
                    String::new()
                } else {
                    format!("{} := ", lhs_text(lhs))
                };
                format!("{target}{}({});", callee.name, list(args))
            }
            StmtKind::If { arms, .. } => format!("if {} then", expr_text(&arms[0].cond)),
            StmtKind::While { cond, .. } => format!("while {} do", expr_text(cond)),
            StmtKind::Assert(e) => format!("assert({});", expr_text(e)),
            StmtKind::Assume(e) => format!("assume({});", expr_text(e)),
            StmtKind::Dead(vs) => format!(
                "dead {};",
                vs.iter()
                    .map(|v| v.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let _ = writeln!(self.out, "{pad}{labels}{head} // #{id}");
        match &s.kind {
            StmtKind::If { arms, els } => {
                for (i, arm) in arms.iter().enumerate() {
                    if i > 0 {
                        let _ = writeln!(self.out, "{pad}elsif {} then", expr_text(&arm.cond));
                    }
                    self.stmts(&arm.body, indent + 1);
                }
                if let Some(e) = els {
                    let _ = writeln!(self.out, "{pad}else");
                    self.stmts(e, indent + 1);
                }
                let _ = writeln!(self.out, "{pad}fi");
            }
            StmtKind::While { body, .. } => {
                self.stmts(body, indent + 1);
                let _ = writeln!(self.out, "{pad}od");
            }
            _ => {}
        }
    }
}

fn names<'a>(it: impl Iterator<Item = &'a bp_grammar::ast::Ident>) -> String {
    it.map(|i| i.name.as_str()).collect::<Vec<_>>().join(", ")
}

/// A procedure as `.bp` text.
pub fn procedure_text(p: &Procedure) -> String {
    let ret = match p.ret {
        RetType::Void => "void".to_string(),
        RetType::Bool(1) => "bool".to_string(),
        RetType::Bool(n) => format!("bool<{n}>"),
    };
    let mut w = W {
        out: format!("{ret} {}({}) begin\n", p.name.name, names(p.params.iter())),
        id: 0,
    };
    for d in &p.locals {
        let _ = writeln!(w.out, "  decl {};", names(d.vars.iter()));
    }
    if let Some(e) = &p.enforce {
        let _ = writeln!(w.out, "  enforce {};", expr_text(e));
    }
    w.stmts(&p.body, 1);
    w.out.push_str("end\n");
    w.out
}

/// A whole program as `.bp` text (statement ids, i.e. pre-order indices, in comments).
pub fn program_text(prog: &Program) -> String {
    let mut out = String::new();
    for d in &prog.globals {
        let _ = writeln!(out, "decl {};", names(d.vars.iter()));
    }
    for p in &prog.procs {
        out.push('\n');
        out.push_str(&procedure_text(p));
    }
    out
}
