//! Front-end and lowering errors carry file:line:col; unsupported constructs are rejected with
//! a message, never a panic.

use std::io::Write as _;

fn lower_text(name: &str, text: &str) -> Result<cir::Program, cir::CirError> {
    let dir = std::env::temp_dir().join(format!("cir-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    let mut f = std::fs::File::create(&path).expect("create");
    f.write_all(text.as_bytes()).expect("write");
    cir::load_program(&path, &cir::LowerOptions::default())
}

#[test]
fn syntax_error_has_position_in_user_file() {
    let e = lower_text("syn.c", "int main(void) {\n  int x = ;\n}\n").expect_err("syntax error");
    let cir::CirError::Syntax { loc, .. } = &e else {
        panic!("not a syntax error: {e}")
    };
    assert!(loc.file.ends_with("syn.c"), "{e}");
    assert_eq!((loc.line, loc.col), (2, 11), "{e}");
}

#[test]
fn positions_survive_macros_and_includes() {
    let p = lower_text(
        "mac.c",
        "#include <limits.h>\n#define INC(v) v = v + 1\nint main(void) {\n  int x = INT_MAX;\n  INC(x);\n  return x;\n}\n",
    )
    .expect("lowers");
    let main = p.function("main").expect("main");
    let lines: Vec<u32> = main.edges.iter().map(|e| e.pos.line).collect();
    assert_eq!(lines, vec![4, 5, 6]);
    assert!(main.edges.iter().all(|e| e.pos.file == 0));
}

#[test]
fn compound_literal_is_rejected_with_position() {
    let e = lower_text(
        "complit.c",
        "struct P { int a; };\nint main(void) {\n  struct P p = (struct P){ 1 };\n  return p.a;\n}\n",
    )
    .expect_err("rejected");
    assert!(matches!(e, cir::CirError::Unsupported { .. }), "{e}");
    assert!(e.to_string().contains("complit.c:3:"), "{e}");
}

#[test]
fn statement_expression_is_lowered() {
    let p = lower_text(
        "stmtexpr.c",
        "int main(void) {\n  int x = ({ int z = 2; z + 1; });\n  return x;\n}\n",
    )
    .expect("lowers");
    let text = p.to_string();
    assert!(text.contains("z := 2"), "{text}");
    assert!(text.contains("z + 1"), "{text}");
}

#[test]
fn undefined_label_is_an_error() {
    let e = lower_text("lab.c", "int main(void) {\n  goto nowhere;\n}\n").expect_err("rejected");
    assert!(e.to_string().contains("nowhere"), "{e}");
}

#[test]
fn lp64_changes_long_constants_and_sizeof() {
    let src = "int main(void) {\n  unsigned long s = sizeof(long);\n  return 0;\n}\n";
    let ilp = lower_text("dm32.c", src).expect("lowers").to_string();
    assert!(ilp.contains("s := 4u"), "{ilp}");
    let dir = std::env::temp_dir().join(format!("cir-test-{}", std::process::id()));
    let opts = cir::LowerOptions {
        data_model: cir::DataModel::Lp64,
        ..Default::default()
    };
    let lp = cir::load_file(&dir.join("dm32.c"), &opts)
        .expect("lowers")
        .to_string();
    assert!(lp.contains("s := 8ul"), "{lp}");
}

#[test]
fn constants_get_c_types() {
    let p = lower_text(
        "consts.c",
        "int main(void) {\n  long long a = 2147483648;\n  unsigned b = 0xffffffff;\n  int c = 'A';\n  return -1 < 1u;\n}\n",
    )
    .expect("lowers")
    .to_string();
    assert!(p.contains("a := 2147483648ll"), "{p}");
    assert!(p.contains("b := 4294967295u"), "{p}");
    assert!(p.contains("c := 65"), "{p}");
    assert!(p.contains("return -1 < 1u"), "{p}");
}

#[test]
fn warnings_from_unused_header_functions_are_dropped() {
    // <stdlib.h> brings static inline helpers that call undeclared builtins; main uses none.
    // An unused function of the user's own file keeps its warnings.
    let p = lower_text(
        "hdr.c",
        "#include <stdlib.h>\nint unused(void) { return undeclared_fn(); }\n\
         int main(void) { return 0; }\n",
    )
    .expect("lowers");
    assert!(
        p.warnings.iter().all(|w| w.pos.file == 0),
        "header warnings left: {:?}",
        p.warnings
    );
    assert!(
        p.warnings
            .iter()
            .any(|w| w.message.contains("undeclared_fn")),
        "{:?}",
        p.warnings
    );
}

#[test]
fn allocation_never_fails() {
    // SV-COMP's convention: malloc's result is assumed non-null right after the call.
    let p = lower_text(
        "alloc.c",
        "#include <stdlib.h>\nint main(void) {\n  int *p = malloc(sizeof(int));\n  \
         malloc(1);\n  return p == 0;\n}\n",
    )
    .expect("lowers");
    let text = p.to_string();
    // `malloc(sizeof(int))` allocates an `int`: its result is typed `int *`.
    assert!(text.contains("assume(malloc#ret#1 != (int *)0)"), "{text}");
    // A discarded result needs no assumption.
    assert_eq!(text.matches("assume(").count(), 1, "{text}");
}

#[test]
fn a_program_without_main_is_an_input_error() {
    for (name, text, what) in [
        ("empty.c", "", "declares nothing"),
        (
            "nomain.c",
            "int f(int x) { return x; }\n",
            "no function `main`",
        ),
        ("proto.c", "int main(void);\n", "no function `main`"),
    ] {
        let e = lower_text(name, text).expect_err("no main");
        let cir::CirError::Invalid { loc, message } = &e else {
            panic!("{name}: not an input error: {e}")
        };
        assert!(loc.file.ends_with(name) && loc.line >= 1, "{e}");
        assert!(message.contains(what), "{e}");
    }
}

#[test]
fn calls_must_match_the_prototype() {
    let e = lower_text(
        "arity.c",
        "int f(int a, int b) { return a + b; }\nint main(void) { return f(1); }\n",
    )
    .expect_err("too few arguments");
    assert!(
        e.to_string()
            .contains("arity.c:2:25: `f` takes 2 arguments, but 1 is given"),
        "{e}"
    );
    let e = lower_text(
        "arity2.c",
        "int g(void);\nint main(void) { return g(1, 2); }\n",
    )
    .expect_err("too many arguments");
    assert!(
        e.to_string()
            .contains("`g` takes 0 arguments, but 2 are given"),
        "{e}"
    );
    // An old-style declaration and `...` take more; printf-like calls stay fine.
    lower_text(
        "arity3.c",
        "int h();\nint v(int n, ...);\nint main(void) { return h(1, 2) + v(1, 2, 3); }\n",
    )
    .expect("no prototype, or variadic");
}

#[test]
fn deep_nesting_is_a_located_error_not_a_stack_overflow() {
    let n = 5000;
    let text = format!(
        "int main(void) {{\n  int x = {}1{};\n  return x;\n}}\n",
        "(".repeat(n),
        ")".repeat(n)
    );
    let e = lower_text("deep.c", &text).expect_err("too deep");
    let cir::CirError::Unsupported { loc, what } = &e else {
        panic!("not located: {e}")
    };
    // `{` of main is the first level: the 1000th parenthesis is one too many.
    assert_eq!(
        (loc.line, loc.col),
        (2, 10 + cir::frontend::MAX_NESTING as u32),
        "{e}"
    );
    assert!(what.contains("nesting deeper than"), "{e}");
    let minus = format!(
        "int main(void) {{\n  int x = 1;\n  return {}x;\n}}\n",
        "- ".repeat(n)
    );
    assert!(lower_text("minus.i", &minus).is_err());
    // Within the limit, and the chains no bracket shows (casts, `else if`), parse on the
    // front end's large stack whatever the caller's.
    let ok = format!(
        "int main(void) {{\n  int x = {}1{};\n  return x;\n}}\n",
        "(".repeat(900),
        ")".repeat(900)
    );
    let elses = format!(
        "int main(void) {{\n  int x = 0;\n  {}x = 2;\n  return (int){}x;\n}}\n",
        "if (x == 1) x = 1; else ".repeat(4000),
        "(int)".repeat(4000)
    );
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            lower_text("ok.i", &ok).expect("900 levels");
            lower_text("elses.i", &elses).expect("4000 else-ifs and casts");
        })
        .expect("thread")
        .join()
        .expect("no overflow on a small caller stack");
}

#[test]
fn runs_of_increments_are_refused_before_the_parser_backtracks_over_them() {
    // Without an operand, lang-c's time doubles with each `--`: 40 took hours.
    let n = 40;
    for body in ["--".repeat(n), "-- !".repeat(n), "+-+".repeat(n)] {
        let text = format!("void f(int c) {{\n  {body}");
        let e = lower_text("incdec.i", &text).expect_err("refused");
        let cir::CirError::Unsupported { loc, what } = &e else {
            panic!("not located: {e}")
        };
        assert_eq!(loc.line, 2, "{e}");
        assert!(what.contains("`++`/`--` in a row"), "{e}");
    }
    // What programs write stays accepted.
    let ok =
        "int main(void) {\n  int x = 0, *p = &x;\n  x = - --x + ++*p - -x;\n  return !!x;\n}\n";
    lower_text("ok.i", ok).expect("ordinary increments");
}
