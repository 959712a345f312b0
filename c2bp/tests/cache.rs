//! The answers and statements carried across abstractions ([`c2bp::Cache`]) change nothing
//! but the work: abstracting a program for growing predicate sets with one cache — as
//! `slam-run` does, where most statements keep their text (their key is unchanged), most
//! searches are answered from earlier abstractions or *seeded* by an earlier answer over fewer
//! atoms — gives, at every step, exactly the text of a fresh abstraction without a cache, and
//! its program (assembled from procedure heads and statements parsed earlier, moved into
//! place) is the parse of that text. A difference is allowed only where a search stopped at
//! its budget or met an `unknown` (a fresh search need not stop at the same cube); such steps
//! are counted and printed.
//!
//! Checked on the hand-written inputs and on generated programs (`CACHE_SEEDS=N`, default 8),
//! for cube lengths 1, 3 and `inf`; on corpus programs with their branch conditions added in
//! steps (`CACHE_CORPUS=all` for every development-set program, default two); and on the
//! iterations of kept `slam-run` runs (`CACHE_KEEP=DIR[,DIR…]`, directories written by
//! `slam-run --keep`: every iteration's predicates, with the options and program of its
//! `commands.txt`).

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

/// What the checks saw.
#[derive(Default)]
struct Seen {
    /// Searches seeded by an earlier answer.
    seeded: u64,
    /// Statements whose text was reused.
    reused: u64,
    /// Steps whose cached text differs from the fresh one where a search stopped at its budget
    /// or met an `unknown`.
    budget_differences: u64,
    /// Steps compared.
    steps: u64,
    /// Procedures taken whole from a program given back.
    recycled: u64,
}

/// Abstracts `prog` for each predicate file of `steps` in turn with one cache and without, and
/// compares the two (module doc).
fn check_steps(
    prog: &cir::Program,
    sources: &bp_c::header::Sources,
    opts: &c2bp::Options,
    steps: &[String],
    what: &str,
    seen: &mut Seen,
) {
    let mut cache = c2bp::Cache::default();
    for (k, text) in steps.iter().enumerate() {
        let set = cir::pred::parse_predicates(text, "p.preds", prog)
            .unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
        let cached = c2bp::abstract_program_cached(prog, &set, opts, sources, &mut cache)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let fresh = c2bp::abstract_program(prog, &set, opts, sources)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        seen.steps += 1;
        seen.seeded += cached.procs.iter().map(|p| p.seeded).sum::<u64>();
        seen.reused += cached.procs.iter().map(|p| p.stmts.reused).sum::<u64>();
        if cached.text != fresh.text {
            let stopped = |o: &c2bp::Output| {
                o.procs.iter().map(|p| p.capped).sum::<u64>() > 0
                    || o.global_capped
                    || o.prover.unknowns > 0
            };
            assert!(
                stopped(&fresh) || stopped(&cached),
                "{what}, step {k}, options {}:\n{text}\nthe cached abstraction differs from the \
                 fresh one",
                opts.describe()
            );
            seen.budget_differences += 1;
            println!("{what}, step {k}: differs where a search stopped at its budget");
        }
        // The text is the printer's form of the program returned with it (known from its
        // parts' forms).
        assert_eq!(
            bp_grammar::print(&cached.program),
            cached.text,
            "{what}: the text is not in canonical form"
        );
        // That program (assembled from parts parsed earlier, moved into place) is the text's
        // own parse, positions included.
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
        // As the refinement loop does: the program goes back, and the next abstraction takes
        // its unchanged procedures from it (every other step, so that both ways are compared).
        if k % 3 != 2 {
            cache.recycle(&cached.text, cached.program);
        }
    }
    seen.recycled += cache.recycled();
}

/// The header sources of `c` (named `input.c`).
fn sources_of(c: &Path) -> bp_c::header::Sources {
    let bytes = std::fs::read(c).expect("C file");
    bp_c::header::Sources {
        c_path: "input.c".into(),
        c_sha256: bp_c::header::sha256_hex(&bytes),
        preds_path: None,
        extra: Vec::new(),
    }
}

/// Abstracts `c` for growing prefixes of `preds` with one cache and without, for cube lengths
/// 1, 3 and `inf`.
fn check(c: &Path, lower: &cir::LowerOptions, preds: &str, what: &str, seen: &mut Seen) {
    let prog = common::load(c, lower);
    let n = count(preds);
    let mut ks: Vec<usize> = [n / 3, (2 * n) / 3, n.saturating_sub(1), n]
        .into_iter()
        .filter(|&k| k > 0)
        .collect();
    ks.dedup();
    let steps: Vec<String> = ks.iter().map(|&k| prefix(preds, k)).collect();
    let sources = sources_of(c);
    for cube_len in [Some(1), Some(3), None] {
        let opts = c2bp::Options {
            cube_len,
            sem: cir::smt::Semantics {
                data_model: lower.data_model,
                bitvector: false,
            },
            ..c2bp::Options::default()
        };
        check_steps(&prog, &sources, &opts, &steps, what, seen);
    }
}

#[test]
fn cached_abstractions_equal_fresh_ones() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut seen = Seen::default();
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
                check(&c, &lower, &preds, &variant, &mut seen);
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
        check(
            &c,
            &cir::LowerOptions::default(),
            &g.preds,
            &format!("seed {seed}"),
            &mut seen,
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "{} steps, {} statements reused, {} searches seeded, {} procedures recycled, {} budget \
         differences",
        seen.steps, seen.reused, seen.seeded, seen.recycled, seen.budget_differences
    );
    // The seeded searches, the reused statements and the recycled procedures are exercised,
    // not only the exact hits.
    assert!(seen.seeded > 0, "no search was seeded by an earlier answer");
    assert!(seen.reused > 0, "no statement was reused");
    assert!(seen.recycled > 0, "no procedure was recycled");
}

