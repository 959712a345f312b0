//! End-to-end tests of `bebop` over the project's own Boolean programs in `tests/data/bp/`.
//!
//! - `ok/*.bp` are well-formed programs. Each starts with header comments:
//!   `// expect: safe` or `// expect: unsafe`; optionally `// flags: ...` (bebop command-line
//!   flags, e.g. `--label L`, `--cprover-precedence`); `// what: ...` (what it tests); optionally
//!   `// min-depth: N` (the error is reached at call depth N or deeper) and
//!   `// expect-warning: CODE` (the checker warns with CODE). `bebop` must give the verdict
//!   (exit code and first line of stdout). For an unsafe program the whole stdout must equal
//!   the golden file `NAME.expected` (bless with `UPDATE_EXPECT=1`), and the JSON trace
//!   (`--trace-json`) must be well-formed, carry the statements' annotations, and replay on the
//!   reference interpreter (`bp_testkit::replay`).
//! - `err/*.bp` are ill-formed programs. A comment `// error: CODE` on a line says that bebop
//!   must report CODE on that line; a header `// expect-error: POS CODE` (POS is `LINE:COL`,
//!   `LINE` or `*` for anywhere) does the same for an error whose line cannot hold a comment.
//!   bebop must exit with 2 and report every expected error and no other.
//!
//! Every test goes through all files and reports every failure before failing.

use bp_grammar::ast::{Procedure, Program, Stmt, StmtKind};
use bp_grammar::trace::{StepKind, TRACE_FORMAT, Target, Trace, Valuation};
use bp_grammar::{ParseOptions, Precedence};
use bp_testkit::reference::RefProperty;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// How long one run of bebop may take before the harness gives up on it.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// The command that rewrites the golden files.
const BLESS: &str = "UPDATE_EXPECT=1 cargo test -p slam-toolkit --test bp_suite";

// ------------------------------------------------------------------------------------------
// Files and headers
// ------------------------------------------------------------------------------------------

fn data_dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/bp")
        .join(sub)
}

/// The `.bp` files of `tests/data/bp/<sub>`, sorted by name.
fn bp_files(sub: &str) -> Vec<PathBuf> {
    let dir = data_dir(sub);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "bp"))
        .collect();
    files.sort();
    files
}

/// The name to pass to bebop: relative to the package root (the working directory of
/// `cargo test`) so that outputs quoting it do not depend on where the checkout is.
fn cli_path(path: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    match path.strip_prefix(root) {
        Ok(rel) if rel.is_file() => rel.display().to_string(),
        _ => path.display().to_string(),
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    Safe,
    Unsafe,
}

/// Where an expected diagnostic is.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Pos {
    Anywhere,
    Line(u32),
    LineCol(u32, u32),
}

impl Pos {
    fn matches(&self, line: u32, col: u32) -> bool {
        match *self {
            Pos::Anywhere => true,
            Pos::Line(l) => l == line,
            Pos::LineCol(l, c) => l == line && c == col,
        }
    }

    fn show(&self) -> String {
        match self {
            Pos::Anywhere => "*".to_string(),
            Pos::Line(l) => l.to_string(),
            Pos::LineCol(l, c) => format!("{l}:{c}"),
        }
    }
}

/// What a test file says about itself.
#[derive(Debug, Default)]
struct Header {
    expect: Option<Expect>,
    flags: Vec<String>,
    what: Option<String>,
    min_depth: Option<u32>,
    warnings: Vec<String>,
    /// Expected errors: position and code.
    errors: Vec<(Pos, String)>,
    /// Malformed header lines.
    problems: Vec<String>,
}

