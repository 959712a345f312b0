//! The `bp-fmt` command: see [`bebop::fmt`].

fn main() {
    // Lossily: a path that is not UTF-8 then fails to open with a message, not a panic.
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut out = cli_common::output::stdout();
    let code = bebop::fmt::run_fmt(args, &mut out, &mut std::io::stderr());
    if let Err(e) = out.check() {
        eprintln!("bp-fmt: cannot write to standard output: {e}");
        std::process::exit(cli_common::exit::INTERNAL);
    }
    std::process::exit(code);
}
