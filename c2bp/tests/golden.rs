//! Golden abstractions: each `tests/data/golden/NAME.c` with
//! `NAME.preds` is abstracted with the default options and the text, followed by bebop's
//! verdict, must equal `NAME.bp` (`errors.c` once per error convention: `errors.fn.bp`,
//! `errors.label.bp`, `errors.assert.bp`). The workspace's one blessing convention
//! (`bp_testkit::expect`): a difference fails with a diff, and [`BLESS`] rewrites the expected
//! files; read the diff before committing.
//!
//! What each file shows is said in its first comment: assignments (the §3.4 hand example),
//! aliasing through a pointer, structure fields, formal and return predicates, mod/ref through a
//! pointer argument, recursion, unsigned wrap-around with a signed/unsigned comparison, the
//! Constrain paper's Fig. 1, and each error convention.

mod common;

use std::path::Path;

/// The command that rewrites the golden files.
const BLESS: &str = "UPDATE_EXPECT=1 cargo test -p c2bp --test golden";

#[test]
fn golden_abstractions() {
    let dir = common::data_dir();
    let mut cs: Vec<_> = std::fs::read_dir(&dir)
        .expect("golden dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    cs.sort();
    assert!(cs.len() >= 9, "golden inputs missing: {}", cs.len());
    let mut failures = Vec::new();
    for c in &cs {
        let name = c.file_stem().expect("stem").to_string_lossy().to_string();
        for (out_name, lower) in common::golden_variants(&name) {
            let prog = common::load(c, &lower);
            let preds = common::preds(&prog, Some(&c.with_extension("preds")));
            let out = common::abstract_file(c, &prog, &preds, &c2bp::Options::default());
            let verdict = if common::bebop_unsafe(&out.text) {
                "VERIFICATION FAILED"
            } else {
                "VERIFICATION SUCCESSFUL"
            };
            let text = format!("{}// bebop: {verdict}\n", out.text);
            let expected_path = dir.join(format!("{out_name}.bp"));
            if let Err(e) = bp_testkit::expect::check_file(&expected_path, &text, BLESS) {
                failures.push(format!("{out_name}: {e}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden abstraction(s) differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The verdicts the goldens record are the expected ones (independent of the golden text).
#[test]
fn golden_verdicts() {
    let dir = common::data_dir();
    let expect_safe = [
        "pointers",
        "structs",
        "calls",
        "modref",
        "recursion",
        "unsigned",
    ];
    let expect_unsafe = ["assign", "fig1", "errors"];
    for (names, unsafe_) in [(&expect_safe[..], false), (&expect_unsafe[..], true)] {
        for name in names {
            let c = dir.join(format!("{name}.c"));
            for (v, lower) in common::golden_variants(name) {
                let prog = common::load(Path::new(&c), &lower);
                let preds = common::preds(&prog, Some(&c.with_extension("preds")));
                let out = common::abstract_file(&c, &prog, &preds, &c2bp::Options::default());
                assert_eq!(
                    common::bebop_unsafe(&out.text),
                    unsafe_,
                    "{v}: unexpected verdict\n{}",
                    out.text
                );
            }
        }
    }
}

/// The same input gives byte-for-byte the same output, whatever the thread schedule.
#[test]
fn output_is_deterministic() {
    let dir = common::data_dir();
    let c = dir.join("modref.c");
    let prog = common::load(&c, &cir::LowerOptions::default());
    let preds = common::preds(&prog, Some(&c.with_extension("preds")));
    let a = common::abstract_file(&c, &prog, &preds, &c2bp::Options::default()).text;
    for threads in [1, 2, 4] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        let b = pool
            .install(|| common::abstract_file(&c, &prog, &preds, &c2bp::Options::default()).text);
        assert_eq!(a, b, "output differs with {threads} threads");
    }
}
