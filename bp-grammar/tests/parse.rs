//! Integration tests of the parser (`bp_grammar::parse`): every construct of
//! `docs/bp-semantics.md` "Syntax accepted", both precedence dialects, annotations, the Boppo
//! corpus, and the errors (syntax, bad constants, unsupported constructs, too-deep input) with
//! their codes and exact positions.

use bp_grammar::{
    Annotations, BinOp, CondArm, Diagnostic, Expr, Ident, Lhs, MAX_EXPR_DEPTH, MAX_PAREN_DEPTH,
    MAX_STMT_DEPTH, ParseOptions, Precedence, Program, RetType, Span, Stmt, StmtKind, parse,
    parse_with,
};
use std::path::PathBuf;

// ------------------------------------------------------------------------------ helpers

fn ok(src: &str) -> Program {
    match parse(src) {
        Ok(p) => p,
        Err(ds) => panic!(
            "expected {src:?} to parse, got:\n{}",
            ds.iter()
                .map(|d| d.render("<src>"))
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

fn errs(src: &str) -> Vec<Diagnostic> {
    match parse(src) {
        Ok(p) => panic!("expected {src:?} to be rejected, got {p:?}"),
        Err(ds) => {
            assert!(!ds.is_empty(), "an Err carries at least one diagnostic");
            ds
        }
    }
}

/// The first error as `(code, line, col, snippet)`.
fn err(src: &str) -> (String, u32, u32, String) {
    let d = errs(src).remove(0);
    (d.code, d.span.line, d.span.col, d.snippet)
}

/// The body of `main` in a program whose main body is `body`.
fn body(body: &str) -> Vec<Stmt> {
    let src = format!("void main() begin\n{body}\nend\n");
    ok(&src).procs.remove(0).body
}

/// The kind of the one statement `stmt`.
fn kind(stmt: &str) -> StmtKind {
    let mut b = body(stmt);
    assert_eq!(b.len(), 1, "{stmt:?} is one statement");
    b.remove(0).kind
}

/// The expression `e` (as the right-hand side of an assignment), Moped precedence.
fn expr(e: &str) -> Expr {
    expr_with(e, Precedence::Moped)
}

fn expr_with(e: &str, precedence: Precedence) -> Expr {
    let src = format!("void main() begin x := {e}; end");
    let prog = parse_with(&src, &ParseOptions { precedence })
        .unwrap_or_else(|d| panic!("{e:?} does not parse: {d:?}"));
    match prog.procs[0].body[0].kind.clone() {
        StmtKind::Assign { mut rhs, .. } => rhs.remove(0),
        other => panic!("{e:?}: not an assignment: {other:?}"),
    }
}

fn v(name: &str) -> Expr {
    Expr::var(name)
}
fn and(a: Expr, b: Expr) -> Expr {
    Expr::binary(BinOp::And, a, b)
}
fn or(a: Expr, b: Expr) -> Expr {
    Expr::binary(BinOp::Or, a, b)
}
fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}
fn primed(name: &str) -> Expr {
    Expr::Primed(Ident::new(name))
}
fn nondet() -> Expr {
    Expr::Nondet(Span::NONE)
}
fn schoose(a: Expr, b: Expr) -> Expr {
    Expr::Schoose(Box::new(a), Box::new(b), Span::NONE)
}
fn id(name: &str) -> Ident {
    Ident::new(name)
}
fn lv(name: &str) -> Lhs {
    Lhs::Var(id(name))
}
fn ann(pairs: &[(&str, &str)]) -> Annotations {
    Annotations(
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

fn corpus_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/bp/boppo");
    dir.is_dir().then_some(dir)
}

// ------------------------------------------------------------------------------ corpus

#[test]
fn every_boppo_corpus_file_parses() {
    let Some(dir) = corpus_dir() else {
        println!("skipping: ../shared/corpus not found");
        return;
    };
    let mut n = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus directory is readable")
        .filter_map(Result::ok)
        .map(|e| e.path().join("main.bp"))
        .filter(|p| p.is_file())
        .collect();
    entries.sort();
    for path in entries {
        let src = std::fs::read_to_string(&path).expect("corpus file is UTF-8");
        if let Err(ds) = parse(&src) {
            panic!(
                "{} does not parse:\n{}",
                path.display(),
                ds.iter()
                    .map(|d| d.render(&path.display().to_string()))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
        n += 1;
    }
    assert_eq!(n, 23, "the 23 sequential Boppo tests");
}

#[test]
fn corpus_shapes() {
    let Some(dir) = corpus_dir() else {
        println!("skipping: ../shared/corpus not found");
        return;
    };
    let read = |name: &str| {
        std::fs::read_to_string(dir.join(name).join("main.bp")).expect("corpus file exists")
    };
    // Taken1: `endl` is a label, not the keyword `end`; two labels on one statement.
    let p = ok(&read("Taken1"));
    let main = p.proc("main").expect("main");
    assert_eq!(main.body.len(), 5);
    assert_eq!(main.body[3].labels, vec![id("L3"), id("l")]);
    assert_eq!(main.body[4].labels, vec![id("L4"), id("endl")]);
    assert_eq!(main.body[2].kind, StmtKind::Goto(vec![id("endl")]));
    // Function1: `_, _ := f(g0, g0);` and bool<2>.
    let p = ok(&read("Function1"));
    assert_eq!(p.proc("f").expect("f").ret, RetType::Bool(2));
    let main = p.proc("main").expect("main");
    assert_eq!(
        main.body[3].kind,
        StmtKind::Call {
            lhs: vec![Lhs::Discard(Span::NONE), Lhs::Discard(Span::NONE)],
            callee: id("f"),
            args: vec![v("g0"), v("g0")],
        }
    );
    // Deep1: enforce, and primes inside parentheses.
    let p = ok(&read("Deep1"));
    let main = p.proc("main").expect("main");
    assert_eq!(main.enforce, Some(Expr::constant(true)));
    assert_eq!(main.locals[0].vars.len(), 5);
}

// ------------------------------------------------------------------------------ declarations, procedures

#[test]
fn declarations_and_procedures() {
    let p = ok("decl a, b;\n\
         dfs bool<3> f(x, y) begin decl l; decl m, n; enforce x | y; return x, y, l; end\n\
         decl c;\n\
         bool g() begin return T; end\n\
         void main() begin skip; end");
    assert_eq!(p.globals.len(), 2);
    assert_eq!(p.globals[0].vars, vec![id("a"), id("b")]);
    assert_eq!(p.globals[1].vars, vec![id("c")]);
    assert_eq!(p.procs.len(), 3);
    let f = &p.procs[0];
    assert_eq!(f.name, id("f"));
    assert_eq!(f.ret, RetType::Bool(3));
    assert_eq!(f.params, vec![id("x"), id("y")]);
    assert_eq!(f.locals.len(), 2);
    assert_eq!(f.locals[1].vars, vec![id("m"), id("n")]);
    assert_eq!(f.enforce, Some(or(v("x"), v("y"))));
    assert_eq!(
        f.body[0].kind,
        StmtKind::Return(vec![v("x"), v("y"), v("l")])
    );
    assert_eq!(p.procs[1].ret, RetType::Bool(1));
    assert_eq!(p.procs[1].params, vec![]);
    assert_eq!(p.procs[2].ret, RetType::Void);
    // An empty program and an empty body are fine.
    assert_eq!(ok("").procs.len(), 0);
    assert_eq!(ok("  // nothing\n").globals.len(), 0);
    assert!(ok("void main() begin end").procs[0].body.is_empty());
}

#[test]
fn bool_zero_is_rejected() {
    let (code, line, col, snippet) = err("bool<0> f() begin end");
    assert_eq!(
        (code.as_str(), line, col, snippet.as_str()),
        ("syntax", 1, 6, "0")
    );
}

// ------------------------------------------------------------------------------ statements

#[test]
fn simple_statements() {
    assert_eq!(kind("skip;"), StmtKind::Skip);
    assert_eq!(
        kind("print(a, !b);"),
        StmtKind::Print(vec![v("a"), Expr::not(v("b"))])
    );
    assert_eq!(kind("print();"), StmtKind::Print(vec![]));
    assert_eq!(
        kind("goto L1, L2, L3;"),
        StmtKind::Goto(vec![id("L1"), id("L2"), id("L3")])
    );
    assert_eq!(kind("return;"), StmtKind::Return(vec![]));
    assert_eq!(
        kind("return a, T;"),
        StmtKind::Return(vec![v("a"), Expr::constant(true)])
    );
    assert_eq!(kind("dead a, b;"), StmtKind::Dead(vec![id("a"), id("b")]));
    for s in ["assert(a);", "assert a;", "assert (a);"] {
        assert_eq!(kind(s), StmtKind::Assert(v("a")), "{s}");
    }
    for s in ["assume(*);", "assume *;", "assume ?;"] {
        assert_eq!(kind(s), StmtKind::Assume(nondet()), "{s}");
    }
    assert_eq!(kind("assert F;"), StmtKind::Assert(Expr::constant(false)));
}

#[test]
fn assignments_and_calls() {
    assert_eq!(
        kind("a, b := *, !a;"),
        StmtKind::Assign {
            lhs: vec![lv("a"), lv("b")],
            rhs: vec![nondet(), Expr::not(v("a"))],
            constrain: None,
        }
    );
    assert_eq!(
        kind("a, b := *, * constrain 'a & b';"),
        StmtKind::Assign {
            lhs: vec![lv("a"), lv("b")],
            rhs: vec![nondet(), nondet()],
            constrain: Some(and(primed("a"), primed("b"))),
        }
    );
    assert_eq!(
        kind("f(a, T);"),
        StmtKind::Call {
            lhs: vec![],
            callee: id("f"),
            args: vec![v("a"), Expr::constant(true)],
        }
    );
    assert_eq!(
        kind("f();"),
        StmtKind::Call {
            lhs: vec![],
            callee: id("f"),
            args: vec![],
        }
    );
    assert_eq!(
        kind("x, _ := f(a);"),
        StmtKind::Call {
            lhs: vec![lv("x"), Lhs::Discard(Span::NONE)],
            callee: id("f"),
            args: vec![v("a")],
        }
    );
    // A single `ident(args)` is a call; anything more is an expression.
    assert_eq!(
        kind("x := (f);"),
        StmtKind::Assign {
            lhs: vec![lv("x")],
            rhs: vec![v("f")],
            constrain: None,
        }
    );
    // `_` is accepted on the left of a plain assignment (the checker rejects it).
    assert_eq!(
        kind("_ := T;"),
        StmtKind::Assign {
            lhs: vec![Lhs::Discard(Span::NONE)],
            rhs: vec![Expr::constant(true)],
            constrain: None,
        }
    );
    // But not as a variable in an expression.
    assert_eq!(err("void main() begin x := _; end").0, "syntax");
}

#[test]
fn call_inside_expression_is_a_syntax_error() {
    let ds = errs("void main() begin x := f(a) & b; end");
    assert_eq!(ds[0].code, "syntax");
    assert_eq!((ds[0].span.line, ds[0].span.col), (1, 29));
    assert!(ds[0].message.contains("call"), "{}", ds[0].message);
}

#[test]
fn compound_statements() {
    assert_eq!(
        kind("if a then skip; elsif b then x := T; elsif (*) then skip; else goto L; fi"),
        StmtKind::If {
            arms: vec![
                CondArm {
                    cond: v("a"),
                    body: body("skip;"),
                },
                CondArm {
                    cond: v("b"),
                    body: body("x := T;"),
                },
                CondArm {
                    cond: nondet(),
                    body: body("skip;"),
                },
            ],
            els: Some(body("goto L;")),
        }
    );
    assert_eq!(
        kind("if * then fi"),
        StmtKind::If {
            arms: vec![CondArm {
                cond: nondet(),
                body: vec![],
            }],
            els: None,
        }
    );
    assert_eq!(
        kind("while (a) do a := F; od;"),
        StmtKind::While {
            cond: v("a"),
            body: body("a := F;"),
        }
    );
    assert_eq!(
        kind("if !(*) then goto l3; fi;"),
        StmtKind::If {
            arms: vec![CondArm {
                cond: Expr::not(nondet()),
                body: body("goto l3;"),
            }],
            els: None,
        }
    );
}

#[test]
fn optional_semicolons() {
    // Before `end`, `fi`, `else`, `elsif`, `od`, and after `fi`/`od`.
    let b = body("if a then skip else skip fi; while a do x := T od L1: skip");
    assert_eq!(b.len(), 3);
    assert_eq!(b[2].labels, vec![id("L1")]);
    assert_eq!(body("if a then skip elsif b then skip fi").len(), 1);
    assert_eq!(
        body("if a then skip; fi; skip; while * do skip; od; skip;").len(),
        4
    );
    // Between two simple statements the `;` is required.
    let (code, line, col, snippet) = err("void main() begin skip skip; end");
    assert_eq!(
        (code.as_str(), line, col, snippet.as_str()),
        ("syntax", 1, 24, "skip")
    );
    // No empty statements.
    assert_eq!(err("void main() begin skip;; end").0, "syntax");
}

#[test]
fn labels() {
    let b = body("L1: L2: skip; L3:\n  x := T; endl: goto L1, endl;");
    assert_eq!(b[0].labels, vec![id("L1"), id("L2")]);
    assert_eq!(b[1].labels, vec![id("L3")]);
    assert_eq!(b[2].labels, vec![id("endl")]);
    assert_eq!(b[2].kind, StmtKind::Goto(vec![id("L1"), id("endl")]));
    // A label must label a statement.
    assert_eq!(err("void main() begin L: end").0, "syntax");
}

// ------------------------------------------------------------------------------ lexical

#[test]
fn identifiers_and_keywords() {
    let p = ok(
        "decl {x < y}, {a == b && c}, c$$main, b3_l_eq_s$, $x, a#1, a-b, endl, if_x, T1, F0, \
         _x, decls, ends;\n void main() begin {x < y} := {a == b && c}; end",
    );
    let names: Vec<&str> = p.globals[0].vars.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "{x < y}",
            "{a == b && c}",
            "c$$main",
            "b3_l_eq_s$",
            "$x",
            "a#1",
            "a-b",
            "endl",
            "if_x",
            "T1",
            "F0",
            "_x",
            "decls",
            "ends"
        ]
    );
    assert_eq!(
        p.procs[0].body[0].kind,
        StmtKind::Assign {
            lhs: vec![lv("{x < y}")],
            rhs: vec![v("{a == b && c}")],
            constrain: None,
        }
    );
    for kw in [
        "decl",
        "begin",
        "end",
        "void",
        "bool",
        "if",
        "then",
        "else",
        "elsif",
        "fi",
        "while",
        "do",
        "od",
        "goto",
        "return",
        "skip",
        "assert",
        "assume",
        "print",
        "enforce",
        "constrain",
        "schoose",
        "dead",
        "dfs",
        "T",
        "F",
    ] {
        let src = format!("decl {kw};");
        let d = errs(&src).remove(0);
        assert_eq!(d.code, "syntax", "{kw}");
        assert_eq!((d.span.line, d.span.col), (1, 6), "{kw}");
        assert_eq!(d.snippet, kw, "{kw}");
    }
    // Braces cannot nest or span lines.
    assert_eq!(err("decl {a\nb};").0, "syntax");
    assert_eq!(err("decl {a{b}};").0, "syntax");
    assert_eq!(err("decl {};").0, "syntax");
}

#[test]
fn constants_and_nondeterminism() {
    assert_eq!(expr("T"), Expr::constant(true));
    assert_eq!(expr("1"), Expr::constant(true));
    assert_eq!(expr("F"), Expr::constant(false));
    assert_eq!(expr("0"), Expr::constant(false));
    assert_eq!(expr("*"), nondet());
    assert_eq!(expr("?"), nondet());
    assert_eq!(expr("* & g1"), and(nondet(), v("g1")));
    assert_eq!(
        expr("schoose[a, !a] | schoose[F,F]"),
        or(
            schoose(v("a"), Expr::not(v("a"))),
            schoose(Expr::constant(false), Expr::constant(false))
        )
    );
    assert_eq!(
        expr("schoose[schoose[a, b], (c)]"),
        schoose(schoose(v("a"), v("b")), v("c"))
    );
}

#[test]
fn bad_constants() {
    let ds = errs("void main() begin x := 2 & 10; y := 01; end");
    let got: Vec<_> = ds
        .iter()
        .map(|d| (d.code.as_str(), d.span.col, d.snippet.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("bad-constant", 24, "2"),
            ("bad-constant", 28, "10"),
            ("bad-constant", 37, "01"),
        ]
    );
    assert_eq!(ds[0].message, "Boolean constants are 0 and 1");
}

#[test]
fn operators_and_synonyms() {
    assert_eq!(expr("!a"), Expr::not(v("a")));
    assert_eq!(expr("~a"), Expr::not(v("a")));
    assert_eq!(expr("!!~a"), Expr::not(Expr::not(Expr::not(v("a")))));
    assert_eq!(expr("a && b"), expr("a & b"));
    assert_eq!(expr("a || b"), expr("a | b"));
    assert_eq!(expr("a ^ b"), bin(BinOp::Xor, v("a"), v("b")));
    assert_eq!(expr("a != b"), bin(BinOp::Neq, v("a"), v("b")));
    assert_eq!(expr("a=>b"), bin(BinOp::Implies, v("a"), v("b")));
    assert_eq!(expr("a=!b"), bin(BinOp::Eq, v("a"), Expr::not(v("b"))));
    assert_eq!(expr("'a = a'"), bin(BinOp::Eq, primed("a"), primed("a")));
    assert_eq!(expr("(!'a)"), Expr::not(primed("a")));
    assert_eq!(expr("!(a)"), Expr::not(v("a")));
    assert_eq!(expr("((a))"), v("a"));
}

#[test]
fn comments() {
    let p = ok(
        "/* a block\n comment */ decl a; // to the end of the line\n\
         void main() begin /* inline */ a := /**/ T; // @not-an-annotation k=v\n end /* trailing */",
    );
    assert_eq!(p.procs[0].body.len(), 1);
    // An unterminated block comment.
    let (code, line, col, snippet) = err("decl a;\n  /* trailing");
    assert_eq!(
        (code.as_str(), line, col, snippet.as_str()),
        ("syntax", 2, 3, "/*")
    );
}

// ------------------------------------------------------------------------------ precedence

#[test]
fn moped_precedence() {
    // `=` binds tighter than `&`, which binds tighter than `^`, then `|`, then `=>`.
    assert_eq!(
        expr("a & b = c"),
        and(v("a"), bin(BinOp::Eq, v("b"), v("c")))
    );
    assert_eq!(
        expr("a | b ^ c"),
        or(v("a"), bin(BinOp::Xor, v("b"), v("c")))
    );
    assert_eq!(
        expr("a ^ b & c"),
        bin(BinOp::Xor, v("a"), and(v("b"), v("c")))
    );
    assert_eq!(
        expr("a => b | c"),
        bin(BinOp::Implies, v("a"), or(v("b"), v("c")))
    );
    assert_eq!(
        expr("a => b => c"),
        bin(BinOp::Implies, bin(BinOp::Implies, v("a"), v("b")), v("c"))
    );
    assert_eq!(
        expr("a = b != c"),
        bin(BinOp::Neq, bin(BinOp::Eq, v("a"), v("b")), v("c"))
    );
    assert_eq!(expr("a & b & c"), and(and(v("a"), v("b")), v("c")));
    assert_eq!(expr("!a & b"), and(Expr::not(v("a")), v("b")));
    assert_eq!(expr("!a = b"), bin(BinOp::Eq, Expr::not(v("a")), v("b")));
    assert_eq!(
        expr("a | b & c = d ^ e => f"),
        bin(
            BinOp::Implies,
            or(
                v("a"),
                bin(
                    BinOp::Xor,
                    and(v("b"), bin(BinOp::Eq, v("c"), v("d"))),
                    v("e")
                )
            ),
            v("f")
        )
    );
}

#[test]
fn cprover_precedence() {
    let c = |e| expr_with(e, Precedence::Cprover);
    assert_eq!(c("a & b = c"), bin(BinOp::Eq, and(v("a"), v("b")), v("c")));
    assert_eq!(c("a | b ^ c"), bin(BinOp::Xor, or(v("a"), v("b")), v("c")));
    assert_eq!(c("a | b & c"), or(v("a"), and(v("b"), v("c"))));
    // `=>`, `=` and `!=` are one right-associative level.
    assert_eq!(
        c("a => b => c"),
        bin(BinOp::Implies, v("a"), bin(BinOp::Implies, v("b"), v("c")))
    );
    assert_eq!(
        c("a = b => c != d"),
        bin(
            BinOp::Eq,
            v("a"),
            bin(BinOp::Implies, v("b"), bin(BinOp::Neq, v("c"), v("d")))
        )
    );
    assert_eq!(c("a & b & c"), and(and(v("a"), v("b")), v("c")));
    assert_eq!(c("!a | b"), or(Expr::not(v("a")), v("b")));
    // Fully parenthesised text means the same in both.
    let e = "((a & b) = (c | (d ^ e))) => (f != g)";
    assert_eq!(c(e), expr(e));
}

// ------------------------------------------------------------------------------ annotations

#[test]
fn annotations_attach_to_header_decls_procs_and_statements() {
    let src = r#"//@@ source=prog.c sha256=abc
//@@ options="-a -b" empty=""
// an ordinary comment between
//@ line=1
decl g;
// @foo is an ordinary comment
//@ kind=proc
//@ name="main proc"
void main() begin
  //@ line=3
  decl l;
  //@ line=4 text="say \"hi\" \\ bye"
  L1: L2: skip;
  skip;
  if g then
    //@ line=7
    skip;
  fi
end
"#;
    let p = ok(src);
    assert_eq!(
        p.header,
        ann(&[
            ("source", "prog.c"),
            ("sha256", "abc"),
            ("options", "-a -b"),
            ("empty", "")
        ])
    );
    assert_eq!(p.globals[0].annotations, ann(&[("line", "1")]));
    let main = &p.procs[0];
    assert_eq!(
        main.annotations,
        ann(&[("kind", "proc"), ("name", "main proc")])
    );
    assert_eq!(main.locals[0].annotations, ann(&[("line", "3")]));
    assert_eq!(
        main.body[0].annotations,
        ann(&[("line", "4"), ("text", r#"say "hi" \ bye"#)])
    );
    assert_eq!(main.body[0].labels, vec![id("L1"), id("L2")]);
    assert!(main.body[1].annotations.is_empty());
    let StmtKind::If { arms, .. } = &main.body[2].kind else {
        panic!("an if")
    };
    assert_eq!(arms[0].body[0].annotations, ann(&[("line", "7")]));
    // The statement's span starts at its labels, after its annotations.
    assert_eq!(main.body[0].span.text(src), "L1: L2: skip;");
}

#[test]
fn dangling_annotations_are_errors() {
    let (code, line, col, snippet) = err("void main() begin\n  skip;\n  //@ a=b\nend");
    assert_eq!(
        (code.as_str(), line, col, snippet.as_str()),
        ("bad-annotation", 3, 3, "//@ a=b")
    );
    let (code, line, col, _) = err("decl a;\n//@ a=b\n");
    assert_eq!((code.as_str(), line, col), ("bad-annotation", 2, 1));
    let (code, line, col, _) = err("void main() begin if * then skip; //@ a=b\n else skip; fi end");
    assert_eq!((code.as_str(), line, col), ("bad-annotation", 1, 35));
    // Inside an expression.
    let (code, line, col, _) = err("void main() begin x := a //@ k=v\n & b; end");
    assert_eq!((code.as_str(), line, col), ("bad-annotation", 1, 26));
    // A header line after the first declaration.
    let (code, line, col, _) = err("decl a;\n//@@ k=v\n");
    assert_eq!((code.as_str(), line, col), ("bad-annotation", 2, 1));
}

#[test]
fn malformed_annotations_are_errors() {
    let d = errs("//@ line=1 oops\ndecl a;").remove(0);
    assert_eq!(
        (d.code.as_str(), d.span.line, d.span.col, d.snippet.as_str()),
        ("bad-annotation", 1, 12, "oops")
    );
    let d = errs("decl a;\nvoid main() begin\n  //@ k=\"open\n skip; end").remove(0);
    assert_eq!(
        (d.code.as_str(), d.span.line, d.span.col),
        ("bad-annotation", 3, 9)
    );
    let d = errs("//@@ k= v=1\n").remove(0);
    assert_eq!(
        (d.code.as_str(), d.span.line, d.span.col),
        ("bad-annotation", 1, 6)
    );
    // Every malformed line is reported.
    assert_eq!(errs("//@ a\ndecl x;\n//@ b\ndecl y;").len(), 2);
}

// ------------------------------------------------------------------------------ unsupported constructs

#[test]
fn concurrency_is_rejected_with_its_own_code() {
    let cases = [
        (
            "void main() begin\n  start_thread goto L;\nL: skip; end",
            "start_thread",
            2,
            3,
        ),
        ("void main() begin end_thread; end", "end_thread", 1, 19),
        (
            "void main() begin atomic_begin; skip; atomic_end; end",
            "atomic_begin",
            1,
            19,
        ),
        ("decl g;\nvoid main() begin sync g; end", "sync", 2, 19),
        ("decl thread_local x;", "thread_local", 1, 6),
        (
            "void main() begin\n\n    ASYNC_1: f(); end",
            "ASYNC_1",
            3,
            5,
        ),
    ];
    for (src, token, line, col) in cases {
        let d = errs(src).remove(0);
        assert_eq!(d.code, "unsupported-concurrency", "{src}");
        assert_eq!((d.span.line, d.span.col), (line, col), "{src}");
        assert_eq!(d.snippet, token, "{src}");
        assert!(d.message.contains("not supported"), "{}", d.message);
    }
    let d = errs("void main() begin start_thread f(); end").remove(0);
    assert_eq!(
        d.message,
        "concurrency construct `start_thread` is not supported (sequential Boolean programs only)"
    );
    // All of them are reported.
    assert_eq!(
        errs("void main() begin atomic_begin; atomic_end; end").len(),
        2
    );
    // Names that merely contain the keywords are fine, as are comments and escaped names.
    let p = ok(
        "decl sync_flag, is_atomic_begin, {sync}, ASYNC_2; // sync\n\
         void main() begin /* start_thread */ ASYNC_2 := sync_flag; end",
    );
    assert_eq!(p.globals[0].vars.len(), 4);
}

#[test]
fn abortif_and_standalone_constrain_are_unsupported() {
    let d = errs("decl a; void main() begin abortif a; skip; end").remove(0);
    assert_eq!(
        (d.code.as_str(), d.span.line, d.span.col, d.snippet.as_str()),
        ("unsupported", 1, 27, "abortif")
    );
    let d = errs("decl a;\nvoid main() begin\n a := *;\n constrain('a);\nend").remove(0);
    assert_eq!(
        (d.code.as_str(), d.span.line, d.span.col, d.snippet.as_str()),
        ("unsupported", 4, 2, "constrain")
    );
    // The constrain clause of an assignment is fine, even on its own line.
    ok("decl a;\nvoid main() begin\n a := *\n constrain('a);\nend");
}

// ------------------------------------------------------------------------------ syntax errors

#[test]
fn syntax_errors_have_exact_positions_and_messages() {
    let d = errs("decl a;\nvoid main() begin\n  a := a b;\nend").remove(0);
    assert_eq!(
        (d.code.as_str(), d.span.line, d.span.col),
        ("syntax", 3, 10)
    );
    assert_eq!(d.snippet, "b");
    assert_eq!(d.message, "expected `;` or an operator");

    let d = errs("decl a\nvoid main() begin end").remove(0);
    assert_eq!(
        (d.span.line, d.span.col, d.snippet.as_str()),
        (2, 1, "void")
    );
    assert_eq!(d.message, "expected `;` or `,`");

    let d = errs("void main() begin\n  if a then skip;\nend").remove(0);
    assert_eq!((d.span.line, d.span.col, d.snippet.as_str()), (3, 1, "end"));
    assert!(d.message.contains("`fi`"), "{}", d.message);

    let d = errs("void main() begin x := a &").remove(0);
    assert_eq!((d.span.line, d.span.col, d.snippet.as_str()), (1, 27, ""));
    assert!(d.message.contains("end of the file"), "{}", d.message);

    let d = errs("foo").remove(0);
    assert_eq!((d.span.line, d.span.col, d.snippet.as_str()), (1, 1, "foo"));
    assert_eq!(d.message, "expected `decl` or a procedure");

    let d = errs("void main() begin decl if; end").remove(0);
    assert!(d.message.contains("reserved"), "{}", d.message);

    // Columns count characters, not bytes.
    let d = errs("decl {é}; decl ü;").remove(0);
    assert_eq!((d.span.line, d.span.col, d.snippet.as_str()), (1, 16, "ü"));

    // Unknown characters.
    let d = errs("void main() begin x := a % b; end").remove(0);
    assert_eq!((d.span.col, d.snippet.as_str()), (26, "%"));

    // enforce belongs after the local declarations only.
    assert_eq!(err("void main() begin skip; enforce T; end").0, "syntax");
    // Initialised declarations are not Boolean-program syntax here.
    assert_eq!(err("decl a := T;").0, "syntax");
}

// ------------------------------------------------------------------------------ spans

#[test]
fn spans() {
    let src = "decl a;\n\nvoid main() begin\n  L1:  a := !a & T;\nend\n";
    let p = ok(src);
    assert_eq!((p.span.start, p.span.end), (0, src.len()));
    assert_eq!(p.globals[0].span.text(src), "decl a;");
    let main = &p.procs[0];
    assert_eq!(
        main.span.text(src),
        "void main() begin\n  L1:  a := !a & T;\nend"
    );
    assert_eq!((main.span.line, main.span.col), (3, 1));
    assert_eq!(main.name.span.text(src), "main");
    let s = &main.body[0];
    assert_eq!(s.span.text(src), "L1:  a := !a & T;");
    assert_eq!((s.span.line, s.span.col), (4, 3));
    assert_eq!(s.labels[0].span.text(src), "L1");
    let StmtKind::Assign { lhs, rhs, .. } = &s.kind else {
        panic!("assignment")
    };
    let Lhs::Var(target) = &lhs[0] else {
        panic!("a variable")
    };
    assert_eq!((target.span.line, target.span.col), (4, 8));
    assert_eq!(rhs[0].span().text(src), "!a & T");
    let Expr::Binary(_, l, r, _) = &rhs[0] else {
        panic!("binary")
    };
    assert_eq!(l.span().text(src), "!a");
    assert_eq!(r.span().text(src), "T");
    // Parentheses are part of the text of the enclosing node.
    let src = "void main() begin x := (a | b) & 'c; end";
    let p = ok(src);
    let StmtKind::Assign { rhs, .. } = &p.procs[0].body[0].kind else {
        panic!("assignment")
    };
    assert_eq!(rhs[0].span().text(src), "(a | b) & 'c");
}

// ------------------------------------------------------------------------------ limits

fn in_2mib_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no panic")
}

#[test]
fn nesting_at_the_limits_is_accepted_and_beyond_is_rejected() {
    in_2mib_thread(|| {
        let n = MAX_PAREN_DEPTH;
        let src = format!(
            "void main() begin x := {}a{}; end",
            "(".repeat(n),
            ")".repeat(n)
        );
        ok(&src);
        let src = format!(
            "void main() begin x := {}a{}; end",
            "(".repeat(n + 1),
            ")".repeat(n + 1)
        );
        let d = errs(&src).remove(0);
        assert_eq!(
            (d.code.as_str(), d.span.line, d.span.col),
            ("too-deep", 1, 24 + n as u32)
        );

        let n = MAX_STMT_DEPTH;
        let src = format!(
            "void main() begin {} skip; {} end",
            "while * do ".repeat(n),
            "od ".repeat(n)
        );
        ok(&src);
        let src = format!(
            "void main() begin {} skip; {} end",
            "if * then ".repeat(n + 1),
            "fi ".repeat(n + 1)
        );
        assert_eq!(errs(&src)[0].code, "too-deep");

        // A chain is as deep as it is long.
        let chain = |n: usize| vec!["a"; n].join(" & ");
        ok(&format!(
            "void main() begin x := {}; end",
            chain(MAX_EXPR_DEPTH)
        ));
        let d = errs(&format!(
            "void main() begin x := {}; end",
            chain(MAX_EXPR_DEPTH + 1)
        ))
        .remove(0);
        assert_eq!((d.code.as_str(), d.span.col), ("too-deep", 24));
    });
}

#[test]
fn huge_inputs_are_rejected_without_overflow() {
    in_2mib_thread(|| {
        let src = format!("void main() begin x := {}a; end", "(".repeat(100_000));
        assert_eq!(errs(&src)[0].code, "too-deep");
        let src = format!("void main() begin x := {}a; end", "!".repeat(100_000));
        assert_eq!(errs(&src)[0].code, "too-deep");
        // Left-associative (folded as it goes) and right-associative (stacked to the end).
        for (op, precedence) in [("&", Precedence::Moped), ("=>", Precedence::Cprover)] {
            let src = format!(
                "void main() begin x := a{}; end",
                format!(" {op} a").repeat(200_000)
            );
            let d = parse_with(&src, &ParseOptions { precedence }).expect_err("too deep");
            assert_eq!(d[0].code, "too-deep", "{op} {precedence:?}");
        }
        let src = format!("void main() begin {} end", "if * then ".repeat(100_000));
        assert_eq!(errs(&src)[0].code, "too-deep");
        let src = "[".repeat(100_000);
        assert_eq!(errs(&src)[0].code, "too-deep");
    });
}

#[test]
fn parenthesised_chains_of_any_length_are_fine() {
    // The printer writes a long conjunction flat inside one pair of parentheses.
    let src = format!(
        "void main() begin x := ({}); end",
        vec!["a"; 1000].join(" & ")
    );
    ok(&src);
}

#[test]
fn ten_thousand_statements_parse_quickly() {
    let mut src =
        String::from("//@@ source=big.c\ndecl g0, g1, g2;\nvoid main() begin\n decl l;\n");
    for i in 0..10_000 {
        match i % 5 {
            0 => src.push_str(&format!(
                "//@ line={i}\nL{i}: g0, g1 := g1 & !g2, * constrain 'g0 | g2;\n"
            )),
            1 => src.push_str("if (g0 | g1) & !l then g2 := schoose[g0, g1]; else skip; fi\n"),
            2 => src.push_str("assume(!(g0 = g1) => g2 ^ l);\n"),
            3 => src.push_str("while * do l := !l; od\n"),
            _ => src.push_str(&format!("goto L{};\n", i - 4)),
        }
    }
    src.push_str("end\n");
    let start = std::time::Instant::now();
    let p = ok(&src);
    let elapsed = start.elapsed();
    println!(
        "10,000 statements ({} bytes) parsed in {elapsed:?}",
        src.len()
    );
    assert_eq!(p.procs[0].body.len(), 10_000);
    assert_eq!(p.procs[0].body[9_995].annotations, ann(&[("line", "9995")]));
    // Generous bound: the machine is shared; a dev build takes well under a second.
    assert!(elapsed.as_secs() < 5, "took {elapsed:?}");
}

#[test]
fn annotation_after_a_statement_without_semicolon() {
    let (code, line, col, _) = err("void main() begin skip //@ a=b\nend");
    assert_eq!((code.as_str(), line, col), ("bad-annotation", 1, 24));
}

#[test]
fn statement_spans_end_at_their_last_token() {
    let src = "void main() begin\n  if a then skip fi\n  L: skip\nend";
    let p = ok(src);
    let b = &p.procs[0].body;
    assert_eq!(b[0].span.text(src), "if a then skip fi");
    assert_eq!(b[1].span.text(src), "L: skip");
    let StmtKind::If { arms, .. } = &b[0].kind else {
        panic!("if")
    };
    assert_eq!(arms[0].body[0].span.text(src), "skip");
    // A postfix prime is written next to its variable.
    assert_eq!(expr("a' & b"), and(primed("a"), v("b")));
    assert_eq!(err("void main() begin x := a '; end").0, "syntax");
}

#[test]
fn crlf_line_endings_and_byte_order_mark() {
    let src = "\u{FEFF}//@@ a=b\r\n//@ k=v\r\ndecl a;\r\nvoid main() begin\r\n  //@ line=2\r\n  L1: skip\r\nend\r\n";
    let p = ok(src);
    assert_eq!(p.header, ann(&[("a", "b")]));
    assert_eq!(p.globals[0].annotations, ann(&[("k", "v")]));
    let s = &p.procs[0].body[0];
    assert_eq!(s.annotations, ann(&[("line", "2")]));
    assert_eq!((s.span.line, s.span.col), (6, 3));
}

#[test]
fn annotations_go_before_labels() {
    let (code, line, col, _) = err("void main() begin //@ a=1\n L1: //@ b=2\n skip; end");
    assert_eq!((code.as_str(), line, col), ("bad-annotation", 2, 6));
}

#[test]
fn syntax_errors_in_two_procedures_are_both_reported() {
    let src = "decl g;\nvoid main() begin\n  g := ;\nend\n\nbool f() begin\n  return T T;\nend\n\
               void h() begin\n  skip;\nend\nvoid k() begin\n  if g then skip; fi;\n  g := (g;\nend\n";
    let diags = bp_grammar::parse(src).expect_err("three syntax errors");
    let at: Vec<(String, u32)> = diags
        .iter()
        .map(|d| (d.code.clone(), d.span.line))
        .collect();
    assert_eq!(
        at,
        vec![
            ("syntax".to_string(), 3),
            ("syntax".to_string(), 7),
            ("syntax".to_string(), 14)
        ],
        "{diags:?}"
    );
    // A syntax error in the declarations resumes at the first procedure.
    let src = "decl g\nvoid main() begin\n  g := ;\nend\n";
    let lines: Vec<u32> = bp_grammar::parse(src)
        .expect_err("two errors")
        .iter()
        .map(|d| d.span.line)
        .collect();
    assert_eq!(lines, vec![2, 3]);
}
