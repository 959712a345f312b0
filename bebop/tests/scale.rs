//! Behaviour at scale: a chain of 1,000 procedures (10 locals each, 30 globals), recursive K-bit
//! counters whose error needs 2^K − 1 nested calls (or 2^K − 1 completed calls), and one
//! procedure called from many sites. These check verdicts and trace shapes, not time: the
//! performance figures come from `make bench` (`bench/`), never from timed tests.

use bebop::{Options, Outcome, Property, verify};
use std::fmt::Write as _;

fn parse(src: &str) -> bp_grammar::Program {
    let prog = bp_grammar::parse(src).unwrap_or_else(|d| panic!("does not parse: {d:?}"));
    let diags: Vec<_> = bp_grammar::check(&prog, src)
        .into_iter()
        .filter(|d| d.is_error())
        .collect();
    assert!(diags.is_empty(), "ill-formed: {diags:?}");
    prog
}

fn run(src: &str, prop: Property) -> Outcome {
    let prog = parse(src);
    let opts = Options {
        property: prop,
        self_check: true,
        ..Options::default()
    };
    verify(&prog, &opts).expect("bebop runs")
}

/// `n` procedures `p0 .. p{n-1}`, each with a parameter and 10 locals over 30 globals, each
/// calling the next; `main` asserts a fact the chain preserves (safe) or one it does not
/// (unsafe).
pub fn chain(n: usize, unsafe_: bool) -> String {
    let mut s = String::new();
    let g: Vec<String> = (0..30).map(|i| format!("g{i}")).collect();
    let _ = writeln!(s, "decl {};", g.join(", "));
    for i in 0..n {
        let a = format!("g{}", i % 30);
        let b = format!("g{}", (i + 7) % 30);
        let _ = writeln!(s, "bool p{i}(x) begin");
        let _ = writeln!(s, "  decl l0, l1, l2, l3, l4, l5, l6, l7, l8, l9;");
        let _ = writeln!(s, "  l0, l1 := x, {a};");
        let _ = writeln!(s, "  l2 := (l0 & !l1) | (!l0 & l1);");
        let _ = writeln!(s, "  l3 := *;");
        let _ = writeln!(s, "  if l3 then l4 := l0; else l4 := x; fi");
        let _ = writeln!(s, "  {a} := {a} ^ l3;");
        let _ = writeln!(s, "  {a} := {a} ^ l3;");
        let _ = writeln!(s, "  l5, l6 := l2, {b};");
        let _ = writeln!(s, "  dead l2, l3;");
        if i + 1 < n {
            let _ = writeln!(s, "  l7 := p{}(l4);", i + 1);
        } else {
            let _ = writeln!(s, "  l7 := l4;");
        }
        let _ = writeln!(s, "  assume(l6 = {b} | !l6 = !{b});");
        let _ = writeln!(s, "  l8, l9 := l7, l5;");
        let _ = writeln!(s, "  return l8;");
        let _ = writeln!(s, "end");
    }
    let _ = writeln!(s, "void main() begin");
    let _ = writeln!(s, "  decl r, v;");
    let _ = writeln!(s, "  v := *;");
    let _ = writeln!(s, "  r := p0(v);");
    if unsafe_ {
        let _ = writeln!(s, "  assert(r = !v);");
    } else {
        let _ = writeln!(s, "  assert(r = v);");
    }
    let _ = writeln!(s, "end");
    s
}

/// A K-bit counter in globals, incremented by a recursive procedure; reaching all-ones is the
/// error (`SLIC_ERROR`), at recursion depth 2^K − 1.
pub fn counter_deep(k: usize) -> String {
    let mut s = String::new();
    let b: Vec<String> = (0..k).map(|i| format!("b{i}")).collect();
    let _ = writeln!(s, "decl {};", b.join(", "));
    let _ = writeln!(s, "void inc() begin");
    let _ = writeln!(s, "  if {} then SLIC_ERROR: skip; fi", b.join(" & "));
    let mut rhs = Vec::new();
    for (i, bi) in b.iter().enumerate() {
        let carry = if i == 0 {
            "T".to_string()
        } else {
            format!("({})", b[..i].join(" & "))
        };
        rhs.push(format!("{bi} ^ {carry}"));
    }
    let _ = writeln!(s, "  {} := {};", b.join(", "), rhs.join(", "));
    let _ = writeln!(s, "  inc();");
    let _ = writeln!(s, "end");
    let _ = writeln!(s, "void main() begin");
    let _ = writeln!(s, "  {} := {};", b.join(", "), vec!["F"; k].join(", "));
    let _ = writeln!(s, "  inc();");
    let _ = writeln!(s, "end");
    s
}

