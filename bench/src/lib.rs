//! Performance benchmark of `bebop`: deterministic generators of five families of Boolean
//! programs ([`families`]) and, in `src/bin/`, the tools that use them: `bp-families` writes the
//! generated `.bp` files, `bebop-bench` times the release `bebop` on them and prints a table.
//!
//! The families (each at size factor s ∈ {1, 2, 4}):
//!
//! | family | shape | expected |
//! |---|---|---|
//! | `chain` | 1,000·s procedures calling each other in a chain, 30 globals, 10 locals each | safe |
//! | `straight` | 10,000·s statements in `main`, 30 globals + 30 locals | safe |
//! | `counter` | a K-bit counter incremented once per recursive call, K = 8, 9, 10 | unsafe, at depth 2^K − 1 |
//! | `order` | pairwise invariants `g_i = g_{i+n/2}` over n = 20·s globals | safe |
//! | `relay` | 25,000·s statements shaped like c2bp's output, a chain of 1,000·s procedures, 10 globals, 6 locals | unsafe, through the whole chain |
#![deny(missing_docs)]

pub mod families;
