//! Tests of the well-formedness checker (`bp_grammar::check`): every rule code of
//! `docs/bp-semantics.md` is triggered by a small program, with its position and snippet; a
//! program with several errors gets all of them, in source order; the Boppo corpus and other
//! well-formed programs get none.

use bp_grammar::{Diagnostic, Severity, check, parse};
use std::path::Path;

/// Parses `src` (which must be syntactically valid) and checks it.
fn diagnostics(src: &str) -> Vec<Diagnostic> {
    let prog = match parse(src) {
        Ok(p) => p,
        Err(e) => panic!("test program does not parse: {e:?}\n{src}"),
    };
    check(&prog, src)
}

/// `(code, "line:col", snippet)` of every diagnostic.
fn summary(src: &str) -> Vec<(String, String, String)> {
    diagnostics(src)
        .into_iter()
        .map(|d| (d.code, format!("{}:{}", d.span.line, d.span.col), d.snippet))
        .collect()
}

/// Asserts that `src` has exactly one diagnostic, an error with this code, position and snippet.
#[track_caller]
fn expect_one(src: &str, code: &str, at: &str, snippet: &str) {
    let diags = diagnostics(src);
    assert_eq!(
        diags.len(),
        1,
        "expected one diagnostic, got {}:\n{}\nin\n{src}",
        diags.len(),
        render(&diags)
    );
    let d = &diags[0];
    assert_eq!(
        (
            d.code.as_str(),
            format!("{}:{}", d.span.line, d.span.col).as_str(),
            d.snippet.as_str()
        ),
        (code, at, snippet),
        "in\n{src}"
    );
    assert_eq!(d.severity, Severity::Error, "{d}");
}

