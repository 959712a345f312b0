//! The SLAM-style predicate-abstraction toolkit, seen from the top.
//!
//! This package holds no code of its own: it carries the end-to-end tests in `tests/`, those that
//! need more than one tool (the `.bp` suite with golden traces, the Boppo corpus, the
//! differential test against bp-testkit's reference interpreter, newton and constrain on c2bp's
//! abstractions, the tidy checks over the tree). See `ARCHITECTURE.md` for the code map.
