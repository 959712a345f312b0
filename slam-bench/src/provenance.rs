//! Where and with what a benchmark ran — the host (name, CPU, memory), the `slam-run` version
//! (its `--version` line) and when it started — kept in `bench.json` and shown at the top of
//! the report, as BenchExec's tables do: results are comparable only between runs of the
//! same tool on the same kind of machine.

use std::path::Path;
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

/// The circumstances of a benchmark.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Provenance {
    /// The host's name.
    pub host: String,
    /// Its processor (model and count), from `/proc/cpuinfo`.
    pub cpu: String,
    /// Its memory in MiB, from `/proc/meminfo`.
    pub memory_mib: u64,
    /// `slam-run --version`'s first line.
    pub tool_version: String,
    /// When the benchmark started (ISO 8601, UTC).
    pub started: String,
}

impl Provenance {
    /// This machine, the version of `slam_run`, and now.
    pub fn here(slam_run: &Path) -> Provenance {
        Provenance {
            host: host_name(),
            cpu: cpu_model(),
            memory_mib: memory_mib(),
            tool_version: tool_version(slam_run),
            started: now(),
        }
    }

    /// One line for the report, `unknown` for what was not recorded.
    pub fn describe(&self) -> String {
        let or = |s: &str| {
            if s.is_empty() {
                "unknown".to_string()
            } else {
                s.to_string()
            }
        };
        let mut host = or(&self.host);
        if !self.cpu.is_empty() {
            host.push_str(&format!(" ({}", self.cpu));
            if self.memory_mib > 0 {
                host.push_str(&format!(", {} MiB", self.memory_mib));
            }
            host.push(')');
        }
        format!(
            "host {host}; tool {}; started {}",
            or(&self.tool_version),
            or(&self.started)
        )
    }
}

/// The current time, ISO 8601 in UTC to the second (`2026-11-26T18:46:48Z`).
pub fn now() -> String {
    let t = time::OffsetDateTime::now_utc();
    let t = t.replace_nanosecond(0).unwrap_or(t);
    t.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most `buf.len()` bytes into the live buffer.
    let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if r != 0 {
        return String::new();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

fn cpu_model() -> String {
    let Ok(text) = std::fs::read_to_string("/proc/cpuinfo") else {
        return String::new();
    };
    let models: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("model name"))
        .filter_map(|l| l.split_once(':').map(|(_, m)| m.trim()))
        .collect();
    match models.first() {
        Some(m) => format!("{} x {m}", models.len()),
        None => String::new(),
    }
}

fn memory_mib() -> u64 {
    let text = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kib| kib / 1024)
        .unwrap_or(0)
}

/// The first line `slam_run --version` prints, or why there is none.
fn tool_version(slam_run: &Path) -> String {
    let out = Command::new(slam_run)
        .arg("--version")
        .stdin(Stdio::null())
        .output();
    match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string(),
        Ok(o) => format!("unknown ({} --version: {})", slam_run.display(), o.status),
        Err(e) => format!("unknown ({}: {e})", slam_run.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn now_is_iso_8601_utc_to_the_second() {
        let t = now();
        let b = t.as_bytes();
        assert_eq!(t.len(), 20, "{t}");
        assert!(b[4] == b'-' && b[7] == b'-' && b[10] == b'T' && b[13] == b':' && b[19] == b'Z');
        assert!(t[..4].parse::<u32>().unwrap() >= 2024, "{t}");
    }

    #[test]
    fn unknowns_are_said() {
        let p = Provenance {
            host: "h".into(),
            ..Provenance::default()
        };
        assert_eq!(p.describe(), "host h; tool unknown; started unknown");
        let missing = tool_version(Path::new("/nonexistent/slam-run"));
        assert!(
            missing.starts_with("unknown (/nonexistent/slam-run"),
            "{missing}"
        );
    }
}
