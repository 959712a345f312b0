//! Constrain on hand-made traces (the Constrain paper, TACAS'04 §3): the loss that no `enforce`
//! can repair — Cartesian abstraction forgetting, at an assignment, how the post-state relates
//! to the pre-state — gets a constraint relating the pre- and the post-state of the
//! assignment; a branch the abstraction cannot decide gets a conjunct on its `assume`; the
//! Constrain paper's Fig. 1 gets the transitivity invariant. In each case bebop then proves the
//! patched program. And the `constrain` command: output, `--apply`, exit codes, bad input.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use bp_grammar::ast::Program as BpProgram;
use constrain::{Constraint, Kind};

struct Case {
    dir: PathBuf,
    c: PathBuf,
    prog: cir::Program,
    text: String,
}

/// Writes `c_text` and abstracts it with `preds` (predicate-file text) at `cube_len`.
fn abstract_case(name: &str, c_text: &str, preds: &str, cube_len: Option<usize>) -> Case {
    abstract_with(name, c_text, preds, cube_len, false)
}

fn abstract_with(
    name: &str,
    c_text: &str,
    preds: &str,
    cube_len: Option<usize>,
    havoc_all: bool,
) -> Case {
    let dir = std::env::temp_dir().join(format!("constrain-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, c_text).expect("write");
    let prog = cir::load_file(&c, &cir::LowerOptions::default()).expect("lowers");
    let set = cir::pred::parse_predicates(preds, "p.preds", &prog).expect("predicates");
    let opts = c2bp::Options {
        cube_len,
        havoc_all,
        ..c2bp::Options::default()
    };
    let sources = bp_c::header::Sources {
        c_path: c.display().to_string(),
        c_sha256: bp_c::header::sha256_hex(c_text.as_bytes()),
        preds_path: None,
        extra: Vec::new(),
    };
    let out = c2bp::abstract_program(&prog, &set, &opts, &sources).expect("abstracts");
    Case {
        dir,
        c,
        prog,
        text: out.text,
    }
}

fn parse(text: &str) -> BpProgram {
    bp_grammar::parse_and_check(text, &bp_grammar::ParseOptions::default())
        .unwrap_or_else(|d| panic!("does not check: {d:?}\n{text}"))
}

/// Alternates bebop and constrain (at most 4 passes); returns every constraint and whether
/// bebop proved the final program.
fn refine(case: &Case) -> (Vec<Constraint>, bool) {
    refine_passes(case, 4)
}

fn refine_passes(case: &Case, passes: usize) -> (Vec<Constraint>, bool) {
    let pts = cir::pointsto::PointsTo::analyze(&case.prog);
    let mut bp = parse(&case.text);
    let mut all = Vec::new();
    for _ in 0..passes {
        let res = bebop::verify(&bp, &bebop::Options::default()).expect("bebop runs");
        let Some(trace) = res.verdict.trace() else {
            return (all, true);
        };
        let pass = constrain::analyze(&case.prog, &pts, &bp, trace, &constrain::Options::default())
            .expect("constrain runs");
        if pass.constraints.is_empty() {
            return (all, false);
        }
        assert_eq!(
            constrain::apply(&mut bp, &pass.constraints),
            pass.constraints.len(),
            "every constraint applies to the program it came from"
        );
        all.extend(pass.constraints);
        // The patched program re-parses and passes the checker.
        bp = parse(&bp_grammar::print::print(&bp));
    }
    let safe = bebop::verify(&bp, &bebop::Options::default())
        .expect("bebop runs")
        .verdict
        .trace()
        .is_none();
    (all, safe)
}

const STEP: &str = "extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  if (x < y) {
    x = x + 1;
    if (!(x == y) && !(x < y)) reach_error();
  }
  return 0;
}
";