/// A K-bit counter incremented 2^K − 1 times by calls that return (a loop in `main` calling a
/// recursive-descent incrementer); the assert fails once the counter is all ones.
pub fn counter_loop(k: usize) -> String {
    let mut s = String::new();
    let b: Vec<String> = (0..k).map(|i| format!("b{i}")).collect();
    let _ = writeln!(s, "decl {};", b.join(", "));
    // inc_i adds 1 at bit i: flips bit i, and recurses into bit i+1 on a carry.
    for (i, bi) in b.iter().enumerate() {
        let _ = writeln!(s, "void inc{i}() begin");
        let _ = writeln!(s, "  {bi} := !{bi};");
        if i + 1 < k {
            let _ = writeln!(s, "  if !{bi} then inc{}(); fi", i + 1);
        }
        let _ = writeln!(s, "end");
    }
    let _ = writeln!(s, "void main() begin");
    let _ = writeln!(s, "  {} := {};", b.join(", "), vec!["F"; k].join(", "));
    let _ = writeln!(s, "  while * do inc0(); od");
    let _ = writeln!(s, "  assert(!({}));", b.join(" & "));
    let _ = writeln!(s, "end");
    s
}

/// One small procedure called from `n` call sites of `main` with varying arguments; the
/// summaries built for one context are reused by every site calling with it.
pub fn many_call_sites(n: usize) -> String {
    let mut s = String::new();
    let g: Vec<String> = (0..8).map(|i| format!("g{i}")).collect();
    let _ = writeln!(s, "decl {};", g.join(", "));
    let _ = writeln!(s, "bool f(a, b) begin");
    let _ = writeln!(s, "  decl t;");
    let _ = writeln!(s, "  t := a ^ g0;");
    let _ = writeln!(s, "  g0, g1 := g1, t;");
    let _ = writeln!(s, "  if b then g2 := !g2; fi");
    let _ = writeln!(s, "  return t | b;");
    let _ = writeln!(s, "end");
    let _ = writeln!(s, "void main() begin");
    let _ = writeln!(s, "  decl x, y;");
    for i in 0..n {
        let _ = writeln!(s, "  x := f({}, y);", g[i % 8]);
        let _ = writeln!(s, "  y := x ^ {};", g[(i * 3 + 1) % 8]);
    }
    let _ = writeln!(s, "  assert(x | !x);");
    let _ = writeln!(s, "end");
    s
}

fn report(name: &str, o: &Outcome) {
    eprintln!(
        "{name}: {} in {:?} (reach {:?}, trace {:?}); {} iterations, largest BDD {}, peak live {}, trace steps {}",
        if o.verdict.is_safe() {
            "safe"
        } else {
            "unsafe"
        },
        o.stats.total_time,
        o.stats.reach_time,
        o.stats.trace_time,
        o.stats.iterations,
        o.stats.largest_bdd,
        o.stats.peak_live_nodes,
        o.verdict.trace().map(|t| t.steps.len()).unwrap_or(0)
    );
}

#[test]
fn chain_of_1000_procedures() {
    for unsafe_ in [false, true] {
        let o = run(&chain(1000, unsafe_), Property::AssertsAndSlicError);
        report(&format!("chain 1000 unsafe={unsafe_}"), &o);
        assert_eq!(o.verdict.is_safe(), !unsafe_);
    }
}

#[test]
fn deep_traces_render_in_text_proportional_to_their_steps() {
    // The error at call depth 2^8: every step deeper than the indentation cap keeps the cap's
    // indentation and says its depth, so no line grows with the depth.
    let src = counter_deep(8);
    let o = run(&src, Property::AssertsAndSlicError);
    let tr = o.verdict.trace().expect("the counter reaches all ones");
    let text = bebop::report::render_trace(&parse(&src), tr);
    let cap = 2 * (bebop::report::MAX_INDENT_DEPTH as usize + 1);
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        assert!(indent <= cap, "indented by {indent}: {line}");
    }
    assert!(
        text.contains("(depth 256) "),
        "the deepest steps show their depth"
    );
    assert!(
        text.contains(&format!("{}[", " ".repeat(cap))),
        "steps at the cap"
    );
}

#[test]
fn recursive_counter_error_at_depth_2k() {
    for k in [4usize, 8, 10] {
        if cfg!(debug_assertions) && k > 8 {
            continue;
        }
        let o = run(&counter_deep(k), Property::AssertsAndSlicError);
        report(&format!("counter_deep k={k}"), &o);
        let tr = o.verdict.trace().expect("the counter reaches all ones");
        let calls = tr
            .steps
            .iter()
            .filter(|s| s.kind == bp_grammar::trace::StepKind::Call)
            .count();
        assert_eq!(calls, 1 << k, "one call per counter value");
        assert_eq!(tr.steps.last().map(|s| s.depth), Some(1 << k));
    }
}

