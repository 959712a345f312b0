//! [`Lanes`]: threads that each keep one Z3 context for all the work they are given, with work
//! assigned to lanes by index rather than by a scheduler. Lane 0 is the calling thread; lanes
//! `1..n` are threads of their own, made when first needed.
//!
//! Making a Z3 context costs about a millisecond (Z3 allocates and fills tables of about
//! 17 MB), as much as many of the queries asked in it. Outside a lane, every
//! [`Prover::with_solver`](super::Prover::with_solver) makes its own context, so that its
//! answers do not depend on what was asked before; a refinement loop that abstracts the
//! program every iteration then makes a few contexts per iteration. A lane instead asks
//! everything in its thread's own context (the z3 crate's context of the thread), each
//! [`SolverCx`](super::SolverCx) still with a solver of its own.
//!
//! What a shared context changes: the terms built earlier stay in it, so Z3 may number and
//! order a query's terms differently and take another path through its search. The answer to
//! a query that finishes is the same (`sat`/`unsat` is a property of the formula); a model may
//! differ, and so may whether a query stops at its resource limit. Callers that use lanes must
//! only depend on answers, as c2bp's cube search does (its result is that of the plain
//! enumeration, whatever models guide it; its model-dependent covering search makes a context
//! of its own), and count resource-limit `unknown`s as the history-dependent exception they
//! already are for a cached abstraction.
//!
//! Determinism: job `j` always runs on lane `j % n`, after the jobs of that lane with smaller
//! indices, so what a lane's context has seen is fixed by the sequence of calls (for lane 0,
//! the calls made from that thread), never by thread timing or by the machine's number of
//! cores.

use std::sync::OnceLock;

use super::session::{IN_LANE, flagged};

/// `n` lanes, each keeping its Z3 context across calls (see the module doc): lane 0 is the
/// calling thread, lanes `1..n` threads of their own, made on first use.
#[derive(Debug)]
pub struct Lanes {
    /// Lane `k`'s thread at index `k - 1`; `None` when it could not be made (its jobs then run
    /// on the calling thread, each query in a fresh context as outside lanes).
    threads: Vec<OnceLock<Option<rayon::ThreadPool>>>,
}

impl Lanes {
    /// `n` lanes (at least one).
    pub fn new(n: usize) -> Lanes {
        Lanes {
            threads: (1..n.max(1)).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Runs `f` on lane 0, the calling thread, in the lane's context.
    pub fn first<R>(&self, f: impl FnOnce() -> R) -> R {
        flagged(&IN_LANE, f)
    }

    /// Runs `f(j)` for every job `j < jobs`, job `j` on lane `j % n`, the jobs of one lane in
    /// increasing order; the results in job order. Lanes run in parallel; the call returns when
    /// every job is done.
    pub fn run<R: Send>(&self, jobs: usize, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
        let n = self.threads.len() + 1;
        let lane_jobs = |k: usize| (k..jobs).step_by(n).map(&f).collect::<Vec<R>>();
        let per_lane: Vec<Vec<R>> = std::thread::scope(|s| {
            let others: Vec<_> = (1..n.min(jobs))
                .map(|k| {
                    let lane_jobs = &lane_jobs;
                    let pool = self.threads[k - 1].get_or_init(|| lane_thread(k));
                    s.spawn(move || match pool {
                        Some(p) => p.install(|| lane_jobs(k)),
                        None => lane_jobs(k),
                    })
                })
                .collect();
            let mut per_lane = vec![self.first(|| lane_jobs(0))];
            for h in others {
                match h.join() {
                    Ok(r) => per_lane.push(r),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            per_lane
        });
        let mut lanes: Vec<std::vec::IntoIter<R>> =
            per_lane.into_iter().map(Vec::into_iter).collect();
        (0..jobs)
            .map(|j| {
                lanes[j % n]
                    .next()
                    .expect("lane j % n ran job j among its jobs")
            })
            .collect()
    }
}

/// The thread of lane `k`: a pool of one thread, whose queries share its context.
fn lane_thread(k: usize) -> Option<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .thread_name(move |_| format!("z3-lane-{k}"))
        .start_handler(|_| IN_LANE.with(|c| c.set(true)))
        .build()
        .inspect_err(|e| {
            tracing::warn!(lane = k, error = %e, "no thread for a Z3 lane; fresh contexts instead")
        })
        .ok()
}

impl Default for Lanes {
    /// One lane: the calling thread.
    fn default() -> Lanes {
        Lanes::new(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smt::session::in_context;
    use std::thread::ThreadId;

    /// The Z3 context a query asked now, on this thread, would run in (its address).
    fn context_in_use() -> usize {
        in_context(|| z3::Context::thread_local().get_z3_context().as_ptr() as usize)
    }

    /// The caller's own context (the z3 crate's context of the thread).
    fn own_context() -> usize {
        z3::Context::thread_local().get_z3_context().as_ptr() as usize
    }

    #[test]
    fn each_job_runs_on_its_lane_in_the_lanes_kept_context() {
        let lanes = Lanes::new(3);
        let caller = std::thread::current().id();
        let run = || -> Vec<(usize, ThreadId, usize)> {
            lanes.run(7, |j| (j, std::thread::current().id(), context_in_use()))
        };
        let first = run();
        assert_eq!(
            first.iter().map(|r| r.0).collect::<Vec<_>>(),
            (0..7).collect::<Vec<_>>(),
            "results in job order"
        );
        for (j, thread, _) in &first {
            assert_eq!(
                *thread == caller,
                j % 3 == 0,
                "lane 0 is the caller (job {j})"
            );
        }
        for a in &first {
            for b in &first {
                assert_eq!(
                    a.0 % 3 == b.0 % 3,
                    a.2 == b.2,
                    "jobs {} and {}: one context per lane",
                    a.0,
                    b.0
                );
            }
        }
        assert_eq!(
            first[0].2,
            own_context(),
            "lane 0 uses the caller's own context"
        );
        assert_eq!(
            lanes.first(context_in_use),
            own_context(),
            "`first` runs on lane 0"
        );
        let second = run();
        for (a, b) in first.iter().zip(&second) {
            assert_eq!(
                (a.1, a.2),
                (b.1, b.2),
                "job {}: same thread and context again",
                a.0
            );
        }
        // Outside the lanes again, the caller's queries get a fresh context.
        assert_ne!(context_in_use(), own_context());
    }

    #[test]
    fn no_jobs_no_work() {
        let lanes = Lanes::new(4);
        assert!(lanes.run(0, |j| j).is_empty());
        assert_eq!(lanes.run(2, |j| j * 10), vec![0, 10]);
    }
}
