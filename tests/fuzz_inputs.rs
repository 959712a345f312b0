//! A seeded mutation fuzz loop over the two readers of user text: the `.bp` parser and checker
//! (`bp_grammar`) and the C front end (`cir`: lang-c on preprocessed `.i` text, then the
//! lowering). Inputs are random bytes and mutations of valid files — the repository's `.bp`
//! files, the bundled C examples and the corpus's `.i` files when present — made with the
//! toolkit's PRNG (`bp_testkit::prng::SplitMix64`). Every input must give a program or
//! positioned diagnostics: no panic, no stack overflow (the loop runs on a thread with the
//! 2 MiB stack cargo gives tests, and the C front end on its own large stack as `load_file`
//! does).
//!
//! `FUZZ_INPUTS=N` sets the number of inputs (20,000, half `.bp`, half C), `FUZZ_SEED=S` the
//! first seed (0). By hand, in release mode: `FUZZ_INPUTS=1000000 cargo test --release -p
//! slam-toolkit --test fuzz_inputs -- --nocapture`.

use bp_testkit::prng::SplitMix64;
use std::path::{Path, PathBuf};

fn knob(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() && name != "target" && !name.starts_with('.') {
            files(&p, ext, out);
        } else if p.extension().is_some_and(|e| e == ext) {
            out.push(p);
        }
    }
}

fn read_all(paths: &[PathBuf], max_len: usize) -> Vec<String> {
    paths
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .filter(|t| t.len() <= max_len)
        .collect()
}

const BP_TOKENS: [&str; 24] = [
    "decl ",
    "begin",
    "end",
    "void ",
    "bool<2> ",
    "if ",
    "then",
    "else",
    "fi",
    "while ",
    "do",
    "od",
    "goto ",
    "return ",
    "assert(",
    "assume(",
    ":=",
    ";",
    "(",
    ")",
    "*",
    "!",
    "//@ x=1\n",
    "{a b}",
];

const C_TOKENS: [&str; 28] = [
    "int ",
    "if (",
    "else ",
    "while (",
    "for (;;)",
    "return ",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    "=",
    "==",
    "*",
    "&",
    "-",
    "!",
    "++",
    "sizeof(",
    "struct s ",
    "typedef int t;",
    "goto L;",
    "L:",
    "\"s\"",
    "'c'",
];