impl Header {
    fn parse(src: &str) -> Header {
        let mut h = Header::default();
        let mut in_header = true;
        for (i, line) in src.lines().enumerate() {
            let lineno = i as u32 + 1;
            let trimmed = line.trim();
            // Header lines: the `//` comments before the first line of code.
            in_header &= trimmed.is_empty() || trimmed.starts_with("//");
            if in_header && trimmed.starts_with("//") && !trimmed.starts_with("//@") {
                let body = trimmed.trim_start_matches('/').trim();
                if let Some((key, value)) = body.split_once(':') {
                    let value = value.trim();
                    match key.trim() {
                        "expect" => match value {
                            "safe" => h.expect = Some(Expect::Safe),
                            "unsafe" => h.expect = Some(Expect::Unsafe),
                            other => h
                                .problems
                                .push(format!("line {lineno}: bad `expect: {other}`")),
                        },
                        "flags" => h.flags = value.split_whitespace().map(String::from).collect(),
                        "what" => h.what = Some(value.to_string()),
                        "min-depth" => match value.parse() {
                            Ok(n) => h.min_depth = Some(n),
                            Err(_) => h
                                .problems
                                .push(format!("line {lineno}: bad `min-depth: {value}`")),
                        },
                        "expect-warning" => h.warnings.push(value.to_string()),
                        "expect-error" => match Self::expected_error(value) {
                            Some(e) => h.errors.push(e),
                            None => h.problems.push(format!(
                                "line {lineno}: bad `expect-error: {value}` (want `LINE:COL CODE`, `LINE CODE` or `* CODE`)"
                            )),
                        },
                        _ => {}
                    }
                }
            }
            // `// error: CODE ...` at the end of any line.
            if let Some(at) = line.find("// error:") {
                let codes = &line[at + "// error:".len()..];
                if line[..at].trim().is_empty() {
                    h.problems.push(format!(
                        "line {lineno}: `// error:` must follow the offending code on its line"
                    ));
                }
                for code in codes.split([',', ' ']).filter(|c| !c.is_empty()) {
                    h.errors.push((Pos::Line(lineno), code.to_string()));
                }
            }
        }
        h
    }

    fn expected_error(value: &str) -> Option<(Pos, String)> {
        let (pos, code) = value.split_once(char::is_whitespace)?;
        let code = code.trim();
        if code.is_empty() || code.contains(char::is_whitespace) {
            return None;
        }
        let pos = if pos == "*" {
            Pos::Anywhere
        } else if let Some((l, c)) = pos.split_once(':') {
            Pos::LineCol(l.parse().ok()?, c.parse().ok()?)
        } else {
            Pos::Line(pos.parse().ok()?)
        };
        Some((pos, code.to_string()))
    }

    /// The `--label` of the flags, if any.
    fn label(&self) -> Option<&str> {
        let i = self.flags.iter().position(|f| f == "--label")?;
        self.flags.get(i + 1).map(String::as_str)
    }

    fn property(&self) -> RefProperty {
        match self.label() {
            Some(l) => RefProperty::Label(l.to_string()),
            None => RefProperty::AssertsAndSlicError,
        }
    }

    fn parse_options(&self) -> ParseOptions {
        let mut opts = ParseOptions::default();
        if self.flags.iter().any(|f| f == "--cprover-precedence") {
            opts.precedence = Precedence::Cprover;
        }
        opts
    }
}

// ------------------------------------------------------------------------------------------
// Running bebop
// ------------------------------------------------------------------------------------------

