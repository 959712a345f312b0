//! Inputs at the edges: very deep expressions, programs too large for the BDD library, and
//! unusual but well-formed shapes (recursive `main`, jumps into loops, many returns).

mod common;

use bebop::{BebopError, Options, verify};
use common::*;

#[test]
fn deep_expressions() {
    // A left-associated chain of 1,900 operands is 1,900 levels deep.
    let chain: Vec<String> = (0..1900).map(|i| format!("g{}", i % 7)).collect();
    let src = format!(
        "decl g0, g1, g2, g3, g4, g5, g6;
         void main() begin
           g0, g1, g2, g3, g4, g5, g6 := *, *, *, *, *, *, *;
           assume({});
           assert(g0 | g1 | g2 | g3 | g4 | g5 | g6);
         end",
        chain.join(" ^ ")
    );
    // The xor of the chain being true implies some variable is true.
    safe(&src);
}

#[test]
fn too_many_variables_is_no_verdict() {
    let globals: Vec<String> = (0..22_000).map(|i| format!("g{i}")).collect();
    let src = format!(
        "decl {}; void main() begin assert(g0); end",
        globals.join(", ")
    );
    let prog = parse(&src);
    match verify(&prog, &Options::default()) {
        Err(BebopError::TooManyVariables { needed }) => assert!(needed > 65_000),
        other => panic!("expected TooManyVariables, got {other:?}"),
    }
    let path = std::env::temp_dir().join(format!("bebop-robust-{}.bp", std::process::id()));
    std::fs::write(&path, &src).expect("temp file");
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = bebop::cli::run_cli(
        vec!["bebop".into(), path.display().to_string()],
        &mut out,
        &mut err,
    );
    assert_eq!(code, cli_common::exit::UNKNOWN);
    assert!(String::from_utf8_lossy(&err).contains("BDD variables"));
}

#[test]
fn recursive_main() {
    // main calls itself: the inner main's return goes back to the caller.
    let tr = unsafe_(
        "decl g;
         void main() begin
           if g then g := F; main(); assert(F); fi
         end",
    );
    assert_eq!(
        last(&tr).depth,
        0,
        "the outer main's assert fails after the inner returns"
    );
    safe(
        "decl g;
         void main() begin
           if g then g := F; main(); assert(!g); fi
         end",
    );
}

#[test]
fn jumps_into_loops_and_nested_labels() {
    let tr = unsafe_(
        "decl a, b;
         void main() begin
           a, b := F, F;
           goto IN;
           while * do
             b := T;
             IN: a := !a;
             if a & b then SLIC_ERROR: skip; fi
           od
         end",
    );
    assert!(
        tr.steps
            .iter()
            .any(|s| s.labels.contains(&"IN".to_string()))
    );
}

#[test]
fn many_returns_and_fall_through() {
    safe(
        "bool<2> f(x, y) begin
           if x & y then return T, T;
           elsif x then return T, F;
           elsif y then return F, T;
           fi
           return F, F;
         end
         void main() begin decl a, b, p, q; a, b := *, *; p, q := f(a, b);
           assert(p = a); assert(q = b); end",
    );
}

#[test]
fn escaped_identifiers() {
    let tr = unsafe_(
        "decl {x < y}, {p->next == 0};
         void main() begin {x < y} := !{p->next == 0}; assert({x < y}); end",
    );
    assert!(tr.steps[0].after.contains_key("{x < y}"));
}
