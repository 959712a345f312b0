//! The canonical printer: [`Program`] back to `.bp` text that re-parses to the same program.
//!
//! The contract is `parse(print(p)) == p` for every program `p` the parser produces (spans do
//! not take part in equality), and printing is idempotent. The layout is fixed:
//!
//! - the file header as one `//@@ k=v k2="a value"` line, then a blank line;
//! - global declarations, one `decl a, b;` per line as in the AST, then a blank line;
//! - procedures separated by blank lines: `void main() begin`, `bool f(a) begin`,
//!   `bool<2> g(a, b) begin` (`Bool(1)` is written `bool`); then the locals `decl x, y;`, the
//!   `enforce e;` and the statements, indented two spaces per level; then `end`;
//! - every statement on its own line, its labels in front (`L1: L2: x := e;`); the compound
//!   statements as `if c then` / `elsif c then` / `else` / `fi` and `while c do` / `od`, without
//!   `;` after `fi`/`od`;
//! - annotations of a declaration, procedure or statement as one `//@ k=v ...` line directly
//!   before it (before its labels). A value is quoted only when it must be: when it is empty
//!   or contains whitespace, `"` or `\` (inside quotes, `"` and `\` are escaped with `\`).
//!
//! Expressions are parenthesised so that they mean the same under the Moped and the CPROVER
//! precedence (`bp-semantics.md`): every binary node is wrapped in parentheses, `(a & b)`, and
//! conditions, assertions and arguments rely on that (`if (a & b) then`, `if g then`,
//! `while * do`, `assert !(a | b);`). The one exception: a chain of the same left-associative
//! operator `&`, `|` or `^` is written flat inside one pair, `(a & b & c)` for
//! `((a & b) & c)`. Both dialects read `&`, `|` and `^` as left-associative, so the meaning is
//! the same, and long generated conjunctions or disjunctions do not exceed the parser's
//! parenthesis-depth limit ([`crate::ast::MAX_PAREN_DEPTH`]). `=`, `!=` and `=>` are never
//! flattened: CPROVER reads them right-associative. Negation is `!e`, constants `T`/`F`,
//! nondeterminism `*`, primed variables `'x`, and `schoose[e1, e2]`. Identifiers, including
//! escaped `{x < y}` ones, are printed as written.
//!
//! Known limit: an annotation value containing a line break cannot be represented (the
//! annotation syntax has no escape for it); it is printed inside quotes and will not re-parse.
//!
//! Recursion follows the shape of the AST (statement nesting and the right operands of
//! expressions; left-operand chains of one operator are walked iteratively), which the parser
//! bounds by [`crate::ast::MAX_STMT_DEPTH`] and [`crate::ast::MAX_EXPR_DEPTH`].

use crate::ast::{
    Annotations, BinOp, Decl, Expr, Ident, Lhs, Procedure, Program, RetType, Stmt, StmtKind,
};
use std::fmt::Write as _;

/// Prints a program in canonical form (ends with a newline unless the program is empty).
pub fn print(prog: &Program) -> String {
    let mut out = String::new();
    let mut sections = 0usize;
    if !prog.header.is_empty() {
        out.push_str("//@@");
        write_pairs(&mut out, &prog.header);
        out.push('\n');
        sections += 1;
    }
    if !prog.globals.is_empty() {
        if sections > 0 {
            out.push('\n');
        }
        for decl in &prog.globals {
            write_decl(&mut out, decl, 0);
        }
        sections += 1;
    }
    for proc in &prog.procs {
        if sections > 0 {
            out.push('\n');
        }
        write_proc(&mut out, proc);
        sections += 1;
    }
    out
}

/// Prints an expression in canonical form: binary nodes parenthesised (same-operator chains of
/// `&`, `|`, `^` flat inside one pair), so that it means the same under either precedence.
pub fn print_expr(e: &Expr) -> String {
    let mut out = String::new();
    write_expr(&mut out, e);
    out
}

