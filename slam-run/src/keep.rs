//! The `--keep` directory: every round's files (`iterNNN.preds`, `iterNNN.bp`, its trace,
//! newton's and constrain's answers; `iterNNN-aK.*` for the K-th constrain alternation;
//! `iterNNN-tJ.*` for the J-th further trace of `--traces-per-iteration`) and
//! `commands.txt`, the standalone tools' command lines that re-run each stage by hand to the
//! same result. Files are written atomically (temporary + rename), so a run stopped by its time
//! limit leaves every kept file either complete or absent.
//!
//! `commands.txt` is a shell script: it changes to the directory slam-run ran in (the paths
//! are as given on its command line) and names the tools by the absolute paths of the
//! executables next to slam-run's own (or bare names, with a comment, when they are not
//! there). Each stage's command is recorded when the stage starts, so the last iteration is
//! there too: the bebop run that proved the program safe, or the stage a time limit cut. The
//! files of an earlier run in a reused directory are removed first ([`clear_stale`]), so the
//! directory never mixes two runs.

use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::error::RunError;

/// The name of a round's file: `iterNNN.EXT` for the abstraction c2bp wrote, `iterNNN-aK.EXT`
/// after the K-th constrain pass.
pub(crate) fn round_file(index: usize, alternation: usize, ext: &str) -> String {
    format!("{}.{ext}", round_stem(index, alternation))
}

/// The name of a file of the `trace`-th further trace of a round (`--traces-per-iteration`;
/// 1 is the first after the round's own): `iterNNN-tJ.EXT` (`iterNNN-aK-tJ.EXT` after a
/// constrain pass).
pub(crate) fn further_file(index: usize, alternation: usize, trace: usize, ext: &str) -> String {
    format!("{}-t{trace}.{ext}", round_stem(index, alternation))
}

fn round_stem(index: usize, alternation: usize) -> String {
    if alternation == 0 {
        format!("iter{index:03}")
    } else {
        format!("iter{index:03}-a{alternation}")
    }
}

/// The kept files of one round, for its command lines.
pub(crate) struct KeptRound {
    /// Iteration.
    pub index: usize,
    /// Constrain alternation (0: c2bp's abstraction).
    pub alternation: usize,
    /// The Boolean program bebop checked.
    pub bp: PathBuf,
    /// Bebop's trace.
    pub trace: PathBuf,
    /// The predicates newton refines against, when they are not the Boolean program's own
    /// (a further trace comes after the predicates of the traces before it).
    pub preds: Option<PathBuf>,
}

/// The keep directory (nothing is written without one) and the `commands.txt` written so far.
pub(crate) struct Keep {
    dir: Option<PathBuf>,
    commands: String,
    c_file: String,
    /// The abstraction's options now (the loop may switch to bit-precise reasoning and raise
    /// the cube lengths during the run): later c2bp commands get their flags.
    c2bp: c2bp::Options,
    /// The error conventions' flags (`--error-fn`, `--error-label`, `--assert`).
    error_flags: String,
    rlimit_flag: String,
    max_constraints: usize,
    tools: Tools,
}

/// Whether `name` is a file slam-run keeps: `iter<digit>…`, `commands.txt`, or a temporary of
/// an atomic write.
fn is_kept_file(name: &str) -> bool {
    name == "commands.txt"
        || name.ends_with(".tmp~")
        || name
            .strip_prefix("iter")
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
}

/// Removes the files an earlier run kept in `dir` (`iterNNN*`, `commands.txt`), so that a
/// reused directory holds one run's files only; other files are left alone. Returns the
/// files removed (none when `dir` does not exist).
pub fn clear_stale(dir: &Path) -> Result<Vec<PathBuf>, RunError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(RunError::Io(dir.to_path_buf(), e)),
    };
    let mut removed = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| RunError::Io(dir.to_path_buf(), e))?;
        let path = entry.path();
        if path.is_file() && entry.file_name().to_str().is_some_and(is_kept_file) {
            std::fs::remove_file(&path).map_err(|e| RunError::Io(path.clone(), e))?;
            removed.push(path);
        }
    }
    removed.sort();
    Ok(removed)
}

/// How `commands.txt` names the standalone tools.
struct Tools {
    /// The directory of the executables (next to the running one), when they are there.
    dir: Option<PathBuf>,
}

impl Tools {
    /// The tools next to the running executable (or next to its directory, for a test
    /// executable in `target/<profile>/deps`).
    fn find() -> Tools {
        let exe = std::env::current_exe().ok();
        let dir = exe.as_deref().and_then(Path::parent).and_then(|d| {
            [Some(d), d.parent()]
                .into_iter()
                .flatten()
                .find(|d| TOOLS.iter().all(|t| d.join(t).is_file()))
                .map(Path::to_path_buf)
        });
        Tools { dir }
    }

