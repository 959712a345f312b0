//! By default (`engine::Keep::Needed`) the engine stores path edges only at the kept nodes
//! (entries, joins, calls, return points, exits, targets) and forgets the frame variables dead
//! before each node (`bebop::live`). There its path edges must equal those of a run that stores
//! every node's exactly (`Keep::All`) with the dead variables forgotten, and both must find
//! the error or neither, on random programs with recursion, loops, `enforce` and `constrain`.

use bebop::Property;
use bebop::engine::{self, Keep};
use bp_testkit::generator::{GenConfig, random_program};

/// Programs checked (`BEBOP_KEEP_SEEDS`, default 300).
fn seeds() -> u64 {
    std::env::var("BEBOP_KEEP_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

#[test]
fn kept_path_edges_equal_those_of_a_full_run() {
    let cfg = GenConfig {
        max_stmts: 40,
        ..GenConfig::default()
    };
    let (mut kept, mut dropped, mut forgotten) = (0usize, 0usize, 0usize);
    for seed in 0..seeds() {
        let prog = random_program(seed, &cfg);
        let model = bebop::lower::lower(&prog, &Property::AssertsAndSlicError, None)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let all = engine::run(&model, false, Keep::All);
        let needed = engine::run(&model, false, Keep::Needed);
        let dead = engine::dead_vars(&model, Keep::Needed);
        assert_eq!(
            all.error.is_some(),
            needed.error.is_some(),
            "seed {seed}: verdict"
        );
        assert!(all.complete && needed.complete, "seed {seed}: fixpoint");
        for (v, dead) in dead.iter().enumerate() {
            if needed.layers[v].is_empty() && !all.layers[v].is_empty() {
                dropped += 1;
                assert!(
                    needed.pe[v].is_false(),
                    "seed {seed}: node {v} stores states"
                );
            } else {
                kept += 1;
                assert_eq!(
                    all.pe[v].exists(dead),
                    *needed.pe[v],
                    "seed {seed}: node {v}"
                );
                forgotten += dead.len();
            }
        }
    }
    // Both kinds of node occur and dead variables are forgotten: the comparison is not
    // vacuous, and something is saved.
    assert!(
        kept > 0 && dropped > 0 && forgotten > 0,
        "kept {kept}, dropped {dropped}, forgotten {forgotten}"
    );
}