#[test]
fn the_loss_enforce_cannot_repair_gets_a_transition_constraint() {
    let case = abstract_case("step", STEP, "function main:\nx == y\nx < y\n", Some(3));
    let (cs, safe) = refine(&case);
    // On `x = x + 1`: from x < y, not to x != y & !(x < y) — a state consistent by itself, so
    // no enforce could exclude it.
    let wanted = cs.iter().any(|c| {
        c.kind == Kind::Constrain
            && c.part.as_deref() == Some("assign")
            && c.pre == vec![("{x < y}".to_string(), true)]
            && c.post
                == vec![
                    ("{x < y}".to_string(), false),
                    ("{x == y}".to_string(), false),
                ]
    });
    assert!(wanted, "{}", constrain::constraints_text(&cs));
    assert!(
        cs.iter().all(|c| c.kind != Kind::Enforce),
        "{}",
        constrain::constraints_text(&cs)
    );
    assert!(safe, "bebop still finds the error");
    let _ = std::fs::remove_dir_all(&case.dir);
}

const BRANCH: &str = "extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  if (x > 2) {
    if (y > 2) {
      if (x + y <= 4) reach_error();
    }
  }
  return 0;
}
";

#[test]
fn an_undecided_branch_gets_an_assume_conjunct() {
    let case = abstract_case("branch", BRANCH, "function main:\nx > 2\ny > 2\n", Some(1));
    assert!(
        case.text.contains("assume T;"),
        "the branch is undecided at cube length 1:\n{}",
        case.text
    );
    let (cs, safe) = refine(&case);
    assert!(
        cs.iter().any(|c| c.kind == Kind::Assume
            && c.part.as_deref() == Some("cond")
            && c.pre.contains(&("{x > 2}".to_string(), true))
            && c.pre.contains(&("{y > 2}".to_string(), true))),
        "{}",
        constrain::constraints_text(&cs)
    );
    assert!(safe, "bebop still finds the error");
    let _ = std::fs::remove_dir_all(&case.dir);
}

const FIG1: &str = "extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  int z = __VERIFIER_nondet_int();
  if (x < y) {
    if (y < z) {
      if (!(x < z)) reach_error();
    }
  }
  return 0;
}
";

const FIG1_PREDS: &str = "function main:\nx < y\ny < z\nx < z\n";

#[test]
fn fig1_gets_the_transitivity_invariant() {
    let case = abstract_case("fig1", FIG1, FIG1_PREDS, Some(3));
    let (cs, safe) = refine(&case);
    let invariant = Constraint {
        proc: "main".into(),
        edge: None,
        part: None,
        kind: Kind::Enforce,
        pre: Vec::new(),
        post: vec![
            ("{x < y}".into(), true),
            ("{x < z}".into(), false),
            ("{y < z}".into(), true),
        ],
    };
    assert_eq!(cs, vec![invariant], "{}", constrain::constraints_text(&cs));
    assert!(safe);
    let _ = std::fs::remove_dir_all(&case.dir);
}

const CALL: &str = "extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int g;
int check(int a) {
  if (a <= 0) reach_error();
  return a;
}
int main(void) {
  int x = __VERIFIER_nondet_int();
  int r;
  if (x > 0) {
    r = check(x);
    if (r <= 0) reach_error();
  }
  return 0;
}
";

#[test]
fn calls_get_constraints_on_actuals_and_returns() {
    // With `--havoc-all` every update is `*`: the actual parameter's predicate, the returned
    // predicate and the caller's reading of it are all spurious somewhere.
    let case = abstract_with(
        "call",
        CALL,
        "function check:\na > 0\n\\result > 0\nfunction main:\nx > 0\nr > 0\n",
        Some(3),
        true,
    );
    let (cs, safe) = refine_passes(&case, 12);
    let parts: std::collections::BTreeSet<&str> =
        cs.iter().filter_map(|c| c.part.as_deref()).collect();
    for part in ["actuals", "return"] {
        assert!(
            parts.contains(part),
            "no constraint on a `{part}` statement: {}",
            constrain::constraints_text(&cs)
        );
    }
    // The caller reads the returned predicate right after the call.
    assert!(
        cs.iter()
            .any(|c| c.proc == "main" && c.pre.iter().any(|(n, _)| n.starts_with("{ret main#"))),
        "{}",
        constrain::constraints_text(&cs)
    );
    assert!(safe, "{}", constrain::constraints_text(&cs));
    let _ = std::fs::remove_dir_all(&case.dir);
}

