//! Weakest preconditions: Morris's axiom pruned by points-to, golden strings
//! printed by the IR printer, on `tests/data/analysis/wp.c`.

use std::path::Path;

use cir::ir::{EdgeKind, Expr, Program};
use cir::pointsto::PointsTo;
use cir::pred::{PredScope, parse_predicate};
use cir::wp::{
    Aliasing, aliasing, changes, compares_own_address, wp_assign, wp_assign_havoc, wp_assume,
    wp_edge, wp_havoc,
};

fn load() -> (Program, PointsTo) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/analysis/wp.c");
    let prog = cir::load_file(&path, &cir::LowerOptions::default()).expect("wp.c lowers");
    let pts = PointsTo::analyze(&prog);
    (prog, pts)
}

fn phi(prog: &Program, text: &str) -> Expr {
    let f = prog.function("main").expect("main").id;
    parse_predicate(text, PredScope::Function(f), prog)
        .expect("predicate parses")
        .expr
}

/// The assignment edge of `main` whose text is `text`.
fn assign<'a>(prog: &'a Program, text: &str) -> (&'a Expr, &'a Expr) {
    let main = prog.function("main").expect("main");
    for e in &main.edges {
        if let EdgeKind::Assign { lhs, rhs } = &e.kind
            && prog.show_edge_kind(&e.kind) == text
        {
            return (lhs, rhs);
        }
    }
    panic!("no edge `{text}`")
}

fn wp(prog: &Program, pts: &PointsTo, edge: &str, post: &str) -> String {
    let (l, r) = assign(prog, edge);
    let w = wp_assign(l, r, &phi(prog, post), pts).expect("expressible");
    prog.show_expr(&w)
}

#[test]
fn plain_assignment() {
    let (prog, pts) = load();
    assert_eq!(wp(&prog, &pts, "x := x + 1", "x < y"), "x + 1 < y");
    assert_eq!(wp(&prog, &pts, "x := x + 1", "y == 3"), "y == 3");
}

#[test]
fn morris_through_pointer() {
    let (prog, pts) = load();
    // p may point to x: Morris's conditional
    assert_eq!(
        wp(&prog, &pts, "*p := 1", "x == 0"),
        "(p == &x ? 1 : x) == 0"
    );
    // p cannot point to y or z: unchanged
    assert_eq!(wp(&prog, &pts, "*p := 1", "y == 0"), "y == 0");
    assert_eq!(wp(&prog, &pts, "*p := 1", "z == 0"), "z == 0");
    // the location itself
    assert_eq!(wp(&prog, &pts, "*p := 1", "*p == 0"), "1 == 0");
    // q may point only to y
    assert_eq!(wp(&prog, &pts, "*q := 2", "x < y"), "x < (q == &y ? 2 : y)");
    // *r may alias *p? r points to z, p to x: no
    assert_eq!(wp(&prog, &pts, "*p := 1", "*r > 0"), "*r > 0");
}

#[test]
fn struct_field_through_pointer() {
    let (prog, pts) = load();
    assert_eq!(
        wp(&prog, &pts, "s->val := 3", "n1.val > 2"),
        "(s == &n1 ? 3 : n1.val) > 2"
    );
    // a different field is never touched
    assert_eq!(
        wp(&prog, &pts, "s->val := 3", "n1.next == NULL"),
        "n1.next == (void *)0"
    );
    assert_eq!(wp(&prog, &pts, "s->val := 3", "s->val == 3"), "3 == 3");
}

#[test]
fn array_element() {
    let (prog, pts) = load();
    assert_eq!(
        wp(&prog, &pts, "a[i] := 0", "a[j] == 1"),
        "(i == j ? 0 : a[j]) == 1"
    );
    assert_eq!(wp(&prog, &pts, "a[i] := 0", "a[i] == 1"), "0 == 1");
    // the index is read in the post-state
    assert_eq!(wp(&prog, &pts, "i := 0", "a[i] == 1"), "a[0] == 1");
}

#[test]
fn conversion_to_the_target_type() {
    let (prog, pts) = load();
    assert_eq!(wp(&prog, &pts, "u := x", "u > 5u"), "(unsigned int)x > 5u");
    assert_eq!(wp(&prog, &pts, "x := 0", "u == 0u"), "u == 0u");
}

#[test]
fn assume_and_havoc() {
    let (prog, pts) = load();
    let c = phi(&prog, "x < y");
    let post = phi(&prog, "g == 0");
    assert_eq!(prog.show_expr(&wp_assume(&c, &post)), "y <= x || g == 0");
    let x = phi(&prog, "x != 0");
    let lhs = var_lhs(&x).lhs;
    assert!(wp_havoc(&lhs, &phi(&prog, "x < y"), &pts).is_none());
    assert!(wp_havoc(&lhs, &phi(&prog, "*p == 1"), &pts).is_none());
    assert_eq!(
        wp_havoc(&lhs, &phi(&prog, "y == 1"), &pts).map(|e| prog.show_expr(&e)),
        Some("y == 1".to_string())
    );
}

