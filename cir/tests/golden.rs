//! Golden IR dumps: each `tests/data/NAME.c` is lowered and printed; the text must
//! equal `tests/data/NAME.ir`. `UPDATE_EXPECT=1 cargo nextest run -p cir --test golden`
//! rewrites the expected files (the workspace's convention, `bp_testkit::expect`; read the diff
//! before committing). Options per file: `errors.c` adds the error
//! function `error` and the error label `ERROR`; reads of constant globals are replaced
//! ([`cir::constprop`]) only in `constprop*.c`, so the other dumps show the lowering alone.

use std::path::Path;

fn options(name: &str) -> cir::LowerOptions {
    let mut o = cir::LowerOptions {
        keep_global_reads: !name.starts_with("constprop"),
        ..cir::LowerOptions::default()
    };
    if name == "errors" {
        o.error_fns.push("error".into());
        o.error_labels.push("ERROR".into());
    }
    o
}

#[test]
fn golden_ir_dumps() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/data exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    entries.sort();
    assert!(!entries.is_empty());
    let mut failures = Vec::new();
    for c in entries {
        let name = c.file_stem().expect("stem").to_string_lossy().to_string();
        let prog = cir::load_file(Path::new(&c), &options(&name))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        // The dump names the data directory `DATA`, so it does not depend on the checkout path.
        let text = prog.to_string().replace(&dir.display().to_string(), "DATA");
        if let Err(e) = bp_testkit::expect::check_file(
            &c.with_extension("ir"),
            &text,
            "UPDATE_EXPECT=1 cargo nextest run -p cir --test golden",
        ) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "golden mismatches:\n{}",
        failures.join("\n")
    );
}
