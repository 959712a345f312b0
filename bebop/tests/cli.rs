//! The command line, run in-process through `bebop::cli::run_cli`.

use bp_grammar::trace::Trace;
use std::path::PathBuf;

fn temp(name: &str, text: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("bebop-cli-{}-{name}", std::process::id()));
    std::fs::write(&p, text).expect("temp file");
    p
}

fn cli(args: &[&str]) -> (i32, String, String) {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let mut argv = vec!["bebop".to_string()];
    argv.extend(args.iter().map(|s| s.to_string()));
    let code = bebop::cli::run_cli(argv, &mut out, &mut err);
    (
        code,
        String::from_utf8(out).expect("utf-8"),
        String::from_utf8(err).expect("utf-8"),
    )
}

const UNSAFE: &str = "decl g1;
void main() begin
L0:  g1:=*;
//@ edge=main#17
L1:  if g1 then goto l; fi;
L2:  goto endl;
L3:  l: assert(0);
L4:  endl: skip;
end
";

#[test]
fn safe_program() {
    let f = temp(
        "safe.bp",
        "decl g; void main() begin g := T; assert(g); end",
    );
    let (code, out, err) = cli(&[f.to_str().expect("path")]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().next(), Some("VERIFICATION SUCCESSFUL"));
}

#[test]
fn unsafe_program_prints_a_trace() {
    let f = temp("unsafe.bp", UNSAFE);
    let (code, out, _) = cli(&[f.to_str().expect("path")]);
    assert_eq!(code, 10);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "VERIFICATION FAILED");
    let l1 = lines
        .iter()
        .find(|l| l.contains("L1:"))
        .expect("a line for L1");
    assert!(l1.contains("[main] 5:1"), "{l1}");
    assert!(l1.contains("@ edge=main#17"), "{l1}");
    assert!(out.contains("g1: F -> T"), "{out}");
    assert!(out.contains("ASSERTION FAILS"), "{out}");
}

#[test]
fn trace_json_and_quiet() {
    let f = temp("unsafe2.bp", UNSAFE);
    let j = std::env::temp_dir().join(format!("bebop-cli-{}-trace.json", std::process::id()));
    let (code, out, _) = cli(&[
        "-q",
        "--trace-json",
        j.to_str().expect("path"),
        f.to_str().expect("path"),
    ]);
    assert_eq!(code, 10);
    assert_eq!(out, "VERIFICATION FAILED\n");
    let tr = Trace::from_json(&std::fs::read_to_string(&j).expect("written")).expect("valid JSON");
    assert_eq!(tr.format, bp_grammar::trace::TRACE_FORMAT);
    assert_eq!(tr.steps.len(), 4);
    assert_eq!(tr.steps[1].annotations.get("edge"), Some("main#17"));
}

#[test]
fn label_option() {
    let f = temp(
        "label.bp",
        "decl g0; void main() begin g0:=*; if g0 then MY_ERROR_LABEL: skip; fi; end",
    );
    let (code, out, _) = cli(&["--label", "MY_ERROR_LABEL", f.to_str().expect("path")]);
    assert_eq!(code, 10);
    assert!(out.contains("REACHED MY_ERROR_LABEL"), "{out}");
    // A label no statement carries is an input error, not a vacuous success.
    let (code, out, err) = cli(&["-l", "NOPE", f.to_str().expect("path")]);
    assert_eq!(code, 2, "{out}");
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("no statement is labelled `NOPE`"), "{err}");
}

#[test]
fn stats_and_invariants() {
    let f = temp(
        "inv.bp",
        "decl g; void main() begin g := *; assume(g); L: skip; end",
    );
    let (code, out, err) = cli(&["--stats", "--invariants", f.to_str().expect("path")]);
    assert_eq!(code, 0);
    // Statistics are measurements, on stderr as in c2bp; stdout keeps the results.
    assert!(err.contains("BDD variables:"), "{err}");
    assert!(err.contains("worklist iterations:"), "{err}");
    assert!(!out.contains("BDD variables:"), "{out}");
    let inv = out
        .lines()
        .find(|l| l.contains("L: skip"))
        .expect("an invariant line");
    assert!(inv.trim_end().ends_with(" g"), "{inv}");
}

