//! The README's commands, run as written: every line of every `sh` block of `README.md` is run
//! with `sh -c` in a scratch directory laid out like a checkout after the README's set-up
//! (`make build`): `target/release/` holds the tools (links to this test's build of them),
//! `examples/` a copy of the bundled examples, and the README's placeholders are files of
//! `tests/data/readme/`. A line works when it exits 0, 10 or 5 (safe, unsafe, unknown: the
//! table of `cli_common::exit`) and prints no panic; a usage, input or internal error fails the
//! test with the line and its output.
//!
//! The substitutions (also listed in `docs/testing.md`):
//! - `prog.c` is `examples/c/funlock-bug.c` (FALSE after three iterations); `prog.preds` its
//!   predicates; `prog.bp` a small program with a label `MY_ERR` (until the c2bp line
//!   overwrites it); `task.yml` prog.c as an SV-COMP task; `tasks.set` a list of one task;
//! - `iter003.` is `out/iter001.`: an iteration the `--keep out/` line wrote for prog.c, with a
//!   spurious trace;
//! - `../shared/corpus/sv-benchmarks/locks` and `SETS...` are `sets/locks`, the two examples as
//!   tasks (the corpus is too slow for a test);
//! - before `slam-bench merge part1 part2 part3 part4`, the shards 1, 3 and 4 are run as the
//!   README runs shard 2;
//! - `target/release/` is the build of this test (debug under `cargo test`);
//! - a `make TARGET` line is checked with `make -n TARGET` (the target exists and its recipe
//!   expands): running `make test` inside `make test`, or a release build of every tool, is
//!   CI's own job.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The tools the README may name under `target/release/`: (package, binary).
const TOOLS: [(&str, &str); 8] = [
    ("bebop", "bebop"),
    ("bebop", "bp-fmt"),
    ("c2bp", "c2bp"),
    ("cir", "cir-dump"),
    ("newton", "newton"),
    ("constrain", "constrain"),
    ("slam-run", "slam-run"),
    ("slam-bench", "slam-bench"),
];

/// Placeholders replaced in a command line: (as written, as run).
const SUBSTITUTIONS: [(&str, &str); 3] = [
    ("iter003.", "out/iter001."),
    ("../shared/corpus/sv-benchmarks/locks", "sets/locks"),
    ("SETS...", "sets/locks"),
];

/// Commands run before a line containing the first string, to make what it reads.
const PREREQUISITES: [(&str, &[&str]); 1] = [(
    "slam-bench merge part1 part2 part3 part4",
    &[
        "target/release/slam-bench run sets/locks --shard 1/4 --out part1/",
        "target/release/slam-bench run sets/locks --shard 3/4 --out part3/",
        "target/release/slam-bench run sets/locks --shard 4/4 --out part4/",
    ],
)];

/// The lines of the README's `sh` blocks, without comments, with their line numbers.
fn sh_lines(readme: &str) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    let mut in_sh = false;
    for (i, line) in readme.lines().enumerate() {
        let t = line.trim();
        if t.starts_with("```") {
            in_sh = !in_sh && t == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        // A comment starts at a `#` after a blank (the README's commands quote no `#`).
        let cmd = match t.find(" #") {
            Some(at) => &t[..at],
            None => t,
        };
        let cmd = cmd.trim();
        if !cmd.is_empty() && !cmd.starts_with('#') {
            lines.push((i + 1, cmd.to_string()));
        }
    }
    lines
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("readable").flatten() {
        let p = e.path();
        let dest = to.join(e.file_name());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).expect("copy");
        }
    }
}

/// A scratch checkout: tools, examples and the placeholders' files.
fn sandbox() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("slam-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let bin = dir.join("target/release");
    std::fs::create_dir_all(&bin).expect("mkdir");
    for (package, name) in TOOLS {
        std::os::unix::fs::symlink(common::tool(package, name), bin.join(name)).expect("link");
    }
    copy_dir(&root.join("examples"), &dir.join("examples"));
    copy_dir(&root.join("tests/data/readme"), &dir);
    std::fs::copy(root.join("examples/c/funlock-bug.c"), dir.join("prog.c")).expect("copy");
    dir
}

/// Runs one line in `dir`; `Err` says why it does not work.
fn run_line(dir: &Path, cmd: &str) -> Result<String, String> {
    let out = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("sh: {e}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let code = out.status.code();
    let works = [
        cli_common::exit::SAFE,
        cli_common::exit::UNSAFE,
        cli_common::exit::UNKNOWN,
    ]
    .map(Some)
    .contains(&code);
    if works && !text.contains("panicked") {
        Ok(text)
    } else {
        Err(format!("exit {code:?}\n{text}"))
    }
}

#[test]
fn every_readme_command_works_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let lines = sh_lines(&readme);
    assert!(lines.len() >= 20, "the README's sh blocks: {lines:?}");
    let dir = sandbox();
    let mut failures = Vec::new();
    for (n, written) in &lines {
        if let Some(target) = written.strip_prefix("make ") {
            let out = Command::new("make")
                .args(["-n", target.trim()])
                .current_dir(root)
                .output()
                .expect("make runs");
            if !out.status.success() {
                failures.push(format!(
                    "README.md:{n}: `{written}`: make -n: {}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            continue;
        }
        if let Some(tool) = written
            .split_whitespace()
            .find_map(|w| w.strip_prefix("target/release/"))
        {
            assert!(
                TOOLS.iter().any(|(_, t)| *t == tool),
                "README.md:{n}: `{tool}` is not a tool this check knows: add it to TOOLS"
            );
        }
        let mut cmd = written.clone();
        for (from, to) in SUBSTITUTIONS {
            cmd = cmd.replace(from, to);
        }
        for (line, before) in PREREQUISITES {
            if cmd.contains(line) {
                for b in before {
                    if let Err(e) = run_line(&dir, b) {
                        failures.push(format!("README.md:{n}: before it, `{b}`: {e}"));
                    }
                }
            }
        }
        match run_line(&dir, &cmd) {
            Ok(_) => eprintln!("ok   README.md:{n}: {cmd}"),
            Err(e) => failures.push(format!("README.md:{n}: `{written}` (run as `{cmd}`): {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "README commands that do not work ({} of {}; scratch directory {}):\n\n{}",
        failures.len(),
        lines.len(),
        dir.display(),
        failures.join("\n\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
