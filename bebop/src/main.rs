//! The `bebop` command: see [`bebop::cli`].

/// mimalloc rather than the system allocator: the BDD library allocates and frees a vector for
/// every operation, and the parse and the lowering build many small nodes.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // Lossily: a path that is not UTF-8 then fails to open with a message, not a panic.
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut out = cli_common::output::stdout();
    bebop::cli::exit_after_run();
    let code = bebop::cli::run_cli(args, &mut out, &mut std::io::stderr());
    if let Err(e) = out.check() {
        eprintln!("bebop: cannot write to standard output: {e}");
        std::process::exit(cli_common::exit::INTERNAL);
    }
    std::process::exit(code);
}
