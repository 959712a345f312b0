//! The memory suite: small programs over heap structures, pointer fields, structure
//! assignment, `memset`, function pointers in fields, bit flags, a linked list, `calloc`'s
//! zero contents against `malloc`'s arbitrary ones, pointers the environment gives, and a pun
//! through `char *` (`tests/data/memory/*.c`), each run through the library as written (TRUE)
//! and with `MUTANT` defined (a bug: FALSE with a counterexample that replayed on the concrete
//! interpreter). The pun must stay sound: never TRUE for its mutant, never FALSE for the
//! original.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use slam_run::Verdict;

/// Wall-clock bound of one run (the suite's programs take well under a second in release).
const DEADLINE: Duration = Duration::from_secs(120);

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/memory/{name}.c"))
}

/// Runs `name` as written, or with `MUTANT` defined (a copy with the definition in front).
fn run(name: &str, mutant: bool) -> Verdict {
    let config = slam_run::Config {
        deadline: Some(Instant::now() + DEADLINE),
        ..slam_run::Config::default()
    };
    let src = data(name);
    if mutant {
        let text = std::fs::read_to_string(&src).expect("read");
        let mutated = format!("#define MUTANT 1\n{text}");
        common::run_text(&format!("{name}_mutant.c"), &mutated, &config).verdict
    } else {
        common::run_file(&src, &config).verdict
    }
}

/// The original is TRUE, the mutant FALSE with a replayed path that ends at the error.
fn true_and_mutant_false(name: &str) {
    let v = run(name, false);
    assert!(matches!(v, Verdict::True), "{name}: {}", v.line());
    let v = run(name, true);
    let Verdict::False(cex) = &v else {
        panic!("{name} (mutant): {}", v.line());
    };
    let last = cex.steps.last().expect("a path");
    assert!(
        last.text.contains("error"),
        "{name} (mutant) ends at {}",
        last.text
    );
}

macro_rules! suite {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                true_and_mutant_false(stringify!($name));
            }
        )*
    };
}

suite!(
    nested,
    array_of_structs,
    field_ptr,
    struct_assign,
    memset,
    init_null,
    fnptr,
    flags,
    list,
    uninit,
    env_ptr,
);

#[test]
fn pun_through_char_pointer_is_sound() {
    let v = run("pun", false);
    assert!(!matches!(v, Verdict::False(_)), "pun: {}", v.line());
    let v = run("pun", true);
    assert!(!matches!(v, Verdict::True), "pun (mutant): {}", v.line());
}

/// A byte of an `int` field read through `char *` after the whole structure is assigned: the
/// assignment changes the byte (the field-wise update must not take the read for unchanged just
/// because the structure also has a `char` field). The error is reachable.
#[test]
fn a_whole_structure_assignment_changes_a_punned_byte() {
    let text = "extern void reach_error(void);\n\
                struct S { int x; char c; } s, t;\n\
                int main(void) {\n\
                  char *p = (char *)&s.x;\n\
                  *p = 0;\n\
                  t.x = 1;\n\
                  s = t;\n\
                  if (*p != 0) reach_error();\n\
                  return 0;\n\
                }\n";
    let config = slam_run::Config {
        deadline: Some(Instant::now() + DEADLINE),
        ..slam_run::Config::default()
    };
    let v = common::run_text("pun_struct.c", text, &config).verdict;
    assert!(matches!(v, Verdict::False(_)), "{}", v.line());
}

/// A `memset` of `int`s with a non-zero byte is one the IR approximates by any value: the
/// concrete interpreter must not execute it as a free choice, or a replay (of newton's model
/// or of the falsifier's all-zero run) would "reach" an error the program cannot reach.
#[test]
fn an_approximated_memset_is_never_a_counterexample() {
    let text = "extern void *memset(void *d, int c, unsigned long n);\n\
                void reach_error(void) {}\n\
                int main(void) {\n\
                  int a[2];\n\
                  memset(a, -1, sizeof a);\n\
                  if (a[0] == 0) reach_error();\n\
                  return 0;\n\
                }\n";
    let config = slam_run::Config {
        deadline: Some(Instant::now() + DEADLINE),
        ..slam_run::Config::default()
    };
    let v = common::run_text("memset_bytes.c", text, &config).verdict;
    assert!(!matches!(v, Verdict::False(_)), "{}", v.line());
}
