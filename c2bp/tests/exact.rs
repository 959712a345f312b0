//! The exact abstraction (`--abstraction exact`), checked on the relations it writes rather
//! than on their text: each `constrain` clause (and `assume`) is evaluated for every valuation of
//! the Boolean variables it reads.
//!
//! - The Constrain paper's Fig. 1 (transitivity) at `--enforce-len 0 --cube-len 1`: the relation
//!   of `z = *` excludes `x<y ∧ y<z ∧ ¬(x<z)` after it, and bebop proves the program safe.
//! - Precision by brute force: for small programs over `unsigned char` and `_Bool` variables,
//!   the pairs of predicate valuations the relation of each assignment allows, from the states
//!   before it that some concrete state has, are exactly the pairs of the concrete steps (every
//!   state enumerated and stepped by `cir::interp`).
//! - Exact implies Cartesian: on every golden program, every pair of valuations the exact
//!   relation of a statement allows the Cartesian statement allows too.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use bp_grammar::ast::{BinOp, Expr, Lhs, Stmt, StmtKind};
use bp_testkit::prng::SplitMix64;

/// The values an expression may take (bit 0: false, bit 1: true) given the pre-state `pre` and
/// the post-state `post` (for primed variables).
fn eval(e: &Expr, pre: &HashMap<String, bool>, post: &HashMap<String, bool>) -> u8 {
    let one = |b: bool| if b { 2 } else { 1 };
    match e {
        Expr::Const(b, _) => one(*b),
        Expr::Var(id) => one(pre[&id.name]),
        Expr::Primed(id) => one(post.get(&id.name).copied().unwrap_or(pre[&id.name])),
        Expr::Nondet(_) => 3,
        Expr::Not(x, _) => {
            let v = eval(x, pre, post);
            (v & 1) << 1 | (v >> 1)
        }
        Expr::Binary(op, a, b, _) => {
            let (va, vb) = (eval(a, pre, post), eval(b, pre, post));
            let mut out = 0;
            for x in [false, true] {
                for y in [false, true] {
                    if va & one(x) != 0 && vb & one(y) != 0 {
                        out |= one(match op {
                            BinOp::And => x && y,
                            BinOp::Or => x || y,
                            BinOp::Xor | BinOp::Neq => x != y,
                            BinOp::Eq => x == y,
                            BinOp::Implies => !x || y,
                        });
                    }
                }
            }
            out
        }
        Expr::Schoose(p, n, _) => {
            let (vp, vn) = (eval(p, pre, post), eval(n, pre, post));
            let mut out = 0;
            if vp & 2 != 0 {
                out |= 2;
            }
            if vp & 1 != 0 {
                if vn & 2 != 0 {
                    out |= 1;
                }
                if vn & 1 != 0 {
                    out |= 3;
                }
            }
            out
        }
    }
}

fn vars_of(e: &Expr, out: &mut BTreeSet<String>) {
    match e {
        Expr::Var(id) | Expr::Primed(id) => {
            out.insert(id.name.clone());
        }
        Expr::Not(x, _) => vars_of(x, out),
        Expr::Binary(_, a, b, _) | Expr::Schoose(a, b, _) => {
            vars_of(a, out);
            vars_of(b, out);
        }
        _ => {}
    }
}

/// Whether an assignment allows the step from `pre` to `post` (the assigned variables' new
/// values; every other variable keeps its value).
fn allows(s: &StmtKind, pre: &HashMap<String, bool>, post: &HashMap<String, bool>) -> bool {
    match s {
        StmtKind::Assign {
            lhs,
            rhs,
            constrain,
        } => {
            lhs.iter().zip(rhs).all(|(l, r)| match l {
                Lhs::Var(id) => {
                    let v = eval(r, pre, &HashMap::new());
                    v & if post[&id.name] { 2 } else { 1 } != 0
                }
                Lhs::Discard(_) => true,
            }) && constrain
                .as_ref()
                .is_none_or(|c| eval(c, pre, post) & 2 != 0)
        }
        StmtKind::Assume(c) => eval(c, pre, &HashMap::new()) & 2 != 0,
        StmtKind::Skip => true,
        _ => unreachable!("not an assignment or assume"),
    }
}

