//! `enforce`'s search for inconsistent cubes tries only connected cubes (each predicate shares
//! a variable with the others), but every one of them: `x == -3 ∧ ¬(g >= 4) ∧ x + 1 + g >= 2`
//! is connected only through its last predicate in the file's order (`connected.c`), and a
//! search that grew cubes by later predicates only never built it.

mod common;

fn abstract_connected(enforce_len: usize) -> String {
    let opts = c2bp::Options {
        enforce_len,
        ..c2bp::Options::default()
    };
    common::abstract_data("connected.c", &opts).text
}

#[test]
fn an_inconsistent_cube_connected_through_its_last_predicate_is_excluded() {
    // Three literals over four predicates: the search (not the projection of every valuation,
    // which takes the whole length) is what finds it.
    let text = abstract_connected(3);
    let enforce = common::enforce_line(&text);
    assert!(
        enforce.contains("!({x == -3} & !{g >= 4} & {x + 1 + g >= 2})"),
        "{enforce}"
    );
    assert!(!common::bebop_unsafe(&text), "must be safe:\n{text}");
}

#[test]
fn without_the_cube_the_error_is_reachable() {
    let text = abstract_connected(2);
    assert!(common::bebop_unsafe(&text), "must be unsafe:\n{text}");
}
