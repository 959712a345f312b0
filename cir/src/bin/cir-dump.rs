//! `cir-dump FILE.c`: prints the control-flow IR of a C file (for debugging and the golden
//! tests). Exit codes follow `cli_common::exit`'s table: 0 success, 1 usage, 2 input error.

use std::path::PathBuf;
use std::process::ExitCode;

use std::io::Write as _;

use cli_common::exit;

/// Print the control-flow IR of a C program.
#[derive(clap::Parser, Debug)]
#[command(name = "cir-dump", version)]
struct Args {
    /// The C file (`.c` is preprocessed with `gcc -E`; `.i` is read as is).
    file: PathBuf,
    /// A function whose call is the error (besides `reach_error`, `__VERIFIER_error`).
    #[arg(long = "error-fn", value_name = "NAME")]
    error_fn: Vec<String>,
    /// A label whose reaching is the error.
    #[arg(long = "error-label", value_name = "NAME")]
    error_label: Vec<String>,
    /// A failing `assert` (`__assert_fail`) is the error.
    #[arg(long)]
    assert: bool,
    /// Data model: ILP32 (default) or LP64.
    #[arg(long = "data-model", default_value = "ILP32")]
    data_model: cir::DataModel,
    /// Print reads of globals whose value is known as they are (by default they are replaced
    /// by the constant, as every tool sees the program).
    #[arg(long = "keep-global-reads")]
    keep_global_reads: bool,
}

fn main() -> ExitCode {
    let args: Args = cli_common::args::parse(&[(exit::SAFE, "the IR was printed")]);
    let opts = cir::LowerOptions {
        data_model: args.data_model,
        error_fns: args.error_fn,
        error_labels: args.error_label,
        assert_is_error: args.assert,
        keep_global_reads: args.keep_global_reads,
    };
    match cir::load_file(&args.file, &opts) {
        Ok(p) => {
            let mut stdout = cli_common::output::stdout();
            let _ = write!(stdout, "{p}");
            match stdout.check() {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("cir-dump: cannot write to standard output: {e}");
                    exit::code(exit::INTERNAL)
                }
            }
        }
        Err(e) => {
            eprintln!("cir-dump: {e}");
            exit::code(exit::INPUT_ERROR)
        }
    }
}
