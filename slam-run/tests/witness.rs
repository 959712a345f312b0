//! Violation witnesses (issue 6 §2, acceptance 2) on the bundled examples and the NDF suite's
//! mutants: slam-run's witness for each FALSE verdict checks (well-formed GraphML, required
//! keys, the program's hash, replayed on the concrete interpreter to the error), and a witness
//! that is wrong is refused — another program's hash, a changed input value, a missing key,
//! broken XML, a path that does not reach the violation node. The corpus's FALSE tasks are
//! checked by `corpus.rs`.

use std::path::{Path, PathBuf};

use cir::pred::PredicateSet;
use slam_run::Verdict;
use slam_run::witness::{WitnessInfo, check_violation, violation};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// slam-run (the library) on a C file; its witness text if FALSE.
fn witness_of(path: &Path, cube_len: Option<usize>) -> Option<(cir::Program, Vec<u8>, String)> {
    let source = std::fs::read(path).expect("source");
    let prog = cir::load_file(path, &cir::LowerOptions::default()).expect("lowers");
    let cfg = slam_run::Config {
        c2bp: c2bp::Options {
            cube_len,
            ..c2bp::Options::default()
        },
        max_iterations: 30,
        ..slam_run::Config::default()
    };
    let r = slam_run::run(
        &prog,
        path,
        &source,
        PredicateSet::default(),
        &cfg,
        &mut |_| {},
    )
    .expect("runs");
    let Verdict::False(cex) = &r.verdict else {
        return None;
    };
    let info = WitnessInfo {
        program_file: path.display().to_string(),
        source: source.clone(),
        data_model: cir::DataModel::default(),
        error_fns: vec!["reach_error".into()],
        producer: "slam-run test".into(),
    };
    let w = violation(&prog, cex, &info);
    Some((prog, source, w))
}

#[test]
fn the_bundled_bug_has_a_witness_that_replays() {
    let (prog, source, w) =
        witness_of(&root().join("examples/c/funlock-bug.c"), Some(3)).expect("FALSE");
    let c = check_violation(&prog, &source, &w).expect("the witness checks");
    assert!(c.values >= 1 && c.steps >= c.edges / 2, "{c:?}");
    for key in [
        "<data key=\"witness-type\">violation_witness</data>",
        "<data key=\"sourcecodelang\">C</data>",
        "<data key=\"architecture\">32bit</data>",
        "<data key=\"entry\">true</data>",
        "<data key=\"violation\">true</data>",
        "assumption.resultfunction\">__VERIFIER_nondet_int<",
        "<data key=\"enterFunction\">",
        "<data key=\"returnFromFunction\">",
    ] {
        assert!(w.contains(key), "the witness lacks {key}");
    }
    assert!(w.contains(&c2bp::sha256_hex(&source)));

    // Refused: another program's hash.
    let other = std::fs::read(root().join("examples/c/funlock.c")).expect("read");
    let e = check_violation(&prog, &other, &w).unwrap_err();
    assert!(e.0.contains("programhash"), "{e}");
    // Refused: broken XML, a key missing, an undeclared key.
    assert!(check_violation(&prog, &source, &w[..w.len() / 2]).is_err());
    let no_arch = w.replace("  <data key=\"architecture\">32bit</data>\n", "");
    assert!(
        check_violation(&prog, &source, &no_arch)
            .unwrap_err()
            .0
            .contains("architecture")
    );
    let undeclared = w.replace(
        " <key id=\"startline\" attr.name=\"startline\" attr.type=\"int\" for=\"edge\"/>\n",
        "",
    );
    assert!(
        check_violation(&prog, &source, &undeclared)
            .unwrap_err()
            .0
            .contains("startline")
    );
    // Refused: the path no longer reaches the violation node.
    let cut = w.replace("<data key=\"violation\">true</data>", "");
    assert!(check_violation(&prog, &source, &cut).is_err());
}

#[test]
fn a_witness_with_other_values_does_not_replay() {
    // The mutant of the NDF suite's step.c: x < y, then x + 1 compared with y. Its witness's
    // inputs lead to the error (x + 1 == y); a larger first value (x) makes the run miss it.
    let dir = std::env::temp_dir().join(format!("slam-witness-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let text = std::fs::read_to_string(root().join("slam-run/tests/data/ndf/step.c"))
        .expect("read")
        .replace(
            "if (!(x == y) && !(x < y))",
            "if (!(x + 1 == y) && !(x < y))",
        );
    let path = dir.join("step-mutant.c");
    std::fs::write(&path, text).expect("write");
    let (prog, source, w) = witness_of(&path, Some(3)).expect("FALSE");
    check_violation(&prog, &source, &w).expect("the witness checks");
    // The first `\result == V;` becomes `\result == V + 1000;`.
    let mut shifted = String::new();
    let mut first = true;
    for line in w.lines() {
        if let Some(rest) = line
            .trim()
            .strip_prefix("<data key=\"assumption\">\\result == ")
            .filter(|_| std::mem::take(&mut first))
        {
            let v: i128 = rest.trim_end_matches(";</data>").parse().expect("value");
            shifted.push_str(&format!(
                "   <data key=\"assumption\">\\result == {};</data>\n",
                v + 1000
            ));
        } else {
            shifted.push_str(line);
            shifted.push('\n');
        }
    }
    assert_ne!(shifted, w);
    let e = check_violation(&prog, &source, &shifted).unwrap_err();
    assert!(e.0.contains("without reaching the error"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
