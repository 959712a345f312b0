//! The `bebop` command: see [`bebop::cli`].

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let code = bebop::cli::run_cli(args, &mut std::io::stdout(), &mut std::io::stderr());
    std::process::exit(code);
}