/// The statement on one line, without labels or annotations, exactly as [`print()`] writes it;
/// compound statements give their head only (`if g then`, `if (a & b) then`, `while * do`).
pub fn print_stmt_head(s: &Stmt) -> String {
    let mut out = String::new();
    write_kind_head(&mut out, &s.kind);
    out
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

/// ` k=v k2="..."` (each pair preceded by a space).
fn write_pairs(out: &mut String, ann: &Annotations) {
    for (key, value) in &ann.0 {
        out.push(' ');
        out.push_str(key);
        out.push('=');
        write_value(out, value);
    }
}

fn needs_quotes(value: &str) -> bool {
    value.is_empty()
        || value
            .chars()
            .any(|c| c.is_whitespace() || c == '"' || c == '\\')
}

/// An annotation value as written in a `.bp` file: bare when it can be, otherwise
/// double-quoted with `"` and `\` escaped (`docs/bp-semantics.md`, "Annotations").
pub fn annotation_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    write_value(&mut out, value);
    out
}

fn write_value(out: &mut String, value: &str) {
    if !needs_quotes(value) {
        out.push_str(value);
        return;
    }
    out.push('"');
    for c in value.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

fn write_annotations(out: &mut String, ann: &Annotations, level: usize) {
    if ann.is_empty() {
        return;
    }
    indent(out, level);
    out.push_str("//@");
    write_pairs(out, ann);
    out.push('\n');
}

fn write_idents(out: &mut String, ids: &[Ident]) {
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&id.name);
    }
}

fn write_exprs(out: &mut String, es: &[Expr]) {
    for (i, e) in es.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_expr(out, e);
    }
}

fn write_lhs(out: &mut String, lhs: &[Lhs]) {
    for (i, l) in lhs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        match l {
            Lhs::Var(id) => out.push_str(&id.name),
            Lhs::Discard(_) => out.push('_'),
        }
    }
}

fn write_decl(out: &mut String, decl: &Decl, level: usize) {
    write_annotations(out, &decl.annotations, level);
    indent(out, level);
    out.push_str("decl ");
    write_idents(out, &decl.vars);
    out.push_str(";\n");
}

fn write_proc(out: &mut String, proc: &Procedure) {
    write_annotations(out, &proc.annotations, 0);
    match proc.ret {
        RetType::Void => out.push_str("void "),
        RetType::Bool(1) => out.push_str("bool "),
        RetType::Bool(n) => {
            let _ = write!(out, "bool<{n}> ");
        }
    }
    out.push_str(&proc.name.name);
    out.push('(');
    write_idents(out, &proc.params);
    out.push_str(") begin\n");
    for decl in &proc.locals {
        write_decl(out, decl, 1);
    }
    if let Some(e) = &proc.enforce {
        indent(out, 1);
        out.push_str("enforce ");
        write_expr(out, e);
        out.push_str(";\n");
    }
    write_stmts(out, &proc.body, 1);
    out.push_str("end\n");
}

fn write_stmts(out: &mut String, stmts: &[Stmt], level: usize) {
    for s in stmts {
        write_stmt(out, s, level);
    }
}

fn write_stmt(out: &mut String, s: &Stmt, level: usize) {
    write_annotations(out, &s.annotations, level);
    indent(out, level);
    for label in &s.labels {
        out.push_str(&label.name);
        out.push_str(": ");
    }
    write_kind_head(out, &s.kind);
    out.push('\n');
    match &s.kind {
        StmtKind::If { arms, els } => {
            for (i, arm) in arms.iter().enumerate() {
                if i > 0 {
                    indent(out, level);
                    out.push_str("elsif ");
                    write_expr(out, &arm.cond);
                    out.push_str(" then\n");
                }
                write_stmts(out, &arm.body, level + 1);
            }
            if let Some(body) = els {
                indent(out, level);
                out.push_str("else\n");
                write_stmts(out, body, level + 1);
            }
            indent(out, level);
            out.push_str("fi\n");
        }
        StmtKind::While { body, .. } => {
            write_stmts(out, body, level + 1);
            indent(out, level);
            out.push_str("od\n");
        }
        _ => {}
    }
}