#[test]
fn counter_with_returning_calls() {
    for k in [4usize, 8, 10] {
        if cfg!(debug_assertions) && k > 8 {
            continue;
        }
        let o = run(&counter_loop(k), Property::AssertsAndSlicError);
        report(&format!("counter_loop k={k}"), &o);
        let tr = o.verdict.trace().expect("the counter reaches all ones");
        let top_calls = tr
            .steps
            .iter()
            .filter(|s| s.kind == bp_grammar::trace::StepKind::Call && s.depth == 0)
            .count();
        assert_eq!(top_calls, (1 << k) - 1, "2^K - 1 increments");
    }
}

#[test]
fn procedure_called_from_1000_sites() {
    let n = if cfg!(debug_assertions) { 200 } else { 1000 };
    let o = run(&many_call_sites(n), Property::AssertsAndSlicError);
    report(&format!("many_call_sites n={n}"), &o);
    assert!(o.verdict.is_safe());
}

/// A procedure that returns its `w` parameters to `w` targets of `main`, declared after its
/// actuals, so far from the return slots in the variable order; and a parallel assignment of
/// `w` `schoose`s in a procedure of its own. The conjunction of all the equations of one such
/// statement is exponential in `w` under that order (and so is the conjunction of a
/// statement's equations before its temporaries are quantified): each must be built one
/// value at a time. Unsafe: the last assertion fails.
fn wide_statements(w: usize, unsafe_: bool) -> String {
    let names = |p: &str| (0..w).map(|i| format!("{p}{i}")).collect::<Vec<_>>();
    let (a, r, x, y, p) = (names("a"), names("r"), names("x"), names("y"), names("p"));
    let mut s = String::new();
    let _ = writeln!(s, "void main() begin");
    let _ = writeln!(s, "  decl {};", a.join(", "));
    let _ = writeln!(s, "  decl {};", r.join(", "));
    let _ = writeln!(s, "  {} := {};", a.join(", "), vec!["T"; w].join(", "));
    let _ = writeln!(s, "  {} := f({});", r.join(", "), a.join(", "));
    let _ = writeln!(s, "  assert({});", r.join(" & "));
    let _ = writeln!(s, "  choices();");
    if unsafe_ {
        let _ = writeln!(s, "  assert(!{});", r[w - 1]);
    }
    let _ = writeln!(s, "end");
    let _ = writeln!(s, "bool<{w}> f({}) begin", p.join(", "));
    let _ = writeln!(s, "  return {};", p.join(", "));
    let _ = writeln!(s, "end");
    let _ = writeln!(s, "void choices() begin");
    let _ = writeln!(s, "  decl {};", y.join(", "));
    let _ = writeln!(s, "  decl {};", x.join(", "));
    let choices: Vec<String> = y.iter().map(|v| format!("schoose[{v}, F]")).collect();
    let _ = writeln!(s, "  {} := {};", x.join(", "), choices.join(", "));
    let implied: Vec<String> = x
        .iter()
        .zip(&y)
        .map(|(x, y)| format!("(!{y} | {x})"))
        .collect();
    let _ = writeln!(s, "  assert({});", implied.join(" & "));
    let _ = writeln!(s, "end");
    s
}

#[test]
fn wide_returns_and_parallel_choices_stay_linear() {
    let w = 48;
    for unsafe_ in [false, true] {
        let src = wide_statements(w, unsafe_);
        let prog = parse(&src);
        let model =
            bebop::lower::lower(&prog, &Property::AssertsAndSlicError, None).expect("lowers");
        for e in &model.edges {
            let size = match &e.kind {
                bebop::lower::EdgeKind::Transfer(t) => t.rel.size(),
                bebop::lower::EdgeKind::Return(Some(r)) => r.size(),
                bebop::lower::EdgeKind::Call(c) => c.arg_rel.size(),
                bebop::lower::EdgeKind::Return(None) => 0,
            };
            assert!(
                size <= 4 * w,
                "a relation of {size} BDD nodes for {w} values"
            );
        }
        let o = run(&src, Property::AssertsAndSlicError);
        report(&format!("wide statements w={w} unsafe={unsafe_}"), &o);
        assert_eq!(o.verdict.is_safe(), !unsafe_);
        assert!(
            o.stats.largest_bdd <= 8 * w,
            "largest BDD {}",
            o.stats.largest_bdd
        );
    }
}
