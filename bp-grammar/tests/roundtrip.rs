//! Round-trip tests of the canonical printer: `parse(print(p)) == p` and print idempotence on
//! the Boppo corpus, and a property test over randomly generated ASTs that cover every
//! syntactic form (statements, labels, annotations, escaped identifiers, every operator, deep
//! nesting). Generated programs are printable, not necessarily well-formed for the checker.
//!
//! The generator draws from `bp_testkit::prng::SplitMix64`, so that every case is reproducible
//! from its seed; a failure prints the seed and the printed text.

use bp_grammar::{
    Annotations, BinOp, CondArm, Decl, Expr, Ident, Lhs, ParseOptions, Precedence, Procedure,
    Program, RetType, Span, Stmt, StmtKind, parse, parse_with, print, print_expr,
};
use bp_testkit::prng::SplitMix64;
use std::path::Path;

/// Names that are neither keywords nor `T`/`F`/`_`: plain, with `$ # - _`, and escaped ones
/// with spaces and operator characters inside the braces.
fn name(rng: &mut SplitMix64) -> Ident {
    let n = rng.below(6);
    let text = match rng.below(12) {
        0 => format!("g{n}"),
        1 => format!("l_{n}"),
        2 => format!("c$$f{n}"),
        3 => format!("b{n}#x"),
        4 => format!("x-{n}"),
        5 => format!("_t{n}"),
        6 => format!("$v{n}"),
        7 => format!("{{x < y{n}}}"),
        8 => format!("{{p->q != NULL & {n}}}"),
        9 => format!("{{ a{n} }}"),
        10 => format!("Abc{n}"),
        _ => format!("{{*s == '{n}' | (x => y)}}"),
    };
    Ident::new(text)
}

fn names(rng: &mut SplitMix64, min: usize, max: usize) -> Vec<Ident> {
    let n = min + rng.below(max - min + 1);
    (0..n).map(|_| name(rng)).collect()
}

fn annotations(rng: &mut SplitMix64) -> Annotations {
    let mut ann = Annotations::default();
    if rng.chance(70) {
        return ann;
    }
    const KEYS: &[&str] = &[
        "source", "line", "a.b", "x-y", "k_1", "0", "sha256", "preds",
    ];
    const VALUES: &[&str] = &[
        "plain",
        "prog.c:12",
        "a value with spaces",
        "say \"hi\"",
        "back\\slash",
        "",
        "k=v",
        "tab\there",
        "\"",
        "\\",
        "\\\"",
        "é ü",
        "//@ nested",
        "x;y",
        "*/",
    ];
    for _ in 0..1 + rng.below(3) {
        let key = rng.pick(KEYS).to_string();
        let value = rng.pick(VALUES).to_string();
        // `set` would merge repeated keys; the parser keeps pairs as written, so do we.
        ann.0.push((key, value));
    }
    ann
}

const OPS: [BinOp; 6] = [
    BinOp::And,
    BinOp::Or,
    BinOp::Xor,
    BinOp::Eq,
    BinOp::Neq,
    BinOp::Implies,
];

fn leaf(rng: &mut SplitMix64) -> Expr {
    match rng.below(6) {
        0 => Expr::constant(rng.chance(50)),
        1 => Expr::Nondet(Span::NONE),
        2 => Expr::Primed(name(rng)),
        _ => Expr::Var(name(rng)),
    }
}

fn expr(rng: &mut SplitMix64, depth: usize) -> Expr {
    if depth == 0 || rng.chance(30) {
        return leaf(rng);
    }
    match rng.below(10) {
        0 | 1 => Expr::not(expr(rng, depth - 1)),
        2 => Expr::Schoose(
            Box::new(expr(rng, depth - 1)),
            Box::new(expr(rng, depth - 1)),
            Span::NONE,
        ),
        3 => {
            // A long chain of one operator, left- or right-nested.
            let op = *rng.pick(&OPS);
            let len = 2 + rng.below(12);
            let left = rng.chance(70);
            let mut e = expr(rng, 1);
            for _ in 0..len {
                let other = expr(rng, 1);
                e = if left {
                    Expr::binary(op, e, other)
                } else {
                    Expr::binary(op, other, e)
                };
            }
            e
        }
        _ => Expr::binary(*rng.pick(&OPS), expr(rng, depth - 1), expr(rng, depth - 1)),
    }
}