fn render(diags: &[Diagnostic]) -> String {
    diags
        .iter()
        .map(|d| d.render("t.bp"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn triple(code: &str, at: &str, snippet: &str) -> (String, String, String) {
    (code.to_string(), at.to_string(), snippet.to_string())
}

#[test]
fn undeclared_var_in_expressions_targets_dead_primes_and_enforce() {
    expect_one(
        "decl g;\nvoid main() begin\n  g := h;\nend\n",
        "undeclared-var",
        "3:8",
        "h",
    );
    expect_one(
        "decl g;\nvoid main() begin\n  h := g;\nend\n",
        "undeclared-var",
        "3:3",
        "h",
    );
    expect_one(
        "decl g;\nvoid main() begin\n  dead g, h;\nend\n",
        "undeclared-var",
        "3:11",
        "h",
    );
    expect_one(
        "decl g;\nvoid main() begin\n  g := * constrain 'h;\nend\n",
        "undeclared-var",
        "3:20",
        "'h",
    );
    expect_one(
        "decl g;\nvoid main() begin\n  enforce g | h;\n  skip;\nend\n",
        "undeclared-var",
        "3:15",
        "h",
    );
    // Locals of another procedure are not in scope.
    expect_one(
        "void f() begin decl x; skip; end\nvoid main() begin\n  assert x;\nend\n",
        "undeclared-var",
        "3:10",
        "x",
    );
}

#[test]
fn duplicate_var_globals_params_locals_and_shadowing() {
    expect_one(
        "decl g, g;\nvoid main() begin skip; end\n",
        "duplicate-var",
        "1:9",
        "g",
    );
    expect_one(
        "decl g;\nvoid main() begin skip; end\nvoid f(g) begin skip; end\n",
        "duplicate-var",
        "3:8",
        "g",
    );
    expect_one(
        "decl g;\nvoid main() begin\n  decl g;\n  skip;\nend\n",
        "duplicate-var",
        "3:8",
        "g",
    );
    expect_one(
        "void main() begin skip; end\nvoid f(a, a) begin skip; end\n",
        "duplicate-var",
        "2:11",
        "a",
    );
    expect_one(
        "void main() begin skip; end\nvoid f(a) begin\n  decl b;\n  decl a;\n  skip;\nend\n",
        "duplicate-var",
        "4:8",
        "a",
    );
    expect_one(
        "void main() begin\n  decl x, y, x;\n  skip;\nend\n",
        "duplicate-var",
        "2:14",
        "x",
    );
}

#[test]
fn duplicate_proc() {
    expect_one(
        "void main() begin skip; end\nvoid f() begin skip; end\nbool f() begin return T; end\n",
        "duplicate-proc",
        "3:6",
        "f",
    );
}

#[test]
fn undeclared_proc() {
    expect_one(
        "void main() begin\n  nothere(T);\nend\n",
        "undeclared-proc",
        "2:3",
        "nothere",
    );
}

#[test]
fn no_main_is_reported_at_the_end_of_the_file() {
    expect_one("decl g;\nvoid f() begin skip; end\n", "no-main", "3:1", "");
    expect_one("", "no-main", "1:1", "");
}

#[test]
fn call_arity() {
    expect_one(
        "decl g;\nvoid f(a) begin skip; end\nvoid main() begin\n  f(g, g);\nend\n",
        "call-arity",
        "4:3",
        "f(g, g);",
    );
    expect_one(
        "decl g;\nbool f(a) begin return a; end\nvoid main() begin\n  L: g := f();\nend\n",
        "call-arity",
        "4:11",
        "f();",
    );
}

#[test]
fn call_results() {
    expect_one(
        "decl g;\nvoid f() begin skip; end\nvoid main() begin\n  g := f();\nend\n",
        "call-results",
        "4:3",
        "g := f();",
    );
    expect_one(
        "decl g;\nbool<2> f() begin return T, F; end\nvoid main() begin\n  L1: L2: g := f();\nend\n",
        "call-results",
        "4:11",
        "g := f();",
    );
    expect_one(
        "decl g;\nbool f() begin return T; end\nvoid main() begin\n  g, _ := f();\nend\n",
        "call-results",
        "4:3",
        "g, _ := f();",
    );
    // No targets at all is always fine, and `_` counts as a target.
    assert!(
        summary(
            "decl g;\nbool<2> f() begin return T, F; end\nvoid main() begin\n  f();\n  _, g := f();\nend\n"
        )
        .is_empty()
    );
}

#[test]
fn return_arity() {
    expect_one(
        "bool f() begin\n  return;\nend\nvoid main() begin skip; end\n",
        "return-arity",
        "2:3",
        "return;",
    );
    expect_one(
        "decl g;\nvoid main() begin\n  L: return g;\nend\n",
        "return-arity",
        "3:6",
        "return g;",
    );
    expect_one(
        "bool<2> f() begin\n  return T;\nend\nvoid main() begin skip; end\n",
        "return-arity",
        "2:3",
        "return T;",
    );
}

#[test]
fn assign_count() {
    expect_one(
        "decl a, b;\nvoid main() begin\n  a, b := T;\nend\n",
        "assign-count",
        "3:3",
        "a, b := T;",
    );
    expect_one(
        "decl a;\nvoid main() begin\n  a := T, F constrain 'a;\nend\n",
        "assign-count",
        "3:3",
        "a := T, F constrain 'a;",
    );
}

#[test]
fn assign_twice_in_assignments_and_calls() {
    expect_one(
        "decl a, b;\nvoid main() begin\n  a, b, a := T, F, T;\nend\n",
        "assign-twice",
        "3:9",
        "a",
    );
    expect_one(
        "decl a;\nbool<2> f() begin return T, F; end\nvoid main() begin\n  a, a := f();\nend\n",
        "assign-twice",
        "4:6",
        "a",
    );
}

#[test]
fn duplicate_label_also_across_nesting() {
    expect_one(
        "void main() begin\n  L: skip;\n  L: skip;\nend\n",
        "duplicate-label",
        "3:3",
        "L",
    );
    expect_one(
        "void main() begin\n  L: M: skip;\n  while * do\n    N: M: skip;\n  od\nend\n",
        "duplicate-label",
        "4:8",
        "M",
    );
    // The same label in two procedures is fine.
    assert!(summary("void f() begin L: skip; end\nvoid main() begin L: skip; end\n").is_empty());
}

#[test]
fn unknown_label_including_labels_of_other_procedures() {
    expect_one(
        "void f() begin M: skip; end\nvoid main() begin\n  L: goto L, M;\nend\n",
        "unknown-label",
        "3:14",
        "M",
    );
}

#[test]
fn prime_outside_constrain() {
    expect_one(
        "decl g;\nvoid main() begin\n  assert 'g;\nend\n",
        "prime-outside-constrain",
        "3:10",
        "'g",
    );
    expect_one(
        "decl g;\nvoid main() begin\n  g := !'g constrain 'g;\nend\n",
        "prime-outside-constrain",
        "3:9",
        "'g",
    );
    expect_one(
        "decl g;\nvoid main() begin\n  enforce 'g;\n  skip;\nend\n",
        "prime-outside-constrain",
        "3:11",
        "'g",
    );
}

#[test]
fn discard_not_call() {
    expect_one(
        "decl g;\nvoid main() begin\n  g, _ := T, F;\nend\n",
        "discard-not-call",
        "3:6",
        "_",
    );
}

#[test]
fn nested_schoose_is_a_warning() {
    let src = "decl g;\nvoid main() begin\n  g := !schoose[g, F];\n  g := schoose[g, F];\nend\n";
    let diags = diagnostics(src);
    assert_eq!(diags.len(), 1, "{}", render(&diags));
    assert_eq!(diags[0].code, "nested-schoose");
    assert_eq!(diags[0].severity, Severity::Warning);
    assert_eq!(
        (
            diags[0].span.line,
            diags[0].span.col,
            diags[0].snippet.as_str()
        ),
        (3, 9, "schoose[g, F]")
    );
    // Warnings do not make `parse_and_check` fail.
    assert!(bp_grammar::parse_and_check(src, &Default::default()).is_ok());
}

#[test]
fn all_errors_are_reported_in_source_order() {
    let src = "\
decl g, g;
bool f(a, g) begin
  L: return;
  L: goto M;
end
void main() begin
  x := f(T, F, T);
  g, _ := 'g;
  h();
end
void main() begin skip; end
";
    assert_eq!(
        summary(src),
        vec![
            triple("duplicate-var", "1:9", "g"),
            triple("duplicate-var", "2:11", "g"),
            triple("return-arity", "3:6", "return;"),
            triple("duplicate-label", "4:3", "L"),
            triple("unknown-label", "4:11", "M"),
            triple("undeclared-var", "7:3", "x"),
            triple("call-arity", "7:8", "f(T, F, T);"),
            triple("assign-count", "8:3", "g, _ := 'g;"),
            triple("discard-not-call", "8:6", "_"),
            triple("prime-outside-constrain", "8:11", "'g"),
            triple("undeclared-proc", "9:3", "h"),
            triple("duplicate-proc", "11:6", "main"),
        ]
    );
    let err = bp_grammar::parse_and_check(src, &Default::default()).expect_err("ill-formed");
    assert_eq!(err.len(), 12);
}

#[test]
fn well_formed_programs_have_no_diagnostics() {
    let src = "\
decl g, h;
bool<2> pair(a, b) begin
  decl t;
  enforce a | !a;
  t, g := b, * constrain 't = 'g;
  if (a) then return a, b; elsif * then goto done; else skip; fi
  while (t & g) do t := F; od
  done: return schoose[a, b], T;
end
void main() begin
  decl x;
  x, _ := pair(g, h);
  _, _ := pair(T, F);
  pair(x, x);
  print(x, g);
  dead x;
  assume g = h;
  assert(g => h);
  L1: L2: goto L1, L2;
end
";
    let diags = diagnostics(src);
    assert!(diags.is_empty(), "{}", render(&diags));
}

#[test]
fn boppo_corpus_is_well_formed() {
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/corpus/bp/boppo"
    ));
    if !dir.is_dir() {
        println!("skipping: ../shared/corpus not found");
        return;
    }
    let mut n_files = 0;
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("corpus directory is readable")
        .flatten()
        .map(|e| e.path().join("main.bp"))
        .filter(|p| p.is_file())
        .collect();
    entries.sort();
    for path in entries {
        let src = std::fs::read_to_string(&path).expect("corpus file is readable");
        let prog = match parse(&src) {
            Ok(p) => p,
            Err(e) => panic!("{} does not parse: {e:?}", path.display()),
        };
        let diags = check(&prog, &src);
        assert!(diags.is_empty(), "{}:\n{}", path.display(), render(&diags));
        n_files += 1;
    }
    assert_eq!(n_files, 23, "expected the 23 sequential Boppo programs");
}

#[test]
fn deep_expressions_do_not_overflow_a_small_stack() {
    use bp_grammar::{BinOp, Expr, Ident, Procedure, Program, RetType, Span, Stmt, StmtKind};
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let mut e = Expr::var("g");
            for i in 0..bp_grammar::MAX_EXPR_DEPTH {
                e = if i % 2 == 0 {
                    Expr::binary(BinOp::Eq, Expr::var("g"), e)
                } else {
                    Expr::not(e)
                };
            }
            let mut stmt = Stmt {
                labels: vec![],
                kind: StmtKind::Assert(e),
                annotations: Default::default(),
                span: Span::NONE,
            };
            for _ in 0..bp_grammar::MAX_STMT_DEPTH {
                stmt = Stmt {
                    labels: vec![],
                    kind: StmtKind::While {
                        cond: Expr::var("h"),
                        body: vec![stmt],
                    },
                    annotations: Default::default(),
                    span: Span::NONE,
                };
            }
            let prog = Program {
                header: Default::default(),
                globals: vec![],
                procs: vec![Procedure {
                    name: Ident::new("main"),
                    ret: RetType::Void,
                    params: vec![Ident::new("g")],
                    locals: vec![],
                    enforce: None,
                    body: vec![stmt],
                    annotations: Default::default(),
                    span: Span::NONE,
                }],
                span: Span::NONE,
            };
            let diags = check(&prog, "");
            assert_eq!(
                diags.len(),
                bp_grammar::MAX_STMT_DEPTH,
                "one undeclared `h` per loop"
            );
            assert!(diags.iter().all(|d| d.code == "undeclared-var"));
            let text = bp_grammar::print(&prog);
            assert!(text.len() > 4 * bp_grammar::MAX_EXPR_DEPTH);
        })
        .expect("spawn a thread")
        .join()
        .expect("no stack overflow");
}

