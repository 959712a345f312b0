//! The normal form of newton's predicates (`newton::refine::simplify`): each rewrite gives the
//! expected text, and the rewritten predicate is equivalent to the original under both the
//! integer and the bit-vector semantics (checked by the prover, not by text alone).

use cir::DataModel;
use cir::ir::{BinOp, Expr, ExprKind, Program};
use cir::pred::{PredScope, parse_predicate};
use cir::smt::{Answer, Prover, Semantics};

const SRC: &str = r#"
unsigned char b;
signed char sc;
unsigned short us;
unsigned u;
int x;
int main(void) { return 0; }
"#;

fn program() -> Program {
    let dir = std::env::temp_dir().join(format!("newton-simplify-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("vars.c");
    std::fs::write(&path, SRC).expect("write the C file");
    let p = cir::load_file(&path, &cir::LowerOptions::default()).expect("the program lowers");
    let _ = std::fs::remove_dir_all(&dir);
    p
}

fn pred(p: &Program, text: &str) -> Expr {
    let main = p.function("main").expect("main").id;
    parse_predicate(text, PredScope::Function(main), p)
        .unwrap_or_else(|e| panic!("{text}: {e:?}"))
        .expr
}

/// `a == b` for two predicates (both `int` 0/1).
fn same(a: &Expr, b: &Expr) -> Expr {
    Expr {
        kind: ExprKind::Binary(BinOp::Eq, Box::new(a.clone()), Box::new(b.clone())),
        ty: cir::types::CType::INT,
    }
}

#[test]
fn conversions_under_a_narrowing_disappear_and_constants_meet() {
    let p = program();
    let cases = [
        // Nested wrap-arounds of an unrolled `unsigned char` loop fold into one.
        (
            "(unsigned char)((unsigned char)(b + 255) - 3) < 5",
            "(unsigned char)(b - 4) < 5",
        ),
        (
            "(unsigned char)((unsigned char)((unsigned char)(b + 255) - 3) + 255) == 7",
            "(unsigned char)(b - 5) == 7",
        ),
        // A constant is reduced to its residue nearest to zero.
        ("(unsigned char)(b + 759) < 3", "(unsigned char)(b - 9) < 3"),
        ("(unsigned char)(b + 256) == 1", "b == 1"),
        // Through an unsigned conversion at least as wide, and a product.
        (
            "(unsigned char)((unsigned short)(b * 3) * 2) == 4",
            "(unsigned char)(b * 3 * 2) == 4",
        ),
        // Left alone: a signed target, a shift, a `_Bool` conversion (only the constant meets
        // its residue), a narrower inner type.
        (
            "(signed char)((signed char)(sc + 100) + 100) < 0",
            "(signed char)((signed char)(sc + 100) + 100) < 0",
        ),
        (
            "(unsigned char)((unsigned char)(b << 1) >> 1) == 0",
            "(unsigned char)((unsigned char)(b << 1) >> 1) == 0",
        ),
        (
            "(unsigned char)((_Bool)b + 255) == 0",
            "(unsigned char)((_Bool)b - 1) == 0",
        ),
        (
            "(unsigned short)((unsigned char)(us + 1) + 1) == 0",
            "(unsigned short)((unsigned char)(us + 1) + 1) == 0",
        ),
    ];
    let sems = [false, true].map(|bitvector| Semantics {
        data_model: DataModel::Ilp32,
        bitvector,
    });
    for (text, want) in cases {
        let before = pred(&p, text);
        let after = newton::refine::simplify(&p, &before);
        assert_eq!(p.show_expr(&after), p.show_expr(&pred(&p, want)), "{text}");
        for sem in sems {
            assert_eq!(
                Prover::new(&p, sem).is_valid(&[], &same(&before, &after)),
                Answer::Valid,
                "{sem}: {text} and {} differ",
                p.show_expr(&after)
            );
        }
    }
}
