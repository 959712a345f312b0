//! Task definitions read by `svcomp::task::load`: SV-COMP's block and flow YAML styles alike,
//! the data model under `options`, and every error located as `file:line:column` (never `:0:`),
//! a missing input file named by the `.yml` that names it.

use std::path::{Path, PathBuf};

/// A directory of its own for each task file (the tests run in parallel).
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("svcomp-task-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    std::fs::write(d.join("prog.c"), "int main(void) { return 0; }\n").expect("c file");
    std::fs::write(
        d.join("unreach-call.prp"),
        "CHECK( init(main()), LTL(G ! call(reach_error())) )\n",
    )
    .expect("prp");
    d
}

fn task(name: &str, yml: &str) -> (PathBuf, Result<svcomp::task::Task, svcomp::task::TaskError>) {
    let p = dir(name).join(name);
    std::fs::write(&p, yml).expect("yml");
    let r = svcomp::task::load(&p);
    (p, r)
}

#[test]
fn block_and_flow_styles_read_alike() {
    let (_, block) = task(
        "block.yml",
        "format_version: '2.0'\n# a comment\ninput_files: 'prog.c'\nproperties:\n  \
         - property_file: ../properties/termination.prp\n    expected_verdict: false\n  \
         - property_file: unreach-call.prp  # the one read\n    expected_verdict: true\n\
         options:\n  language: C\n  data_model: LP64\n",
    );
    let block = block.expect("block style");
    let (_, flow) = task(
        "flow.yml",
        "format_version: \"2.0\"\ninput_files: [prog.c]\nproperties:\n  \
         - {property_file: ../properties/termination.prp, expected_verdict: false}\n  \
         - {property_file: unreach-call.prp, expected_verdict: true}\n\
         options: {language: C, data_model: LP64}\n",
    );
    let flow = flow.expect("flow style");
    let fields = |t: &svcomp::task::Task| {
        (
            t.data_model,
            t.error_fns.clone(),
            t.expected,
            t.warnings.clone(),
            t.c_file.file_name().map(|f| f.to_owned()),
        )
    };
    assert_eq!(fields(&block), fields(&flow));
    assert_eq!(block.expected, Some(true));
    assert_eq!(block.data_model, svcomp::DataModel::Lp64);
    assert_eq!(block.error_fns, vec!["reach_error".to_string()]);
    assert!(block.c_file.ends_with("prog.c"));
}

#[track_caller]
fn fails_at(name: &str, yml: &str, at: &str, says: &str) {
    let (p, r) = task(name, yml);
    let e = r.expect_err("an error");
    let shown = e.to_string();
    assert!(
        shown.starts_with(&format!("{}:{at}: ", p.display())),
        "{shown} (expected at {at})"
    );
    assert!(shown.contains(says), "{shown}");
    assert!(e.line >= 1 && e.col >= 1, "{e:?}");
}

#[test]
fn errors_are_located() {
    fails_at(
        "missing.yml",
        "format_version: '2.0'\ninput_files: 'absent.c'\nproperties:\n  - property_file: unreach-call.prp\n",
        "2:14",
        "absent.c does not exist",
    );
    fails_at(
        "noprop.yml",
        "format_version: '2.0'\ninput_files: prog.c\nproperties:\n  - property_file: termination.prp\n",
        "4:3",
        "no unreach-call property",
    );
    fails_at(
        "verdict.yml",
        "input_files: prog.c\nproperties:\n  - {property_file: unreach-call.prp, expected_verdict: maybe}\n",
        "3:57",
        "unknown verdict `maybe`",
    );
    fails_at(
        "two.yml",
        "input_files:\n  - a.c\n  - b.c\nproperties: []\n",
        "2:3",
        "one input file",
    );
    fails_at(
        "bad.yml",
        "input_files: [prog.c\nproperties: x\n",
        "2:11",
        "not valid YAML",
    );
    fails_at("scalar.yml", "just text\n", "1:1", "a YAML mapping");
    fails_at(
        "model.yml",
        "input_files: prog.c\nproperties:\n  - property_file: unreach-call.prp\noptions:\n  data_model: ILP64\n",
        "5:15",
        "unknown data model",
    );
}

#[test]
fn a_missing_i_file_falls_back_to_the_c_file_with_a_warning() {
    let (_, r) = task(
        "dot-i.yml",
        "input_files: prog.i\nproperties:\n  - property_file: unreach-call.prp\n",
    );
    let t = r.expect("the .c stands in");
    assert!(t.c_file.ends_with(Path::new("prog.c")));
    assert_eq!(t.warnings.len(), 1, "{:?}", t.warnings);
}
