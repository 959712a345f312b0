//! Command-line parsing for every tool: clap with the exit-code table appended to `--help`
//! ([`crate::exit::help`]) and every parse error a usage error ([`crate::exit::USAGE`], 1), not
//! clap's default of 2, which the table gives to input errors.

use std::ffi::OsString;
use std::io::Write;

use clap::Parser;

use crate::exit;

/// Parses `args` (the program name first) into `P`. `--help` ends with the exit-code table,
/// each code annotated by `notes`. On `--help`/`--version` the text goes to `out` and the
/// answer is `Err(0)`; on a bad command line the message goes to `err` and the answer is
/// `Err(1)`.
pub fn try_parse_from<P, I, T>(
    args: I,
    notes: &[(i32, &str)],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<P, i32>
where
    P: Parser,
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let mut cmd = P::command();
    let table = exit::help(notes);
    let after = match cmd.get_after_help() {
        Some(a) => format!("{a}\n\n{table}"),
        None => table,
    };
    cmd = cmd.after_help(after);
    let parsed = cmd
        .try_get_matches_from_mut(args)
        .and_then(|m| P::from_arg_matches(&m));
    match parsed {
        Ok(p) => Ok(p),
        Err(e) => {
            use clap::error::ErrorKind;
            let e = e.format(&mut cmd);
            match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = write!(out, "{}", e.render());
                    Err(exit::SAFE)
                }
                _ => {
                    let _ = write!(err, "{}", e.render());
                    Err(exit::USAGE)
                }
            }
        }
    }
}

/// A usage error found after parsing (options that contradict each other, a missing operand):
/// `message`, then clap's pointer to `--help`, on `err`; the answer is [`exit::USAGE`].
pub fn usage_error(err: &mut dyn Write, message: &str) -> i32 {
    let _ = writeln!(err, "{message}\n\nFor more information, try '--help'.");
    exit::USAGE
}

/// [`try_parse_from`] on the process's arguments; exits the process on `--help`, `--version`
/// and usage errors.
pub fn parse<P: Parser>(notes: &[(i32, &str)]) -> P {
    let mut out = crate::output::stdout();
    match try_parse_from(std::env::args_os(), notes, &mut out, &mut std::io::stderr()) {
        Ok(p) => p,
        Err(code) => {
            let _ = out.flush();
            std::process::exit(code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tool.
    #[derive(Parser, Debug)]
    #[command(name = "tool", after_help = "More text.")]
    struct Args {
        /// A number.
        #[arg(long)]
        n: u32,
    }

    fn run(args: &[&str]) -> (Result<Args, i32>, String, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let r = try_parse_from(args, &[(0, "done")], &mut out, &mut err);
        let s = |v: Vec<u8>| String::from_utf8(v).unwrap();
        (r, s(out), s(err))
    }

    #[test]
    fn usage_errors_exit_1_and_help_prints_the_table() {
        let (r, _, err) = run(&["tool", "--n", "x"]);
        assert_eq!(r.unwrap_err(), exit::USAGE, "{err}");
        assert!(err.contains("--n"), "{err}");
        let (r, _, _) = run(&["tool", "--bogus"]);
        assert_eq!(r.unwrap_err(), exit::USAGE);
        let (r, out, _) = run(&["tool", "--help"]);
        assert_eq!(r.unwrap_err(), exit::SAFE);
        assert!(out.contains("More text.") && out.contains(&exit::help(&[(0, "done")])));
        assert_eq!(run(&["tool", "--n", "3"]).0.unwrap().n, 3);
    }
}
