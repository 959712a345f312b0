//! Violation witnesses on the bundled examples and the NDF suite's mutants: slam-run's witness for
//! each FALSE verdict checks (well-formed GraphML, required keys, the program's hash, replayed on
//! the concrete interpreter to the error), and a witness that is wrong is refused — another
//! program's hash, a changed input value, a missing key, broken XML, a path that does not reach the
//! violation node. The corpus's FALSE tasks are checked by `corpus.rs`.

mod common;

use std::path::{Path, PathBuf};

use cir::pred::PredicateSet;
use slam_run::Verdict;
use slam_run::witness::{check_violation, violation};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// slam-run (the library) on a C file; its witness text if FALSE.
fn witness_of(path: &Path, cube_len: Option<usize>) -> Option<(cir::Program, Vec<u8>, String)> {
    let source = std::fs::read(path).expect("source");
    let prog = cir::load_file(path, &cir::LowerOptions::default()).expect("lowers");
    let cfg = slam_run::Config {
        c2bp: c2bp::Options {
            cube_len,
            ..c2bp::Options::default()
        },
        max_iterations: 30,
        ..slam_run::Config::default()
    };
    let r = slam_run::run(
        &prog,
        path,
        &source,
        PredicateSet::default(),
        &cfg,
        &mut |_| {},
    )
    .expect("runs");
    let Verdict::False(cex) = &r.verdict else {
        return None;
    };
    let info = common::witness_info(path, &source);
    let w = violation(&prog, cex, &info);
    Some((prog, source, w))
}

#[test]
fn the_bundled_bug_has_a_witness_that_replays() {
    let (prog, source, w) =
        witness_of(&root().join("examples/c/funlock-bug.c"), Some(3)).expect("FALSE");
    let c = check_violation(&prog, &source, &w).expect("the witness checks");
    assert!(c.values >= 1 && c.steps >= c.edges / 2, "{c:?}");
    for key in [
        "<data key=\"witness-type\">violation_witness</data>",
        "<data key=\"sourcecodelang\">C</data>",
        "<data key=\"architecture\">32bit</data>",
        "<data key=\"entry\">true</data>",
        "<data key=\"violation\">true</data>",
        "assumption.resultfunction\">__VERIFIER_nondet_int<",
        "<data key=\"enterFunction\">",
        "<data key=\"returnFromFunction\">",
    ] {
        assert!(w.contains(key), "the witness lacks {key}");
    }
    assert!(w.contains(&bp_c::header::sha256_hex(&source)));

    // Refused: another program's hash.
    let other = std::fs::read(root().join("examples/c/funlock.c")).expect("read");
    let e = check_violation(&prog, &other, &w).unwrap_err();
    assert!(e.0.contains("programhash"), "{e}");
    // Refused: broken XML, a key missing, an undeclared key.
    assert!(check_violation(&prog, &source, &w[..w.len() / 2]).is_err());
    let no_arch = w.replace("  <data key=\"architecture\">32bit</data>\n", "");
    assert!(
        check_violation(&prog, &source, &no_arch)
            .unwrap_err()
            .0
            .contains("architecture")
    );
    let undeclared = w.replace(
        " <key id=\"startline\" attr.name=\"startline\" attr.type=\"int\" for=\"edge\"/>\n",
        "",
    );
    assert!(
        check_violation(&prog, &source, &undeclared)
            .unwrap_err()
            .0
            .contains("startline")
    );
    // Refused: the path no longer reaches the violation node.
    let cut = w.replace("<data key=\"violation\">true</data>", "");
    assert!(check_violation(&prog, &source, &cut).is_err());
}

