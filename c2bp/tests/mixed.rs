//! Inconsistent cubes that mix global and local predicates: `enforce` cannot hold them (it
//! would also apply right after a call returns, before the caller's `effects` update), so
//! every statement that assigns one of their predicates is followed by an `assume` excluding
//! them (`part=consistency`), and so is a procedure's entry. Here `x = nondet()` makes `x == g`
//! and `x == 1` unknown, each on its own; with `g == 0` (global) both cannot hold, and the
//! error is unreachable (`mixed.c`; `mixed_entry.c` passes `x` as a parameter; in
//! `mixed_havoc.c` an external function writes `x` through its address).

mod common;

fn mixed(enforce_len: usize) -> String {
    abstract_data("mixed.c", enforce_len)
}

fn abstract_data(file: &str, enforce_len: usize) -> String {
    let opts = c2bp::Options {
        enforce_len,
        ..c2bp::Options::default()
    };
    common::abstract_data(file, &opts).text
}

/// The statements annotated `part=consistency`.
fn consistency(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        if l.trim_start().starts_with("//@ ") && l.contains(" part=consistency ") {
            out.push(lines.next().unwrap_or_default().trim().to_string());
        }
    }
    out
}

#[test]
fn a_mixed_inconsistent_cube_is_excluded_after_the_assignment() {
    let text = mixed(3);
    let enforce = common::enforce_line(&text);
    assert!(!enforce.contains("{g == 0}"), "enforce mixes: {enforce}");
    assert_excluded_and_safe(&text);
}

/// The cube `g == 0 ∧ x == g ∧ x == 1` is excluded by a `consistency` assume, and the error
/// is unreachable.
fn assert_excluded_and_safe(text: &str) {
    let cs = consistency(text);
    assert!(
        cs.iter()
            .any(|s| s.contains("!({g == 0} & {x == g} & {x == 1})")),
        "{cs:?}\n{text}"
    );
    assert!(!common::bebop_unsafe(text), "must be safe:\n{text}");
}

/// No `consistency` assume (the cube has three literals: not searched at enforce length 2),
/// and the error is reachable.
fn assert_unexcluded_and_unsafe(text: &str) {
    assert!(consistency(text).is_empty(), "{text}");
    assert!(common::bebop_unsafe(text), "must be unsafe:\n{text}");
}

#[test]
fn without_the_cube_the_error_is_reachable() {
    assert_unexcluded_and_unsafe(&mixed(2));
}

#[test]
fn a_mixed_inconsistent_cube_is_excluded_at_the_entry() {
    assert_excluded_and_safe(&abstract_data("mixed_entry.c", 3));
    assert_unexcluded_and_unsafe(&abstract_data("mixed_entry.c", 2));
}

#[test]
fn a_mixed_inconsistent_cube_is_excluded_after_an_external_call() {
    assert_excluded_and_safe(&abstract_data("mixed_havoc.c", 3));
    assert_unexcluded_and_unsafe(&abstract_data("mixed_havoc.c", 2));
}
