//! The `--keep` directory: every round's files (`iterNNN.preds`, `iterNNN.bp`, its trace,
//! newton's and constrain's answers; `iterNNN-aK.*` for the K-th constrain alternation) and
//! `commands.txt`, the standalone tools' command lines that re-run each stage by hand to the
//! same result. Files are written atomically (temporary + rename), so a run stopped by its time
//! limit leaves every kept file either complete or absent.

use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::error::RunError;

/// The name of a round's file: `iterNNN.EXT` for the abstraction c2bp wrote, `iterNNN-aK.EXT`
/// after the K-th constrain pass.
pub(crate) fn round_file(index: usize, alternation: usize, ext: &str) -> String {
    if alternation == 0 {
        format!("iter{index:03}.{ext}")
    } else {
        format!("iter{index:03}-a{alternation}.{ext}")
    }
}

/// The kept files of one round, for its command lines.
pub(crate) struct KeptRound {
    /// Iteration.
    pub index: usize,
    /// Constrain alternation (0: c2bp's abstraction).
    pub alternation: usize,
    /// The iteration's predicate file.
    pub preds: Option<PathBuf>,
    /// c2bp's own output, when constraints were re-applied to it.
    pub c2bp: Option<PathBuf>,
    /// The Boolean program bebop checked.
    pub bp: PathBuf,
    /// Bebop's trace.
    pub trace: PathBuf,
}

/// The keep directory (nothing is written without one) and the `commands.txt` written so far.
pub(crate) struct Keep {
    dir: Option<PathBuf>,
    commands: String,
    c_file: String,
    c2bp_flags: String,
    rlimit_flag: String,
    max_constraints: usize,
}

impl Keep {
    /// Creates the directory of [`Config::keep`], if any.
    pub(crate) fn create(cfg: &Config, c_file: &Path) -> Result<Keep, RunError> {
        if let Some(k) = &cfg.keep {
            std::fs::create_dir_all(k).map_err(|e| RunError::Io(k.clone(), e))?;
        }
        Ok(Keep {
            dir: cfg.keep.clone(),
            commands: String::new(),
            c_file: c_file.display().to_string(),
            c2bp_flags: c2bp_flags(cfg),
            rlimit_flag: rlimit_flag(cfg),
            max_constraints: cfg.constrain.limits().0,
        })
    }

    /// The path of the kept file `name`, when files are kept.
    pub(crate) fn path(&self, name: &str) -> Option<PathBuf> {
        self.dir.as_ref().map(|k| k.join(name))
    }

    /// Writes `text()` to the kept file `name`, when files are kept; returns its path.
    pub(crate) fn write<S: AsRef<str>>(
        &self,
        name: &str,
        text: impl FnOnce() -> S,
    ) -> Result<Option<PathBuf>, RunError> {
        let Some(path) = self.path(name) else {
            return Ok(None);
        };
        write_atomic(&path, text().as_ref())?;
        Ok(Some(path))
    }

    /// Records how to re-run a round's check: for c2bp's abstraction (alternation 0) the c2bp
    /// command first, with a note when constraints were re-applied to its output; then bebop
    /// and newton.
    pub(crate) fn record_check(&mut self, r: &KeptRound) -> Result<(), RunError> {
        let (b, t) = (r.bp.display(), r.trace.display());
        if r.alternation == 0 {
            self.commands.push_str(&format!(
                "# iteration {}\nc2bp {} --preds {} {} -o {}\n",
                r.index,
                self.c_file,
                r.preds
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default(),
                self.c2bp_flags,
                r.c2bp.as_ref().unwrap_or(&r.bp).display(),
            ));
            if let Some(c) = &r.c2bp {
                self.commands.push_str(&format!(
                    "# {b} is {} with the constraints of the earlier *.constraints.json \
                     applied\n",
                    c.display()
                ));
            }
        }
        let newton = self
            .path(&round_file(r.index, r.alternation, "newton.json"))
            .map(|n| format!(" --json {}", n.display()))
            .unwrap_or_default();
        self.commands.push_str(&format!(
            "bebop {b} --trace-json {t}\nnewton {} {b} {t}{}\n",
            self.c_file,
            newton + &self.rlimit_flag,
        ));
        self.write_commands()
    }

    /// Records that the Horn refiner ran on a round's trace although newton's mode would not
    /// have run it (divergence, or no difference found): the newton command that does.
    pub(crate) fn record_forced_horn(
        &mut self,
        index: usize,
        alternation: usize,
    ) -> Result<(), RunError> {
        if self.dir.is_none() {
            return Ok(());
        }
        self.commands.push_str(&format!(
            "# iteration {index}: the trace's path program was solved too (divergence or no \
             difference found), as by the newton command above with --refine horn\n"
        ));
        let _ = alternation;
        self.write_commands()
    }

    /// Records how to re-run a round's constrain pass, which writes the next alternation's
    /// Boolean program.
    pub(crate) fn record_constrain(&mut self, r: &KeptRound) -> Result<(), RunError> {
        let next = self
            .path(&round_file(r.index, r.alternation + 1, "bp"))
            .map(|n| n.display().to_string())
            .unwrap_or_default();
        self.commands.push_str(&format!(
            "constrain {} {} {} --max-constraints {}{} --apply {next}\n",
            self.c_file,
            r.bp.display(),
            r.trace.display(),
            self.max_constraints,
            self.rlimit_flag,
        ));
        self.write_commands()
    }

    fn write_commands(&self) -> Result<(), RunError> {
        self.write("commands.txt", || &self.commands).map(|_| ())
    }
}

/// Writes a file atomically (temporary + rename), so an interrupted run leaves every kept file
/// either complete or absent.
fn write_atomic(path: &Path, text: &str) -> Result<(), RunError> {
    let tmp = path.with_extension("tmp~");
    std::fs::write(&tmp, text).map_err(|e| RunError::Io(tmp.clone(), e))?;
    std::fs::rename(&tmp, path).map_err(|e| RunError::Io(path.to_path_buf(), e))
}

/// The c2bp flags that reproduce `cfg`'s abstraction (for the kept `commands.txt`).
fn c2bp_flags(cfg: &Config) -> String {
    let o = &cfg.c2bp_options();
    let mut s = format!(
        "--cube-len {} --enforce-len {} --data-model {}",
        o.cube_len.map_or("inf".to_string(), |k| k.to_string()),
        o.enforce_len,
        o.sem.data_model
    );
    if o.sem.bitvector {
        s.push_str(" --bitvector");
    }
    if o.havoc_all {
        s.push_str(" --havoc-all");
    }
    s.push_str(&rlimit_flag(cfg));
    if o.max_queries != c2bp::Options::default().max_queries {
        s.push_str(&format!(" --max-queries {}", o.max_queries));
    }
    for f in &cfg.settings.error_fns {
        s.push_str(&format!(" --error-fn {f}"));
    }
    for l in &cfg.settings.error_labels {
        s.push_str(&format!(" --error-label {l}"));
    }
    if cfg.settings.assert_is_error {
        s.push_str(" --assert");
    }
    s
}

/// ` --rlimit N` when not the default (c2bp and newton take the same flag).
fn rlimit_flag(cfg: &Config) -> String {
    if cfg.c2bp.rlimit == cir::smt::DEFAULT_RLIMIT {
        String::new()
    } else {
        format!(" --rlimit {}", cfg.c2bp.rlimit)
    }
}