#[test]
fn missing_return_is_a_warning_at_the_end() {
    let src = "bool f(a) begin\n  if a then return T; fi;\nend\nvoid main() begin\n  skip;\nend\n";
    let diags = diagnostics(src);
    assert_eq!(diags.len(), 1, "{}", render(&diags));
    assert_eq!(
        (
            diags[0].code.as_str(),
            diags[0].severity,
            diags[0].span.line
        ),
        ("missing-return", Severity::Warning, 3)
    );
    assert_eq!(diags[0].snippet, "end");
    // Every way out returns: no warning.
    for ok in [
        "bool f(a) begin\n  if a then return T; else return F; fi;\nend\n",
        "bool f(a) begin\n  while T do skip; od;\nend\n",
        "bool f(a) begin\n  goto L;\n  L: return a;\nend\n",
        "bool<2> f(a) begin\n  assume(F);\nend\n",
        "void f(a) begin\n  skip;\nend\n",
    ] {
        let src = format!("{ok}void main() begin skip; end\n");
        assert!(
            diagnostics(&src).is_empty(),
            "{src}: {}",
            render(&diagnostics(&src))
        );
    }
    // A label a `goto` names is reachable, even after a `return`.
    let src = "bool f(a) begin\n  if a then goto L; fi;\n  return T;\n  L: skip;\nend\n\
               void main() begin skip; end\n";
    assert_eq!(summary(src), vec![triple("missing-return", "5:1", "end")]);
}
