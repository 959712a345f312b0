//! Horn clauses over the C semantics (`cir::smt::horn`): Spacer's solutions read back as C
//! conditions in normal form, derivations of reachable errors, the resource limit honoured
//! through the API, `unknown` never taken for an answer, the minimisation of solutions, and
//! Houdini's greatest inductive subset of candidate invariants.

use cir::ir::{BinOp, Expr, ExprKind, Program, VarId};
use cir::smt::horn::{
    Clause, Derivation, HornAnswer, HornOptions, HornProblem, RelApp, RelId, Relation, Solution,
    SpacerConfig, holds, houdini, minimize, solve,
};
use cir::types::CType;

const SRC: &str = r#"
int main(void) {
  int x = 0, y = 0, i = 0, j = 0;
  unsigned u = 0;
  return x + y + i + j + (int)u;
}
"#;

fn program() -> Program {
    let dir = std::env::temp_dir().join(format!("cir-horn-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("horn.c");
    std::fs::write(&path, SRC).expect("write temp C file");
    cir::load_file(&path, &cir::LowerOptions::default()).expect("test program lowers")
}

fn id(p: &Program, name: &str) -> VarId {
    let i = p
        .vars
        .iter()
        .position(|v| v.name == name)
        .unwrap_or_else(|| panic!("no variable {name}"));
    VarId(i as u32)
}

fn var(p: &Program, name: &str) -> Expr {
    let v = id(p, name);
    Expr {
        kind: ExprKind::Var(v),
        ty: p.var(v).ty.clone(),
    }
}

fn k(v: i128) -> Expr {
    Expr::int(v, CType::INT)
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    let ty = cir::ir::binop_type(op, &a.ty, &b.ty, cir::DataModel::Ilp32);
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        ty,
    }
}

fn app(rel: u32, args: Vec<Expr>) -> RelApp {
    RelApp {
        rel: RelId(rel),
        args,
    }
}

/// `inv(0); inv(x) ∧ x < n → inv(x + 1); inv(x) ∧ bad(x) → error`.
fn counter(p: &Program, n: i128, bad: Expr) -> HornProblem {
    stepper(p, 0, 1, n, bad)
}

/// `inv(init); inv(x) ∧ x < n → inv(x + step); inv(x) ∧ bad(x) → error`.
fn stepper(p: &Program, init: i128, step: i128, n: i128, bad: Expr) -> HornProblem {
    let x = var(p, "x");
    HornProblem {
        relations: vec![Relation {
            name: "inv".into(),
            params: vec![id(p, "x")],
        }],
        clauses: vec![
            Clause {
                body: vec![],
                constraints: vec![],
                head: Some(app(0, vec![k(init)])),
            },
            Clause {
                body: vec![app(0, vec![x.clone()])],
                constraints: vec![bin(BinOp::Lt, x.clone(), k(n))],
                head: Some(app(0, vec![bin(BinOp::Add, x.clone(), k(step))])),
            },
            Clause {
                body: vec![app(0, vec![x])],
                constraints: vec![bad],
                head: None,
            },
        ],
    }
}

fn texts(p: &Program, es: &[Expr]) -> Vec<String> {
    es.iter().map(|e| p.show_expr(e)).collect()
}

#[test]
fn a_counter_loop_gets_its_bound() {
    let p = program();
    let x = var(&p, "x");
    let bad = bin(
        BinOp::LogAnd,
        bin(BinOp::Ge, x.clone(), k(100)),
        bin(BinOp::Ne, x, k(100)),
    );
    let prob = counter(&p, 100, bad);
    let res = solve(&p, &prob, &HornOptions::default());
    let HornAnswer::Safe(sol) = res.answer else {
        panic!("expected a solution, got {:?}", res.answer);
    };
    let inv = texts(&p, &sol.interps[0]);
    assert!(
        inv.iter().any(|t| t == "x <= 100"),
        "the loop bound is in the invariant: {inv:?}"
    );
    assert!(holds(&p, &prob, &sol.interps, None, 5_000_000));
}

#[test]
fn a_relational_loop_gets_an_equality() {
    // x = i; y = j; while (x != 0) { x--; y--; }  with  i == j → y == 0.
    let p = program();
    let (x, y, i, j) = (var(&p, "x"), var(&p, "y"), var(&p, "i"), var(&p, "j"));
    let params = ["x", "y", "i", "j"].iter().map(|n| id(&p, n)).collect();
    let prob = HornProblem {
        relations: vec![Relation {
            name: "inv".into(),
            params,
        }],
        clauses: vec![
            Clause {
                body: vec![],
                constraints: vec![],
                head: Some(app(0, vec![i.clone(), j.clone(), i.clone(), j.clone()])),
            },
            Clause {
                body: vec![app(0, vec![x.clone(), y.clone(), i.clone(), j.clone()])],
                constraints: vec![bin(BinOp::Ne, x.clone(), k(0))],
                head: Some(app(
                    0,
                    vec![
                        bin(BinOp::Sub, x.clone(), k(1)),
                        bin(BinOp::Sub, y.clone(), k(1)),
                        i.clone(),
                        j.clone(),
                    ],
                )),
            },
            Clause {
                body: vec![app(0, vec![x.clone(), y.clone(), i.clone(), j.clone()])],
                constraints: vec![
                    bin(BinOp::Eq, x, k(0)),
                    bin(BinOp::Eq, i, j),
                    bin(BinOp::Ne, y, k(0)),
                ],
                head: None,
            },
        ],
    };
    // The default portfolio leaves it undecided within its limit (never a wrong answer); the
    // older unsat cores (`spacer.iuc=0`, left out of the portfolio because Z3 4.8.12 ends the
    // process on some other problems with it) solve it, and the equality reads back as C.
    let small = HornOptions {
        rlimit: 2_000_000,
        ..HornOptions::default()
    };
    assert!(!matches!(
        solve(&p, &prob, &small).answer,
        HornAnswer::Unsafe(_)
    ));
    const IUC0: &[SpacerConfig] = &[SpacerConfig {
        name: "iuc0",
        uints: &[("spacer.iuc", 0)],
        bools: &[],
    }];
    let opts = HornOptions {
        portfolio: IUC0,
        ..HornOptions::default()
    };
    let res = solve(&p, &prob, &opts);
    let HornAnswer::Safe(sol) = res.answer else {
        panic!("expected a solution, got {:?}", res.answer);
    };
    let inv = texts(&p, &sol.interps[0]);
    // `x - y == i - j` in some arrangement of its sides: one equality over all four.
    let eq = inv
        .iter()
        .find(|t| t.contains("==") && ["x", "y", "i", "j"].iter().all(|v| t.contains(v)));
    assert!(eq.is_some(), "an equality relates x, y, i, j: {inv:?}");
    assert!(holds(&p, &prob, &sol.interps, None, 5_000_000));
}

/// The chain of relation instances from the error down to the first fact.
fn chain(d: &Derivation) -> Vec<(Option<RelId>, Vec<Option<i128>>)> {
    let mut out = vec![(d.rel, d.args.clone())];
    let mut at = d;
    while let Some(p) = at.premises.first() {
        out.push((p.rel, p.args.clone()));
        at = p;
    }
    out
}

#[test]
fn a_reachable_error_comes_with_its_derivation() {
    let p = program();
    let prob = counter(&p, 100, bin(BinOp::Eq, var(&p, "x"), k(57)));
    let res = solve(&p, &prob, &HornOptions::default());
    let HornAnswer::Unsafe(d) = res.answer else {
        panic!("expected a derivation, got {:?}", res.answer);
    };
    let c = chain(&d);
    assert_eq!(c[0].0, None, "the root derives the error");
    let values: Vec<Option<i128>> = c[1..].iter().map(|(_, a)| a[0]).collect();
    let expected: Vec<Option<i128>> = (0..=57).rev().map(Some).collect();
    assert_eq!(values, expected, "inv(57), inv(56), …, inv(0)");
}

#[test]
fn the_resource_limit_is_honoured() {
    // An error behind 5000 iterations: Spacer needs far more than this limit allows (and
    // minutes without one). Every configuration must stop at the limit with `unknown`, and
    // `unknown` is the answer: never a guess.
    let p = program();
    let prob = counter(&p, 100_000, bin(BinOp::Eq, var(&p, "x"), k(5000)));
    let opts = HornOptions {
        rlimit: 300_000,
        ..HornOptions::default()
    };
    let res = solve(&p, &prob, &opts);
    assert!(
        matches!(res.answer, HornAnswer::Unknown(_)),
        "{:?}",
        res.answer
    );
    assert_eq!(res.attempts.len(), opts.portfolio.len());
    assert!(res.attempts.iter().all(|a| a.result.starts_with("unknown")));
    // The same shape with the error close by is decided under the same limit.
    let near = counter(&p, 100_000, bin(BinOp::Eq, var(&p, "x"), k(3)));
    assert!(matches!(
        solve(&p, &near, &opts).answer,
        HornAnswer::Unsafe(_)
    ));
}

/// The counter to 100 whose error is a value above 100: `x <= 100` refutes it.
fn counter_past_100(p: &Program) -> HornProblem {
    let x = var(p, "x");
    let bad = bin(
        BinOp::LogAnd,
        bin(BinOp::Ge, x.clone(), k(100)),
        bin(BinOp::Ne, x, k(100)),
    );
    counter(p, 100, bad)
}

#[test]
fn minimisation_keeps_what_the_clauses_need() {
    let p = program();
    let x = var(&p, "x");
    let prob = counter_past_100(&p);
    let sol = Solution {
        interps: vec![vec![
            bin(BinOp::Le, x.clone(), k(100)),
            bin(BinOp::Ge, x.clone(), k(0)),
            bin(BinOp::Ne, x.clone(), k(1000)),
        ]],
    };
    assert!(holds(&p, &prob, &sol.interps, None, 5_000_000));
    let min = minimize(&p, &prob, sol, 32, 5_000_000);
    assert_eq!(texts(&p, &min.interps[0]), vec!["x <= 100".to_string()]);
    // Not a solution: left as it is.
    let wrong = Solution {
        interps: vec![vec![bin(BinOp::Le, x, k(50))]],
    };
    assert!(!holds(&p, &prob, &wrong.interps, None, 5_000_000));
    assert_eq!(minimize(&p, &prob, wrong.clone(), 32, 5_000_000), wrong);
}

/// A solution of Houdini's shape — one conjunct the clauses need among a hundred they do
/// not — is minimised within a budget of checks far below its size: the unneeded ones go in
/// blocks.
#[test]
fn minimisation_drops_unneeded_conjuncts_in_blocks() {
    let p = program();
    let x = var(&p, "x");
    let prob = counter_past_100(&p);
    let mut interp: Vec<Expr> = (0..100)
        .map(|i| bin(BinOp::Ne, x.clone(), k(1000 + i)))
        .collect();
    interp.insert(57, bin(BinOp::Le, x.clone(), k(100)));
    let sol = Solution {
        interps: vec![interp],
    };
    assert!(holds(&p, &prob, &sol.interps, None, 5_000_000));
    let min = minimize(&p, &prob, sol.clone(), 32, 5_000_000);
    assert_eq!(texts(&p, &min.interps[0]), vec!["x <= 100".to_string()]);
    // Out of checks: what has been dropped so far stays dropped, the rest stays.
    let part = minimize(&p, &prob, sol.clone(), 3, 5_000_000);
    assert!(part.interps[0].len() < sol.interps[0].len());
    assert!(holds(&p, &prob, &part.interps, None, 5_000_000));
}

#[test]
fn unsigned_wrap_around_is_read_back_exactly() {
    // u counts up from 0 while u < 10, as an `unsigned` (the encoding wraps it modulo 2^32):
    // the bound comes back without a wrap term.
    let p = program();
    let u = var(&p, "u");
    let prob = HornProblem {
        relations: vec![Relation {
            name: "inv".into(),
            params: vec![id(&p, "u")],
        }],
        clauses: vec![
            Clause {
                body: vec![],
                constraints: vec![],
                head: Some(app(0, vec![k(0)])),
            },
            Clause {
                body: vec![app(0, vec![u.clone()])],
                constraints: vec![bin(BinOp::Lt, u.clone(), k(10))],
                head: Some(app(0, vec![bin(BinOp::Add, u.clone(), k(1))])),
            },
            Clause {
                body: vec![app(0, vec![u.clone()])],
                constraints: vec![bin(BinOp::Gt, u, k(10))],
                head: None,
            },
        ],
    };
    let res = solve(&p, &prob, &HornOptions::default());
    let HornAnswer::Safe(sol) = res.answer else {
        panic!("expected a solution, got {:?}", res.answer);
    };
    let inv = texts(&p, &sol.interps[0]);
    assert!(
        inv.iter()
            .all(|t| !t.contains('%') && !t.contains("(unsigned")),
        "no wrap term: {inv:?}"
    );
    assert!(holds(&p, &prob, &sol.interps, None, 5_000_000));
}

/// The loop `for (x = init; x < 100; x += 2);` and the assertion `x == 100` after it.
fn by_two(p: &Program, init: i128) -> HornProblem {
    let x = var(p, "x");
    let bad = bin(
        BinOp::LogAnd,
        bin(BinOp::Ge, x.clone(), k(100)),
        bin(BinOp::Ne, x, k(100)),
    );
    stepper(p, init, 2, 100, bad)
}

/// `x % 2 == 0`, `x <= 100` and three candidates that are not invariants of [`by_two`].
fn by_two_candidates(p: &Program) -> Vec<Expr> {
    let x = var(p, "x");
    let even = bin(BinOp::Eq, bin(BinOp::Rem, x.clone(), k(2)), k(0));
    vec![
        bin(BinOp::Ge, x.clone(), k(5)),
        bin(BinOp::Le, x.clone(), k(100)),
        bin(BinOp::Eq, x.clone(), k(0)),
        even,
        bin(BinOp::Ne, bin(BinOp::Rem, x.clone(), k(2)), k(0)),
        bin(BinOp::Le, x, k(98)),
    ]
}

#[test]
fn houdini_keeps_exactly_the_inductive_candidates() {
    let p = program();
    let prob = by_two(&p, 0);
    let sol = houdini(&p, &prob, vec![by_two_candidates(&p)], 5_000_000, 100)
        .expect("x <= 100 and x % 2 == 0 refute the error");
    assert_eq!(
        texts(&p, &sol.interps[0]),
        vec!["x <= 100".to_string(), "x % 2 == 0".to_string()]
    );
    assert!(holds(&p, &prob, &sol.interps, None, 5_000_000));
}

#[test]
fn houdini_rechecks_a_loop_after_a_drop() {
    // From 1, `x % 2 == 0` fails at the start; without it `x <= 100` is no longer preserved
    // (99 + 2), and the error (101) is reachable: no solution, though `x <= 100` alone passes
    // the loop's clause while the parity is still assumed.
    let p = program();
    let prob = by_two(&p, 1);
    assert!(houdini(&p, &prob, vec![by_two_candidates(&p)], 5_000_000, 100).is_none());
    // Without the parity among the candidates, from 0 as well.
    let x = var(&p, "x");
    let bound = vec![bin(BinOp::Le, x, k(100))];
    assert!(houdini(&p, &by_two(&p, 0), vec![bound], 5_000_000, 100).is_none());
}

#[test]
fn houdini_gives_up_after_its_checks() {
    let p = program();
    let prob = by_two(&p, 0);
    assert!(houdini(&p, &prob, vec![by_two_candidates(&p)], 5_000_000, 1).is_none());
}
