//! Golden IR dumps: each `tests/data/NAME.c` is lowered and printed; the text must
//! equal `tests/data/NAME.ir`. `UPDATE_EXPECT=1 cargo test -p cir --test golden` rewrites the
//! expected files (read them before committing). Options per file: `errors.c` adds the error
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
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
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
        // run from the data directory so the dump does not depend on the checkout path
        let prog = cir::load_file(Path::new(&c), &options(&name))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut text = prog.to_string();
        text = text.replace(&dir.display().to_string(), "DATA");
        let ir = c.with_extension("ir");
        if update {
            std::fs::write(&ir, &text).expect("write expected");
            continue;
        }
        let expected = std::fs::read_to_string(&ir).unwrap_or_default();
        if expected != text {
            let mut diff = String::new();
            for (i, (a, b)) in expected.lines().zip(text.lines()).enumerate() {
                if a != b {
                    diff = format!("first difference at line {}:\n- {a}\n+ {b}", i + 1);
                    break;
                }
            }
            if diff.is_empty() {
                diff = format!(
                    "lengths differ: {} vs {} lines",
                    expected.lines().count(),
                    text.lines().count()
                );
            }
            failures.push(format!("{name}: {diff}\n--- got ---\n{text}"));
        }
    }
    assert!(
        failures.is_empty(),
        "golden mismatches (UPDATE_EXPECT=1 to bless):\n{}",
        failures.join("\n")
    );
}
