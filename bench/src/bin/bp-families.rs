//! `bp-families OUTDIR [--sizes 1,2,4] [--seed N]`: writes the benchmark families as
//! `OUTDIR/<family>-s<size>.bp`, one file per family and size factor.

use bp_bench::families::{Family, generate};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: bp-families OUTDIR [--sizes 1,2,4] [--seed N]";

fn main() -> ExitCode {
    let mut out_dir: Option<PathBuf> = None;
    let mut sizes = vec![1u32, 2, 4];
    let mut seed: Option<u64> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--sizes" => match args.next().map(|v| parse_list(&v)) {
                Some(Some(list)) => sizes = list,
                _ => return usage(),
            },
            "--seed" => match args.next().and_then(|v| v.parse().ok()) {
                Some(v) => seed = Some(v),
                None => return usage(),
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ if out_dir.is_none() && !arg.starts_with('-') => out_dir = Some(arg.into()),
            _ => return usage(),
        }
    }
    let Some(out_dir) = out_dir else {
        return usage();
    };
    if let Err(e) = std::fs::create_dir_all(&out_dir) {
        eprintln!("bp-families: cannot create {}: {e}", out_dir.display());
        return ExitCode::from(2);
    }
    for family in Family::ALL {
        for &size in &sizes {
            let inst = generate(family, size, seed.unwrap_or(family.default_seed()));
            let path = out_dir.join(format!("{}-s{size}.bp", family.name()));
            if let Err(e) = std::fs::write(&path, &inst.text) {
                eprintln!("bp-families: cannot write {}: {e}", path.display());
                return ExitCode::from(2);
            }
            println!(
                "{}\t{} statements, {} procedures, {} variables in scope",
                path.display(),
                inst.n_stmts,
                inst.n_procs,
                inst.max_scope
            );
        }
    }
    ExitCode::SUCCESS
}

fn parse_list(text: &str) -> Option<Vec<u32>> {
    text.split(',')
        .map(|s| s.trim().parse().ok().filter(|&v: &u32| v > 0))
        .collect()
}

fn usage() -> ExitCode {
    eprintln!("{USAGE}");
    ExitCode::from(1)
}