    fn tool(&self, name: &str) -> String {
        match &self.dir {
            Some(d) => sh_quote(&d.join(name).display().to_string()),
            None => name.to_string(),
        }
    }

    /// The lines at the top of `commands.txt`.
    fn preamble(&self) -> String {
        let mut s = String::from(
            "# slam-run's iterations as standalone commands: `sh commands.txt` re-runs them\n",
        );
        if let Ok(cwd) = std::env::current_dir() {
            s.push_str(&format!("cd {}\n", sh_quote(&cwd.display().to_string())));
        }
        if self.dir.is_none() {
            s.push_str(&format!(
                "# {} were not found next to this slam-run: put them on PATH\n",
                TOOLS.join(", ")
            ));
        }
        s
    }
}

/// The standalone tools `commands.txt` calls.
const TOOLS: [&str; 4] = ["c2bp", "bebop", "newton", "constrain"];

/// `s` quoted for the shell when it needs to be.
fn sh_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./-=:,+@%".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

impl Keep {
    /// Creates the directory of [`Config::keep`], if any, emptied of an earlier run's files.
    pub(crate) fn create(cfg: &Config, c_file: &Path) -> Result<Keep, RunError> {
        let tools = Tools::find();
        let mut commands = String::new();
        if let Some(k) = &cfg.keep {
            std::fs::create_dir_all(k).map_err(|e| RunError::Io(k.clone(), e))?;
            clear_stale(k)?;
            commands = tools.preamble();
        }
        Ok(Keep {
            dir: cfg.keep.clone(),
            commands,
            c_file: sh_quote(&c_file.display().to_string()),
            c2bp: cfg.c2bp_options(),
            error_flags: error_flags(cfg),
            rlimit_flag: rlimit_flag(cfg),
            max_constraints: cfg.constrain.limits().0,
            tools,
        })
    }

