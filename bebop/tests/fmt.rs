//! `bp-fmt`, run in-process through `bebop::fmt::run_fmt`: stdout, in place, `--check`, the
//! comments it refuses to drop; and the formatter's round trip on every `.bp` file of the
//! repository and of the external corpus (`../shared/corpus/bp/`, skipped when absent):
//! formatting twice gives the text of formatting once, and the formatted text parses to the
//! same program.

use std::path::{Path, PathBuf};

fn temp(name: &str, text: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("bp-fmt-{}-{name}", std::process::id()));
    std::fs::write(&p, text).expect("temp file");
    p
}

fn fmt(args: &[&str]) -> (i32, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut argv = vec!["bp-fmt".to_string()];
    argv.extend(args.iter().map(|s| s.to_string()));
    let code = bebop::fmt::run_fmt(argv, &mut out, &mut err);
    let s = |v: Vec<u8>| String::from_utf8(v).expect("utf-8");
    (code, s(out), s(err))
}

const MESSY: &str = "decl g;   void main() begin g:=T;if g then skip;fi; end";

#[test]
fn stdout_in_place_and_check() {
    let f = temp("messy.bp", MESSY);
    let path = f.to_str().expect("path");
    let (code, out, err) = fmt(&[path]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        bp_grammar::print(&bp_grammar::parse(MESSY).expect("parses"))
    );
    assert_eq!(
        std::fs::read_to_string(&f).expect("read"),
        MESSY,
        "stdout mode writes nothing"
    );
    let (code, _, err) = fmt(&["--check", path]);
    assert_eq!(code, 2);
    assert!(err.contains("not in canonical form"), "{err}");
    let (code, _, err) = fmt(&["-i", path]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(&f).expect("read"), out);
    let (code, _, err) = fmt(&["--check", path]);
    assert_eq!(code, 0, "{err}");
    // Usage: several files only in place or with --check.
    assert_eq!(fmt(&[path, path]).0, 1);
    assert_eq!(fmt(&["--check", "-i", path]).0, 1);
}

#[test]
fn comments_are_kept_or_the_file_is_refused() {
    let src = "// a comment\ndecl g;\n//@ line=3\nvoid main() begin g := T; /* why */ end\n";
    let f = temp("comments.bp", src);
    let path = f.to_str().expect("path");
    let (code, out, err) = fmt(&["-i", path]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains(":1:1: error[comment]"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&f).expect("read"),
        src,
        "not rewritten"
    );
    let (code, out, _) = fmt(&["--drop-comments", path]);
    assert_eq!(code, 0);
    assert!(out.contains("//@ line=3") && !out.contains("why"), "{out}");
}

#[test]
fn syntax_errors_are_reported_not_formatted() {
    let f = temp("bad.bp", "void main() begin\n  x := ;\nend\n");
    let (code, out, err) = fmt(&[f.to_str().expect("path")]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains(":2:8: error[syntax]"), "{err}");
}

fn bp_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "target" || n == ".git") {
                continue;
            }
            bp_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "bp") {
            out.push(p);
        }
    }
}

/// Formats every file that parses; the text must be a fixed point and mean the same program.
fn round_trip(files: &[PathBuf]) -> usize {
    let opts = bp_grammar::ParseOptions::default();
    let mut formatted = 0;
    for f in files {
        let Ok(src) = std::fs::read_to_string(f) else {
            continue;
        };
        let Ok(prog) = bp_grammar::parse(&src) else {
            continue; // the suite's files with syntax errors
        };
        let once =
            bebop::fmt::format(&src, &opts).unwrap_or_else(|e| panic!("{}: {e:?}", f.display()));
        let twice = bebop::fmt::format(&once, &opts)
            .unwrap_or_else(|e| panic!("{}: formatted text does not parse: {e:?}", f.display()));
        assert_eq!(once, twice, "{}: formatting is not idempotent", f.display());
        let reparsed = bp_grammar::parse(&once).expect("parses");
        assert!(
            reparsed == prog,
            "{}: the formatted program differs",
            f.display()
        );
        formatted += 1;
    }
    formatted
}

#[test]
fn formatting_is_idempotent_and_keeps_the_program_on_every_repository_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    bp_files(&root, &mut files);
    let n = round_trip(&files);
    assert!(n >= 50, "only {n} of {} .bp files formatted", files.len());
    eprintln!(
        "formatted {n} of the repository's {} .bp files",
        files.len()
    );
}

#[test]
fn formatting_is_idempotent_and_keeps_the_program_on_the_corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/bp");
    if !dir.is_dir() {
        eprintln!("SKIP: {} not found", dir.display());
        return;
    }
    let mut files = Vec::new();
    bp_files(&dir, &mut files);
    let n = round_trip(&files);
    assert_eq!(n, files.len(), "every corpus program parses");
    eprintln!("formatted all {n} corpus .bp files");
}
