//! Points-to analysis on `tests/data/analysis/pointsto.c` (pointers to locals, to structure
//! fields, through calls, `malloc` sites and function pointers) and on
//! `tests/data/analysis/fields.c` (field sensitivity: nested structures reached through
//! allocated pointers, allocation wrappers, nondet pointers, puns, `calloc`).

use std::collections::BTreeSet;
use std::path::Path;

use cir::ir::{Expr, ExprKind, Program};
use cir::pointsto::{Loc, PointsTo, Step};
use cir::pred::{PredScope, parse_predicate};

fn load() -> (Program, PointsTo) {
    load_file("pointsto.c")
}

fn load_file(name: &str) -> (Program, PointsTo) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/analysis")
        .join(name);
    let prog = cir::load_file(&path, &cir::LowerOptions::default()).expect("lowers");
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
            Loc::Wild(e, path) => {
                let mut s = format!("wild@{}", prog.edge_name(*e));
                for st in path {
                    if let Step::Field(id, i) = st {
                        let fs = prog.structs[id.0 as usize]
                            .fields
                            .as_ref()
                            .expect("complete");
                        s.push('.');
                        s.push_str(&fs[*i as usize].0);
                    }
                }
                s
            }
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
    // a pointer to a field points into the object
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
    // field-sensitive cells: *r is s.a, not s.ptr
    assert!(!al("*r", "s.ptr"));
    // distinct fields of the same structure never alias
    assert!(!al("s.a", "s.ptr"));
    assert!(!al("x", "y"));
    assert!(al("x", "x"));
    assert!(al("*pp", "p"));
    assert!(!al("*pp", "q"));
}

#[test]
fn fields_of_allocated_structures_are_cells_of_their_own() {
    let (prog, pts) = load_file("fields.c");
    let pt = |t: &str| names(&prog, &pts.points_to(&lv(&prog, t)));
    let al = |a: &str, b: &str| pts.may_alias(&lv(&prog, a), &lv(&prog, b));
    // Allocated memory starts arbitrary: an uninitialised pointer in it points to an object
    // of its own.
    assert_eq!(pt("s"), ["alloc@main#0"]);
    assert_eq!(pt("s->s3"), ["alloc@main#3", "wild@main#0.s3"]);
    assert_eq!(pt("s->cert"), ["g", "wild@main#0.cert"]);
    assert_eq!(pt("s->s3->tmp.cipher"), ["h", "wild@main#3.tmp.cipher"]);
    // Field-insensitively, `s->cert` would also point to the object of `s->s3`.
    assert!(!al("*s->cert", "s->s3->flags"));
    assert!(!al("*s->s3->tmp.cipher", "s->s3->tmp.next_state"));
    assert!(al("*s->cert", "g"));
    // A structure assignment copies field by field.
    assert_eq!(pt("copy.cert"), ["g", "wild@main#0.cert"]);
    assert_eq!(pt("copy.s3"), ["alloc@main#3", "wild@main#0.s3"]);
    // `calloc`'s memory starts zero: no indeterminate pointers.
    assert!(pt("z->next").is_empty());
}

#[test]
fn nondet_pointers_point_to_objects_of_their_own() {
    let (prog, pts) = load_file("fields.c");
    let al = |a: &str, b: &str| pts.may_alias(&lv(&prog, a), &lv(&prog, b));
    assert_eq!(
        names(&prog, &pts.points_to(&lv(&prog, "buf"))),
        ["alloc@main#8"]
    );
    assert!(!al("*buf", "s->state"));
    assert!(!al("*buf", "g"));
}

#[test]
fn each_call_of_an_allocation_wrapper_is_a_site() {
    let (prog, pts) = load_file("fields.c");
    let pt = |t: &str| names(&prog, &pts.points_to(&lv(&prog, t)));
    let al = |a: &str, b: &str| pts.may_alias(&lv(&prog, a), &lv(&prog, b));
    // `new_node` only returns what `malloc` gave it: one object per call.
    assert_eq!(pt("a"), ["alloc@main#11"]);
    assert_eq!(pt("b"), ["alloc@main#13"]);
    assert!(!al("a->val", "b->val"));
    assert_eq!(pt("a->next"), ["alloc@main#13", "wild@main#11.next"]);
    // `init_node` writes through its allocation: not a wrapper, one object for both calls.
    assert_eq!(pt("c"), ["alloc@init_node#0"]);
    assert!(al("c->val", "d->val"));
}

#[test]
fn a_pun_touches_the_whole_object() {
    let (prog, pts) = load_file("fields.c");
    let al = |a: &str, b: &str| pts.may_alias(&lv(&prog, a), &lv(&prog, b));
    // `*pun` writes a `char` into the `int` h: it may touch all of h, nothing else.
    assert!(al("*pun", "h"));
    assert!(al("*pun", "*s->s3->tmp.cipher"));
    assert!(!al("*pun", "g"));
}

#[test]
fn an_indeterminate_function_pointer_designates_no_object() {
    let (prog, pts) = load_file("fields.c");
    // `o->get` of malloc'ed memory holds what was stored, and no wild object (which a call
    // through it would have to treat as an unknown function).
    assert_eq!(
        names(&prog, &pts.points_to(&lv(&prog, "o->get"))),
        ["fn one"]
    );
}

#[test]
fn a_copy_of_a_variable_points_where_it_does() {
    let (prog, pts) = load_file("fields.c");
    let s = lv(&prog, "s");
    let copy = cir::ir::VarId(u32::try_from(prog.vars.len()).expect("ids"));
    let copy = Expr {
        kind: cir::ir::ExprKind::Var(copy),
        ty: s.ty.clone(),
    };
    // Unknown to the analysis: points nowhere.
    assert!(pts.points_to(&copy).is_empty());
    let mut ext = pts.clone();
    let cir::ir::ExprKind::Var(v) = s.kind else {
        unreachable!()
    };
    let cir::ir::ExprKind::Var(c) = copy.kind else {
        unreachable!()
    };
    assert!(ext.holds_pointers(v));
    ext.add_copy(c, v);
    assert_eq!(ext.points_to(&copy), pts.points_to(&s));
    // Its cells are the variable's: a write through the copy's fields meets the original's.
    let cir::types::CType::Pointer(pointee) = &s.ty else {
        panic!("s is a pointer")
    };
    let field = |base: &Expr, f: &str, ty: cir::types::CType| Expr {
        kind: cir::ir::ExprKind::Field(
            Box::new(Expr {
                kind: cir::ir::ExprKind::Deref(Box::new(base.clone())),
                ty: (**pointee).clone(),
            }),
            f.into(),
        ),
        ty,
    };
    let cert_ty = lv(&prog, "s->cert").ty;
    assert!(ext.may_alias(
        &field(&copy, "cert", cert_ty.clone()),
        &lv(&prog, "s->cert")
    ));
    assert!(!ext.may_alias(&field(&copy, "cert", cert_ty), &lv(&prog, "s->state")));
}