    /// A kept path as `commands.txt` writes it.
    fn shown(p: &Path) -> String {
        sh_quote(&p.display().to_string())
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

    /// Records, when an iteration's abstraction starts, the c2bp command that writes it:
    /// into `iterNNN.bp`, or into `iterNNN.c2bp.bp` when the constraints of earlier passes
    /// (`patched`) are applied to its output to make `iterNNN.bp`.
    pub(crate) fn record_c2bp(
        &mut self,
        index: usize,
        preds: Option<&Path>,
        patched: bool,
    ) -> Result<(), RunError> {
        let out = self.path(&round_file(
            index,
            0,
            if patched { "c2bp.bp" } else { "bp" },
        ));
        let (Some(preds), Some(out)) = (preds, out) else {
            return Ok(());
        };
        self.commands.push_str(&format!(
            "# iteration {index}\n{} {} --preds {} {}{} -o {}\n",
            self.tools.tool("c2bp"),
            self.c_file,
            Self::shown(preds),
            c2bp_flags(&self.c2bp),
            self.error_flags,
            Self::shown(&out),
        ));
        self.write_commands()
    }

    /// Records, when a round's check starts, the bebop command on its Boolean program `bp`
    /// (with a note when it is c2bp's output `c2bp` with constraints applied).
    pub(crate) fn record_bebop(
        &mut self,
        index: usize,
        alternation: usize,
        bp: &Path,
        c2bp: Option<&Path>,
    ) -> Result<(), RunError> {
        if alternation == 0
            && let Some(c) = c2bp
        {
            self.commands.push_str(&format!(
                "# {} is {} with the constraints of the earlier *.constraints.json applied\n",
                Self::shown(bp),
                Self::shown(c)
            ));
        }
        let trace = self
            .path(&round_file(index, alternation, "trace.json"))
            .map(|t| Self::shown(&t))
            .unwrap_or_default();
        self.commands.push_str(&format!(
            "{} {} --json {trace}\n",
            self.tools.tool("bebop"),
            Self::shown(bp)
        ));
        self.write_commands()
    }

    /// Records how to re-run newton on a round's trace (written before newton runs), into
    /// the `.newton.json` beside the trace's `.trace.json`.
    pub(crate) fn record_check(&mut self, r: &KeptRound) -> Result<(), RunError> {
        let (b, t) = (Self::shown(&r.bp), Self::shown(&r.trace));
        let newton = r
            .trace
            .to_str()
            .and_then(|t| t.strip_suffix(".trace.json"))
            .map(|stem| format!(" --json {}", sh_quote(&format!("{stem}.newton.json"))))
            .unwrap_or_default();
        let preds = r
            .preds
            .as_ref()
            .map(|p| format!(" --preds {}", Self::shown(p)))
            .unwrap_or_default();
        self.commands.push_str(&format!(
            "{} {} {b} {t}{preds}{}\n",
            self.tools.tool("newton"),
            self.c_file,
            newton + &self.rlimit_flag,
        ));
        self.write_commands()
    }

    /// Records a further trace of a round (`--traces-per-iteration`): `r.bp` is the round's
    /// program `base` with the statements of `blocked` (C edges) made unreachable, and the
    /// bebop and newton commands on it.
    pub(crate) fn record_further(
        &mut self,
        base: &str,
        blocked: &[String],
        r: &KeptRound,
    ) -> Result<(), RunError> {
        if self.dir.is_none() {
            return Ok(());
        }
        self.commands.push_str(&format!(
            "# {} is {base} with the statements of edge(s) {} blocked (the edges the traces \
             before it were refuted at)\n{} {} --json {}\n",
            Self::shown(&r.bp),
            blocked.join(", "),
            self.tools.tool("bebop"),
            Self::shown(&r.bp),
            Self::shown(&r.trace),
        ));
        self.record_check(r)
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
            .map(|n| Self::shown(&n))
            .unwrap_or_default();
        self.commands.push_str(&format!(
            "{} {} {} {} --max-constraints {}{} --apply {next}\n",
            self.tools.tool("constrain"),
            self.c_file,
            Self::shown(&r.bp),
            Self::shown(&r.trace),
            self.max_constraints,
            self.rlimit_flag,
        ));
        self.write_commands()
    }

    /// Records that the run reasons bit-precisely from iteration `index` on: later c2bp
    /// commands get `--bitvector` (bebop, newton and constrain read it from the header).
    pub(crate) fn bitvector_from(&mut self, index: usize) {
        self.c2bp.sem.bitvector = true;
        if self.dir.is_none() {
            return;
        }
        self.commands.push_str(&format!(
            "# bit-precise from here on: iteration {index}'s path needs it (--precision auto)\n"
        ));
    }

    /// Records that c2bp abstracts with the options `o` from iteration `index` on (the
    /// loop raised the cube lengths): later c2bp commands get their flags.
    pub(crate) fn c2bp_options_from(&mut self, index: usize, o: &c2bp::Options, why: &str) {
        self.c2bp = o.clone();
        if self.dir.is_none() {
            return;
        }
        self.commands.push_str(&format!(
            "# longer cubes from iteration {} on (--cube-len {} --enforce-len {}): {why}\n",
            index + 1,
            c2bp::CubeLen(o.cube_len),
            o.enforce_len
        ));
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

/// The c2bp flags that reproduce the abstraction with the options `o` (for the kept
/// `commands.txt`).
fn c2bp_flags(o: &c2bp::Options) -> String {
    let mut s = format!(
        "--cube-len {} --enforce-len {} --data-model {}",
        c2bp::CubeLen(o.cube_len),
        o.enforce_len,
        o.sem.data_model
    );
    if o.sem.bitvector {
        s.push_str(" --bitvector");
    }
    if o.havoc_all {
        s.push_str(" --havoc-all");
    }
    if o.rlimit != cir::smt::DEFAULT_RLIMIT {
        s.push_str(&format!(" --rlimit {}", o.rlimit));
    }
    if o.max_queries != c2bp::Options::default().max_queries {
        s.push_str(&format!(" --max-queries {}", o.max_queries));
    }
    if o.abstraction != c2bp::Abstraction::Cartesian {
        s.push_str(&format!(
            " --abstraction {} --max-cubes {}",
            o.abstraction, o.max_cubes
        ));
    }
    s
}

/// The flags of `cfg`'s error conventions, each with its leading space.
fn error_flags(cfg: &Config) -> String {
    let mut s = String::new();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_files_and_quoting() {
        for yes in [
            "iter000.bp",
            "iter012-a1.trace.json",
            "commands.txt",
            "x.tmp~",
        ] {
            assert!(is_kept_file(yes), "{yes}");
        }
        for no in ["iterate.c", "prog.c", "notes.txt", "iter"] {
            assert!(!is_kept_file(no), "{no}");
        }
        assert_eq!(sh_quote("out/iter000.bp"), "out/iter000.bp");
        assert_eq!(sh_quote("my dir/it's.c"), "'my dir/it'\\''s.c'");
    }
}
