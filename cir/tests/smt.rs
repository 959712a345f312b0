//! The Z3 encoding of C semantics (`cir::smt`, `docs/c-semantics.md`): conversions, wrap-around, C
//! division, ranges per data model, bit-vector mode, the logical memory model, the cache (never
//! caching `unknown`) and determinism.

use cir::DataModel;
use cir::ir::{BinOp, EdgeKind, Expr, ExprKind, Program, UnOp};
use cir::smt::{Answer, Prover, SatAnswer, Semantics};
use cir::types::{CType, IntKind, usual_arithmetic};

const SRC: &str = r#"
struct S { int f; int g; };
int x, y, z;
unsigned u, v;
char c;
unsigned char uc;
long l;
int *p, *q;
struct S s, *ps;
int a[10];
void reach_error(void);
int main(void) {
  if (x + 1 > x) reach_error();
  return 0;
}
"#;

fn load(src: &str, dm: DataModel, tag: &str) -> Program {
    let dir = std::env::temp_dir().join(format!("cir-smt-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // One file per load: tests run in parallel and load the same source under one tag.
    static LOADS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = LOADS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = dir.join(format!("{tag}-{n}.c"));
    std::fs::write(&path, src).expect("write temp C file");
    let opts = cir::LowerOptions {
        data_model: dm,
        ..Default::default()
    };
    cir::load_file(&path, &opts).expect("test program lowers")
}

fn ilp32() -> Program {
    load(SRC, DataModel::Ilp32, "ilp32")
}

const INT: Semantics = Semantics {
    data_model: DataModel::Ilp32,
    bitvector: false,
};
const BV: Semantics = Semantics {
    data_model: DataModel::Ilp32,
    bitvector: true,
};

fn ty(k: IntKind) -> CType {
    CType::Int(k)
}

/// The id of a variable expression made by [`var`].
fn var_id(e: &Expr) -> cir::ir::VarId {
    match e.kind {
        ExprKind::Var(v) => v,
        _ => panic!("not a variable"),
    }
}

fn var(p: &Program, name: &str) -> Expr {
    let (i, info) = p
        .vars
        .iter()
        .enumerate()
        .find(|(_, v)| v.name == name)
        .unwrap_or_else(|| panic!("no variable {name}"));
    Expr {
        kind: ExprKind::Var(cir::ir::VarId(i as u32)),
        ty: info.ty.clone(),
    }
}

fn k(v: i128) -> Expr {
    Expr::int(v, CType::INT)
}

fn ku(v: i128) -> Expr {
    Expr::int(v, ty(IntKind::UInt))
}

/// A binary node with the type C gives it.
fn bin(p: &Program, op: BinOp, a: Expr, b: Expr) -> Expr {
    let t = if op.is_comparison() || matches!(op, BinOp::LogAnd | BinOp::LogOr) {
        CType::INT
    } else if matches!(op, BinOp::Shl | BinOp::Shr) {
        a.ty.promoted()
    } else if matches!(a.ty, CType::Pointer(_)) {
        a.ty.clone()
    } else {
        usual_arithmetic(&a.ty, &b.ty, p.data_model)
    };
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        ty: t,
    }
}

fn un(op: UnOp, a: Expr) -> Expr {
    let t = if op == UnOp::LogNot {
        CType::INT
    } else {
        a.ty.promoted()
    };
    Expr {
        kind: ExprKind::Unary(op, Box::new(a)),
        ty: t,
    }
}

fn cast(t: CType, a: Expr) -> Expr {
    Expr {
        kind: ExprKind::Cast(Box::new(a)),
        ty: t,
    }
}

fn addr(a: Expr) -> Expr {
    let t = a.ty.clone().ptr_to();
    Expr {
        kind: ExprKind::AddrOf(Box::new(a)),
        ty: t,
    }
}

fn deref(a: Expr) -> Expr {
    let t = a.ty.pointee().expect("pointer").clone();
    Expr {
        kind: ExprKind::Deref(Box::new(a)),
        ty: t,
    }
}

fn field(b: Expr, f: &str) -> Expr {
    Expr {
        kind: ExprKind::Field(Box::new(b), f.into()),
        ty: CType::INT,
    }
}

fn cond(c: Expr, a: Expr, b: Expr) -> Expr {
    let t = a.ty.clone();
    Expr {
        kind: ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
        ty: t,
    }
}

fn eq(p: &Program, a: Expr, b: Expr) -> Expr {
    bin(p, BinOp::Eq, a, b)
}

fn valid(p: &Program, sem: Semantics, assumptions: &[Expr], goal: &Expr) -> Answer {
    Prover::new(p, sem).is_valid(assumptions, goal)
}

#[test]
fn minus_one_is_not_below_one_unsigned() {
    let p = ilp32();
    let lt = bin(&p, BinOp::Lt, k(-1), ku(1));
    let lt_int = bin(&p, BinOp::Lt, k(-1), k(1));
    for sem in [INT, BV] {
        assert_eq!(valid(&p, sem, &[], &lt), Answer::NotValid, "{sem}");
        assert_eq!(
            valid(&p, sem, &[], &un(UnOp::LogNot, lt.clone())),
            Answer::Valid
        );
        assert_eq!(valid(&p, sem, &[], &lt_int), Answer::Valid, "{sem}");
        // -1 converted to unsigned is UINT_MAX.
        let conv = eq(&p, cast(ty(IntKind::UInt), k(-1)), ku(4294967295));
        assert_eq!(valid(&p, sem, &[], &conv), Answer::Valid, "{sem}");
    }
}

#[test]
fn signed_increment_is_mathematical_unsigned_wraps() {
    let p = ilp32();
    let gx = bin(
        &p,
        BinOp::Gt,
        bin(&p, BinOp::Add, var(&p, "x"), k(1)),
        var(&p, "x"),
    );
    let gu = bin(
        &p,
        BinOp::Gt,
        bin(&p, BinOp::Add, var(&p, "u"), ku(1)),
        var(&p, "u"),
    );
    assert_eq!(valid(&p, INT, &[], &gx), Answer::Valid);
    assert_eq!(valid(&p, INT, &[], &gu), Answer::NotValid);
    assert_eq!(valid(&p, BV, &[], &gu), Answer::NotValid);
    // Bit-vector mode wraps signed overflow too (two's complement, as gcc does).
    assert_eq!(valid(&p, BV, &[], &gx), Answer::NotValid);
    // unsigned: 0 - 1 == UINT_MAX
    let u0 = eq(&p, var(&p, "u"), ku(0));
    let wrap = eq(&p, bin(&p, BinOp::Sub, var(&p, "u"), ku(1)), ku(4294967295));
    for sem in [INT, BV] {
        assert_eq!(
            valid(&p, sem, std::slice::from_ref(&u0), &wrap),
            Answer::Valid,
            "{sem}"
        );
    }
}

#[test]
fn the_lowered_condition_is_encoded() {
    let p = ilp32();
    let main = p.function("main").expect("main");
    let conds: Vec<&Expr> = main
        .edges
        .iter()
        .filter_map(|e| match &e.kind {
            EdgeKind::Assume(c) => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(conds.len(), 2, "both sides of the if");
    let prover = Prover::new(&p, INT);
    let answers: Vec<Answer> = conds.iter().map(|c| prover.is_valid(&[], c)).collect();
    assert!(answers.contains(&Answer::Valid), "x + 1 > x: {answers:?}");
    assert!(answers.contains(&Answer::NotValid), "its negation");
}

#[test]
fn conversions_to_narrow_types() {
    let p = ilp32();
    let uc300 = eq(&p, cast(ty(IntKind::UChar), k(300)), k(44));
    let sc200 = eq(&p, cast(ty(IntKind::SChar), k(200)), k(-56));
    let b5 = eq(&p, cast(ty(IntKind::Bool), k(5)), k(1));
    let b0 = eq(&p, cast(ty(IntKind::Bool), k(0)), k(0));
    // a non-constant: (unsigned char)(x) for x == 300
    let x300 = eq(&p, var(&p, "x"), k(300));
    let ucx = eq(&p, cast(ty(IntKind::UChar), var(&p, "x")), k(44));
    let scneg = eq(&p, cast(ty(IntKind::Short), var(&p, "u")), k(-1));
    let umax = eq(&p, var(&p, "u"), ku(4294967295));
    for sem in [INT, BV] {
        for g in [&uc300, &sc200, &b5, &b0] {
            assert_eq!(
                valid(&p, sem, &[], g),
                Answer::Valid,
                "{sem}: {}",
                p.show_expr(g)
            );
        }
        assert_eq!(
            valid(&p, sem, std::slice::from_ref(&x300), &ucx),
            Answer::Valid,
            "{sem}"
        );
        assert_eq!(
            valid(&p, sem, std::slice::from_ref(&umax), &scneg),
            Answer::Valid,
            "{sem}"
        );
    }
}

/// Integer mode reduces a value into a narrower or unsigned type without `mod` when the value's
/// range meets at most two multiples of 2^w; the result must be C's at the edges of each case
/// (one multiple, two, and more, where `mod` stays), in both semantics.
#[test]
fn reductions_into_a_type_are_exact_at_their_edges() {
    let p = ilp32();
    let (uc, u, c, x) = (var(&p, "uc"), var(&p, "u"), var(&p, "c"), var(&p, "x"));
    let uchar = ty(IntKind::UChar);
    // (expression, the variable fixed, (its value, the expression's value) at the edges)
    type Case<'a> = (Expr, &'a Expr, Vec<(i128, i128)>);
    let cases: Vec<Case> = vec![
        // (unsigned char)(uc + 200): uc + 200 spans [200, 455], two multiples of 256.
        (
            cast(uchar.clone(), bin(&p, BinOp::Add, uc.clone(), k(200))),
            &uc,
            vec![(0, 200), (55, 255), (56, 0), (255, 199)],
        ),
        // (unsigned char)(uc - 3): [-3, 252].
        (
            cast(uchar.clone(), bin(&p, BinOp::Sub, uc.clone(), k(3))),
            &uc,
            vec![(0, 253), (2, 255), (3, 0), (255, 252)],
        ),
        // (signed char)(c + 100): [-28, 227] into [-128, 127].
        (
            cast(ty(IntKind::SChar), bin(&p, BinOp::Add, c.clone(), k(100))),
            &c,
            vec![(-128, -28), (27, 127), (28, -128), (127, -29)],
        ),
        // (unsigned short)(uc * 300): [0, 76500], two multiples of 65536.
        (
            cast(ty(IntKind::UShort), bin(&p, BinOp::Mul, uc.clone(), k(300))),
            &uc,
            vec![(218, 65400), (219, 164), (255, 10964)],
        ),
        // (unsigned char)(x): every multiple, `mod` as before.
        (
            cast(uchar.clone(), x.clone()),
            &x,
            vec![(-1, 255), (-257, 255), (300, 44), (2147483647, 255)],
        ),
        // u + 1 and u - 1 wrap.
        (
            bin(&p, BinOp::Add, u.clone(), ku(1)),
            &u,
            vec![(0, 1), (4294967294, 4294967295), (4294967295, 0)],
        ),
        (
            bin(&p, BinOp::Sub, u.clone(), ku(1)),
            &u,
            vec![(0, 4294967295), (1, 0)],
        ),
        // u * 3 meets three multiples of 2^32: `mod`.
        (
            bin(&p, BinOp::Mul, u.clone(), ku(3)),
            &u,
            vec![
                (1431655765, 4294967295),
                (1431655766, 2),
                (4294967295, 4294967293),
            ],
        ),
    ];
    for sem in [INT, BV] {
        for (e, v, points) in &cases {
            for &(at, want) in points {
                let given = eq(&p, (*v).clone(), Expr::int(at, v.ty.clone()));
                let goal = eq(&p, e.clone(), Expr::int(want, e.ty.clone()));
                assert_eq!(
                    valid(&p, sem, std::slice::from_ref(&given), &goal),
                    Answer::Valid,
                    "{sem}: {} at {} = {at} is {want}",
                    p.show_expr(e),
                    p.show_expr(v),
                );
            }
        }
    }
}

#[test]
fn division_truncates_toward_zero() {
    let p = ilp32();
    let cases = [
        (BinOp::Div, 7, -2, -3),
        (BinOp::Rem, 7, -2, 1),
        (BinOp::Div, -7, 2, -3),
        (BinOp::Rem, -7, 2, -1),
        (BinOp::Div, -7, -2, 3),
        (BinOp::Rem, -7, -2, -1),
        (BinOp::Div, 7, 2, 3),
    ];
    for sem in [INT, BV] {
        for (op, a, b, r) in cases {
            // constants
            let g = eq(&p, bin(&p, op, k(a), un(UnOp::Neg, k(-b))), k(r));
            assert_eq!(
                valid(&p, sem, &[], &g),
                Answer::Valid,
                "{sem}: {}",
                p.show_expr(&g)
            );
            // variables (the general encoding with a division-by-zero guard)
            let hyps = [eq(&p, var(&p, "x"), k(a)), eq(&p, var(&p, "y"), k(b))];
            let g = eq(&p, bin(&p, op, var(&p, "x"), var(&p, "y")), k(r));
            assert_eq!(
                valid(&p, sem, &hyps, &g),
                Answer::Valid,
                "{sem}: {a} {op:?} {b}"
            );
        }
        // unsigned division: -7 / 2u is (UINT_MAX - 6) / 2
        let g = eq(&p, bin(&p, BinOp::Div, k(-7), ku(2)), ku(2147483644));
        assert_eq!(valid(&p, sem, &[], &g), Answer::Valid, "{sem}");
    }
}

/// Nonlinear queries: a one-shot query whose encoding is non-linear uses Z3's default solver
/// (`query_solver`), whose tactic decides `x * x == 2` (the solver for `QF_AUFLIA` answers
/// `unknown`); sessions use a solver made for `QF_AUFLIA` (`session_solver`), which must still
/// decide what the kernel of the default solver decides incrementally.
#[test]
fn sessions_answer_nonlinear_queries() {
    let p = ilp32();
    let (x, y) = (var(&p, "x"), var(&p, "y"));
    let xx = bin(&p, BinOp::Mul, x.clone(), x.clone());
    let xy = bin(&p, BinOp::Mul, x.clone(), y.clone());
    // One-shot: no integer squares to 2.
    let g = un(UnOp::LogNot, eq(&p, xx.clone(), k(2)));
    assert_eq!(valid(&p, INT, &[], &g), Answer::Valid);
    // Sessions: x * y == 6 and x == 2 force y == 3; x * x < 0 is impossible; x * y == 6 with
    // y != 3 is possible.
    let atoms = [
        eq(&p, xy, k(6)),
        eq(&p, x.clone(), k(2)),
        un(UnOp::LogNot, eq(&p, y.clone(), k(3))),
        bin(&p, BinOp::Lt, xx, k(0)),
    ];
    let answers = Prover::new(&p, INT).with_solver(|cx| {
        cx.session(&atoms, |s| {
            [
                s.check(&[(0, true), (1, true), (2, true)]),
                s.check(&[(3, true)]),
                s.check(&[(0, true), (2, true)]),
            ]
        })
    });
    assert_eq!(
        answers,
        [SatAnswer::Unsat, SatAnswer::Unsat, SatAnswer::Sat]
    );
}

#[test]
fn division_by_zero_is_unconstrained_but_functional() {
    let p = ilp32();
    let d = bin(&p, BinOp::Div, var(&p, "x"), var(&p, "y"));
    let y0 = eq(&p, var(&p, "y"), k(0));
    for sem in [INT, BV] {
        assert_eq!(
            valid(&p, sem, std::slice::from_ref(&y0), &eq(&p, d.clone(), k(5))),
            Answer::NotValid
        );
        assert_eq!(
            valid(&p, sem, std::slice::from_ref(&y0), &eq(&p, d.clone(), k(0))),
            Answer::NotValid
        );
        assert_eq!(
            valid(&p, sem, &[], &eq(&p, d.clone(), d.clone())),
            Answer::Valid
        );
    }
}

#[test]
fn bitvector_mode_decides_parity() {
    let p = ilp32();
    let x = var(&p, "x");
    let x1 = bin(&p, BinOp::BitAnd, x.clone(), k(1));
    let parity = bin(
        &p,
        BinOp::LogOr,
        eq(&p, x1.clone(), k(0)),
        eq(&p, x1.clone(), k(1)),
    );
    let even = eq(
        &p,
        bin(
            &p,
            BinOp::BitAnd,
            bin(&p, BinOp::Mul, x.clone(), k(2)),
            k(1),
        ),
        k(0),
    );
    assert_eq!(valid(&p, BV, &[], &parity), Answer::Valid);
    assert_eq!(valid(&p, BV, &[], &even), Answer::Valid);
    // Int mode: a mask 2^k - 1 is precise too (x & 1 == x mod 2).
    assert_eq!(valid(&p, INT, &[], &parity), Answer::Valid);
    assert_eq!(valid(&p, INT, &[], &even), Answer::Valid);
    // ... but `|` of non-constants is an uninterpreted function in Int mode (sound, imprecise).
    let y = var(&p, "y");
    let or_ge = bin(
        &p,
        BinOp::Ge,
        bin(&p, BinOp::BitOr, var(&p, "u"), var(&p, "v")),
        var(&p, "u"),
    );
    assert_eq!(valid(&p, BV, &[], &or_ge), Answer::Valid);
    assert_eq!(valid(&p, INT, &[], &or_ge), Answer::NotValid);
    // Still functional: the same x & y twice is the same value.
    let and = bin(&p, BinOp::BitAnd, x.clone(), y.clone());
    assert_eq!(
        valid(&p, INT, &[], &eq(&p, and.clone(), and)),
        Answer::Valid
    );
    // The result of an imprecise operator stays in its type's range.
    let in_range = bin(
        &p,
        BinOp::Le,
        bin(&p, BinOp::BitXor, var(&p, "c"), var(&p, "c")),
        k(2147483647),
    );
    assert_eq!(valid(&p, INT, &[], &in_range), Answer::Valid);
}

/// Flag tests: `&`, `|` and `^` with a constant are exact in integer mode, for signed and
/// unsigned operands and negative constants, as in bit-vector mode.
#[test]
fn bitwise_operators_with_a_constant_are_exact() {
    let p = ilp32();
    let x = var(&p, "x");
    let u = var(&p, "u");
    let c = var(&p, "c");
    let and = |a: &Expr, m: Expr| bin(&p, BinOp::BitAnd, a.clone(), m);
    let or = |a: &Expr, m: Expr| bin(&p, BinOp::BitOr, a.clone(), m);
    let xor = |a: &Expr, m: Expr| bin(&p, BinOp::BitXor, a.clone(), m);
    let ne0 = |e: Expr| bin(&p, BinOp::Ne, e, k(0));
    let valid_goals = [
        // A flag word tested against a mask (ssl's `tmp & 12288`).
        (vec![eq(&p, x.clone(), k(8192))], ne0(and(&x, k(12288)))),
        (vec![ne0(and(&x, k(4)))], ne0(and(&x, k(6)))),
        (
            vec![],
            eq(&p, and(&x, k(12288)), and(&and(&x, k(12288)), k(12288))),
        ),
        (vec![], ne0(or(&x, k(1)))),
        (vec![], eq(&p, xor(&xor(&x, k(5)), k(5)), x.clone())),
        (
            vec![],
            eq(
                &p,
                and(&x, k(-4)),
                bin(&p, BinOp::Sub, x.clone(), and(&x, k(3))),
            ),
        ),
        (
            vec![eq(&p, x.clone(), k(-1))],
            eq(&p, and(&x, k(-8)), k(-8)),
        ),
        (vec![eq(&p, x.clone(), k(-6))], eq(&p, xor(&x, k(3)), k(-7))),
        (vec![eq(&p, x.clone(), k(-6))], eq(&p, or(&x, k(3)), k(-5))),
        (
            vec![],
            eq(
                &p,
                and(&u, ku(0x8000_0000)),
                bin(
                    &p,
                    BinOp::Sub,
                    u.clone(),
                    bin(&p, BinOp::Rem, u.clone(), ku(0x8000_0000)),
                ),
            ),
        ),
        (
            vec![eq(&p, u.clone(), ku(0xF0))],
            eq(&p, or(&u, ku(0x0F)), ku(0xFF)),
        ),
        (vec![], bin(&p, BinOp::Le, and(&c, k(0x70)), k(0x70))),
    ];
    for (assumptions, goal) in &valid_goals {
        for sem in [INT, BV] {
            assert_eq!(
                valid(&p, sem, assumptions, goal),
                Answer::Valid,
                "{sem}: {}",
                p.show_expr(goal)
            );
        }
    }
    // Not valid: the flag may be clear.
    let g = ne0(and(&x, k(12288)));
    assert_eq!(valid(&p, INT, &[], &g), Answer::NotValid);
    assert_eq!(
        valid(&p, INT, &[eq(&p, x.clone(), k(4096 + 16384))], &g),
        Answer::Valid
    );
}

#[test]
fn bitwise_not_and_shifts() {
    let p = ilp32();
    let x = var(&p, "x");
    let notx = eq(
        &p,
        un(UnOp::BitNot, x.clone()),
        bin(&p, BinOp::Sub, un(UnOp::Neg, x.clone()), k(1)),
    );
    let not0u = eq(&p, un(UnOp::BitNot, ku(0)), ku(4294967295));
    let shr = eq(&p, bin(&p, BinOp::Shr, k(-3), k(1)), k(-2));
    let shl_u = eq(&p, bin(&p, BinOp::Shl, ku(0x8000_0001), k(1)), ku(2));
    let shl_x = eq(
        &p,
        bin(&p, BinOp::Shl, x.clone(), k(3)),
        bin(&p, BinOp::Mul, x.clone(), k(8)),
    );
    for sem in [INT, BV] {
        for g in [&notx, &not0u, &shr, &shl_u, &shl_x] {
            assert_eq!(
                valid(&p, sem, &[], g),
                Answer::Valid,
                "{sem}: {}",
                p.show_expr(g)
            );
        }
    }
    // Shift by a variable amount: precise in bit-vector mode only.
    let y = var(&p, "y");
    let h = eq(&p, y.clone(), k(2));
    let g = eq(&p, bin(&p, BinOp::Shl, ku(1), y.clone()), ku(4));
    assert_eq!(valid(&p, BV, std::slice::from_ref(&h), &g), Answer::Valid);
    assert_eq!(valid(&p, INT, &[h], &g), Answer::NotValid);
}

#[test]
fn comparisons_have_int_values() {
    let p = ilp32();
    let (x, y) = (var(&p, "x"), var(&p, "y"));
    let v = bin(
        &p,
        BinOp::Add,
        bin(&p, BinOp::Lt, x.clone(), y.clone()),
        k(1),
    );
    let g = bin(
        &p,
        BinOp::LogAnd,
        bin(&p, BinOp::Ge, v.clone(), k(1)),
        bin(&p, BinOp::Le, v.clone(), k(2)),
    );
    let notx = eq(&p, un(UnOp::LogNot, x.clone()), eq(&p, x.clone(), k(0)));
    for sem in [INT, BV] {
        assert_eq!(valid(&p, sem, &[], &g), Answer::Valid);
        assert_eq!(valid(&p, sem, &[], &notx), Answer::Valid);
        let lt = bin(&p, BinOp::Lt, x.clone(), y.clone());
        assert_eq!(
            valid(&p, sem, std::slice::from_ref(&lt), &eq(&p, v.clone(), k(2))),
            Answer::Valid
        );
    }
}

#[test]
fn ranges_follow_the_data_model() {
    let p = ilp32();
    let lp = load(SRC, DataModel::Lp64, "lp64");
    let c128 = bin(&p, BinOp::Lt, var(&p, "c"), k(128));
    let cneg = bin(&p, BinOp::Ge, var(&p, "c"), k(-128));
    let uc = bin(&p, BinOp::Le, var(&p, "uc"), k(255));
    let lmax = |p: &Program| {
        bin(
            p,
            BinOp::Le,
            var(p, "l"),
            Expr::int(2147483647, ty(IntKind::Long)),
        )
    };
    let lp_int = Semantics {
        data_model: DataModel::Lp64,
        bitvector: false,
    };
    let lp_bv = Semantics {
        data_model: DataModel::Lp64,
        bitvector: true,
    };
    for sem in [INT, BV] {
        for g in [&c128, &cneg, &uc] {
            assert_eq!(
                valid(&p, sem, &[], g),
                Answer::Valid,
                "{sem}: {}",
                p.show_expr(g)
            );
        }
        assert_eq!(valid(&p, sem, &[], &lmax(&p)), Answer::Valid, "{sem}");
    }
    assert_eq!(valid(&lp, lp_int, &[], &lmax(&lp)), Answer::NotValid);
    assert_eq!(valid(&lp, lp_bv, &[], &lmax(&lp)), Answer::NotValid);
    // c < 127 is not valid: 127 is a char.
    let c127 = bin(&p, BinOp::Lt, var(&p, "c"), k(127));
    assert_eq!(valid(&p, INT, &[], &c127), Answer::NotValid);
}

#[test]
fn pointers_in_the_logical_memory_model() {
    let p = ilp32();
    let (pp, qp, x, y) = (var(&p, "p"), var(&p, "q"), var(&p, "x"), var(&p, "y"));
    let p_is_x = eq(&p, pp.clone(), addr(x.clone()));
    let null = Expr::int(0, CType::INT.ptr_to());
    for sem in [INT, BV] {
        // p == &x implies *p == x
        assert_eq!(
            valid(
                &p,
                sem,
                std::slice::from_ref(&p_is_x),
                &eq(&p, deref(pp.clone()), x.clone())
            ),
            Answer::Valid
        );
        // p == q implies *p == *q
        let pq = eq(&p, pp.clone(), qp.clone());
        assert_eq!(
            valid(
                &p,
                sem,
                &[pq],
                &eq(&p, deref(pp.clone()), deref(qp.clone()))
            ),
            Answer::Valid
        );
        // distinct, non-null addresses
        let ne = bin(&p, BinOp::Ne, addr(x.clone()), addr(y.clone()));
        assert_eq!(valid(&p, sem, &[], &ne), Answer::Valid);
        let nn = bin(&p, BinOp::Ne, addr(x.clone()), null.clone());
        assert_eq!(valid(&p, sem, &[], &nn), Answer::Valid);
        // nothing more: *p == x is not valid alone
        assert_eq!(
            valid(&p, sem, &[], &eq(&p, deref(pp.clone()), x.clone())),
            Answer::NotValid
        );
        // Morris: after *p = 5, x is (p == &x) ? 5 : x
        let wp = cond(p_is_x.clone(), k(5), x.clone());
        assert_eq!(
            valid(&p, sem, std::slice::from_ref(&p_is_x), &eq(&p, wp, k(5))),
            Answer::Valid
        );
        // p == &x implies p != &y
        let g = bin(&p, BinOp::Ne, pp.clone(), addr(y.clone()));
        assert_eq!(
            valid(&p, sem, std::slice::from_ref(&p_is_x), &g),
            Answer::Valid
        );
        // ps == &s implies ps->f == s.f; s.f and s.g are unrelated
        let (ps, s) = (var(&p, "ps"), var(&p, "s"));
        let h = eq(&p, ps.clone(), addr(s.clone()));
        let g = eq(&p, field(deref(ps.clone()), "f"), field(s.clone(), "f"));
        assert_eq!(valid(&p, sem, &[h], &g), Answer::Valid, "{sem}");
        let g = eq(&p, field(s.clone(), "g"), field(s.clone(), "f"));
        assert_eq!(valid(&p, sem, &[], &g), Answer::NotValid, "{sem}");
        // a[i] with i == 3 is a[3]; p == a implies p[0] == *p == a[0]
        let arr = var(&p, "a");
        let idx = |e: Expr, i: Expr| Expr {
            kind: ExprKind::Index(Box::new(e), Box::new(i)),
            ty: CType::INT,
        };
        let h = eq(&p, var(&p, "z"), k(3));
        let g = eq(&p, idx(arr.clone(), var(&p, "z")), idx(arr.clone(), k(3)));
        assert_eq!(valid(&p, sem, &[h], &g), Answer::Valid, "{sem}");
        let h = eq(&p, pp.clone(), arr.clone());
        let g = eq(&p, deref(pp.clone()), idx(arr.clone(), k(0)));
        assert_eq!(valid(&p, sem, &[h], &g), Answer::Valid, "{sem}");
    }
}

#[test]
fn satisfiability() {
    let p = ilp32();
    let x = var(&p, "x");
    let prover = Prover::new(&p, INT);
    let pos = bin(&p, BinOp::Gt, x.clone(), k(0));
    let neg = bin(&p, BinOp::Lt, x.clone(), k(0));
    assert_eq!(prover.is_satisfiable(&[pos.clone(), neg]), SatAnswer::Unsat);
    assert_eq!(
        prover.is_satisfiable(std::slice::from_ref(&pos)),
        SatAnswer::Sat
    );
    assert_eq!(prover.is_satisfiable(&[]), SatAnswer::Sat);
    // a range alone makes a formula unsatisfiable: unsigned u < 0
    let u = bin(&p, BinOp::Lt, var(&p, "u"), ku(0));
    assert_eq!(prover.is_satisfiable(&[u]), SatAnswer::Unsat);
}

#[test]
fn cache_hits_are_counted_and_normalised() {
    let p = ilp32();
    let prover = Prover::new(&p, INT);
    let a = bin(&p, BinOp::Lt, var(&p, "x"), var(&p, "y"));
    let b = bin(&p, BinOp::Lt, var(&p, "y"), var(&p, "z"));
    let g = bin(&p, BinOp::Lt, var(&p, "x"), var(&p, "z"));
    assert_eq!(prover.is_valid(&[a.clone(), b.clone()], &g), Answer::Valid);
    // same query, assumptions permuted and duplicated: a cache hit
    assert_eq!(
        prover.is_valid(&[b.clone(), a.clone(), b.clone()], &g),
        Answer::Valid
    );
    // a different goal: not a hit
    assert_eq!(
        prover.is_valid(std::slice::from_ref(&a), &g),
        Answer::NotValid
    );
    let st = prover.stats();
    assert_eq!(
        (st.queries, st.cache_hits, st.solver_calls, st.unknowns),
        (3, 1, 2, 0)
    );
    assert_eq!(prover.cache_len(), 2);
    // validity and satisfiability keys differ
    assert_ne!(
        prover.query_key(std::slice::from_ref(&a), Some(&g)),
        prover.query_key(&[a.clone(), g.clone()], None)
    );
    // the semantics is part of the key
    assert_ne!(
        prover.query_key(std::slice::from_ref(&a), Some(&g)),
        Prover::new(&p, BV).query_key(std::slice::from_ref(&a), Some(&g))
    );
    assert!(st.to_string().contains("cache hits 1"));
}

/// A query Z3 cannot settle with a tiny resource limit: nonlinear integer arithmetic.
fn hard_query(p: &Program) -> (Vec<Expr>, Expr) {
    let (x, y, z) = (var(p, "x"), var(p, "y"), var(p, "z"));
    let cube = |e: &Expr| {
        bin(
            p,
            BinOp::Mul,
            bin(p, BinOp::Mul, e.clone(), e.clone()),
            e.clone(),
        )
    };
    let hyps = vec![
        bin(p, BinOp::Gt, x.clone(), k(1)),
        bin(p, BinOp::Gt, y.clone(), k(1)),
        bin(p, BinOp::Gt, z.clone(), k(1)),
    ];
    let goal = bin(
        p,
        BinOp::Ne,
        bin(p, BinOp::Add, cube(&x), cube(&y)),
        cube(&z),
    );
    (hyps, goal)
}

#[test]
fn unknown_is_never_cached() {
    let p = ilp32();
    let prover = Prover::new(&p, INT).with_rlimit(1);
    let (hyps, goal) = hard_query(&p);
    assert_eq!(prover.is_valid(&hyps, &goal), Answer::Unknown);
    assert_eq!(prover.is_valid(&hyps, &goal), Answer::Unknown);
    let st = prover.stats();
    assert_eq!(
        (st.queries, st.cache_hits, st.solver_calls, st.unknowns),
        (2, 0, 2, 2)
    );
    assert_eq!(prover.cache_len(), 0);
    assert!(!Answer::Unknown.is_valid());
    assert!(SatAnswer::Unknown.maybe_sat());
}

#[test]
fn answers_are_deterministic_across_provers_and_threads() {
    let p = ilp32();
    let (hyps, goal) = hard_query(&p);
    let easy = bin(
        &p,
        BinOp::Gt,
        bin(&p, BinOp::Add, var(&p, "x"), k(1)),
        var(&p, "x"),
    );
    for rlimit in [1, 20_000, 200_000] {
        let first = Prover::new(&p, INT)
            .with_rlimit(rlimit)
            .is_valid(&hyps, &goal);
        let answers: Vec<Answer> = std::thread::scope(|sc| {
            let hs: Vec<_> = (0..2)
                .map(|_| {
                    sc.spawn(|| {
                        let pr = Prover::new(&p, INT).with_rlimit(rlimit);
                        // warm the thread's Z3 state with another query first
                        pr.is_valid(&[], &easy);
                        pr.is_valid(&hyps, &goal)
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().expect("thread")).collect()
        });
        assert!(
            answers.iter().all(|a| *a == first),
            "rlimit {rlimit}: {first:?} vs {answers:?}"
        );
    }
}

#[test]
fn a_prover_is_shared_between_threads() {
    let p = ilp32();
    let prover = Prover::new(&p, BV);
    let g = eq(&p, cast(ty(IntKind::UChar), k(300)), k(44));
    std::thread::scope(|sc| {
        for _ in 0..2 {
            sc.spawn(|| assert_eq!(prover.is_valid(&[], &g), Answer::Valid));
        }
    });
    let st = prover.stats();
    assert_eq!(st.queries, 2);
    assert_eq!(st.cache_hits + st.solver_calls, 2);
}

#[test]
fn models_give_values_of_each_type() {
    let p = ilp32();
    let (x, u, c) = (var(&p, "x"), var(&p, "u"), var(&p, "c"));
    for sem in [INT, BV] {
        let prover = Prover::new(&p, sem);
        // 5 < x < 7: x is 6.
        let f = [
            bin(&p, BinOp::Lt, k(5), x.clone()),
            bin(&p, BinOp::Lt, x.clone(), k(7)),
        ];
        assert_eq!(
            prover.model_values(&f, std::slice::from_ref(&x)),
            (SatAnswer::Sat, Some(vec![6])),
            "{sem}"
        );
        // u + 1u == 0u only for UINT_MAX (wrap-around); c < -100 gives a negative char.
        let f = [
            bin(&p, BinOp::Eq, bin(&p, BinOp::Add, u.clone(), ku(1)), ku(0)),
            bin(&p, BinOp::Lt, c.clone(), k(-100)),
        ];
        let (a, vals) = prover.model_values(&f, &[u.clone(), c.clone()]);
        assert_eq!(a, SatAnswer::Sat, "{sem}");
        let vals = vals.expect("values");
        assert_eq!(vals[0], 4_294_967_295, "{sem}");
        assert!((-128..-100).contains(&vals[1]), "{sem}: {vals:?}");
        // Unsatisfiable: no model.
        let f = [
            bin(&p, BinOp::Lt, x.clone(), k(0)),
            bin(&p, BinOp::Gt, x.clone(), k(0)),
        ];
        assert_eq!(
            prover.model_values(&f, std::slice::from_ref(&x)),
            (SatAnswer::Unsat, None),
            "{sem}"
        );
    }
}

/// `Prover::project`: `∃ u. e` as a C condition over the other variables, equivalent to the
/// quantified formula (checked by the prover both ways over sample values).
#[test]
fn projection_eliminates_a_value_and_reads_back_as_c() {
    let p = ilp32();
    let pr = Prover::new(&p, INT);
    let (u, x, y) = (var(&p, "u"), var(&p, "x"), var(&p, "y"));
    let uid = var_id(&u);
    // ∃u. u + 2u < x  (unsigned comparison): x converted to unsigned is not 0.
    let e = bin(
        &p,
        BinOp::Lt,
        bin(&p, BinOp::Add, u.clone(), ku(2)),
        cast(ty(IntKind::UInt), x.clone()),
    );
    let r = pr.project(&e, &[uid]).expect("projection");
    let text = p.show_expr(&r);
    assert!(!text.contains(" u ") && !text.starts_with("u "), "{text}");
    for (xv, want) in [(0, false), (1, true), (-1, true), (5, true)] {
        let at = bin(&p, BinOp::Eq, x.clone(), k(xv));
        let holds = pr.is_valid(std::slice::from_ref(&at), &r) == Answer::Valid;
        let fails =
            pr.is_valid(std::slice::from_ref(&at), &un(UnOp::LogNot, r.clone())) == Answer::Valid;
        assert_eq!((holds, fails), (want, !want), "x = {xv}: {text}");
    }
    // ∃u. x == u + y && u < 3  (signed arithmetic, u converted): y <= x <= y + 2 with x - y
    // in the range of unsigned.
    let e = bin(
        &p,
        BinOp::LogAnd,
        bin(
            &p,
            BinOp::Eq,
            cast(CType::Int(IntKind::LongLong), x.clone()),
            bin(
                &p,
                BinOp::Add,
                cast(CType::Int(IntKind::LongLong), u.clone()),
                cast(CType::Int(IntKind::LongLong), y.clone()),
            ),
        ),
        bin(&p, BinOp::Lt, u.clone(), ku(3)),
    );
    let r = pr.project(&e, &[uid]).expect("projection");
    let text = p.show_expr(&r);
    let same = |a: &Expr, b: &Expr| {
        pr.is_valid(std::slice::from_ref(a), b) == Answer::Valid
            && pr.is_valid(std::slice::from_ref(b), a) == Answer::Valid
    };
    let want = bin(
        &p,
        BinOp::LogAnd,
        bin(&p, BinOp::Le, y.clone(), x.clone()),
        bin(
            &p,
            BinOp::Le,
            cast(CType::Int(IntKind::LongLong), x.clone()),
            bin(
                &p,
                BinOp::Add,
                cast(CType::Int(IntKind::LongLong), y.clone()),
                k(2),
            ),
        ),
    );
    assert!(same(&r, &want), "{text}");
    // ∃x. x % 4 > 2 && y + x <= 1  (C's truncating remainder of an int: far too many
    // quotients to split, so the quotient is eliminated too): x is at least 3, so y <= -2.
    let xid = var_id(&x);
    let e = bin(
        &p,
        BinOp::LogAnd,
        bin(&p, BinOp::Gt, bin(&p, BinOp::Rem, x.clone(), k(4)), k(2)),
        bin(
            &p,
            BinOp::Le,
            bin(&p, BinOp::Add, y.clone(), x.clone()),
            k(1),
        ),
    );
    let r = pr.project(&e, &[xid]).expect("projection of a remainder");
    let text = p.show_expr(&r);
    assert!(same(&r, &bin(&p, BinOp::Le, y.clone(), k(-2))), "{text}");
    // Nothing to eliminate, or memory involved: no projection.
    assert!(pr.project(&e, &[]).is_none());
    let m = bin(&p, BinOp::Lt, deref(var(&p, "p")), u.clone());
    assert!(pr.project(&m, &[uid]).is_none());
}

/// A signed value converted to an unsigned type at least as wide is encoded by cases
/// (`v < 0 ? v + 2^w : v`, not `v mod 2^w`): the same value for every value of the source type.
#[test]
fn signed_to_unsigned_by_cases_is_the_modular_value() {
    let p = ilp32();
    let u = ty(IntKind::UInt);
    let ux = cast(u.clone(), var(&p, "x"));
    let uc = cast(u.clone(), var(&p, "c"));
    let cases = [
        // (unsigned)x == UINT_MAX exactly when x == -1
        (
            eq(&p, var(&p, "x"), k(-1)),
            eq(&p, ux.clone(), ku(4294967295)),
        ),
        // (unsigned)x >= 2^31 exactly when x < 0
        (
            bin(&p, BinOp::Lt, var(&p, "x"), k(0)),
            bin(&p, BinOp::Ge, ux.clone(), ku(2147483648)),
        ),
        // (unsigned)x == 5u exactly when x == 5
        (eq(&p, var(&p, "x"), k(5)), eq(&p, ux.clone(), ku(5))),
        // INT_MIN becomes 2^31
        (
            eq(&p, var(&p, "x"), k(-2147483648)),
            eq(&p, ux.clone(), ku(2147483648)),
        ),
        // (unsigned)c for a signed char: -128 becomes 2^32 - 128
        (
            eq(&p, var(&p, "c"), k(-128)),
            eq(&p, uc.clone(), ku(4294967168)),
        ),
    ];
    for sem in [INT, BV] {
        for (a, b) in &cases {
            for (from, to) in [(a, b), (b, a)] {
                assert_eq!(
                    valid(&p, sem, std::slice::from_ref(from), to),
                    Answer::Valid,
                    "{sem}: {} implies {}",
                    p.show_expr(from),
                    p.show_expr(to)
                );
            }
        }
    }
    // In range: (unsigned)x <= UINT_MAX always, and it is never above it.
    let le = bin(&p, BinOp::Le, ux, ku(4294967295));
    assert_eq!(valid(&p, INT, &[], &le), Answer::Valid);
}

/// The `\result` of a return predicate, read as it stands (as constrain's atoms are), is a
/// value of its type in both modes: an `unsigned char` one promoted in `\result - 1` (in
/// bit-vector mode its width must be 8, not a pointer's), within its range, the same value
/// wherever it occurs.
#[test]
fn a_result_marker_is_a_value_of_its_type() {
    let p = ilp32();
    let uchar = ty(IntKind::UChar);
    let res = || cast(CType::INT, cir::pred::result_expr(uchar.clone()));
    let minus_one = bin(&p, BinOp::Sub, res(), k(1));
    for sem in [INT, BV] {
        // \result - 1 != 3 does not follow from nothing, but from \result == 5 it does.
        let goal = bin(&p, BinOp::Ne, minus_one.clone(), k(3));
        assert_eq!(valid(&p, sem, &[], &goal), Answer::NotValid, "{sem}");
        let five = eq(&p, res(), k(5));
        assert_eq!(valid(&p, sem, &[five], &goal), Answer::Valid, "{sem}");
        // An unsigned char is at most 255.
        let below = bin(&p, BinOp::Le, res(), k(255));
        assert_eq!(valid(&p, sem, &[], &below), Answer::Valid, "{sem}");
    }
}

/// `Prover::project` gives its disjuncts and their conjuncts in one canonical order, whatever
/// the order of the formula (and so of Z3's terms): the predicates newton takes from a
/// projection, and with them the whole refinement, do not depend on it.
#[test]
fn projections_come_in_a_canonical_order() {
    let p = ilp32();
    let pr = Prover::new(&p, INT);
    let (u, x, y) = (var(&p, "u"), var(&p, "x"), var(&p, "y"));
    let uid = var_id(&u);
    let arm = |uv: i128, c: Expr| bin(&p, BinOp::LogAnd, bin(&p, BinOp::Eq, u.clone(), k(uv)), c);
    let a = arm(
        1,
        bin(
            &p,
            BinOp::LogAnd,
            bin(&p, BinOp::Ge, x.clone(), k(1)),
            bin(&p, BinOp::Lt, y.clone(), k(7)),
        ),
    );
    let b = arm(2, bin(&p, BinOp::Le, x.clone(), k(-1)));
    let one = pr
        .project(&bin(&p, BinOp::LogOr, a.clone(), b.clone()), &[uid])
        .expect("projection");
    let other = pr
        .project(&bin(&p, BinOp::LogOr, b, a), &[uid])
        .expect("projection");
    assert_eq!(p.show_expr(&one), p.show_expr(&other));
    let alts = one.operands(BinOp::LogOr);
    assert_eq!(alts.len(), 2, "{}", p.show_expr(&one));
    let texts: Vec<String> = alts.iter().map(|a| cir::smt::canonical(&p, a)).collect();
    let mut sorted = texts.clone();
    sorted.sort();
    assert_eq!(texts, sorted);
}
