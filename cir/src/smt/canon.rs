//! The canonical text of an expression: a fully parenthesised prefix form with the type of
//! every node, the material of the prover's cache keys.

use std::fmt::Write as _;

use crate::ir::{Expr, ExprKind, Program, UnOp};

/// The canonical text of an expression: a prefix form with every node's type, injective on
/// expressions of one program (the cache key material).
pub fn canonical(prog: &Program, e: &Expr) -> String {
    let mut s = String::new();
    write_canonical(prog, e, &mut s);
    s
}

fn write_canonical(prog: &Program, e: &Expr, s: &mut String) {
    let ty = prog.show_type(&e.ty);
    match &e.kind {
        ExprKind::Const(v) => {
            let _ = write!(s, "{v}:{ty}");
            return;
        }
        // Names are unique within a function, not across functions (`int x0` in `f`,
        // `unsigned x0` in `main`): the type makes two texts equal only for formulas that are
        // renamings of each other.
        ExprKind::Var(v) => {
            let info = prog.var(*v);
            let _ = write!(s, "{}:{}", info.name, prog.show_type(&info.ty));
            return;
        }
        _ => {}
    }
    s.push('(');
    match &e.kind {
        ExprKind::Func(n) => {
            let _ = write!(s, "fn {n}");
        }
        ExprKind::Str(t) => {
            let _ = write!(s, "str {t:?}");
        }
        ExprKind::Unary(op, a) => {
            s.push_str(match op {
                UnOp::Neg => "neg ",
                UnOp::BitNot => "~ ",
                UnOp::LogNot => "! ",
            });
            write_canonical(prog, a, s);
        }
        ExprKind::Binary(op, a, b) => {
            let _ = write!(s, "{} ", op.symbol());
            write_canonical(prog, a, s);
            s.push(' ');
            write_canonical(prog, b, s);
        }
        ExprKind::Cast(a) => {
            s.push_str("cast ");
            write_canonical(prog, a, s);
        }
        ExprKind::AddrOf(a) => {
            s.push_str("& ");
            write_canonical(prog, a, s);
        }
        ExprKind::Deref(a) => {
            s.push_str("* ");
            write_canonical(prog, a, s);
        }
        ExprKind::Field(a, f) => {
            let _ = write!(s, ". {f:?} ");
            write_canonical(prog, a, s);
        }
        ExprKind::Index(a, i) => {
            s.push_str("[] ");
            write_canonical(prog, a, s);
            s.push(' ');
            write_canonical(prog, i, s);
        }
        ExprKind::Cond(c, a, b) => {
            s.push_str("? ");
            write_canonical(prog, c, s);
            s.push(' ');
            write_canonical(prog, a, s);
            s.push(' ');
            write_canonical(prog, b, s);
        }
        ExprKind::Const(_) | ExprKind::Var(_) => {}
    }
    let _ = write!(s, "):{ty}");
}
