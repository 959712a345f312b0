//! The answers carried across abstractions ([`c2bp::Cache`]) change nothing but the work:
//! abstracting a program for growing predicate sets with one cache — as `slam-run` does,
//! where most searches are answered from earlier abstractions or *seeded* by an earlier answer
//! over fewer atoms and search only the cubes with a new atom — gives, at every step, exactly
//! the text of a fresh abstraction without a cache, and its program (whose unchanged procedures
//! are not parsed again) is the parse of that text. Checked on the hand-written inputs and on
//! generated programs (`CACHE_SEEDS=N`, default 8), for cube lengths 1, 3 and `inf`.

mod common;
#[path = "soundness/programs.rs"]
mod programs;

use std::path::{Path, PathBuf};

/// The predicate files of `text` keeping the first `k` predicates (section headers stay).
fn prefix(text: &str, k: usize) -> String {
    let mut n = 0;
    let mut out = String::new();
    for line in text.lines() {
        let t = line.trim();
        let is_pred = !t.is_empty() && !t.ends_with(':') && !t.starts_with("//");
        if is_pred {
            if n >= k {
                continue;
            }
            n += 1;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn count(text: &str) -> usize {
    text.lines()
        .map(str::trim)
        .filter(|t| !t.is_empty() && !t.ends_with(':') && !t.starts_with("//"))
        .count()
}

/// Abstracts `c` for growing prefixes of `preds` with one cache and without; returns how many
/// searches were seeded.
fn check(c: &Path, lower: &cir::LowerOptions, preds: &str, what: &str) -> u64 {
    let prog = common::load(c, lower);
    let n = count(preds);
    let steps: Vec<usize> = [n / 3, (2 * n) / 3, n.saturating_sub(1), n]
        .into_iter()
        .filter(|&k| k > 0)
        .collect();
    let mut seeded = 0;
    for cube_len in [Some(1), Some(3), None] {
        let opts = c2bp::Options {
            cube_len,
            sem: cir::smt::Semantics {
                data_model: lower.data_model,
                bitvector: false,
            },
            ..c2bp::Options::default()
        };
        let bytes = std::fs::read(c).expect("C file");
        let sources = bp_c::header::Sources {
            c_path: "input.c".into(),
            c_sha256: bp_c::header::sha256_hex(&bytes),
            preds_path: None,
            extra: Vec::new(),
        };
        let mut cache = c2bp::Cache::default();
        let mut last = 0;
        for &k in &steps {
            if k == last {
                continue;
            }
            last = k;
            let text = prefix(preds, k);
            let set = cir::pred::parse_predicates(&text, "p.preds", &prog)
                .unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
            let cached = c2bp::abstract_program_cached(&prog, &set, &opts, &sources, &mut cache)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let fresh = c2bp::abstract_program(&prog, &set, &opts, &sources)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            seeded += cached.procs.iter().map(|p| p.seeded).sum::<u64>();
            assert_eq!(
                cached.text, fresh.text,
                "{what}, cube length {cube_len:?}, first {k} predicates:\n{text}\n\
                 the cached abstraction differs from the fresh one"
            );
            // The program returned with the text (assembled from procedures parsed earlier,
            // moved into place) is the text's own parse, positions included.
            let mut whole = bp_grammar::parse(&cached.text).expect("the text parses");
            let mut returned = cached.program.clone();
            assert_eq!(returned, whole, "{what}: the returned program differs");
            for (a, b) in returned.procs.iter_mut().zip(whole.procs.iter_mut()) {
                let (mut sa, mut sb) = (Vec::new(), Vec::new());
                a.for_each_span_mut(&mut |s| sa.push((s.start, s.end, s.line, s.col)));
                b.for_each_span_mut(&mut |s| sb.push((s.start, s.end, s.line, s.col)));
                assert_eq!(sa, sb, "{what}: the spans of `{}` differ", a.name.name);
            }
            for (a, b) in returned.globals.iter().zip(&whole.globals) {
                assert_eq!((a.span.start, a.span.line), (b.span.start, b.span.line));
            }
        }
    }
    seeded
}

#[test]
fn cached_abstractions_equal_fresh_ones() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut seeded = 0;
    for dir in ["golden", "precision"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .expect("data dir")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "c"))
            .collect();
        files.sort();
        for c in files {
            let name = c.file_stem().unwrap().to_string_lossy().to_string();
            let preds = std::fs::read_to_string(c.with_extension("preds")).expect("preds");
            for (variant, lower) in common::golden_variants(&name) {
                seeded += check(&c, &lower, &preds, &variant);
            }
        }
    }
    let seeds: u64 = std::env::var("CACHE_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8);
    let dir = std::env::temp_dir().join(format!("c2bp-cache-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for seed in 0..seeds {
        let g = programs::generate(seed);
        let c = dir.join(format!("gen{seed}.c"));
        std::fs::write(&c, &g.c).expect("write C");
        seeded += check(
            &c,
            &cir::LowerOptions::default(),
            &g.preds,
            &format!("seed {seed}"),
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    // The seeded searches are exercised, not only the exact hits.
    assert!(seeded > 0, "no search was seeded by an earlier answer");
}