/// A simple statement in full (with its `;`), or the first line of a compound one.
fn write_kind_head(out: &mut String, kind: &StmtKind) {
    match kind {
        StmtKind::Skip => out.push_str("skip;"),
        StmtKind::Print(args) => {
            out.push_str("print(");
            write_exprs(out, args);
            out.push_str(");");
        }
        StmtKind::Goto(targets) => {
            out.push_str("goto ");
            write_idents(out, targets);
            out.push(';');
        }
        StmtKind::Return(values) => {
            out.push_str("return");
            if !values.is_empty() {
                out.push(' ');
                write_exprs(out, values);
            }
            out.push(';');
        }
        StmtKind::Assign {
            lhs,
            rhs,
            constrain,
        } => {
            write_lhs(out, lhs);
            out.push_str(" := ");
            write_exprs(out, rhs);
            if let Some(c) = constrain {
                out.push_str(" constrain ");
                write_expr(out, c);
            }
            out.push(';');
        }
        StmtKind::Call { lhs, callee, args } => {
            if !lhs.is_empty() {
                write_lhs(out, lhs);
                out.push_str(" := ");
            }
            out.push_str(&callee.name);
            out.push('(');
            write_exprs(out, args);
            out.push_str(");");
        }
        StmtKind::If { arms, .. } => {
            out.push_str("if ");
            if let Some(arm) = arms.first() {
                write_expr(out, &arm.cond);
            }
            out.push_str(" then");
        }
        StmtKind::While { cond, .. } => {
            out.push_str("while ");
            write_expr(out, cond);
            out.push_str(" do");
        }
        StmtKind::Assert(e) => {
            out.push_str("assert ");
            write_expr(out, e);
            out.push(';');
        }
        StmtKind::Assume(e) => {
            out.push_str("assume ");
            write_expr(out, e);
            out.push(';');
        }
        StmtKind::Dead(vars) => {
            out.push_str("dead ");
            write_idents(out, vars);
            out.push(';');
        }
    }
}

/// Operators whose same-operator chains are printed flat: left-associative in both dialects.
fn flattens(op: BinOp) -> bool {
    matches!(op, BinOp::And | BinOp::Or | BinOp::Xor)
}