fn assigned(s: &StmtKind) -> Vec<String> {
    match s {
        StmtKind::Assign { lhs, .. } => lhs
            .iter()
            .filter_map(|l| match l {
                Lhs::Var(id) => Some(id.name.clone()),
                Lhs::Discard(_) => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The statements of a checked `.bp` by their `edge` and `part` annotations.
fn statements(text: &str) -> BTreeMap<(String, String), Stmt> {
    let bp = bp_grammar::parse_and_check(text, &bp_grammar::ParseOptions::default())
        .unwrap_or_else(|d| panic!("does not check: {d:?}\n{text}"));
    let mut out = BTreeMap::new();
    for p in &bp.procs {
        for s in &p.body {
            if let (Some(e), Some(part)) = (s.annotations.get("edge"), s.annotations.get("part")) {
                out.insert(
                    (format!("{}:{e}", p.name.name), part.to_string()),
                    s.clone(),
                );
            }
        }
    }
    out
}

/// Every valuation of `names`.
fn valuations(names: &[String]) -> impl Iterator<Item = HashMap<String, bool>> + '_ {
    (0u64..1 << names.len()).map(move |m| {
        names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), m >> i & 1 == 1))
            .collect()
    })
}

fn exact_opts(enforce_len: usize, cube_len: Option<usize>) -> c2bp::Options {
    c2bp::Options {
        abstraction: c2bp::Abstraction::Exact,
        enforce_len,
        cube_len,
        ..c2bp::Options::default()
    }
}

#[test]
fn fig1_relation_excludes_the_transitivity_violation_and_is_safe() {
    let (c, prog, preds) = common::fig1();
    let text = common::abstract_file(&c, &prog, &preds, &exact_opts(0, Some(1))).text;
    let stmts = statements(&text);
    // `z = __VERIFIER_nondet_int()`: a nondet call into a temporary, then `z := tmp` (main#7).
    let z = &stmts[&("main:main#7".to_string(), "assign".to_string())];
    let StmtKind::Assign { constrain, .. } = &z.kind else {
        panic!("not an assignment: {z:?}");
    };
    assert!(constrain.is_some(), "no relation on z = *:\n{text}");
    let (xy, yz, xz) = ("{x < y}", "{y < z}", "{x < z}");
    let names: Vec<String> = [xy, yz, xz].iter().map(|s| s.to_string()).collect();
    let (mut allowed, mut excluded_violation) = (0, true);
    for pre in valuations(&names) {
        for post in valuations(&names[1..]) {
            if !allows(&z.kind, &pre, &post) {
                continue;
            }
            allowed += 1;
            // After the step: x<y (unchanged), y<z and ¬(x<z) together is impossible.
            if pre[xy] && post[yz] && !post[xz] {
                excluded_violation = false;
            }
        }
    }
    assert!(
        excluded_violation,
        "the relation allows x<y & y<z & !(x<z):\n{text}"
    );
    assert!(allowed > 0, "the relation allows nothing:\n{text}");
    assert!(
        !common::bebop_unsafe(&text),
        "Fig. 1 must be safe with the exact abstraction:\n{text}"
    );
}

/// Initial values of `main`'s locals, in the order of its locals (the state to step from).
struct State(Vec<i128>);

impl cir::interp::Oracle for State {
    fn value(&mut self, lo: i128, _hi: i128) -> i128 {
        lo
    }
    fn choose(&mut self, _n: usize) -> usize {
        0
    }
    fn initial(&mut self, _var: cir::ir::VarId, lo: i128, _hi: i128) -> i128 {
        if self.0.is_empty() {
            return lo;
        }
        self.0.remove(0)
    }
}

const STATEMENTS: &[&str] = &[
    "a = b + c;",
    "a = b - 1;",
    "b = a * 2;",
    "c = a < b;",
    "a = a + b;",
    "b = a;",
    "a = b & 7;",
    "c = !c;",
];

const PREDICATES: &[&str] = &[
    "a < b",
    "a == 0",
    "b > 3",
    "c != 0",
    "a + b < 10",
    "a == b",
    "b == 0",
    "a > 200",
    "a < 5",
    "b < a + 1",
];