/// Corpus programs as `slam-run` lowers them, their branch conditions added in five steps
/// (global ones first, as the predicate file lists them).
#[test]
fn cached_corpus_abstractions_equal_fresh_ones() {
    let Some(root) = common::corpus_root() else {
        println!("SKIP: ../shared/corpus/sv-benchmarks not found");
        return;
    };
    let all = std::env::var("CACHE_CORPUS").is_ok_and(|v| v == "all");
    let files: Vec<PathBuf> = common::dev_corpus_files(&root)
        .into_iter()
        .filter(|f| {
            all || f.ends_with("ntdrivers-simplified/floppy_simpl3.cil-1.c")
                || f.ends_with("locks/test_locks_7.c")
        })
        .collect();
    let mut seen = Seen::default();
    for c in &files {
        let lower = cir::LowerOptions {
            error_fns: vec!["reach_error".into()],
            ..cir::LowerOptions::default()
        };
        let prog = cir::load_program(c, &lower).unwrap_or_else(|e| panic!("{}: {e}", c.display()));
        let preds = cir::pred::predicate_file_text(&cir::pred::branch_predicates(&prog));
        let n = count(&preds);
        let steps: Vec<String> = (1..=5).map(|i| prefix(&preds, n * i / 5)).collect();
        let what = c
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        check_steps(
            &prog,
            &sources_of(c),
            &c2bp::Options::default(),
            &steps,
            &what,
            &mut seen,
        );
    }
    println!(
        "{} files, {} steps, {} statements reused, {} procedures recycled, {} budget differences",
        files.len(),
        seen.steps,
        seen.reused,
        seen.recycled,
        seen.budget_differences
    );
    assert!(seen.reused > 0, "no statement was reused");
    assert!(seen.recycled > 0, "no procedure was recycled");
}

/// The iterations of kept `slam-run` runs (`CACHE_KEEP`): each run's `c2bp` commands replayed
/// with one cache, every iteration compared with a fresh abstraction.
#[test]
fn cached_kept_iterations_equal_fresh_ones() {
    let Ok(dirs) = std::env::var("CACHE_KEEP") else {
        println!("SKIP: CACHE_KEEP not set (directories of `slam-run --keep` runs)");
        return;
    };
    let mut seen = Seen::default();
    for dir in dirs.split(',').filter(|d| !d.is_empty()) {
        let commands = std::fs::read_to_string(Path::new(dir).join("commands.txt"))
            .unwrap_or_else(|e| panic!("{dir}/commands.txt: {e}"));
        let runs: Vec<Vec<&str>> = commands
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<&str>>())
            // The tool as slam-run names it: `c2bp`, or its path when it is not on PATH.
            .filter(|w| {
                w.first()
                    .is_some_and(|t| Path::new(t).file_name() == Some("c2bp".as_ref()))
            })
            .collect();
        let Some(first) = runs.first() else {
            panic!("{dir}/commands.txt has no c2bp command: nothing to replay");
        };
        let base = commands
            .lines()
            .find_map(|l| l.strip_prefix("cd "))
            .map(PathBuf::from)
            .unwrap_or_default();
        let (c, lower, opts) = kept_options(first);
        // Relative paths in the commands are relative to the directory they `cd` to.
        let c = base.join(c);
        let prog = cir::load_program(&c, &lower).unwrap_or_else(|e| panic!("{}: {e}", c.display()));
        let steps: Vec<String> = runs
            .iter()
            .filter(|r| kept_options(r).2.describe() == opts.describe())
            .filter_map(|r| r.windows(2).find(|w| w[0] == "--preds").map(|w| w[1]))
            .map(|p| std::fs::read_to_string(base.join(p)).expect("kept predicate file"))
            .collect();
        check_steps(&prog, &sources_of(&c), &opts, &steps, dir, &mut seen);
    }
    println!(
        "{} iterations, {} statements reused, {} budget differences",
        seen.steps, seen.reused, seen.budget_differences
    );
}

/// The C file, lowering and abstraction options of a kept `c2bp` command line.
fn kept_options(args: &[&str]) -> (PathBuf, cir::LowerOptions, c2bp::Options) {
    let mut lower = cir::LowerOptions::default();
    let mut opts = c2bp::Options::default();
    let mut c = PathBuf::new();
    let mut i = 1;
    while i < args.len() {
        let value = args.get(i + 1).copied().unwrap_or_default();
        match args[i] {
            "--cube-len" => opts.cube_len = value.parse::<c2bp::CubeLen>().expect("cube length").0,
            "--enforce-len" => opts.enforce_len = value.parse().expect("enforce length"),
            "--data-model" => {
                lower.data_model = value.parse().expect("data model");
                opts.sem.data_model = lower.data_model;
            }
            "--rlimit" => opts.rlimit = value.parse().expect("rlimit"),
            "--max-queries" => opts.max_queries = value.parse().expect("query limit"),
            "--abstraction" => opts.abstraction = value.parse().expect("abstraction"),
            "--max-cubes" => opts.max_cubes = value.parse().expect("cube limit"),
            "--error-fn" => lower.error_fns.push(value.to_string()),
            "--error-label" => lower.error_labels.push(value.to_string()),
            "--bitvector" => {
                opts.sem.bitvector = true;
                i -= 1;
            }
            "--havoc-all" => {
                opts.havoc_all = true;
                i -= 1;
            }
            "--assert" => {
                lower.assert_is_error = true;
                i -= 1;
            }
            a if a.starts_with('-') => {}
            a => {
                c = PathBuf::from(a);
                i -= 1;
            }
        }
        i += 2;
    }
    (c, lower, opts)
}
