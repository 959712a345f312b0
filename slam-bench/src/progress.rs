//! The progress of a benchmark on stderr: an `indicatif` bar on a terminal — done and total,
//! failing runs, the runs in flight (task and configuration) and the time left — and, when
//! stderr is not a terminal (a log, CI), the same words as a line every ten seconds.
//!
//! The time left is estimated when a run finishes (elapsed time per finished run, times the
//! runs left) and then counts down: it never grows while runs are in flight, as an estimate
//! from a rate that decays while nothing finishes would (`indicatif`'s own `{eta}`).

use std::collections::BTreeMap;
use std::io::IsTerminal as _;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The time left: an estimate made when a run finishes, counted down until the next one.
#[derive(Debug, Clone)]
pub struct Eta {
    start: Instant,
    estimate: Option<(Instant, Duration)>,
}

impl Eta {
    /// Runs begin at `start`.
    pub fn new(start: Instant) -> Eta {
        Eta {
            start,
            estimate: None,
        }
    }

    /// `done` of `total` runs have finished, the last at `now`.
    pub fn finished(&mut self, done: usize, total: usize, now: Instant) {
        if done == 0 {
            return;
        }
        let per_run = now.saturating_duration_since(self.start).as_secs_f64() / done as f64;
        let left = per_run * total.saturating_sub(done) as f64;
        self.estimate = Some((now, Duration::from_secs_f64(left)));
    }

    /// The time left at `now` (unknown before the first run finishes).
    pub fn left(&self, now: Instant) -> Option<Duration> {
        self.estimate
            .map(|(at, left)| left.saturating_sub(now.saturating_duration_since(at)))
    }
}

fn mmss(d: Option<Duration>) -> String {
    match d {
        Some(d) => {
            let s = d.as_secs();
            format!("{:02}:{:02}", s / 60, s % 60)
        }
        None => "--:--".into(),
    }
}

/// The progress of the runs of one benchmark.
pub struct Progress {
    bar: ProgressBar,
    enabled: bool,
    log: bool,
    total: usize,
    done: usize,
    failing: usize,
    running: BTreeMap<usize, String>,
    eta: Eta,
    last_log: Instant,
}

/// Seconds between two lines when stderr is not a terminal.
const LOG_EVERY: f64 = 10.0;

impl Progress {
    /// `total` runs; nothing is shown unless `enabled`.
    pub fn new(total: usize, enabled: bool) -> Progress {
        let tty = std::io::stderr().is_terminal();
        let bar = if enabled && tty {
            ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr())
        } else {
            ProgressBar::hidden()
        };
        bar.set_style(
            ProgressStyle::with_template("[{bar:20}] {pos}/{len} {wide_msg}")
                .expect("a valid template")
                .progress_chars("#>."),
        );
        let now = Instant::now();
        Progress {
            bar,
            enabled,
            log: enabled && !tty,
            total,
            done: 0,
            failing: 0,
            running: BTreeMap::new(),
            eta: Eta::new(now),
            last_log: now,
        }
    }

    /// Run `k` (of `task` under `config`) started.
    pub fn started(&mut self, k: usize, task: &str, config: &str) {
        self.running.insert(k, format!("{task} [{config}]"));
        self.show(false);
    }

    /// Run `k` finished; `failing`: a wrong verdict or an error.
    pub fn finished(&mut self, k: usize, failing: bool) {
        self.running.remove(&k);
        self.done += 1;
        if failing {
            self.failing += 1;
        }
        self.eta.finished(self.done, self.total, Instant::now());
        self.bar.set_position(self.done as u64);
        self.show(false);
    }

    /// What the bar says after its counts: the time left and the failing runs first, then
    /// the runs in flight (cut at the terminal's width).
    fn message(&self) -> String {
        let mut m = format!(
            "~{} left, {} failing",
            mmss(self.eta.left(Instant::now())),
            self.failing
        );
        if !self.running.is_empty() {
            let names: Vec<&str> = self.running.values().map(String::as_str).collect();
            m.push_str(&format!("; running {}", names.join(", ")));
        }
        m
    }

    /// Redraws (the countdown moves even when no run finishes); `last`: the benchmark is over.
    pub fn show(&mut self, last: bool) {
        let msg = self.message();
        if last {
            // The last state as a line of its own, after the bar, which goes.
            self.bar.finish_and_clear();
            if self.enabled {
                eprintln!(
                    "slam-bench: {}/{} runs done, {} failing",
                    self.done, self.total, self.failing
                );
            }
            return;
        }
        if self.log && self.last_log.elapsed().as_secs_f64() >= LOG_EVERY {
            self.last_log = Instant::now();
            eprintln!("slam-bench: {}/{} {msg}", self.done, self.total);
        }
        self.bar.set_message(msg);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_left_counts_down_between_finished_runs() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut eta = Eta::new(t0);
        assert_eq!(eta.left(at(5)), None);
        // One of four runs took 10 s: 30 s left.
        eta.finished(1, 4, at(10));
        assert_eq!(eta.left(at(10)), Some(Duration::from_secs(30)));
        // A long run in flight: the estimate only shrinks, down to zero.
        let mut last = eta.left(at(10)).unwrap();
        for s in 11..100 {
            let now = eta.left(at(s)).unwrap();
            assert!(now <= last, "at {s} s: {now:?} after {last:?}");
            last = now;
        }
        assert_eq!(last, Duration::ZERO);
        // The next run to finish corrects it: two of four in 100 s, 100 s left.
        eta.finished(2, 4, at(100));
        assert_eq!(eta.left(at(100)), Some(Duration::from_secs(100)));
        assert_eq!(mmss(eta.left(at(100))), "01:40");
        assert_eq!(mmss(None), "--:--");
    }
}