struct ExprKindVar {
    lhs: Expr,
}

/// The left operand of a normalised comparison.
fn var_lhs(e: &Expr) -> ExprKindVar {
    match &e.kind {
        cir::ir::ExprKind::Binary(_, a, _) => ExprKindVar { lhs: (**a).clone() },
        _ => panic!("not a comparison"),
    }
}

#[test]
fn changes_per_edge() {
    let (prog, pts) = load();
    let main = prog.function("main").expect("main");
    let edge = |text: &str| {
        main.edges
            .iter()
            .find(|e| prog.show_edge_kind(&e.kind) == text)
            .map(|e| &e.kind)
            .unwrap_or_else(|| panic!("no edge `{text}`"))
    };
    let p = phi(&prog, "x < y");
    assert!(changes(edge("x := x + 1"), &p, &pts, &prog));
    assert!(changes(edge("*p := 1"), &p, &pts, &prog));
    assert!(!changes(edge("a[i] := 0"), &p, &pts, &prog));
    assert!(!changes(edge("assume(x < y)"), &p, &pts, &prog));
    let g = phi(&prog, "g > 0");
    // a call may modify globals; the result temporary is assigned
    assert!(changes(edge("f#ret#1 := f(x)"), &g, &pts, &prog));
    // x's address is taken (p = &x): the callee might write it; i and j are private
    assert!(changes(edge("f#ret#1 := f(x)"), &p, &pts, &prog));
    let ij = phi(&prog, "i < j");
    assert!(!changes(edge("f#ret#1 := f(x)"), &ij, &pts, &prog));
    assert!(wp_edge(edge("f#ret#1 := f(x)"), &phi(&prog, "f#ret#1 > 0"), &pts).is_none());
}

#[test]
fn a_pun_havocs_what_it_may_touch() {
    let (prog, pts) = load();
    let (l, r) = assign(&prog, "*cp := 5");
    let post = phi(&prog, "z == 0 && y == 1");
    // A `char` written into the `int` z: z's new value is not expressible...
    assert!(wp_assign(l, r, &post, &pts).is_none());
    // ... it is havocked: a fresh value of z's type (here a stand-in the caller made).
    let mut asked = Vec::new();
    let w = wp_assign_havoc(l, r, &post, &pts, &mut |loc| {
        asked.push(prog.show_expr(loc));
        let j = prog.vars.iter().position(|v| v.name == "j").expect("j");
        Some(Expr {
            kind: cir::ir::ExprKind::Var(cir::ir::VarId(j as u32)),
            ty: cir::types::CType::INT,
        })
    })
    .expect("havocked");
    assert_eq!(asked, ["z"]);
    assert_eq!(prog.show_expr(&w), "j == 0 && y == 1");
}

#[test]
fn a_structure_assignment_updates_field_by_field() {
    let (prog, pts) = load();
    // ip points to n1.val or n2.val: a read through it after `n1 := n2` is n2.val exactly
    // when it is n1.val.
    assert_eq!(
        wp(&prog, &pts, "n1 := n2", "*ip == 3"),
        "(&n1.val == ip ? n2.val : *ip) == 3"
    );
    assert_eq!(wp(&prog, &pts, "n1 := n2", "n1.next == s"), "n2.next == s");
    assert_eq!(
        wp(&prog, &pts, "n1 := n2", "s->val == 1"),
        "(&n1 == s ? n2.val : s->val) == 1"
    );
}

/// `aliasing` says when Morris's axiom compares addresses: where the WP holds a conditional
/// on an address, and only there.
#[test]
fn aliasing_predicts_the_address_comparisons() {
    let (prog, pts) = load();
    let case = |edge: &str, post: &str| {
        let (l, _) = assign(&prog, edge);
        let a = aliasing(&phi(&prog, post), l, &pts);
        let shown = wp(&prog, &pts, edge, post);
        assert_eq!(
            a.elsewhere,
            shown.contains(" ? "),
            "{edge} / {post}: {shown}"
        );
        a
    };
    let a = |reads, elsewhere| Aliasing { reads, elsewhere };
    assert_eq!(case("*p := 1", "x == 0"), a(true, true));
    assert_eq!(case("*p := 1", "*p == 0"), a(true, false));
    assert_eq!(case("*p := 1", "y == 0"), a(false, false));
    assert_eq!(case("x := x + 1", "x < y"), a(true, false));
    assert_eq!(case("s->val := 3", "n1.val > 2"), a(true, true));
    // Whatever the predicate: a structure assigned whole, not a plain variable or field.
    assert!(compares_own_address(assign(&prog, "n1 := n2").0, &pts));
    assert!(!compares_own_address(assign(&prog, "x := x + 1").0, &pts));
    assert!(!compares_own_address(assign(&prog, "*p := 1").0, &pts));
}