fn exprs(rng: &mut SplitMix64, min: usize, max: usize) -> Vec<Expr> {
    let n = min + rng.below(max - min + 1);
    (0..n).map(|_| expr(rng, 4)).collect()
}

fn lhs(rng: &mut SplitMix64, min: usize, max: usize) -> Vec<Lhs> {
    let n = min + rng.below(max - min + 1);
    (0..n)
        .map(|_| {
            if rng.chance(20) {
                Lhs::Discard(Span::NONE)
            } else {
                Lhs::Var(name(rng))
            }
        })
        .collect()
}

fn body(rng: &mut SplitMix64, depth: usize) -> Vec<Stmt> {
    let n = rng.below(if depth == 0 { 6 } else { 4 });
    (0..n).map(|_| stmt(rng, depth)).collect()
}

fn stmt(rng: &mut SplitMix64, depth: usize) -> Stmt {
    let compound = depth < 4;
    let kind = match rng.below(if compound { 14 } else { 11 }) {
        0 => StmtKind::Skip,
        1 => StmtKind::Print(exprs(rng, 1, 3)),
        2 => StmtKind::Goto(names(rng, 1, 3)),
        3 => StmtKind::Return(exprs(rng, 0, 3)),
        4 | 5 => StmtKind::Assign {
            lhs: lhs(rng, 1, 3),
            rhs: exprs(rng, 1, 3),
            constrain: rng.chance(40).then(|| expr(rng, 4)),
        },
        6 | 7 => StmtKind::Call {
            lhs: lhs(rng, 0, 3),
            callee: name(rng),
            args: exprs(rng, 0, 3),
        },
        8 => StmtKind::Assert(expr(rng, 4)),
        9 => StmtKind::Assume(expr(rng, 4)),
        10 => StmtKind::Dead(names(rng, 1, 3)),
        11 | 12 => {
            let n_arms = 1 + rng.below(3);
            StmtKind::If {
                arms: (0..n_arms)
                    .map(|_| CondArm {
                        cond: expr(rng, 3),
                        body: body(rng, depth + 1),
                    })
                    .collect(),
                els: rng.chance(50).then(|| body(rng, depth + 1)),
            }
        }
        _ => StmtKind::While {
            cond: expr(rng, 3),
            body: body(rng, depth + 1),
        },
    };
    let labels = if rng.chance(30) {
        names(rng, 1, 3)
    } else {
        Vec::new()
    };
    Stmt {
        labels,
        kind,
        annotations: annotations(rng),
        span: Span::NONE,
    }
}

fn decls(rng: &mut SplitMix64, max: usize) -> Vec<Decl> {
    (0..rng.below(max + 1))
        .map(|_| Decl {
            vars: names(rng, 1, 3),
            annotations: annotations(rng),
            span: Span::NONE,
        })
        .collect()
}

fn program(rng: &mut SplitMix64) -> Program {
    let n_procs = rng.below(4);
    Program {
        header: annotations(rng),
        globals: decls(rng, 3),
        procs: (0..n_procs)
            .map(|_| Procedure {
                name: name(rng),
                ret: match rng.below(4) {
                    0 => RetType::Void,
                    1 | 2 => RetType::Bool(1),
                    _ => RetType::Bool(2 + rng.below(3) as u32),
                },
                params: names(rng, 0, 3),
                locals: decls(rng, 2),
                enforce: rng.chance(30).then(|| expr(rng, 3)),
                body: body(rng, 0),
                annotations: annotations(rng),
                span: Span::NONE,
            })
            .collect(),
        span: Span::NONE,
    }
}

