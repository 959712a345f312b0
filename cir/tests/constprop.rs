//! Constant propagation of globals ([`cir::constprop`]) preserves the program's semantics: every
//! program of `tests/data` and of the shared SV-COMP corpus (skipped, saying so, when absent) is
//! run on the concrete interpreter with and without the rewrite, on the same pseudo-random
//! inputs, and the two runs must take the same edges and hold the same global values after every
//! step. The golden dump `tests/data/constprop.ir` shows what is replaced and what is not.

mod common;

use std::path::{Path, PathBuf};

use bp_testkit::prng::SplitMix64;
use cir::interp::{Event, Interp, Oracle};
use cir::ir::{Expr, ExprKind};

/// Inputs from the workspace's seeded generator, biased to small values (driver harnesses
/// compare inputs against 0..8 and status codes) and to the bounds of the range.
struct Rng(SplitMix64);

impl Oracle for Rng {
    fn value(&mut self, lo: i128, hi: i128) -> i128 {
        let r = self.0.next_u64();
        let v = match r % 8 {
            0 => lo,
            1 => hi,
            2..=5 => (r >> 8) as i128 % 10 - 1,
            _ => (r >> 8) as i128,
        };
        v.clamp(lo, hi)
    }
    fn choose(&mut self, n: usize) -> usize {
        self.0.below(n)
    }
}

fn programs() -> (Vec<PathBuf>, bool) {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&data)
        .expect("tests/data")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    let corpus = common::corpus_files();
    let found = corpus.is_some();
    files.extend(corpus.unwrap_or_default());
    files.sort();
    (files, found)
}

#[test]
fn the_rewrite_preserves_every_run() {
    let (files, corpus) = programs();
    if !corpus {
        println!("SKIP (corpus part): ../shared/corpus/sv-benchmarks not found");
    }
    let keep = cir::LowerOptions {
        keep_global_reads: true,
        ..cir::LowerOptions::default()
    };
    let (mut rewritten, mut steps) = (0usize, 0usize);
    for f in &files {
        let plain = cir::load_file(f, &keep).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let mut prop = plain.clone();
        let report = cir::constprop::propagate(&mut prop);
        let direct = cir::load_file(f, &cir::LowerOptions::default()).expect("lowers");
        assert_eq!(
            format!("{prop}"),
            format!("{direct}"),
            "{}: load_file applies the rewrite",
            f.display()
        );
        // The rewrite changes expressions only: the same graph.
        for (a, b) in plain.functions.iter().zip(&prop.functions) {
            assert_eq!(a.edges.len(), b.edges.len());
            for (x, y) in a.edges.iter().zip(&b.edges) {
                assert_eq!((x.id, x.from, x.to), (y.id, y.from, y.to));
            }
        }
        if report.replaced > 0 {
            rewritten += 1;
        }
        let globals: Vec<Expr> = plain
            .globals
            .iter()
            .filter(|&&g| matches!(plain.var(g).ty, cir::types::CType::Int(_)))
            .map(|&g| Expr {
                kind: ExprKind::Var(g),
                ty: plain.var(g).ty.clone(),
            })
            .collect();
        for seed in 1..=25u64 {
            let (mut o1, mut o2) = (Rng(SplitMix64::new(seed)), Rng(SplitMix64::new(seed)));
            let (Ok(mut i1), Ok(mut i2)) =
                (Interp::new(&plain, &mut o1), Interp::new(&prop, &mut o2))
            else {
                continue;
            };
            for _ in 0..20_000 {
                let (e1, e2) = (i1.step(&mut o1), i2.step(&mut o2));
                assert_eq!(e1, e2, "{} seed {seed}: the runs diverge", f.display());
                steps += 1;
                match e1 {
                    Ok(Event::End(_)) | Err(_) => break,
                    Ok(_) => {}
                }
                for g in &globals {
                    assert_eq!(
                        i1.value_of(g).ok(),
                        i2.value_of(g).ok(),
                        "{} seed {seed}: a global differs",
                        f.display()
                    );
                }
            }
        }
    }
    println!(
        "{} programs ({} rewritten), {} steps compared",
        files.len(),
        rewritten,
        steps
    );
    assert!(rewritten >= 1, "constprop.c has constant globals");
    if corpus {
        assert!(
            rewritten >= 11,
            "the ntdrivers programs have constant globals"
        );
    }
}
