//! Relevance by cells (`c2bp::relevance`): two fields reached through one pointer are not
//! related by that pointer alone, while a predicate about the pointer's value meets every field
//! read through it — so `p == q ∧ p->state == 1 ⇒ q->state == 1` is still found
//! (`relevance.c`).

mod common;

use std::path::Path;

use c2bp::relevance::Relevance;

/// The points-to facts of `relevance.c` and the cells of each predicate of `main`, by text.
fn cells() -> (cir::pointsto::PointsTo, Vec<(String, Relevance)>) {
    let c = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/relevance.c");
    let prog = common::load(&c, &cir::LowerOptions::default());
    let preds = common::preds(&prog, Some(&c.with_extension("preds")));
    let pts = cir::pointsto::PointsTo::analyze(&prog);
    let all = preds
        .in_scope("main")
        .map(|p| (p.text.clone(), Relevance::of(&p.expr, &pts)))
        .collect();
    (pts, all)
}

/// Whether the predicates with texts `a` and `b` are related (checked both ways).
fn meets(a: &str, b: &str) -> bool {
    let (pts, all) = cells();
    let find = |t: &str| {
        all.iter()
            .find(|(x, _)| x == t)
            .map(|(_, r)| r.clone())
            .unwrap_or_else(|| panic!("no predicate {t} among {all:?}"))
    };
    let (x, y) = (find(a), find(b));
    let m = x.meets(&y, &pts);
    assert_eq!(m, y.meets(&x, &pts), "relevance is symmetric");
    m
}

#[test]
fn fields_reached_through_one_pointer_are_not_related_by_it() {
    assert!(!meets("s->state == 1", "s->version == 768"));
    assert!(!meets("p->state == 1", "s->version == 768"));
}

#[test]
fn the_same_field_through_possible_aliases_is_related() {
    // `p` and `s` both point to `a`: the cell `a.state` is read as a value by both.
    assert!(meets("p->state == 1", "s->state == 1"));
    assert!(meets("p->state == 1", "q->state == 1"));
}

#[test]
fn a_predicate_about_a_pointer_meets_what_is_read_through_it() {
    assert!(meets("p == q", "p->state == 1"));
    assert!(meets("p == q", "q->state == 1"));
    assert!(!meets("p == q", "s->version == 768"));
}

#[test]
fn the_cube_through_a_pointer_equality_is_excluded() {
    let opts = c2bp::Options {
        enforce_len: 3,
        ..c2bp::Options::default()
    };
    let text = common::abstract_data("relevance.c", &opts).text;
    assert!(!common::bebop_unsafe(&text), "must be safe:\n{text}");
    let shorter = c2bp::Options {
        enforce_len: 2,
        ..c2bp::Options::default()
    };
    let text = common::abstract_data("relevance.c", &shorter).text;
    assert!(
        common::bebop_unsafe(&text),
        "without the three-literal cube the error is reachable:\n{text}"
    );
}