/// A readable account of where two programs differ (the first differing part).
fn first_difference(want: &Program, got: &Program) -> String {
    if want.header != got.header {
        return format!("header: {:?} vs {:?}", want.header, got.header);
    }
    if want.globals != got.globals {
        return format!("globals: {:#?}\nvs\n{:#?}", want.globals, got.globals);
    }
    if want.procs.len() != got.procs.len() {
        return format!("{} vs {} procedures", want.procs.len(), got.procs.len());
    }
    for (w, g) in want.procs.iter().zip(&got.procs) {
        if w == g {
            continue;
        }
        for (ws, gs) in w.stmts_preorder().iter().zip(g.stmts_preorder().iter()) {
            if ws.1.labels != gs.1.labels
                || ws.1.annotations != gs.1.annotations
                || bp_grammar::print_stmt_head(ws.1) != bp_grammar::print_stmt_head(gs.1)
                || (ws.1.kind != gs.1.kind
                    && !matches!(ws.1.kind, StmtKind::If { .. } | StmtKind::While { .. }))
            {
                return format!("statement:\n{:#?}\nvs\n{:#?}", ws.1, gs.1);
            }
        }
        let mut w2 = w.clone();
        let mut g2 = g.clone();
        w2.body.clear();
        g2.body.clear();
        return format!(
            "procedure `{}`:\n{:#?}\nvs\n{:#?}\n(bodies: {} vs {} statements)",
            w.name.name,
            w2,
            g2,
            w.stmts_preorder().len(),
            g.stmts_preorder().len()
        );
    }
    "no difference found".to_string()
}

/// Checks `parse(print(p)) == p` under both precedences; `Err` describes the failure.
fn round_trip(prog: &Program) -> Result<(), String> {
    let text = print(prog);
    for precedence in [Precedence::Moped, Precedence::Cprover] {
        let opts = ParseOptions { precedence };
        match parse_with(&text, &opts) {
            Err(diags) => {
                let shown: Vec<String> = diags.iter().map(|d| d.render("printed.bp")).collect();
                return Err(format!(
                    "printed text does not parse ({precedence:?}):\n{}\n--- text:\n{text}",
                    shown.join("\n")
                ));
            }
            Ok(back) if back != *prog => {
                return Err(format!(
                    "re-parsed program differs ({precedence:?}): {}\n--- text:\n{text}",
                    first_difference(prog, &back)
                ));
            }
            Ok(_) => {}
        }
    }
    Ok(())
}

#[test]
fn generated_programs_round_trip() {
    const N_PROGRAMS: u64 = 2000;
    let mut n_stmts = 0;
    for seed in 0..N_PROGRAMS {
        let prog = program(&mut SplitMix64::new(seed));
        n_stmts += prog
            .procs
            .iter()
            .map(|p| p.stmts_preorder().len())
            .sum::<usize>();
        if let Err(why) = round_trip(&prog) {
            panic!("seed {seed}: {why}");
        }
    }
    assert!(
        n_stmts > 5 * N_PROGRAMS as usize,
        "only {n_stmts} statements generated"
    );
}