#[test]
fn a_witness_with_other_values_does_not_replay() {
    // The mutant of the NDF suite's step.c: x < y, then x + 1 compared with y. Its witness's
    // inputs lead to the error (x + 1 == y); a larger first value (x) makes the run miss it.
    let dir = std::env::temp_dir().join(format!("slam-witness-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let text = std::fs::read_to_string(root().join("slam-run/tests/data/ndf/step.c"))
        .expect("read")
        .replace(
            "if (!(x == y) && !(x < y))",
            "if (!(x + 1 == y) && !(x < y))",
        );
    let path = dir.join("step-mutant.c");
    std::fs::write(&path, text).expect("write");
    let (prog, source, w) = witness_of(&path, Some(3)).expect("FALSE");
    check_violation(&prog, &source, &w).expect("the witness checks");
    // The first `\result == V;` becomes `\result == V + 1000;`.
    let mut shifted = String::new();
    let mut first = true;
    for line in w.lines() {
        if let Some(rest) = line
            .trim()
            .strip_prefix("<data key=\"assumption\">\\result == ")
            .filter(|_| std::mem::take(&mut first))
        {
            let v: i128 = rest.trim_end_matches(";</data>").parse().expect("value");
            shifted.push_str(&format!(
                "   <data key=\"assumption\">\\result == {};</data>\n",
                v + 1000
            ));
        } else {
            shifted.push_str(line);
            shifted.push('\n');
        }
    }
    assert_ne!(shifted, w);
    let e = check_violation(&prog, &source, &shifted).unwrap_err();
    assert!(e.0.contains("without reaching the error"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// slam-run (the command) with `--witness`; the verdict line and the witness text.
fn command_witness(task: &Path, extra: &[&str]) -> (String, Option<String>) {
    let w = std::env::temp_dir().join(format!(
        "slam-cw-{}-{}.graphml",
        std::process::id(),
        task.file_name().unwrap_or_default().to_string_lossy()
    ));
    let _ = std::fs::remove_file(&w);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_slam-run"))
        .args(extra)
        .arg("--witness")
        .arg(&w)
        .arg(task)
        .output()
        .expect("runs");
    let verdict = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    let text = std::fs::read_to_string(&w).ok();
    let _ = std::fs::remove_file(&w);
    (verdict, text)
}

fn check_cw(c_file: &Path, text: &str) -> Result<slam_run::witness::Proved, String> {
    let prog = cir::load_file(c_file, &cir::LowerOptions::default()).expect("lowers");
    let source = std::fs::read(c_file).expect("source");
    slam_run::witness::check_correctness(&prog, &source, text, cir::smt::Semantics::default())
        .map_err(|e| e.0)
}

const TOGGLE: &str = "extern int __VERIFIER_nondet_int(void);
void reach_error(void);
void check(int c) { if (!c) reach_error(); }
int main(void) {
  int x = 0;
  int y = 0;
  while (__VERIFIER_nondet_int()) {
    if (x == 0) { x = 1; y = 1; } else { x = 0; y = 0; }
  }
  check(x == y);
  return 0;
}
";

#[test]
fn a_correctness_witness_is_proved_inductive() {
    let dir = std::env::temp_dir().join(format!("slam-cw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let c = dir.join("toggle.c");
    std::fs::write(&c, TOGGLE).expect("write");
    let (verdict, text) = command_witness(&c, &[]);
    assert_eq!(verdict, "TRUE");
    let text = text.expect("a correctness witness");
    assert!(text.contains("<data key=\"witness-type\">correctness_witness</data>"));
    assert!(text.contains("<data key=\"enterLoopHead\">true</data>"));
    let proved = check_cw(&c, &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(proved.loop_heads, 1);
    assert_eq!(proved.invariants, 1);
    assert!(proved.obligations >= 2, "{proved:?}");
    // A weaker invariant is not inductive enough; a wrong one does not hold at the entry.
    let inv_line = text
        .lines()
        .find(|l| l.contains("<data key=\"invariant\">"))
        .expect("an invariant")
        .to_string();
    for replacement in ["1", "x == 1"] {
        let other = text.replace(
            &inv_line,
            &format!("   <data key=\"invariant\">{replacement}</data>"),
        );
        let e = check_cw(&c, &other).unwrap_err();
        assert!(e.contains("does not follow"), "{replacement}: {e}");
    }
    // Another program's hash.
    let other = dir.join("other.c");
    std::fs::write(&other, TOGGLE.replace("y = 1;", "y = 1; ")).expect("write");
    assert!(check_cw(&other, &text).unwrap_err().contains("programhash"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_bundled_safe_example_has_a_proved_witness() {
    // The loop is in `Example()`, called from `main`: Example is checked from its entry
    // invariant (written with `enterFunction`), which main's call must establish.
    let c = root().join("examples/c/funlock.c");
    let (verdict, text) = command_witness(&c, &[]);
    assert_eq!(verdict, "TRUE");
    let text = text.expect("a correctness witness");
    assert!(
        text.contains("<data key=\"enterFunction\">Example</data>"),
        "{text}"
    );
    let proved = check_cw(&c, &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(
        proved.loop_heads >= 1 && proved.obligations >= 3,
        "{proved:?}"
    );
    // Without the entry invariant, Example's loop-head invariant does not follow.
    let mut lines: Vec<&str> = text.lines().collect();
    let k = lines
        .iter()
        .position(|l| l.contains("<data key=\"enterFunction\">Example</data>"))
        .expect("the entry edge");
    // The invariant node is declared just before its edge: `<node>`, invariant, scope, `</node>`.
    let inv = (0..k)
        .rev()
        .find(|&i| lines[i].contains("<data key=\"invariant\">"))
        .expect("its invariant");
    lines[inv] = "   <data key=\"invariant\">1</data>";
    let weakened = lines.join("\n");
    let e = check_cw(&c, &weakened).unwrap_err();
    assert!(e.contains("does not follow"), "{e}");
}

#[test]
fn a_loop_head_at_the_entry_is_checked_from_its_invariant_too() {
    // main's entry node is the loop head. From the initial state (g == 0) the invariant `1`
    // leads nowhere wrong; from the loop head with `1` (any g), g == 11 reaches the error:
    // the witness must be refused. `g` even and at most 10 is inductive and excludes it.
    let dir = std::env::temp_dir().join(format!("slam-cw-entry-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let c = dir.join("entry-head.c");
    let text = "void reach_error(void);\nint g;\nint main(void) {\n  while (g < 10) { g = g + 2; }\n  if (g == 11) reach_error();\n  return 0;\n}\n";
    std::fs::write(&c, text).expect("write");
    let prog = cir::load_file(&c, &cir::LowerOptions::default()).expect("lowers");
    let main = prog.function("main").expect("main");
    assert_eq!(
        slam_run::witness::loop_heads(main),
        vec![main.entry],
        "the test needs the loop head at the entry"
    );
    let info = common::witness_info(&c, text.as_bytes());
    let witness = |inv: &str| {
        slam_run::witness::correctness(
            &[slam_run::witness::LoopInvariant {
                function: "main".into(),
                line: 4,
                invariant: inv.into(),
                entry: false,
            }],
            &info,
        )
    };
    check_cw(&c, &witness("g % 2 == 0 && g <= 10")).unwrap_or_else(|e| panic!("{e}"));
    let e = check_cw(&c, &witness("1")).unwrap_err();
    assert!(e.contains("does not follow"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The checker does not exclude signed overflow on paths that do not overflow: the error needs
/// `x == INT_MAX`, and `x + 1` on the other branch must not rule that out (it once did, when
/// an assignment's new version was a fresh variable with a range fact equated on every path).
#[test]
fn an_assignment_on_another_branch_does_not_hide_the_error() {
    let dir = std::env::temp_dir().join(format!("slam-cw-ovf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let c = dir.join("ovf.c");
    std::fs::write(
        &c,
        "extern int __VERIFIER_nondet_int(void);\nvoid reach_error(void);\n\
         int main(void) {\n  int x = __VERIFIER_nondet_int();\n\
         if (x != 2147483647) x = x + 1; else reach_error();\n  return 0;\n}\n",
    )
    .expect("write");
    let info = common::witness_info(&c, &std::fs::read(&c).expect("source"));
    let text = slam_run::witness::correctness(&[], &info);
    let e = check_cw(&c, &text).expect_err("the error is reachable");
    assert!(e.contains("does not follow"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The initial values of uninitialised locals the path depends on are in the witness — main's
/// and a callee's — and the checker gives them to the run; with 0 instead (what the checker
/// assumes for a value the witness does not give) neither error would be reached.
#[test]
fn uninitialised_locals_get_their_values_from_the_witness() {
    let dir = std::env::temp_dir().join(format!("slam-witness-uninit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let c = dir.join("uninit.c");
    std::fs::write(
        &c,
        "void reach_error(void);
int check(void) { int y; return y == 7; }
int main(void) {
  unsigned int x;
  if (x == 42u) {
    if (check()) reach_error();
  }
  return 0;
}
",
    )
    .expect("write");
    let (prog, source, w) = witness_of(&c, Some(3)).expect("FALSE");
    assert!(w.contains("x == 42;"), "main's local: {w}");
    assert!(w.contains("y == 7;"), "the callee's local: {w}");
    check_violation(&prog, &source, &w).expect("the witness checks");
    // A wrong initial value: the run does not reach the error.
    let wrong = w.replace("x == 42;", "x == 41;");
    assert!(check_violation(&prog, &source, &wrong).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}
