//! Predicate files: parsing, scoping, typing, normal form and errors, against
//! `tests/data/analysis/wp.c`.

use std::path::Path;

use cir::ir::Program;
use cir::pred::{PredicateSet, parse_predicates};

fn load() -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/analysis/wp.c");
    cir::load_file(&path, &cir::LowerOptions::default()).expect("wp.c lowers")
}

fn parse(text: &str) -> PredicateSet {
    parse_predicates(text, "t.preds", &load()).unwrap_or_else(|e| panic!("{e}"))
}

fn texts(ps: &[cir::pred::Predicate]) -> Vec<String> {
    ps.iter().map(|p| p.text.clone()).collect()
}

fn err(text: &str) -> String {
    parse_predicates(text, "t.preds", &load())
        .expect_err("must be rejected")
        .to_string()
}

#[test]
fn sections_and_names() {
    let s = parse(
        "# predicates\n\
         g > 0   // global\n\
         function main:\n\
         x < y;\n\
         p->val == 0 # hmm: p is int *, see below\n"
            .replace(
                "p->val == 0 # hmm: p is int *, see below",
                "s->next != NULL",
            )
            .as_str(),
    );
    assert_eq!(texts(&s.global), ["g > 0"]);
    assert_eq!(
        texts(&s.per_function["main"]),
        ["x < y", "s->next != (void *)0"]
    );
    let main: Vec<String> = s.in_scope("main").map(|p| p.name()).collect();
    assert_eq!(main, ["{g > 0}", "{x < y}", "{s->next != (void *)0}"]);
    assert_eq!(s.len(), 3);
}

#[test]
fn normal_form_and_dedup() {
    let s = parse(
        "function main:\n\
         x < y\n\
         y > x\n\
         !(x >= y)\n\
         !!(x < y)\n\
         (x) < (y)\n\
         0 < x\n\
         x > 0\n\
         1 == i\n\
         i\n\
         !i\n\
         !(i == 0)\n\
         a[i] <= 10 && !(j > 3)\n",
    );
    assert_eq!(
        texts(&s.per_function["main"]),
        [
            "x < y",
            "x > 0",
            "i == 1",
            "i != 0",
            "i == 0",
            "a[i] <= 10 && j <= 3"
        ]
    );
}

#[test]
fn types_follow_c() {
    let s = parse("u < 5\nu > -1\n(int)u == 3\nu + 1u > 0ul\n");
    assert_eq!(
        texts(&s.global),
        ["u < 5", "u > -1", "(int)u == 3", "u + 1u > 0ul"]
    );
    let t = &s.global[3].expr;
    let cir::ir::ExprKind::Binary(_, a, _) = &t.kind else {
        panic!("comparison")
    };
    assert_eq!(a.ty, cir::types::CType::Int(cir::types::IntKind::UInt));
}

#[test]
fn return_predicates() {
    let s = parse("function f:\n\\result > n\n\\result == g + n\n");
    let f = &s.per_function["f"];
    assert_eq!(texts(f), ["n < \\result", "\\result == g + n"]);
    assert!(f[0].is_return_predicate());
    let by = cir::ir::Expr::int(7, cir::types::CType::INT);
    let prog = load();
    assert_eq!(
        prog.show_expr(&cir::pred::subst_result(&f[0].expr, &by)),
        "n < 7"
    );
}

#[test]
fn global_duplicates_are_dropped_from_functions() {
    let s = parse("g > 0\nfunction main:\n0 < g\nx == 1\n");
    assert_eq!(texts(&s.per_function["main"]), ["x == 1"]);
}

#[test]
fn errors_have_positions() {
    assert_eq!(err("g > 0\nzz < 1\n"), "t.preds:2:1: unknown variable `zz`");
    assert_eq!(
        err("g > 0\n  x < 1\n"),
        "t.preds:2:3: `x` is a variable of function `main`, not in scope here"
    );
    assert_eq!(
        err("\\result > 0\n"),
        "t.preds:1:1: `\\result` is only allowed in a function section"
    );
    assert_eq!(
        err("function nope:\n"),
        "t.preds:1:1: no function `nope` with a body"
    );
    assert_eq!(
        err("function main:\nx < < y\n"),
        "t.preds:2:5: expected an expression"
    );
    assert_eq!(
        err("function main:\nx < y)\n"),
        "t.preds:2:6: unexpected token after the expression"
    );
    assert_eq!(
        err("function main:\nx $ y\n"),
        "t.preds:2:3: unexpected character `$`"
    );
    assert_eq!(
        err("function main:\ns->nope == 0\n"),
        "t.preds:2:4: no member `nope`"
    );
    assert_eq!(
        err("function main:\nn1 == 0\n"),
        "t.preds:2:4: operand of `==` is not a scalar"
    );
}

#[test]
fn guard_predicates_are_the_conditions_right_before_the_error() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/analysis/guards.c");
    let prog = cir::load_file(&path, &cir::LowerOptions::default()).expect("guards.c lowers");
    let set = cir::pred::guard_predicates(&prog);
    assert_eq!(texts(&set.global), vec!["g > 5"]);
    assert_eq!(set.per_function.len(), 1, "{set:?}");
    assert_eq!(
        texts(&set.per_function["main"]),
        vec!["lk != 1", "near == 7"]
    );
}

#[test]
fn a_state_test_brings_the_other_states() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/analysis/states.c");
    let prog = cir::load_file(&path, &cir::LowerOptions::default()).expect("states.c lowers");
    let parse = |text: &str| parse_predicates(text, "t.preds", &prog).expect("parses");
    let sib = |new: &str, have: &str| {
        let s = cir::pred::constant_siblings(&prog, &parse(new), &parse(have));
        let mut out = texts(&s.global);
        for (f, ps) in &s.per_function {
            out.extend(texts(ps).into_iter().map(|t| format!("{f}: {t}")));
        }
        out
    };
    // A global state variable: every constant it is compared with or assigned, through the
    // copy from `next` too, in any function; the test's own value and its negation skipped.
    assert_eq!(
        sib("global:\nstate == 1\n", ""),
        ["state == 0", "state == 2", "state == 3"]
    );
    assert_eq!(
        sib("global:\nstate != 2\n", "global:\nstate != 3\n"),
        ["state == 0", "state == 1"]
    );
    // A local: its own constants and, through two copies, those of `state`.
    assert_eq!(
        sib("function main:\nkept == 3\n", ""),
        ["main: kept == 0", "main: kept == 1", "main: kept == 2"]
    );
    assert_eq!(
        sib("function main:\nnext == 2\n", ""),
        ["main: next == 0", "main: next == 3"]
    );
    // A bound's siblings are the same bound at the other constants; a bound whose
    // complement is known is skipped.
    assert_eq!(
        sib("global:\nstate <= 1\n", "global:\nstate > 3\n"),
        ["state <= 0", "state <= 2"]
    );
    assert_eq!(
        sib("global:\nstate < 2\n", ""),
        ["state < 0", "state < 1", "state < 3"]
    );
    // Only tests and bounds of an lvalue against a constant have siblings.
    assert!(sib("function main:\nnext == copy\n", "").is_empty());
    assert!(sib("function main:\nnext <= copy\n", "").is_empty());
}