fn constrain_cmd(args: &[&Path]) -> std::process::Output {
    Command::new(common::tool("constrain", "constrain"))
        .args(args)
        .output()
        .expect("constrain runs")
}

#[test]
fn the_command_prints_applies_and_rejects_bad_input() {
    let case = abstract_case("cli", FIG1, FIG1_PREDS, Some(3));
    let bp_file = case.dir.join("fig1.bp");
    std::fs::write(&bp_file, &case.text).expect("write");
    let bp = parse(&case.text);
    let res = bebop::verify(&bp, &bebop::Options::default()).expect("bebop runs");
    let trace = res.verdict.trace().expect("an error trace");
    let trace_file = case.dir.join("t.json");
    std::fs::write(&trace_file, trace.to_json()).expect("write");
    let out_bp = case.dir.join("out.bp");
    let out = Command::new(common::tool("constrain", "constrain"))
        .arg(&case.c)
        .arg(&bp_file)
        .arg(&trace_file)
        .arg("--apply")
        .arg(&out_bp)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("main enforce: !({x < y} & !{x < z} & {y < z})"),
        "{stdout}"
    );
    let patched = parse(&std::fs::read_to_string(&out_bp).expect("written"));
    assert!(
        bebop::verify(&patched, &bebop::Options::default())
            .expect("bebop runs")
            .verdict
            .trace()
            .is_none()
    );
    // Bad input: a missing file, a .bp of another C file — one line, exit 2.
    let missing = case.dir.join("missing.json");
    let out = constrain_cmd(&[&case.c, &bp_file, &missing]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("missing.json"), "{err}");
    let other = case.dir.join("other.c");
    std::fs::write(&other, FIG1.replace("x < y", "y < x")).expect("write");
    let out = constrain_cmd(&[&other, &bp_file, &trace_file]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not abstracted from this C file"), "{err}");
    // A trace of another abstraction of the same C file (other predicates): refused, naming
    // the step.
    let fewer = abstract_case("cli2", FIG1, "function main:\nx < y\n", Some(3));
    let bp2 = case.dir.join("fewer.bp");
    std::fs::write(
        &bp2,
        fewer.text.replace(
            &fewer.c.display().to_string(),
            &case.c.display().to_string(),
        ),
    )
    .expect("write");
    let out = constrain_cmd(&[&case.c, &bp2, &trace_file]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not a statement of"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let _ = std::fs::remove_dir_all(&fewer.dir);
    let _ = std::fs::remove_dir_all(&case.dir);
}

/// An `enforce` found when both predicates were local is not re-applied to a program where one
/// of them became global: it would also hold right after a call returns, when the callee has
/// updated the global predicate but the caller's local one waits for its `effects` statement.
#[test]
fn a_reapplied_enforce_never_mixes_global_and_local_predicates() {
    let enforce = Constraint {
        proc: "main".into(),
        edge: None,
        part: None,
        kind: Kind::Enforce,
        pre: Vec::new(),
        post: vec![("{g == 0}".into(), true), ("{g < 1}".into(), false)],
    };
    let local = "void main() begin\n  decl {g == 0}, {g < 1};\n  skip;\nend\n";
    let mut bp = parse(local);
    assert_eq!(constrain::apply(&mut bp, std::slice::from_ref(&enforce)), 1);
    let mixed = "decl {g == 0};\nvoid main() begin\n  decl {g < 1};\n  skip;\nend\n";
    let mut bp = parse(mixed);
    assert_eq!(constrain::apply(&mut bp, std::slice::from_ref(&enforce)), 0);
    assert!(bp.procs[0].enforce.is_none());
}
