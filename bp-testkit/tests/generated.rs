//! Properties of generated programs under the reference interpreter: both verdicts occur,
//! random runs that reach an error agree with the exhaustive analysis, and their traces replay.

use bp_testkit::generator::{GenConfig, labels, random_program};
use bp_testkit::reference::{Limits, RefProperty, analyze};
use bp_testkit::replay::replay;
use bp_testkit::sim::find_error_trace;
use std::time::Instant;

#[test]
fn verdict_mix_and_random_runs_agree() {
    let cfg = GenConfig::default();
    let n = 1000;
    let start = Instant::now();
    let (mut unsafe_, mut traces, mut label_props, mut label_unsafe) = (0, 0, 0, 0);
    let mut max_edges = 0;
    for seed in 0..n {
        let prog = random_program(seed, &cfg);
        let mut props = vec![RefProperty::AssertsAndSlicError];
        let ls = labels(&prog);
        if !ls.is_empty() {
            props.push(RefProperty::Label(ls[seed as usize % ls.len()].clone()));
            label_props += 1;
        }
        for (k, prop) in props.iter().enumerate() {
            let a = analyze(&prog, prop, &Limits::default()).expect("small programs");
            max_edges = max_edges.max(a.path_edges());
            if a.error_reachable() {
                if k == 0 {
                    unsafe_ += 1;
                } else {
                    label_unsafe += 1;
                }
            }
            let t = find_error_trace(&prog, prop, seed * 31, 20, 200).expect("runs");
            if let Some(t) = t {
                traces += 1;
                assert!(
                    a.error_reachable(),
                    "seed {seed}: a random run reaches an error the analysis misses\n{prog:#?}"
                );
                if let Err(e) = replay(&prog, &t, prop) {
                    panic!(
                        "seed {seed}: a real run does not replay: {e}\n{}",
                        t.to_json()
                    );
                }
            }
        }
    }
    eprintln!(
        "{n} programs: {unsafe_} unsafe; {label_props} label properties, {label_unsafe} reachable; \
         {traces} random traces replayed; max {max_edges} path edges; {:?}",
        start.elapsed()
    );
    assert!(
        unsafe_ > n / 5 && unsafe_ < n * 4 / 5,
        "verdict mix {unsafe_}/{n}"
    );
}