fn write_expr(out: &mut String, e: &Expr) {
    match e {
        Expr::Const(true, _) => out.push('T'),
        Expr::Const(false, _) => out.push('F'),
        Expr::Var(id) => out.push_str(&id.name),
        Expr::Primed(id) => {
            out.push('\'');
            out.push_str(&id.name);
        }
        Expr::Nondet(_) => out.push('*'),
        Expr::Not(inner, _) => {
            out.push('!');
            write_expr(out, inner);
        }
        Expr::Binary(op, left, right, _) => {
            // Walk the left spine of a same-operator chain iteratively: `((a & b) & c)` is
            // written `(a & b & c)`; the right operands are written recursively.
            let mut rights: Vec<&Expr> = vec![right];
            let mut leftmost: &Expr = left;
            if flattens(*op) {
                while let Expr::Binary(op2, l2, r2, _) = leftmost {
                    if op2 != op {
                        break;
                    }
                    rights.push(r2);
                    leftmost = l2;
                }
            }
            out.push('(');
            write_expr(out, leftmost);
            for r in rights.iter().rev() {
                out.push(' ');
                out.push_str(op.symbol());
                out.push(' ');
                write_expr(out, r);
            }
            out.push(')');
        }
        Expr::Schoose(pos, neg, _) => {
            out.push_str("schoose[");
            write_expr(out, pos);
            out.push_str(", ");
            write_expr(out, neg);
            out.push(']');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{CondArm, Span};

    fn var(n: &str) -> Expr {
        Expr::var(n)
    }

    #[test]
    fn expressions_are_parenthesised_and_chains_flat() {
        let chain = Expr::binary(
            BinOp::And,
            Expr::binary(BinOp::And, var("a"), var("b")),
            var("c"),
        );
        assert_eq!(print_expr(&chain), "(a & b & c)");
        let right = Expr::binary(
            BinOp::And,
            var("a"),
            Expr::binary(BinOp::And, var("b"), var("c")),
        );
        assert_eq!(print_expr(&right), "(a & (b & c))");
        let eqs = Expr::binary(
            BinOp::Eq,
            Expr::binary(BinOp::Eq, var("a"), var("b")),
            var("c"),
        );
        assert_eq!(print_expr(&eqs), "((a = b) = c)");
        let mixed = Expr::binary(
            BinOp::Or,
            Expr::binary(BinOp::And, var("a"), var("b")),
            Expr::not(Expr::Primed(Ident::new("{x < y}"))),
        );
        assert_eq!(print_expr(&mixed), "((a & b) | !'{x < y})");
        let sch = Expr::Schoose(
            Box::new(Expr::Nondet(Span::NONE)),
            Box::new(Expr::not(Expr::binary(
                BinOp::Implies,
                Expr::constant(true),
                Expr::constant(false),
            ))),
            Span::NONE,
        );
        assert_eq!(print_expr(&sch), "schoose[*, !(T => F)]");
    }

    #[test]
    fn values_are_quoted_only_when_needed() {
        let mut s = String::new();
        for v in ["plain", "", "a b", "q\"x", "b\\s", "k=v"] {
            write_value(&mut s, v);
            s.push('|');
        }
        assert_eq!(s, r#"plain|""|"a b"|"q\"x"|"b\\s"|k=v|"#);
    }

    #[test]
    fn program_layout() {
        let stmt = |labels: &[&str], kind: StmtKind| Stmt {
            labels: labels.iter().map(|l| Ident::new(*l)).collect(),
            kind,
            annotations: Annotations::default(),
            span: Span::NONE,
        };
        let mut ann = Annotations::default();
        ann.set("line", "12");
        ann.set("src", "a b");
        let mut body_stmt = stmt(
            &["L1", "L2"],
            StmtKind::Assign {
                lhs: vec![Lhs::Var(Ident::new("x"))],
                rhs: vec![var("g")],
                constrain: Some(Expr::Primed(Ident::new("x"))),
            },
        );
        body_stmt.annotations = ann.clone();
        let prog = Program {
            header: ann.clone(),
            globals: vec![Decl {
                vars: vec![Ident::new("g"), Ident::new("h")],
                annotations: Annotations::default(),
                span: Span::NONE,
            }],
            procs: vec![Procedure {
                name: Ident::new("main"),
                ret: RetType::Bool(2),
                params: vec![Ident::new("p")],
                locals: vec![Decl {
                    vars: vec![Ident::new("x")],
                    annotations: Annotations::default(),
                    span: Span::NONE,
                }],
                enforce: Some(Expr::constant(true)),
                body: vec![
                    stmt(
                        &[],
                        StmtKind::If {
                            arms: vec![
                                CondArm {
                                    cond: Expr::Nondet(Span::NONE),
                                    body: vec![body_stmt],
                                },
                                CondArm {
                                    cond: var("g"),
                                    body: vec![stmt(&[], StmtKind::Skip)],
                                },
                            ],
                            els: Some(vec![stmt(
                                &["E"],
                                StmtKind::While {
                                    cond: Expr::binary(BinOp::Xor, var("g"), var("h")),
                                    body: vec![stmt(&[], StmtKind::Goto(vec![Ident::new("E")]))],
                                },
                            )]),
                        },
                    ),
                    stmt(
                        &[],
                        StmtKind::Call {
                            lhs: vec![Lhs::Var(Ident::new("g")), Lhs::Discard(Span::NONE)],
                            callee: Ident::new("main"),
                            args: vec![var("g")],
                        },
                    ),
                    stmt(&[], StmtKind::Return(vec![var("g"), Expr::constant(false)])),
                ],
                annotations: ann,
                span: Span::NONE,
            }],
            span: Span::NONE,
        };
        let expected = r#"//@@ line=12 src="a b"

decl g, h;

//@ line=12 src="a b"
bool<2> main(p) begin
  decl x;
  enforce T;
  if * then
    //@ line=12 src="a b"
    L1: L2: x := g constrain 'x;
  elsif g then
    skip;
  else
    E: while (g ^ h) do
      goto E;
    od
  fi
  g, _ := main(g);
  return g, F;
end
"#;
        assert_eq!(print(&prog), expected);
        assert_eq!(print_stmt_head(&prog.procs[0].body[0]), "if * then");
        assert_eq!(print_stmt_head(&prog.procs[0].body[1]), "g, _ := main(g);");
    }
}
