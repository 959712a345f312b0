//! Allocation never fails (SV-COMP's convention for `malloc` and its kin): the lowering assumes
//! malloc's result non-null, so with the branch conditions as predicates the abstraction proves
//! that `p == 0` cannot hold after `p = malloc(...)`.

mod common;

#[test]
fn malloc_result_is_not_null() {
    let dir = std::env::temp_dir().join(format!("c2bp-alloc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let c = dir.join("alloc.c");
    std::fs::write(
        &c,
        "#include <stdlib.h>\nvoid reach_error(void);\nint main(void) {\n  \
         int *p = malloc(sizeof(int));\n  if (p == 0) reach_error();\n  *p = 1;\n  return 0;\n}\n",
    )
    .expect("write");
    let prog = common::load(&c, &cir::LowerOptions::default());
    let preds = cir::pred::branch_predicates(&prog);
    let out = common::abstract_file(&c, &prog, &preds, &c2bp::Options::default());
    assert!(!common::bebop_unsafe(&out.text), "{}", out.text);
    // Without a predicate about the result, the check is (soundly) lost.
    let none = cir::pred::PredicateSet::default();
    let out = common::abstract_file(&c, &prog, &none, &c2bp::Options::default());
    assert!(common::bebop_unsafe(&out.text), "{}", out.text);
}
