//! Terse constructors for Boolean-program ASTs (all spans [`Span::NONE`], no annotations).
//!
//! Used by the random generator (module `generator`) and handy for hand-written test programs:
//!
//! ```
//! use bp_testkit::build::*;
//! use bp_grammar::ast::RetType;
//! // decl g0; void main() begin g0 := schoose[F,F] constrain 'g0; assert(g0); end
//! let prog = program(
//!     &["g0"],
//!     vec![procedure(
//!         "main",
//!         RetType::Void,
//!         &[],
//!         &[],
//!         None,
//!         vec![
//!             assign_constrain(&["g0"], vec![schoose(f(), f())], primed("g0")),
//!             assert_(var("g0")),
//!         ],
//!     )],
//! );
//! assert!(!bp_testkit::reference::reachable_error(&prog, &Default::default()));
//! ```

use bp_grammar::ast::{
    Annotations, BinOp, CondArm, Decl, Expr, Ident, Lhs, Procedure, Program, RetType, Span, Stmt,
    StmtKind,
};

/// A program with one global declaration (omitted when `globals` is empty) and `procs`.
pub fn program(globals: &[&str], procs: Vec<Procedure>) -> Program {
    Program {
        header: Annotations::default(),
        globals: decls(globals),
        procs,
        span: Span::NONE,
    }
}

fn decls(names: &[&str]) -> Vec<Decl> {
    if names.is_empty() {
        Vec::new()
    } else {
        vec![decl(names)]
    }
}

/// `decl a, b, ...;`
pub fn decl(names: &[&str]) -> Decl {
    Decl {
        vars: names.iter().map(|n| Ident::new(*n)).collect(),
        annotations: Annotations::default(),
        span: Span::NONE,
    }
}

/// A procedure `ret name(params) begin decl locals; [enforce e;] body end`.
pub fn procedure(
    name: &str,
    ret: RetType,
    params: &[&str],
    locals: &[&str],
    enforce: Option<Expr>,
    body: Vec<Stmt>,
) -> Procedure {
    Procedure {
        name: Ident::new(name),
        ret,
        params: params.iter().map(|n| Ident::new(*n)).collect(),
        locals: decls(locals),
        enforce,
        body,
        annotations: Annotations::default(),
        span: Span::NONE,
    }
}

/// An unlabelled statement.
pub fn stmt(kind: StmtKind) -> Stmt {
    Stmt {
        labels: Vec::new(),
        kind,
        annotations: Annotations::default(),
        span: Span::NONE,
    }
}

/// `L1: ... Ln: s` (the labels are added in front of any the statement already has).
pub fn labelled(labels: &[&str], mut s: Stmt) -> Stmt {
    let mut all: Vec<Ident> = labels.iter().map(|l| Ident::new(*l)).collect();
    all.append(&mut s.labels);
    s.labels = all;
    s
}

/// `T`
pub fn t() -> Expr {
    Expr::constant(true)
}

/// `F`
pub fn f() -> Expr {
    Expr::constant(false)
}

/// `*`
pub fn nondet() -> Expr {
    Expr::Nondet(Span::NONE)
}

/// A variable.
pub fn var(name: &str) -> Expr {
    Expr::var(name)
}

/// `'x`
pub fn primed(name: &str) -> Expr {
    Expr::Primed(Ident::new(name))
}

/// `!e`
pub fn not(e: Expr) -> Expr {
    Expr::not(e)
}

/// `a op b`
pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}

/// `a & b`
pub fn and(a: Expr, b: Expr) -> Expr {
    bin(BinOp::And, a, b)
}

/// `a | b`
pub fn or(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Or, a, b)
}

/// `a = b`
pub fn eq(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Eq, a, b)
}

/// `schoose[p, n]`
pub fn schoose(p: Expr, n: Expr) -> Expr {
    Expr::Schoose(Box::new(p), Box::new(n), Span::NONE)
}

/// `skip;`
pub fn skip() -> Stmt {
    stmt(StmtKind::Skip)
}

/// `x1, ... := e1, ...;`
pub fn assign(targets: &[&str], rhs: Vec<Expr>) -> Stmt {
    stmt(StmtKind::Assign {
        lhs: targets.iter().map(|n| Lhs::Var(Ident::new(*n))).collect(),
        rhs,
        constrain: None,
    })
}

/// `x1, ... := e1, ... constrain c;`
pub fn assign_constrain(targets: &[&str], rhs: Vec<Expr>, constrain: Expr) -> Stmt {
    stmt(StmtKind::Assign {
        lhs: targets.iter().map(|n| Lhs::Var(Ident::new(*n))).collect(),
        rhs,
        constrain: Some(constrain),
    })
}

/// `[t1, ... :=] callee(args);` — a target `"_"` is the discard `_`.
pub fn call(targets: &[&str], callee: &str, args: Vec<Expr>) -> Stmt {
    stmt(StmtKind::Call {
        lhs: targets
            .iter()
            .map(|n| {
                if *n == "_" {
                    Lhs::Discard(Span::NONE)
                } else {
                    Lhs::Var(Ident::new(*n))
                }
            })
            .collect(),
        callee: Ident::new(callee),
        args,
    })
}

/// `if c then ... [else ...] fi`
pub fn if_(cond: Expr, then: Vec<Stmt>, els: Option<Vec<Stmt>>) -> Stmt {
    if_arms(vec![(cond, then)], els)
}

/// `if c1 then ... elsif c2 then ... [else ...] fi`
pub fn if_arms(arms: Vec<(Expr, Vec<Stmt>)>, els: Option<Vec<Stmt>>) -> Stmt {
    stmt(StmtKind::If {
        arms: arms
            .into_iter()
            .map(|(cond, body)| CondArm { cond, body })
            .collect(),
        els,
    })
}

/// `while c do ... od`
pub fn while_(cond: Expr, body: Vec<Stmt>) -> Stmt {
    stmt(StmtKind::While { cond, body })
}

/// `goto L1, ...;`
pub fn goto(labels: &[&str]) -> Stmt {
    stmt(StmtKind::Goto(
        labels.iter().map(|l| Ident::new(*l)).collect(),
    ))
}

/// `return e1, ...;`
pub fn return_(values: Vec<Expr>) -> Stmt {
    stmt(StmtKind::Return(values))
}

/// `assert(e);`
pub fn assert_(e: Expr) -> Stmt {
    stmt(StmtKind::Assert(e))
}

/// `assume(e);`
pub fn assume(e: Expr) -> Stmt {
    stmt(StmtKind::Assume(e))
}

/// `dead x, ...;`
pub fn dead(names: &[&str]) -> Stmt {
    stmt(StmtKind::Dead(
        names.iter().map(|n| Ident::new(*n)).collect(),
    ))
}

/// `print(e, ...);`
pub fn print(values: Vec<Expr>) -> Stmt {
    stmt(StmtKind::Print(values))
}
