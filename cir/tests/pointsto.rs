//! Points-to analysis on `tests/data/analysis/pointsto.c`: pointers to locals,
//! to structure fields, through calls, `malloc` sites and function pointers.

use std::collections::BTreeSet;
use std::path::Path;

use cir::ir::{Expr, ExprKind, Program};
use cir::pointsto::{Loc, PointsTo};
use cir::pred::{PredScope, parse_predicate};

fn load() -> (Program, PointsTo) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/analysis/pointsto.c");
    let prog = cir::load_file(&path, &cir::LowerOptions::default()).expect("pointsto.c lowers");
    let pts = PointsTo::analyze(&prog);
    (prog, pts)
}

/// An lvalue of `main`, parsed as the left operand of `LV == 0`.
fn lv(prog: &Program, text: &str) -> Expr {
    let f = prog.function("main").expect("main").id;
    let p = parse_predicate(&format!("{text} == 0"), PredScope::Function(f), prog)
        .expect("parses")
        .expr;
    match p.kind {
        ExprKind::Binary(_, a, _) => *a,
        _ => panic!("comparison expected"),
    }
}

fn names(prog: &Program, s: &BTreeSet<Loc>) -> Vec<String> {
    s.iter()
        .map(|l| match l {
            Loc::Var(v) => prog.var(*v).name.clone(),
            Loc::Alloc(e) => format!("alloc@{}", prog.edge_name(*e)),
            Loc::Func(n) => format!("fn {n}"),
            Loc::Extern => "extern".into(),
        })
        .collect()
}

#[test]
fn points_to_sets() {
    let (prog, pts) = load();
    let pt = |t: &str| names(&prog, &pts.points_to(&lv(&prog, t)));
    // p := &x, and *pp := &g2 with pp -> p
    assert_eq!(pt("p"), ["g2", "x"]);
    // through the call id(&y)
    assert_eq!(pt("q"), ["y"]);
    // a pointer to a field points to the (field-insensitive) object
    assert_eq!(pt("r"), ["s"]);
    assert_eq!(pt("s.ptr"), ["g1"]);
    // one object per allocation site
    assert_eq!(pt("m1"), ["alloc@main#5"]);
    assert_eq!(pt("m2"), ["alloc@main#8"]);
    assert_eq!(pt("pp"), ["p"]);
}

#[test]
fn function_pointers() {
    let (prog, pts) = load();
    assert_eq!(pts.functions_of(&lv(&prog, "fp")), ["dec", "inc"]);
    // a directly called function's formal gets the actuals; a function without direct
    // callers (`inc`, `dec`, `main`) is a root: its formals may point to external memory
    let formal = |f: &str| {
        let v = prog.function(f).expect("defined").formals[0];
        let e = Expr {
            kind: ExprKind::Var(v),
            ty: prog.var(v).ty.clone(),
        };
        names(&prog, &pts.points_to(&e))
    };
    assert_eq!(formal("id"), ["y"]);
    assert_eq!(formal("inc"), ["extern"]);
}

#[test]
fn may_alias_queries() {
    let (prog, pts) = load();
    let al = |a: &str, b: &str| pts.may_alias(&lv(&prog, a), &lv(&prog, b));
    assert!(al("*p", "x"));
    assert!(al("*p", "g2"));
    assert!(!al("*p", "y"));
    assert!(!al("*p", "*q"));
    assert!(al("*q", "y"));
    assert!(!al("*m1", "*m2"));
    assert!(!al("*m1", "x"));
    assert!(al("*r", "s.a"));
    // field-insensitive objects: *r may be any part of s
    assert!(al("*r", "s.ptr"));
    // distinct fields of the same structure never alias
    assert!(!al("s.a", "s.ptr"));
    assert!(!al("x", "y"));
    assert!(al("x", "x"));
    assert!(al("*pp", "p"));
    assert!(!al("*pp", "q"));
}
