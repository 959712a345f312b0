//! The Constrain paper's Fig. 1 (TACAS'04 §1; transitivity) with the predicates
//! `x<y`, `y<z`, `x<z`. With the default options (cube length 3, enforce length 2) the output is
//! the paper's Fig. 2 in substance — `z = *` becomes `{y < z}, {x < z} := *, *` and the branches
//! assume the predicate variables — and bebop finds the error reachable; with `--enforce-len 3`
//! the `enforce` excludes `x<y ∧ y<z ∧ ¬(x<z)` and bebop proves the program safe.

mod common;

fn fig1(enforce_len: usize) -> String {
    let (c, prog, preds) = common::fig1();
    let opts = c2bp::Options {
        enforce_len,
        ..c2bp::Options::default()
    };
    common::abstract_file(&c, &prog, &preds, &opts).text
}

/// The statement annotated with `edge=NAME part=PART`.
fn stmt_of(text: &str, edge: &str, part: &str) -> String {
    let ann = format!("//@ edge={edge} part={part} ");
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        if l.trim_start().starts_with(&ann) {
            return lines
                .next()
                .expect("statement after annotation")
                .trim()
                .to_string();
        }
    }
    panic!("no statement for {edge} {part} in\n{text}");
}

#[test]
fn default_options_give_fig2_and_the_error_is_reachable() {
    let text = fig1(2);
    // `z = __VERIFIER_nondet_int()` is lowered to a nondet call into a temporary, then `z := tmp`
    // (edge main#7): both predicates over z become unknown.
    let z = stmt_of(&text, "main#7", "assign");
    assert_eq!(z.trim_start_matches("L8: "), "{y < z}, {x < z} := *, *;");
    // The branches assume the predicate variables directly.
    assert!(stmt_of(&text, "main#4", "cond").ends_with("assume {x < y};"));
    assert!(stmt_of(&text, "main#5", "cond").ends_with("assume !{x < y};"));
    assert!(stmt_of(&text, "main#8", "cond").ends_with("assume {y < z};"));
    assert!(stmt_of(&text, "main#11", "cond").ends_with("assume !{x < z};"));
    // No inconsistent cube of two literals exists over these predicates: no enforce.
    assert!(
        !text.lines().any(|l| l.trim_start().starts_with("enforce ")),
        "{text}"
    );
    assert!(
        common::bebop_unsafe(&text),
        "the error must be reachable:\n{text}"
    );
}

#[test]
fn enforce_length_3_excludes_the_transitivity_violation_and_proves_it_safe() {
    let text = fig1(3);
    let enforce = text
        .lines()
        .find(|l| l.trim_start().starts_with("enforce "))
        .unwrap_or_else(|| panic!("no enforce in\n{text}"));
    assert!(
        enforce.contains("!({x < y} & {y < z} & !{x < z})"),
        "the enforce must exclude x<y & y<z & !(x<z): {enforce}"
    );
    assert!(!common::bebop_unsafe(&text), "must be safe:\n{text}");
}