/// What one run of `bebop::run_cli` produced.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn first_line(&self) -> &str {
        self.stdout.lines().next().unwrap_or("")
    }

    /// The run, quoted for a failure message.
    fn show(&self) -> String {
        format!(
            "exit code {}\n  --- stdout ---\n{}\n  --- stderr ---\n{}",
            self.code,
            indent(&self.stdout),
            indent(&self.stderr)
        )
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .take(60)
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs `bebop ARGS` in-process, on a thread of its own (a big stack, and a time limit so that
/// one hanging program does not hide the results of the others).
fn run_bebop(args: &[String]) -> Result<Run, String> {
    let mut argv = vec!["bebop".to_string()];
    argv.extend(args.iter().cloned());
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("bebop".into())
        .stack_size(64 << 20)
        .spawn(move || {
            let mut out = Vec::new();
            let mut err = Vec::new();
            let code = bebop::cli::run_cli(argv, &mut out, &mut err);
            let _ = tx.send(Run {
                code,
                stdout: String::from_utf8_lossy(&out).into_owned(),
                stderr: String::from_utf8_lossy(&err).into_owned(),
            });
        });
    if let Err(e) = spawned {
        return Err(format!("cannot start a thread: {e}"));
    }
    match rx.recv_timeout(RUN_TIMEOUT) {
        Ok(run) => Ok(run),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(format!(
            "bebop {} did not finish within {} s",
            args.join(" "),
            RUN_TIMEOUT.as_secs()
        )),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(format!(
            "bebop {} panicked (see the test's stderr)",
            args.join(" ")
        )),
    }
}

/// Where `--trace-json` writes for a given test (unique per process and test, so that parallel
/// runs do not mix their traces; bebop's text output does not mention it).
fn trace_json_path(kind: &str, path: &Path) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let pid = std::process::id();
    std::env::temp_dir().join(format!("slam-toolkit-{pid}-{kind}-{stem}.trace.json"))
}

// ------------------------------------------------------------------------------------------
// Golden files
// ------------------------------------------------------------------------------------------

fn updating() -> bool {
    bp_testkit::expect::blessing()
}

/// Compares `actual` with the golden file, or writes it when blessing.
fn check_golden(golden: &Path, actual: &str) -> Result<(), String> {
    bp_testkit::expect::check_file(golden, actual, BLESS)
}

// ------------------------------------------------------------------------------------------
// Trace checks
// ------------------------------------------------------------------------------------------

/// Every variable in the scope of `proc`: the globals, its parameters and its locals.
fn scope(prog: &Program, proc: &Procedure) -> BTreeSet<String> {
    prog.global_vars()
        .chain(proc.frame_vars())
        .map(|v| v.name.clone())
        .collect()
}

fn keys(v: &Valuation) -> BTreeSet<String> {
    v.keys().cloned().collect()
}

/// The 1-based line on which byte `offset` of `src` lies.
fn line_of(src: &str, offset: usize) -> u32 {
    let offset = offset.min(src.len());
    src.as_bytes()[..offset]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u32
        + 1
}

/// The basic properties every trace must have, whatever the program; returns the problems.
/// (The full semantic check is `bp_testkit::replay`.)
fn check_trace(
    prog: &Program,
    src: &str,
    trace: &Trace,
    program_name: &str,
    label: Option<&str>,
    min_depth: Option<u32>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let mut fail = |msg: String| problems.push(msg);
    if trace.format != TRACE_FORMAT {
        fail(format!(
            "format is {:?}, not {TRACE_FORMAT:?}",
            trace.format
        ));
    }
    if trace.program != program_name {
        fail(format!(
            "program is {:?}, not {program_name:?} as given on the command line",
            trace.program
        ));
    }
    if trace.header != prog.header {
        fail(format!(
            "header annotations are {:?}, the file's are {:?}",
            trace.header.0, prog.header.0
        ));
    }
    let Some(last) = trace.steps.last() else {
        fail("the trace has no steps".to_string());
        return problems;
    };
    let first = &trace.steps[0];
    if first.depth != 0 || first.proc != "main" {
        fail(format!(
            "the first step is at depth {} in `{}`, not at depth 0 in `main`",
            first.depth, first.proc
        ));
    }
    if last.kind != StepKind::Error {
        fail(format!(
            "the last step is a {:?} step, not an error",
            last.kind
        ));
    }
    if last.before != last.after {
        fail("the error step's `before` and `after` differ".to_string());
    }
    if let Some(n) = min_depth
        && last.depth < n
    {
        fail(format!(
            "the error is reached at depth {}, but the program can reach it only at depth {n} or deeper",
            last.depth
        ));
    }
    // What was reached.
    let (t_proc, t_stmt) = match &trace.target {
        Target::Assert { proc, stmt } => {
            if let Some(l) = label {
                fail(format!(
                    "the target is an assert, but with --label {l} asserts are not errors"
                ));
            }
            (proc, *stmt)
        }
        Target::Label {
            label: l,
            proc,
            stmt,
        } => {
            let want = label.unwrap_or("SLIC_ERROR");
            if l != want {
                fail(format!("the target label is {l}, not {want}"));
            }
            if !last.labels.iter().any(|x| x == want) {
                fail(format!(
                    "the error step's labels {:?} lack the target label {want}",
                    last.labels
                ));
            }
            (proc, *stmt)
        }
    };
    if *t_proc != last.proc || Some(t_stmt) != last.stmt {
        fail(format!(
            "the target is `{}` stmt {}, but the error step is `{}` stmt {:?}",
            t_proc, t_stmt.0, last.proc, last.stmt
        ));
    }
    // Step by step: kinds, depths, scopes, chaining, labels, annotations, text.
    let mut stack: Vec<&str> = vec!["main"];
    for (i, step) in trace.steps.iter().enumerate() {
        let at = format!("step {i} (`{}` line {})", step.proc, step.line);
        if step.kind == StepKind::Error && i + 1 != trace.steps.len() {
            fail(format!("{at}: an error step before the end of the trace"));
        }
        if step.depth as usize + 1 != stack.len() || stack.last() != Some(&step.proc.as_str()) {
            fail(format!(
                "{at}: at depth {} in `{}`, but the call stack is {:?}",
                step.depth, step.proc, stack
            ));
            return problems; // everything after would be noise
        }
        if i + 1 < trace.steps.len() && step.after != trace.steps[i + 1].before {
            fail(format!(
                "{at}: `after` is not the next step's `before` ({:?} vs {:?})",
                step.after,
                trace.steps[i + 1].before
            ));
        }
        let Some(proc) = prog.proc(&step.proc) else {
            fail(format!("{at}: no procedure `{}`", step.proc));
            return problems;
        };
        let here = scope(prog, proc);
        if keys(&step.before) != here {
            fail(format!(
                "{at}: `before` is over {:?}, the scope of `{}` is {:?}",
                keys(&step.before),
                step.proc,
                here
            ));
        }
        let stmts = proc.stmts_preorder();
        let stmt: Option<&Stmt> = match step.stmt {
            Some(id) => match stmts.get(id.0 as usize) {
                Some((_, s)) => Some(*s),
                None => {
                    fail(format!("{at}: `{}` has no statement {}", step.proc, id.0));
                    return problems;
                }
            },
            None => None,
        };
        if let Some(s) = stmt {
            let labels: Vec<&str> = s.labels.iter().map(|l| l.name.as_str()).collect();
            if step.labels != labels {
                fail(format!(
                    "{at}: labels {:?}, the statement has {:?}",
                    step.labels, labels
                ));
            }
            if step.annotations != s.annotations {
                fail(format!(
                    "{at}: annotations {:?}, the statement has {:?}",
                    step.annotations.0, s.annotations.0
                ));
            }
            let head = bp_grammar::print_stmt_head(s);
            if step.text != head {
                fail(format!(
                    "{at}: text {:?}, the statement's head is {:?}",
                    step.text, head
                ));
            }
            let (lo, hi) = (s.span.line, line_of(src, s.span.end));
            if step.line < lo || step.line > hi {
                fail(format!(
                    "{at}: the statement spans lines {lo}..={hi} of the file"
                ));
            }
        }
        match step.kind {
            StepKind::Call => {
                let callee = match stmt.map(|s| &s.kind) {
                    Some(StmtKind::Call { callee, .. }) => callee.name.as_str(),
                    _ => {
                        fail(format!("{at}: a call step at a statement that is no call"));
                        return problems;
                    }
                };
                match prog.proc(callee) {
                    Some(q) => {
                        if keys(&step.after) != scope(prog, q) {
                            fail(format!(
                                "{at}: the call's `after` is over {:?}, the scope of `{callee}` is {:?}",
                                keys(&step.after),
                                scope(prog, q)
                            ));
                        }
                    }
                    None => fail(format!("{at}: call of an unknown procedure `{callee}`")),
                }
                stack.push(callee);
            }
            StepKind::Return => {
                if !matches!(stmt.map(|s| &s.kind), None | Some(StmtKind::Return(_))) {
                    fail(format!(
                        "{at}: a return step at a statement that is no `return`"
                    ));
                }
                stack.pop();
                let Some(caller) = stack.last().and_then(|c| prog.proc(c)) else {
                    fail(format!("{at}: a return from the outermost `main`"));
                    return problems;
                };
                if keys(&step.after) != scope(prog, caller) {
                    fail(format!(
                        "{at}: the return's `after` is over {:?}, the caller's scope is {:?}",
                        keys(&step.after),
                        scope(prog, caller)
                    ));
                }
            }
            StepKind::Stmt | StepKind::Error => {
                if stmt.is_none() {
                    fail(format!("{at}: a {:?} step without a statement", step.kind));
                } else if matches!(
                    stmt.map(|s| &s.kind),
                    Some(StmtKind::Call { .. } | StmtKind::Return(_))
                ) && step.kind == StepKind::Stmt
                {
                    fail(format!(
                        "{at}: a call or return statement recorded as a plain step"
                    ));
                }
                if keys(&step.after) != here {
                    fail(format!(
                        "{at}: `after` is over {:?}, the scope of `{}` is {:?}",
                        keys(&step.after),
                        step.proc,
                        here
                    ));
                }
            }
        }
    }
    problems
}

/// Reads the JSON trace bebop wrote, checks it, and replays it on the reference interpreter.
fn check_json_trace(
    prog: &Program,
    src: &str,
    json_path: &Path,
    program_name: &str,
    header: &Header,
) -> Vec<String> {
    let text = match std::fs::read_to_string(json_path) {
        Ok(t) => t,
        Err(e) => {
            return vec![format!("no JSON trace at {} ({e})", json_path.display())];
        }
    };
    let _ = std::fs::remove_file(json_path);
    let trace = match Trace::from_json(&text) {
        Ok(t) => t,
        Err(e) => return vec![format!("the JSON trace does not parse: {e}")],
    };
    let mut problems = check_trace(
        prog,
        src,
        &trace,
        program_name,
        header.label(),
        header.min_depth,
    );
    if let Err(e) = bp_testkit::replay::replay(prog, &trace, &header.property()) {
        problems.push(format!("the trace does not replay: {e}"));
    }
    problems
}

// ------------------------------------------------------------------------------------------
// The tests
// ------------------------------------------------------------------------------------------

/// Fails with every collected failure.
fn report(what: &str, total: usize, failures: Vec<String>) {
    if failures.is_empty() {
        eprintln!("{what}: all {total} passed");
        return;
    }
    let n = failures.len();
    panic!(
        "{what}: {n} of {total} failed:\n\n{}\n\n{n} of {total} failed",
        failures.join("\n\n")
    );
}

/// One `ok/` program: verdict, golden output, JSON trace.
fn check_ok_program(path: &Path) -> Result<(), String> {
    let src = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let header = Header::parse(&src);
    if !header.problems.is_empty() {
        return Err(header.problems.join("; "));
    }
    let expect = header.expect.ok_or("no `// expect: safe|unsafe` header")?;
    let name = cli_path(path);
    let mut args = header.flags.clone();
    let json = trace_json_path("ok", path);
    if expect == Expect::Unsafe {
        let _ = std::fs::remove_file(&json);
        args.push("--trace-json".into());
        args.push(json.display().to_string());
    }
    args.push(name.clone());
    let run = run_bebop(&args)?;
    let (code, verdict) = match expect {
        Expect::Safe => (cli_common::exit::SAFE, "VERIFICATION SUCCESSFUL"),
        Expect::Unsafe => (cli_common::exit::UNSAFE, "VERIFICATION FAILED"),
    };
    if run.code != code || run.first_line() != verdict {
        return Err(format!(
            "expected {expect:?}: exit code {code} and `{verdict}`; bebop {}: {}",
            args.join(" "),
            run.show()
        ));
    }
    if expect == Expect::Safe {
        return Ok(());
    }
    let mut problems = Vec::new();
    if let Err(e) = check_golden(&path.with_extension("expected"), &run.stdout) {
        problems.push(e);
    }
    let opts = header.parse_options();
    match bp_grammar::parse_with(&src, &opts) {
        Ok(prog) => problems.extend(check_json_trace(&prog, &src, &json, &name, &header)),
        Err(e) => problems.push(format!("bp_grammar::parse rejects it: {e:?}")),
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

#[test]
fn ok_programs() {
    let files = bp_files("ok");
    let mut failures = Vec::new();
    for path in &files {
        if let Err(e) = check_ok_program(path) {
            failures.push(format!("ok/{}: {e}", file_name(path)));
        }
    }
    report("ok/ programs", files.len(), failures);
}

/// An error bebop reported: line, column, code.
#[derive(Debug)]
struct Reported {
    line: u32,
    col: u32,
    code: String,
    text: String,
}

/// The errors in bebop's stderr, rendered `FILE:LINE:COL: error[CODE]: ...`.
fn reported_errors(stderr: &str, file: &str) -> Vec<Reported> {
    let mut out = Vec::new();
    for line in stderr.lines() {
        let Some(rest) = line.strip_prefix(file).and_then(|r| r.strip_prefix(':')) else {
            continue;
        };
        let mut parts = rest.splitn(3, ':');
        let (Some(l), Some(c), Some(tail)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let (Ok(l), Ok(c)) = (l.parse(), c.parse()) else {
            continue;
        };
        let Some(code) = tail
            .trim_start()
            .strip_prefix("error[")
            .and_then(|t| t.split_once(']'))
            .map(|(code, _)| code.to_string())
        else {
            continue; // a warning or a note
        };
        out.push(Reported {
            line: l,
            col: c,
            code,
            text: line.to_string(),
        });
    }
    out
}

/// One `err/` program: exit code 2, and exactly the expected errors.
fn check_err_program(path: &Path) -> Result<(), String> {
    let src = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let header = Header::parse(&src);
    if !header.problems.is_empty() {
        return Err(header.problems.join("; "));
    }
    if header.errors.is_empty() {
        return Err("no expected error (`// error: CODE` or `// expect-error: POS CODE`)".into());
    }
    let name = cli_path(path);
    let mut args = header.flags.clone();
    args.push(name.clone());
    let run = run_bebop(&args)?;
    let mut problems = Vec::new();
    if run.code != cli_common::exit::INPUT_ERROR {
        problems.push(format!(
            "expected exit code {} (input error), got {}",
            cli_common::exit::INPUT_ERROR,
            run.code
        ));
    }
    if run.stdout.contains("VERIFICATION") {
        problems.push("a verdict was printed for an ill-formed program".into());
    }
    let reported = reported_errors(&run.stderr, &name);
    let mut used = vec![false; reported.len()];
    for (pos, code) in &header.errors {
        let hit = reported
            .iter()
            .enumerate()
            .find(|(k, r)| !used[*k] && r.code == *code && pos.matches(r.line, r.col));
        match hit {
            Some((k, _)) => used[k] = true,
            None => problems.push(format!(
                "expected error[{code}] at {} is missing",
                pos.show()
            )),
        }
    }
    for (r, _) in reported.iter().zip(&used).filter(|(_, u)| !**u) {
        problems.push(format!(
            "unexpected error[{}] at {}:{}: {}",
            r.code, r.line, r.col, r.text
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{}\n{}", problems.join("\n"), run.show()))
    }
}

#[test]
fn err_programs() {
    let files = bp_files("err");
    let mut failures = Vec::new();
    for path in &files {
        if let Err(e) = check_err_program(path) {
            failures.push(format!("err/{}: {e}", file_name(path)));
        }
    }
    report("err/ programs", files.len(), failures);
}

/// Every `ok/` program parses, passes the checker (with exactly the expected warnings), and
/// round-trips through the printer: `parse(print(p)) == p`, under both precedences (the
/// printer parenthesises fully).
#[test]
fn ok_programs_round_trip() {
    let files = bp_files("ok");
    let mut failures = Vec::new();
    for path in &files {
        let name = format!("ok/{}", file_name(path));
        let src = std::fs::read_to_string(path).expect("readable");
        let header = Header::parse(&src);
        let prog = match bp_grammar::parse_with(&src, &header.parse_options()) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{name}: does not parse: {e:?}"));
                continue;
            }
        };
        let diags = bp_grammar::check(&prog, &src);
        let errors: Vec<String> = diags
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.render(&name))
            .collect();
        if !errors.is_empty() {
            failures.push(format!(
                "{name}: checker errors:\n  {}",
                errors.join("\n  ")
            ));
        }
        let warnings: Vec<String> = diags
            .iter()
            .filter(|d| !d.is_error())
            .map(|d| d.code.clone())
            .collect();
        if warnings != header.warnings {
            failures.push(format!(
                "{name}: checker warnings {warnings:?}, expected {:?}",
                header.warnings
            ));
        }
        let printed = bp_grammar::print(&prog);
        for prec in [Precedence::Moped, Precedence::Cprover] {
            let opts = ParseOptions { precedence: prec };
            match bp_grammar::parse_with(&printed, &opts) {
                Ok(again) if again == prog => {}
                Ok(_) => failures.push(format!(
                    "{name}: parse(print(p)) != p under {prec:?} precedence; printed:\n{}",
                    indent(&printed)
                )),
                Err(e) => failures.push(format!(
                    "{name}: the printed program does not parse under {prec:?} precedence: {e:?}\n{}",
                    indent(&printed)
                )),
            }
        }
    }
    report("ok/ round trips", files.len(), failures);
}

/// The expectations themselves, checked against the reference interpreter (independent of
/// bebop): a wrong `// expect:` would otherwise only show up as a disagreement with bebop.
#[test]
fn ok_expectations_agree_with_reference_interpreter() {
    let files = bp_files("ok");
    let mut failures = Vec::new();
    for path in &files {
        let name = format!("ok/{}", file_name(path));
        let src = std::fs::read_to_string(path).expect("readable");
        let header = Header::parse(&src);
        let Ok(prog) = bp_grammar::parse_with(&src, &header.parse_options()) else {
            continue; // reported by ok_programs_round_trip
        };
        let Some(expect) = header.expect else {
            continue; // reported by suite_is_complete
        };
        match bp_testkit::reference::try_reachable_error(&prog, &header.property()) {
            Ok(unsafe_) => {
                let got = if unsafe_ {
                    Expect::Unsafe
                } else {
                    Expect::Safe
                };
                if got != expect {
                    failures.push(format!(
                        "{name}: expects {expect:?}, the reference interpreter says {got:?}"
                    ));
                }
            }
            Err(e) => failures.push(format!("{name}: the reference interpreter fails: {e}")),
        }
    }
    report("ok/ expectations vs reference", files.len(), failures);
}

/// The suite's own bookkeeping: enough files, every header present, one golden per unsafe
/// program and no stray golden.
#[test]
fn suite_is_complete() {
    let ok = bp_files("ok");
    let err = bp_files("err");
    let mut failures = Vec::new();
    if ok.len() < 45 {
        failures.push(format!("only {} ok/ programs (want at least 45)", ok.len()));
    }
    if err.len() < 20 {
        failures.push(format!(
            "only {} err/ programs (want at least 20)",
            err.len()
        ));
    }
    let mut unsafe_names = BTreeSet::new();
    for path in ok.iter().chain(&err) {
        let src = std::fs::read_to_string(path).expect("readable");
        let header = Header::parse(&src);
        let name = file_name(path);
        let is_ok = ok.contains(path);
        if header.what.is_none() {
            failures.push(format!("{name}: no `// what:` header"));
        }
        if is_ok && header.expect.is_none() {
            failures.push(format!("{name}: no `// expect:` header"));
        }
        if !is_ok && header.expect.is_some() {
            failures.push(format!(
                "{name}: an err/ program with an `// expect:` header"
            ));
        }
        if header.expect == Some(Expect::Unsafe) {
            unsafe_names.insert(path.with_extension("expected"));
        }
    }
    for golden in &unsafe_names {
        if !golden.is_file() && !updating() {
            failures.push(format!(
                "{}: missing (bless with `{BLESS}`)",
                file_name(golden)
            ));
        }
    }
    let dir = data_dir("ok");
    for entry in std::fs::read_dir(&dir).expect("ok/ exists").flatten() {
        let p = entry.path();
        if p.extension().is_some_and(|x| x == "expected") && !unsafe_names.contains(&p) {
            failures.push(format!(
                "{}: a golden file without an unsafe program",
                file_name(&p)
            ));
        }
    }
    report("suite bookkeeping", ok.len() + err.len(), failures);
}

/// The harness itself: the trace checks and the replay reject traces that were tampered with
/// (so that a passing `ok_programs` means something).
#[test]
fn trace_checks_catch_tampered_traces() {
    let path = data_dir("ok").join("annotations.bp");
    let src = std::fs::read_to_string(&path).expect("readable");
    let header = Header::parse(&src);
    let prog = bp_grammar::parse(&src).expect("parses");
    let name = cli_path(&path);
    let json = trace_json_path("tamper", &path);
    let args = vec![
        "--trace-json".to_string(),
        json.display().to_string(),
        name.clone(),
    ];
    let run = run_bebop(&args).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.code, cli_common::exit::UNSAFE, "{}", run.show());
    let text = std::fs::read_to_string(&json).expect("bebop wrote the JSON trace");
    let _ = std::fs::remove_file(&json);
    let trace = Trace::from_json(&text).expect("the JSON trace parses");
    let checks = |t: &Trace| check_trace(&prog, &src, t, &name, None, header.min_depth);
    let replays = |t: &Trace| bp_testkit::replay::replay(&prog, t, &header.property()).is_ok();
    assert_eq!(checks(&trace), Vec::<String>::new());
    assert!(replays(&trace));
    assert!(
        trace.steps.len() >= 4 && !trace.steps[0].annotations.is_empty(),
        "annotations.bp's trace has changed shape; adapt this test"
    );

    let mut t = trace.clone();
    t.steps[0].annotations.0.clear();
    assert!(!checks(&t).is_empty(), "lost annotations not noticed");

    let mut t = trace.clone();
    t.header.0.clear();
    assert!(!checks(&t).is_empty(), "lost header not noticed");

    let mut t = trace.clone();
    t.steps.pop();
    assert!(
        !checks(&t).is_empty(),
        "a trace without its error step not noticed"
    );

    let mut t = trace.clone();
    t.steps[0].depth = 1;
    assert!(!checks(&t).is_empty(), "a wrong depth not noticed");

    let mut t = trace.clone();
    t.steps[1].before.insert("l".into(), false);
    assert!(
        !checks(&t).is_empty(),
        "a broken before/after chain not noticed"
    );

    // `l := T` ending with l = F, consistently in both steps: only the replay can tell.
    let mut t = trace.clone();
    t.steps[0].after.insert("l".into(), false);
    t.steps[1].before.insert("l".into(), false);
    assert!(
        !replays(&t),
        "an impossible transition not noticed by the replay"
    );
}
