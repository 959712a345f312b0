//! The bundled Boolean programs the README's bebop section runs give the answers it promises:
//! `examples/bebop/lock-coarse.bp` reaches `SLIC_ERROR` (exit 10), `lock.bp` is safe (exit 0).

fn bebop(file: &str) -> (i32, String) {
    let path = format!("{}/examples/bebop/{file}", env!("CARGO_MANIFEST_DIR"));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = bebop::cli::run_cli(vec!["bebop".into(), path], &mut out, &mut err);
    assert!(
        err.is_empty() || code != cli_common::exit::INPUT_ERROR,
        "{file}: {}",
        String::from_utf8_lossy(&err)
    );
    (code, String::from_utf8_lossy(&out).into_owned())
}

#[test]
fn coarse_lock_example_reaches_the_error() {
    let (code, out) = bebop("lock-coarse.bp");
    assert_eq!(code, cli_common::exit::UNSAFE, "{out}");
    assert!(out.starts_with("VERIFICATION FAILED"), "{out}");
    assert!(out.contains("SLIC_ERROR"), "{out}");
}

#[test]
fn lock_example_with_the_second_predicate_is_safe() {
    let (code, out) = bebop("lock.bp");
    assert_eq!(code, cli_common::exit::SAFE, "{out}");
    assert_eq!(out.lines().next(), Some("VERIFICATION SUCCESSFUL"));
}