#[test]
fn input_errors() {
    let (code, _, err) = cli(&["/nonexistent/file.bp"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read /nonexistent/file.bp"), "{err}");
    let f = temp("syntax.bp", "void main() begin x := ; end");
    let (code, out, err) = cli(&[f.to_str().expect("path")]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("error["), "{err}");
    let f = temp("ill.bp", "void main() begin x := T; y := F; end");
    let (code, _, err) = cli(&[f.to_str().expect("path")]);
    assert_eq!(code, 2);
    assert_eq!(
        err.matches("undeclared-var").count(),
        2,
        "all diagnostics: {err}"
    );
}

#[test]
fn usage_errors_and_help() {
    let (code, _, err) = cli(&["--no-such-flag", "x.bp"]);
    assert_eq!(code, 1, "{err}");
    let (code, _, _) = cli(&[]);
    assert_eq!(code, 1);
    let (code, out, _) = cli(&["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("--json"), "{out}");
    assert!(out.contains("--check"), "{out}");
    assert!(out.contains(&cli_common::exit::help(&[])[..20]), "{out}");
    for (c, meaning) in cli_common::exit::TABLE {
        assert!(out.contains(meaning), "{c}: {out}");
    }
    // Several files only with --check.
    let (code, _, err) = cli(&["a.bp", "b.bp"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("--cprover-precedence"), "{out}");
}

#[test]
fn cprover_precedence() {
    // `a & b = c` is `a & (b = c)` (Moped) or `(a & b) = c` (CPROVER).
    let f = temp(
        "prec.bp",
        "decl a, b, c; void main() begin a, b, c := F, F, F; assert(a & b = c); end",
    );
    let (code, _, _) = cli(&[f.to_str().expect("path")]);
    assert_eq!(code, 10, "Moped: F & (F = F) = F");
    let (code, _, _) = cli(&["--cprover-precedence", f.to_str().expect("path")]);
    assert_eq!(code, 0, "CPROVER: (F & F) = F = T");
}

#[test]
fn a_successful_run_leaves_no_stale_trace() {
    let f = temp(
        "safe-json.bp",
        "decl g; void main() begin g := T; assert(g); end",
    );
    let j = temp("stale.json", "an old trace");
    let (code, _, err) = cli(&[
        "--trace-json",
        j.to_str().expect("path"),
        f.to_str().expect("path"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!j.exists(), "the old --trace-json file is still there");
    let u = temp("unsafe-json.bp", UNSAFE);
    let (code, _, _) = cli(&[
        "--json",
        j.to_str().expect("path"),
        u.to_str().expect("path"),
    ]);
    assert_eq!(code, 10);
    assert!(Trace::from_json(&std::fs::read_to_string(&j).expect("written")).is_ok());
}

#[test]
fn check_mode_lists_the_diagnostics_of_every_file() {
    let good = temp("check-good.bp", "decl g; void main() begin g := T; end");
    let bad = temp(
        "check-bad.bp",
        "void main() begin\n  x := ;\nend\nvoid f() begin\n  y := := T;\nend\n",
    );
    let ill = temp("check-ill.bp", "void main() begin\n  mc := T;\nend\n");
    let (code, out, err) = cli(&["--check", good.to_str().expect("path")]);
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    let (code, out, err) = cli(&[
        "--check",
        good.to_str().expect("path"),
        bad.to_str().expect("path"),
        ill.to_str().expect("path"),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "diagnostics only: {out}");
    let bad_name = bad.display().to_string();
    let ill_name = ill.display().to_string();
    // Both procedures' syntax errors, each with its source line and a caret.
    assert!(
        err.contains(&format!("{bad_name}:2:8: error[syntax]")),
        "{err}"
    );
    assert!(
        err.contains(&format!("{bad_name}:5:8: error[syntax]")),
        "{err}"
    );
    assert!(err.contains(" 5 │   y := := T;"), "{err}");
    // The message quotes the name once.
    assert!(
        err.contains(&format!(
            "{ill_name}:2:3: error[undeclared-var]: undeclared variable `mc`\n"
        )),
        "{err}"
    );
    assert!(err.contains(" 2 │   mc := T;"), "{err}");
}