#[test]
fn generator_covers_every_form() {
    // Every statement kind, operator and expression form appears in the first programs.
    let mut seen = std::collections::BTreeSet::new();
    fn walk_expr(e: &Expr, seen: &mut std::collections::BTreeSet<String>) {
        match e {
            Expr::Const(..) => {
                seen.insert("const".into());
            }
            Expr::Var(id) | Expr::Primed(id) => {
                let kind = if matches!(e, Expr::Var(_)) {
                    "var"
                } else {
                    "primed"
                };
                seen.insert(kind.into());
                if id.name.starts_with('{') && id.name.contains(' ') {
                    seen.insert("escaped ident".into());
                }
            }
            Expr::Nondet(_) => {
                seen.insert("nondet".into());
            }
            Expr::Not(inner, _) => {
                seen.insert("not".into());
                walk_expr(inner, seen);
            }
            Expr::Binary(op, l, r, _) => {
                seen.insert(format!("{op:?}"));
                walk_expr(l, seen);
                walk_expr(r, seen);
            }
            Expr::Schoose(p, n, _) => {
                seen.insert("schoose".into());
                walk_expr(p, seen);
                walk_expr(n, seen);
            }
        }
    }
    for seed in 0..200 {
        let prog = program(&mut SplitMix64::new(seed));
        if !prog.header.is_empty() {
            seen.insert("header".into());
        }
        for p in &prog.procs {
            seen.insert(
                match p.ret {
                    RetType::Void => "void",
                    RetType::Bool(1) => "bool",
                    RetType::Bool(_) => "bool<n>",
                }
                .to_string(),
            );
            for (_, s) in p.stmts_preorder() {
                let kind = format!("{:?}", s.kind);
                let kind = kind.split(['(', ' ']).next().unwrap_or("").to_string();
                seen.insert(kind);
                if s.labels.len() > 1 {
                    seen.insert("several labels".into());
                }
                if s.annotations.0.iter().any(|(_, v)| v.contains(' ')) {
                    seen.insert("quoted annotation".into());
                }
                match &s.kind {
                    StmtKind::Call { lhs, .. } | StmtKind::Assign { lhs, .. }
                        if lhs.iter().any(|l| matches!(l, Lhs::Discard(_))) =>
                    {
                        seen.insert("discard".into());
                    }
                    StmtKind::If { arms, els } => {
                        if arms.len() > 1 {
                            seen.insert("elsif".into());
                        }
                        if els.is_some() {
                            seen.insert("else".into());
                        }
                    }
                    _ => {}
                }
                let mut es: Vec<&Expr> = Vec::new();
                match &s.kind {
                    StmtKind::Print(v) | StmtKind::Return(v) => es.extend(v),
                    StmtKind::Assign { rhs, constrain, .. } => {
                        es.extend(rhs);
                        es.extend(constrain);
                    }
                    StmtKind::Call { args, .. } => es.extend(args),
                    StmtKind::If { arms, .. } => es.extend(arms.iter().map(|a| &a.cond)),
                    StmtKind::While { cond, .. } => es.push(cond),
                    StmtKind::Assert(e) | StmtKind::Assume(e) => es.push(e),
                    _ => {}
                }
                for e in es {
                    walk_expr(e, &mut seen);
                }
            }
        }
    }
    let want = [
        "header",
        "void",
        "bool",
        "bool<n>",
        "Skip",
        "Print",
        "Goto",
        "Return",
        "Assign",
        "Call",
        "If",
        "While",
        "Assert",
        "Assume",
        "Dead",
        "several labels",
        "quoted annotation",
        "discard",
        "elsif",
        "else",
        "const",
        "var",
        "primed",
        "escaped ident",
        "nondet",
        "not",
        "schoose",
        "And",
        "Or",
        "Xor",
        "Eq",
        "Neq",
        "Implies",
    ];
    let missing: Vec<&str> = want
        .iter()
        .copied()
        .filter(|w| !seen.contains(*w))
        .collect();
    assert!(
        missing.is_empty(),
        "never generated: {missing:?} (seen {seen:?})"
    );
}

/// An expression `levels` deep mixing every operator, negation and `schoose`.
fn deep_expr(levels: usize) -> Expr {
    let mut e = Expr::var("g");
    for i in 0..levels {
        e = match i % 8 {
            0 => Expr::not(e),
            1 => Expr::Schoose(Box::new(e), Box::new(Expr::var("h")), Span::NONE),
            k => Expr::binary(OPS[k - 2], e, Expr::Primed(Ident::new("{x < y}"))),
        };
    }
    e
}

fn assert_program(e: Expr) -> Program {
    Program {
        header: Annotations::default(),
        globals: vec![],
        procs: vec![Procedure {
            name: Ident::new("main"),
            ret: RetType::Void,
            params: vec![],
            locals: vec![],
            enforce: None,
            body: vec![Stmt {
                labels: vec![],
                kind: StmtKind::Assert(e),
                annotations: Annotations::default(),
                span: Span::NONE,
            }],
            annotations: Annotations::default(),
            span: Span::NONE,
        }],
        span: Span::NONE,
    }
}

#[test]
fn hundred_deep_expression_round_trips() {
    let e = deep_expr(100);
    let text = print_expr(&e);
    assert!(text.matches('(').count() >= 70, "{text}");
    let prog = assert_program(e);
    if let Err(why) = round_trip(&prog) {
        panic!("{why}");
    }
}

