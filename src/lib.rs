//! The SLAM-style predicate-abstraction toolkit, seen from the top.
//!
//! This package holds no code of its own: it carries the end-to-end tests in `tests/` that run
//! the tools (`bebop` today; `c2bp`, `newton`, `constrain`, `slam-run` as they land) on the
//! bundled programs in `tests/data/` and on the external corpus in `../shared/corpus/` when it is
//! present. See `ARCHITECTURE.md` for the code map.
