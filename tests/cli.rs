//! The commands as a new user meets them, each run as a process: one exit-code table
//! (`cli_common::exit`) that every tool's `--help` prints and whose usage error (1) every tool
//! returns; slam-run's `--timeout` values, a closed stdout pipe, input errors that are not
//! internal errors (no `main`, wrong arity, deep nesting, flow-style task files, a missing
//! input file), and the `--keep` directory's `commands.txt` re-run with `sh`.

mod common;

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const TOOLS: [(&str, &str); 7] = [
    ("bebop", "bebop"),
    ("bebop", "bp-fmt"),
    ("c2bp", "c2bp"),
    ("newton", "newton"),
    ("constrain", "constrain"),
    ("cir", "cir-dump"),
    ("slam-bench", "slam-bench"),
];

fn run(exe: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn slam_run(args: &[&str]) -> (Option<i32>, String, String) {
    run(&common::tool("slam-run", "slam-run"), args)
}

fn example(name: &str) -> String {
    format!("{}/examples/c/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("slam-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

#[test]
fn every_tool_prints_the_one_exit_table_and_exits_1_on_usage_errors() {
    let mut tools: Vec<PathBuf> = TOOLS.iter().map(|(p, n)| common::tool(p, n)).collect();
    tools.push(common::tool("slam-run", "slam-run"));
    for exe in &tools {
        let (code, out, err) = run(exe, &["--help"]);
        assert_eq!(code, Some(0), "{}: {err}", exe.display());
        for (c, meaning) in cli_common::exit::TABLE {
            assert!(
                out.contains(meaning),
                "{} --help lacks {c}: {out}",
                exe.display()
            );
        }
        let (code, _, err) = run(exe, &["--no-such-flag"]);
        assert_eq!(
            code,
            Some(cli_common::exit::USAGE),
            "{}: {err}",
            exe.display()
        );
        assert!(err.contains("--no-such-flag"), "{err}");
    }
}

/// Options that contradict each other, or that the chosen mode would ignore, are usage errors
/// naming both, not silently dropped.
#[test]
fn contradicting_options_are_usage_errors() {
    let prog = example("funlock.c");
    let c2bp = common::tool("c2bp", "c2bp");
    let cases: [(&Path, &[&str], &str); 3] = [
        (&c2bp, &["--max-cubes", "5"], "--abstraction exact"),
        (
            Path::new(""),
            &["--max-cubes", "5", "--abstraction", "cartesian"],
            "--abstraction exact",
        ),
        (
            Path::new(""),
            &["--bitvector", "--precision", "auto"],
            "--precision auto",
        ),
    ];
    for (exe, args, names) in cases {
        let mut argv = vec![prog.as_str()];
        argv.extend_from_slice(args);
        let (code, out, err) = if exe.as_os_str().is_empty() {
            slam_run(&argv)
        } else {
            run(exe, &argv)
        };
        assert_eq!(code, Some(cli_common::exit::USAGE), "{args:?}: {out}{err}");
        assert!(
            err.contains(names) && err.contains("--help"),
            "{args:?}: {err}"
        );
        assert!(out.is_empty(), "no verdict: {out}");
    }
    // With the exact abstraction the bound is taken.
    let (code, out, err) = slam_run(&[&prog, "--abstraction", "exact", "--max-cubes", "5"]);
    assert_eq!(code, Some(0), "{out}{err}");
}

#[test]
fn timeouts_are_numbers_or_inf_never_a_panic() {
    let prog = example("funlock.c");
    for ok in ["inf", "1e19", "30"] {
        let (code, out, err) = slam_run(&[&prog, "--timeout", ok]);
        assert_eq!(code, Some(0), "--timeout {ok}: {out}{err}");
        assert_eq!(out.lines().next(), Some("TRUE"));
    }
    for bad in ["-1", "nan", "-inf", "soon"] {
        let (code, out, err) = slam_run(&[&prog, &format!("--timeout={bad}")]);
        assert_eq!(code, Some(1), "--timeout={bad}: {out}{err}");
        assert!(
            err.contains("--timeout") && !err.contains("panicked"),
            "{err}"
        );
    }
}

#[test]
fn a_closed_stdout_ends_the_run_quietly() {
    let mut child = Command::new(common::tool("slam-run", "slam-run"))
        .arg(example("funlock-bug.c"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    // The reader goes away before slam-run writes its verdict (as `| true` does).
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("read");
    let status = child.wait().expect("waits");
    assert_eq!(status.code(), Some(10), "{err}");
    // Nothing but the progress lines a run past one second of wall-clock prints (a loaded
    // machine): no complaint about the closed pipe, no panic.
    let progress = |l: &str| {
        l.strip_prefix("slam-run:")
            .is_some_and(|r| r.trim_start().split_once(" s  iteration ").is_some())
    };
    assert!(err.lines().all(progress), "{err}");
}

#[test]
fn programs_slam_run_cannot_verify_are_input_errors() {
    let d = temp_dir("inputs");
    let cases = [
        ("empty.c", String::new(), "no function `main`"),
        (
            "nomain.c",
            "int f(int x) { return x; }\n".to_string(),
            "no function `main`",
        ),
        (
            "arity.c",
            "int f(int a, int b) { return a + b; }\nint main(void) { return f(1); }\n".into(),
            "arity.c:2:25: `f` takes 2 arguments, but 1 is given",
        ),
        (
            "deep.i",
            format!(
                "int main(void) {{ return {}0{}; }}\n",
                "(".repeat(4000),
                ")".repeat(4000)
            ),
            "deep.i:1:",
        ),
    ];
    for (name, text, says) in cases {
        let p = d.join(name);
        std::fs::write(&p, text).expect("write");
        let (code, out, err) = slam_run(&[p.to_str().expect("utf-8")]);
        assert_eq!(code, Some(2), "{name}: {out}{err}");
        assert!(err.contains(says), "{name}: {err}");
        assert!(
            !err.contains("internal error") && out.is_empty(),
            "{name}: {out}{err}"
        );
    }
}

#[test]
fn flow_style_tasks_run_and_a_missing_input_names_its_task_file() {
    let d = temp_dir("tasks");
    std::fs::copy(example("funlock.c"), d.join("funlock.c")).expect("copy");
    std::fs::write(
        d.join("unreach-call.prp"),
        "CHECK( init(main()), LTL(G ! call(reach_error())) )\n",
    )
    .expect("prp");
    let flow = d.join("flow.yml");
    std::fs::write(
        &flow,
        "format_version: '2.0'\ninput_files: funlock.c\nproperties:\n  \
         - {property_file: unreach-call.prp, expected_verdict: true}\n",
    )
    .expect("yml");
    let (code, out, err) = slam_run(&[flow.to_str().expect("utf-8")]);
    assert_eq!(code, Some(0), "{out}{err}");
    let missing = d.join("missing.yml");
    std::fs::write(
        &missing,
        "format_version: '2.0'\ninput_files: gone.c\nproperties:\n  \
         - property_file: unreach-call.prp\n",
    )
    .expect("yml");
    let (code, _, err) = slam_run(&[missing.to_str().expect("utf-8")]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&format!("{}:2:14: input file", missing.display())),
        "{err}"
    );
}

/// The lines of `commands.txt` that run a tool.
fn tool_lines(commands: &str) -> Vec<&str> {
    commands
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("cd "))
        .collect()
}

#[test]
fn kept_commands_name_the_tools_include_the_proof_and_rerun_with_sh() {
    for (_, n) in &TOOLS[..5] {
        let package = if *n == "bp-fmt" { "bebop" } else { n };
        common::tool(package, n);
    }
    let d = temp_dir("keep");
    let keep = d.join("out");
    let (code, _, err) = slam_run(&[
        &example("funlock-bug.c"),
        "--keep",
        keep.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, Some(10), "{err}");
    // The same directory again, for another program: the earlier files go, saying so.
    let (code, _, err) = slam_run(&[
        &example("funlock.c"),
        "--keep",
        keep.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("removed") && err.contains("earlier run"),
        "{err}"
    );
    let commands = std::fs::read_to_string(keep.join("commands.txt")).expect("commands.txt");
    assert!(!commands.contains("funlock-bug.c"), "stale: {commands}");
    let lines = tool_lines(&commands);
    for l in &lines {
        assert!(l.starts_with('/'), "a tool by absolute path: {l}");
    }
    // The last iteration is there: bebop on the Boolean program it proves safe.
    let last_bp = lines.last().expect("commands");
    assert!(last_bp.contains("/bebop "), "{commands}");
    // The proof has no trace: no trace file of the buggy program's run is left for it.
    let proved = last_bp
        .split_whitespace()
        .nth(1)
        .expect("the .bp")
        .replace(".bp", ".trace.json");
    assert!(
        !Path::new(&proved).exists()
            && !keep
                .join(Path::new(&proved).file_name().expect("name"))
                .exists(),
        "{proved}"
    );
    // Re-run from elsewhere: the script changes to slam-run's directory itself.
    let out = Command::new("sh")
        .arg(keep.join("commands.txt"))
        .current_dir(&d)
        .output()
        .expect("sh runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let verdicts: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("VERIFICATION"))
        .collect();
    assert_eq!(
        verdicts.last(),
        Some(&"VERIFICATION SUCCESSFUL"),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        verdicts.len(),
        lines.iter().filter(|l| l.contains("/bebop ")).count(),
        "{stdout}"
    );
}