/// A mutation of `seed`: bytes deleted, duplicated, swapped, replaced; tokens inserted; deep
/// nesting inserted; truncated.
fn mutate(rng: &mut SplitMix64, seed: &str, tokens: &[&str]) -> String {
    let mut b = seed.as_bytes().to_vec();
    for _ in 0..rng.range(1, 8) {
        let n = b.len().max(1);
        let at = rng.below(n).min(b.len());
        let len = rng.range(1, 40).min(b.len() - at);
        match rng.below(8) {
            0 => {
                b.drain(at..at + len);
            }
            1 => {
                let chunk = b[at..at + len].to_vec();
                let to = rng.below(b.len() + 1);
                b.splice(to..to, chunk);
            }
            2 => {
                let other = rng.below(b.len() + 1);
                let chunk: Vec<u8> = b.drain(at..at + len).collect();
                let to = other.min(b.len());
                b.splice(to..to, chunk);
            }
            3 if at < b.len() => b[at] = rng.next_u64() as u8,
            4 => {
                let depth = rng.range(1, 3000);
                let open = *rng.pick(&["(", "[", "{", "!", "-", "if (x) "]);
                let deep = open.repeat(depth);
                b.splice(at..at, deep.into_bytes());
            }
            5 => b.truncate(at),
            _ => {
                let t = rng.pick(tokens).as_bytes().to_vec();
                b.splice(at..at, t);
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

fn random_bytes(rng: &mut SplitMix64) -> String {
    let n = rng.below(300);
    let bytes: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Parses and checks a Boolean program; every diagnostic must have a position and a message.
/// `Ok(true)` when the program is well-formed.
fn bp_input(src: &str) -> Result<bool, String> {
    let diags = match bp_grammar::parse(src) {
        Ok(p) => bp_grammar::check(&p, src),
        Err(d) => d,
    };
    for d in &diags {
        if d.span.line == 0 || d.span.col == 0 || d.message.is_empty() {
            return Err(format!("unpositioned diagnostic {d:?}"));
        }
        let _ = d.render_source("f.bp", src);
    }
    Ok(!diags
        .iter()
        .any(|d| d.severity == bp_grammar::Severity::Error))
}

/// Parses and lowers preprocessed C; an error must name `f.i` with line and column. `Ok(true)`
/// when the program is lowered.
fn c_input(src: &str) -> Result<bool, String> {
    let text = format!("# 1 \"f.i\"\n{src}");
    let parsed = match cir::frontend::parse_preprocessed_text("f.i", text) {
        Ok(p) => p,
        Err(e) => return located(&e).map(|()| false),
    };
    match cir::lower::lower(&parsed, &cir::LowerOptions::default()) {
        Ok(_) => Ok(true),
        Err(e) => located(&e).map(|()| false),
    }
}

fn located(e: &cir::CirError) -> Result<(), String> {
    let shown = e.to_string();
    let mut parts = shown.splitn(4, ':');
    let (file, line, col) = (parts.next(), parts.next(), parts.next());
    let num = |s: Option<&str>| {
        s.and_then(|s| s.parse::<u32>().ok())
            .is_some_and(|n| n >= 1)
    };
    if file == Some("f.i") && num(line) && num(col) {
        Ok(())
    } else {
        Err(format!("error without file:line:col: {shown}"))
    }
}

/// Runs `n` inputs of one kind from `seeds`; returns (inputs, valid ones) or the first failure.
fn fuzz(
    rng: &mut SplitMix64,
    n: u64,
    seeds: &[String],
    tokens: &[&str],
    check: fn(&str) -> Result<bool, String>,
) -> Result<(u64, u64, f64), String> {
    let mut accepted = 0;
    let mut slowest = 0f64;
    for i in 0..n {
        let input = if seeds.is_empty() || rng.chance(10) {
            random_bytes(rng)
        } else {
            let seed = rng.pick(seeds);
            mutate(rng, seed, tokens)
        };
        let t0 = std::time::Instant::now();
        let outcome = std::panic::catch_unwind(|| check(&input));
        slowest = slowest.max(t0.elapsed().as_secs_f64());
        match outcome {
            Ok(Ok(valid)) => accepted += u64::from(valid),
            Ok(Err(e)) => return Err(format!("input {i}: {e}\n--- input ---\n{input}")),
            Err(_) => return Err(format!("input {i} panicked\n--- input ---\n{input}")),
        }
    }
    Ok((n, accepted, slowest))
}

#[test]
fn mutated_and_random_inputs_get_diagnostics_never_a_crash() {
    let total = knob("FUZZ_INPUTS", 20_000);
    let seed = knob("FUZZ_SEED", 0);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut bp_paths = Vec::new();
    files(root, "bp", &mut bp_paths);
    let bp_seeds = read_all(&bp_paths, 20_000);
    let mut c_paths = Vec::new();
    files(&root.join("examples"), "c", &mut c_paths);
    let corpus = root.join("../shared/corpus/sv-benchmarks");
    let mut i_paths = Vec::new();
    files(&corpus, "i", &mut i_paths);
    if i_paths.is_empty() {
        eprintln!("SKIP (corpus seeds): {} not found", corpus.display());
    }
    i_paths.truncate(40);
    c_paths.extend(i_paths);
    let c_seeds = read_all(&c_paths, 60_000);
    assert!(
        bp_seeds.len() >= 50 && c_seeds.len() >= 2,
        "seed files found"
    );
    // The C front end runs as `cir::load_file` runs it: on its large stack. The `.bp` parser
    // on the test thread's own 2 MiB (it needs no more, whatever the input).
    let t0 = std::time::Instant::now();
    let c = std::thread::Builder::new()
        .stack_size(cir::frontend::PARSE_STACK)
        .spawn(move || {
            let mut rng = SplitMix64::new(seed ^ 0xC0FFEE);
            fuzz(&mut rng, total / 2, &c_seeds, &C_TOKENS, c_input)
        })
        .expect("thread");
    let mut rng = SplitMix64::new(seed);
    let bp = fuzz(&mut rng, total - total / 2, &bp_seeds, &BP_TOKENS, bp_input);
    let c = c.join().expect("the C loop did not panic");
    let (bp_n, bp_ok, bp_slow) = bp.unwrap_or_else(|e| panic!(".bp: {e}"));
    let (c_n, c_ok, c_slow) = c.unwrap_or_else(|e| panic!("C: {e}"));
    eprintln!(
        "fuzz: {bp_n} .bp inputs ({bp_ok} well-formed, slowest {bp_slow:.3} s), {c_n} C inputs \
         ({c_ok} lowered, slowest {c_slow:.3} s) in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    // Mutations keep a share of the inputs valid, so the loop reaches past the parsers.
    assert!(
        bp_ok > 0 && c_ok > 0,
        "every input rejected: the mutations are too coarse"
    );
}