#[test]
fn exact_relations_of_small_programs_are_those_of_every_concrete_state() {
    let dir = std::env::temp_dir().join(format!("c2bp-exact-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut rng = SplitMix64::new(24);
    let mut checked = 0;
    for (k, stmt) in STATEMENTS.iter().enumerate() {
        let count = 3 + rng.below(4);
        let mut chosen: Vec<&str> = Vec::new();
        while chosen.len() < count {
            let p = PREDICATES[rng.below(PREDICATES.len())];
            if !chosen.contains(&p) {
                chosen.push(p);
            }
        }
        let c = dir.join(format!("small{k}.c"));
        let src = format!("void main(void) {{\n  unsigned char a, b;\n  _Bool c;\n  {stmt}\n}}\n");
        std::fs::write(&c, &src).expect("write");
        let prog = common::load(&c, &cir::LowerOptions::default());
        let text = format!("function main:\n{}\n", chosen.join("\n"));
        let preds = cir::pred::parse_predicates(&text, "small.preds", &prog)
            .unwrap_or_else(|e| panic!("{e}"));
        let opts = c2bp::Options {
            sem: cir::smt::Semantics {
                bitvector: true,
                ..cir::smt::Semantics::default()
            },
            ..exact_opts(0, Some(3))
        };
        let bp = common::abstract_file(&c, &prog, &preds, &opts).text;
        let stmts = statements(&bp);
        let own = &preds.per_function["main"];
        let names: Vec<String> = own.iter().map(|p| p.name()).collect();
        // The concrete pairs, from every state; the consistent states before.
        let main = prog
            .functions
            .iter()
            .find(|f| f.name == "main")
            .expect("main");
        let order: Vec<String> = main
            .locals
            .iter()
            .map(|v| prog.var(*v).name.clone())
            .collect();
        let mut concrete: BTreeSet<(Vec<bool>, Vec<bool>)> = BTreeSet::new();
        let mut consistent: BTreeSet<Vec<bool>> = BTreeSet::new();
        let mut edge = None;
        for a in 0..256i128 {
            for b in 0..256i128 {
                for cv in 0..2i128 {
                    let vals: HashMap<String, i128> =
                        [("a".into(), a), ("b".into(), b), ("c".into(), cv)].into();
                    let init: Vec<i128> = order
                        .iter()
                        .map(|n| vals.get(n).copied().unwrap_or(0))
                        .collect();
                    let mut st = State(init);
                    let mut it = cir::interp::Interp::new(&prog, &mut st).expect("starts");
                    let ev = |it: &cir::interp::Interp<'_>| -> Vec<bool> {
                        own.iter()
                            .map(|p| it.eval_condition(&p.expr).expect("evaluates"))
                            .collect()
                    };
                    let before = ev(&it);
                    let (f, node) = it.location().expect("in main");
                    let e = main.edges.iter().find(|e| e.from == node).expect("an edge");
                    edge.get_or_insert(prog.edge_name(e.id));
                    assert_eq!(f, main.id);
                    it.step(&mut st).expect("steps");
                    consistent.insert(before.clone());
                    concrete.insert((before, ev(&it)));
                }
            }
        }
        let edge = edge.expect("an edge");
        let s = &stmts[&(format!("main:{edge}"), "assign".to_string())];
        let targets = assigned(&s.kind);
        let mut abstract_pairs: BTreeSet<(Vec<bool>, Vec<bool>)> = BTreeSet::new();
        for pre in valuations(&names) {
            let before: Vec<bool> = names.iter().map(|n| pre[n]).collect();
            for post in valuations(&targets) {
                if allows(&s.kind, &pre, &post) {
                    let after: Vec<bool> = names
                        .iter()
                        .map(|n| post.get(n).copied().unwrap_or(pre[n]))
                        .collect();
                    abstract_pairs.insert((before.clone(), after));
                }
            }
        }
        let missing: Vec<_> = concrete.difference(&abstract_pairs).collect();
        assert!(
            missing.is_empty(),
            "{stmt} {chosen:?}: concrete steps the relation excludes: {missing:?}\n{bp}"
        );
        let extra: Vec<_> = abstract_pairs
            .iter()
            .filter(|(b, _)| consistent.contains(b))
            .filter(|p| !concrete.contains(p))
            .collect();
        assert!(
            extra.is_empty(),
            "{stmt} {chosen:?}: pairs without a concrete step: {extra:?}\n{bp}"
        );
        checked += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(checked, STATEMENTS.len());
}

/// Most Boolean variables a statement may read for the brute-force implication check.
const MAX_CHECKED_VARS: usize = 16;

#[test]
fn exact_relations_imply_cartesian_ones_on_the_golden_programs() {
    let cs = common::golden_c_files();
    let (mut checked, mut skipped) = (0, 0);
    for c in &cs {
        let name = c.file_stem().expect("stem").to_string_lossy().to_string();
        for (variant, lower) in common::golden_variants(&name) {
            let prog = common::load(c, &lower);
            let preds = common::preds(&prog, Some(&c.with_extension("preds")));
            let cart = common::abstract_file(c, &prog, &preds, &c2bp::Options::default()).text;
            let exact = common::abstract_file(c, &prog, &preds, &exact_opts(2, Some(3))).text;
            let (cart, exact) = (statements(&cart), statements(&exact));
            for (key, s) in &exact {
                let checkable = matches!(
                    s.kind,
                    StmtKind::Assign { .. } | StmtKind::Assume(_) | StmtKind::Skip
                );
                let Some(t) = cart.get(key).filter(|_| checkable) else {
                    continue;
                };
                let mut vars = BTreeSet::new();
                for k in [&s.kind, &t.kind] {
                    match k {
                        StmtKind::Assign {
                            lhs,
                            rhs,
                            constrain,
                        } => {
                            for l in lhs {
                                if let Lhs::Var(id) = l {
                                    vars.insert(id.name.clone());
                                }
                            }
                            rhs.iter().for_each(|e| vars_of(e, &mut vars));
                            if let Some(e) = constrain {
                                vars_of(e, &mut vars);
                            }
                        }
                        StmtKind::Assume(e) => vars_of(e, &mut vars),
                        _ => {}
                    }
                }
                let targets = assigned(&s.kind);
                assert_eq!(targets, assigned(&t.kind), "{variant} {key:?}");
                if vars.len() + targets.len() > MAX_CHECKED_VARS {
                    skipped += 1;
                    continue;
                }
                let vars: Vec<String> = vars.into_iter().collect();
                for pre in valuations(&vars) {
                    for post in valuations(&targets) {
                        assert!(
                            !allows(&s.kind, &pre, &post) || allows(&t.kind, &pre, &post),
                            "{variant} {key:?}: the exact statement allows {pre:?} -> {post:?}, \
                             the Cartesian one does not"
                        );
                    }
                }
                checked += 1;
            }
        }
    }
    eprintln!("checked {checked} statements, skipped {skipped} (too many variables)");
    assert!(
        checked > 10 * (skipped + 1),
        "{checked} checked, {skipped} skipped"
    );
}

#[test]
fn a_cache_never_mixes_cartesian_and_exact_abstractions() {
    let (c, prog, preds) = common::fig1();
    let sources = bp_c::header::Sources {
        c_path: "fig1.c".into(),
        c_sha256: bp_c::header::sha256_hex(&std::fs::read(&c).expect("C file")),
        preds_path: None,
        extra: Vec::new(),
    };
    let (cart, exact) = (c2bp::Options::default(), exact_opts(2, Some(3)));
    let fresh = |o: &c2bp::Options| {
        c2bp::abstract_program(&prog, &preds, o, &sources)
            .expect("abstracts")
            .text
    };
    let mut cache = c2bp::Cache::default();
    for o in [&cart, &exact, &cart, &exact] {
        let cached = c2bp::abstract_program_cached(&prog, &preds, o, &sources, &mut cache)
            .expect("abstracts")
            .text;
        assert_eq!(cached, fresh(o), "{}", o.describe());
    }
    assert_ne!(fresh(&cart), fresh(&exact));
}
