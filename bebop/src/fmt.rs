//! The `bp-fmt` command: Boolean programs in the canonical layout of [`bp_grammar::print()`]
//! (`bp-fmt FILE` to standard output, `-i` in place, `--check` for CI).
//!
//! The canonical printer keeps annotations (`//@`, `//@@`) but not ordinary comments, so a file
//! with comments is not formatted unless `--drop-comments` says they may go: a formatter that
//! silently deletes a person's comments would be worse than none. Formatting needs only a
//! parse, not the checker: an ill-typed program is formatted too.

use clap::Parser;
use cli_common::exit;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Formats Boolean programs (.bp) in the canonical layout: one statement per line, two spaces
/// per level, every binary operation parenthesised (the same meaning under the Moped and the
/// CPROVER precedence), annotations kept.
#[derive(Parser, Debug)]
#[command(
    name = "bp-fmt",
    version,
    after_help = "Ordinary comments (// and /* */) are not kept by the canonical layout: a file \
                  with comments is an input error unless --drop-comments is given."
)]
pub struct FmtCli {
    /// The Boolean programs. Without --in-place or --check, exactly one, printed to stdout.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// Rewrite each file that is not in canonical form.
    #[arg(short = 'i', long)]
    pub in_place: bool,
    /// Write nothing: list the files that are not in canonical form (exit 2 if any).
    #[arg(long, conflicts_with = "in_place")]
    pub check: bool,
    /// Format files with ordinary comments too (the comments are lost).
    #[arg(long)]
    pub drop_comments: bool,
    /// Read operators with CPROVER's precedence instead of Moped/SLAM's.
    #[arg(long)]
    pub cprover_precedence: bool,
}

const EXIT_NOTES: [(i32, &str); 2] = [
    (
        exit::SAFE,
        "formatted; with --check, every file is in canonical form",
    ),
    (
        exit::INPUT_ERROR,
        "a file does not parse, has comments, or (--check) is not in canonical form",
    ),
];

/// The canonical text of the Boolean program `src`, or its syntax errors.
pub fn format(
    src: &str,
    opts: &bp_grammar::ParseOptions,
) -> Result<String, Vec<bp_grammar::Diagnostic>> {
    bp_grammar::parse_with(src, opts).map(|p| bp_grammar::print(&p))
}

/// Runs `bp-fmt` with `args` (the program name first); returns the exit code.
pub fn run_fmt(args: Vec<String>, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let cli: FmtCli = match cli_common::args::try_parse_from(args, &EXIT_NOTES, out, err) {
        Ok(c) => c,
        Err(code) => return code,
    };
    if !cli.in_place && !cli.check && cli.files.len() != 1 {
        return cli_common::args::usage_error(
            err,
            "bp-fmt: give one FILE to print (several only with --in-place or --check)",
        );
    }
    let opts = bp_grammar::ParseOptions {
        precedence: if cli.cprover_precedence {
            bp_grammar::Precedence::Cprover
        } else {
            bp_grammar::Precedence::Moped
        },
    };
    let mut code = exit::SAFE;
    for path in &cli.files {
        if let Err(c) = one_file(&cli, path, &opts, out, err) {
            code = c;
        }
    }
    code
}

/// Formats one file as the command line says.
fn one_file(
    cli: &FmtCli,
    path: &Path,
    opts: &bp_grammar::ParseOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), i32> {
    let file = path.display().to_string();
    let src = std::fs::read_to_string(path).map_err(|e| {
        let _ = writeln!(err, "bp-fmt: cannot read {file}: {e}");
        exit::INPUT_ERROR
    })?;
    let text = format(&src, opts).map_err(|diags| {
        for d in &diags {
            let _ = writeln!(err, "{}", d.render_source(&file, &src));
        }
        exit::INPUT_ERROR
    })?;
    if !cli.drop_comments
        && let Some(&(start, end)) = bp_grammar::comments(&src).first()
    {
        let d = bp_grammar::Diagnostic::error(
            "comment",
            "the canonical layout does not keep comments: this one would be lost \
             (turn it into a `//@` annotation, or pass --drop-comments)",
            bp_grammar::diag::span_at(&src, start, end),
            &src,
        );
        let _ = writeln!(err, "{}", d.render_source(&file, &src));
        return Err(exit::INPUT_ERROR);
    }
    if cli.check {
        if text != src {
            let _ = writeln!(err, "{file}: not in canonical form (bp-fmt -i {file})");
            return Err(exit::INPUT_ERROR);
        }
    } else if cli.in_place {
        if text != src {
            let tmp = path.with_extension("bp-fmt~");
            std::fs::write(&tmp, &text)
                .and_then(|()| std::fs::rename(&tmp, path))
                .map_err(|e| {
                    let _ = writeln!(err, "bp-fmt: cannot write {file}: {e}");
                    exit::INPUT_ERROR
                })?;
        }
    } else {
        let _ = out.write_all(text.as_bytes());
    }
    Ok(())
}