#[test]
fn long_flat_chains_round_trip() {
    // A 1000-long conjunction (as predicate abstraction generates) prints flat, so it stays
    // within the parser's parenthesis-depth limit.
    for op in [BinOp::And, BinOp::Or, BinOp::Xor] {
        let mut e = Expr::var("a0");
        for i in 1..1000 {
            e = Expr::binary(op, e, Expr::var(format!("a{i}")));
        }
        let text = print_expr(&e);
        assert_eq!(text.matches('(').count(), 1, "{op:?} chain is flat");
        if let Err(why) = round_trip(&assert_program(e)) {
            panic!("{op:?}: {why}");
        }
    }
}

#[test]
fn corpus_round_trips_and_printing_is_idempotent() {
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/corpus/bp/boppo"
    ));
    if !dir.is_dir() {
        println!("skipping: ../shared/corpus not found");
        return;
    }
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("corpus directory is readable")
        .flatten()
        .map(|e| e.path().join("main.bp"))
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    assert_eq!(paths.len(), 23, "expected the 23 sequential Boppo programs");
    for path in paths {
        let src = std::fs::read_to_string(&path).expect("corpus file is readable");
        let prog = match parse(&src) {
            Ok(p) => p,
            Err(e) => panic!("{} does not parse: {e:?}", path.display()),
        };
        if let Err(why) = round_trip(&prog) {
            panic!("{}: {why}", path.display());
        }
        let text = print(&prog);
        let again = print(&parse(&text).expect("printed text parses"));
        assert_eq!(
            again,
            text,
            "{}: printing is not idempotent",
            path.display()
        );
    }
}

#[test]
fn the_deepest_accepted_expressions_round_trip() {
    // Whatever the parser accepts, the printer's text of it re-parses: chains of the
    // non-associative operators print one parenthesis per level, negations `!(` two.
    let depth = bp_grammar::MAX_EXPR_DEPTH - 1;
    for op in [BinOp::Eq, BinOp::Neq, BinOp::Implies] {
        let mut e = Expr::var("a0");
        for i in 1..depth {
            e = Expr::binary(op, e, Expr::var(format!("a{}", i % 7)));
        }
        if let Err(why) = round_trip(&assert_program(e)) {
            panic!("{op:?} chain of {depth}: {why}");
        }
    }
    if let Err(why) = round_trip(&assert_program(deep_expr(depth))) {
        panic!("mixed expression {depth} deep: {why}");
    }
}

/// The spans of a procedure, in visiting order.
fn spans(p: &mut Procedure) -> Vec<(usize, usize, u32, u32)> {
    let mut out = Vec::new();
    p.for_each_span_mut(&mut |s| out.push((s.start, s.end, s.line, s.col)));
    out
}

/// A procedure printed and parsed on its own, then moved to where it stands in the printed
/// program (`Procedure::shift_spans`), has exactly the spans of the whole program's parse:
/// c2bp reuses the parse of a procedure whose text did not change this way.
#[test]
fn procedures_parsed_alone_and_shifted_have_the_spans_of_the_whole_parse() {
    let mut compared = 0;
    for seed in 0..300u64 {
        let prog = program(&mut SplitMix64::new(seed));
        let text = print(&prog);
        let mut whole = parse(&text).unwrap_or_else(|e| panic!("seed {seed}: {e:?}"));
        let mut from = 0;
        for (i, p) in prog.procs.iter().enumerate() {
            let alone = Program {
                header: Annotations::default(),
                globals: Vec::new(),
                procs: vec![p.clone()],
                span: Span::NONE,
            };
            let piece = print(&alone);
            let piece = piece.trim_end_matches('\n');
            let at = from
                + text[from..]
                    .find(piece)
                    .expect("the procedure's text is there");
            from = at + piece.len();
            let lines = text[..at].matches('\n').count() as u32;
            let mut moved = parse(piece).expect("parses alone").procs.remove(0);
            moved.shift_spans(at, lines);
            assert_eq!(
                spans(&mut moved),
                spans(&mut whole.procs[i]),
                "seed {seed}, procedure {i}:\n{text}"
            );
            compared += 1;
        }
    }
    assert!(compared > 300, "only {compared} procedures compared");
}
