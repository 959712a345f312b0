//! When the Horn refiner is not called: a geometric back-off per path-program shape (the loop
//! heads of each function part) after calls that found nothing.
//!
//! Why: on a program whose every trace goes round the same loop — a `while (1) switch
//! (state)` state machine — each trace's path program has the same loop heads, and when its
//! clauses leave a value free that the error depends on (a memory cell, an uninterpreted
//! operation), Spacer finds the over-approximated path program unsafe and the derivation does
//! not replay; the next trace's path program, the same loops unrolled along a few more edges,
//! fails the same way. The clauses are a function of the program and the path program only —
//! not of the predicates the abstraction has — so new predicates do not change that answer;
//! what changes is the path program, which the back-off still samples. After the `k`-th
//! failure in a row on a shape, the next `4^k - 1` calls on it are skipped (at most
//! [`MAX_SKIP`]); a call that gives predicates ends the back-off. Counts of calls, not time:
//! deterministic. A path program whose decided answer is cached is never skipped (it costs
//! no solving).
//!
//! Why base 4: on the SV-COMP ssh and loop tasks, no call after a failure in the same run ever
//! gave predicates (84 failures over 36 ssh tasks, 32 over 41 loop tasks), while the calls
//! after the first failure cost 2.3 s each on ssh. Base 2 made about twice as many of them.

use std::collections::BTreeMap;

use super::Shape;

/// The most calls skipped after one failure.
pub const MAX_SKIP: u32 = 63;

/// The back-off state of each shape.
#[derive(Debug, Clone, Default)]
pub(super) struct Backoff {
    shapes: BTreeMap<Shape, State>,
}

/// One shape's failures in a row, and the calls still to skip.
#[derive(Debug, Clone, Copy, Default)]
struct State {
    failures: u32,
    skip: u32,
}

impl Backoff {
    /// Whether a call on `shape` is skipped (and counted as skipped): the reason, if so.
    pub(super) fn skip(&mut self, shape: &Shape) -> Option<String> {
        let s = self.shapes.get_mut(shape)?;
        if s.skip == 0 {
            return None;
        }
        s.skip -= 1;
        Some(format!(
            "back-off: {} failure(s) in a row on path programs of the same loop heads; \
             {} more call(s) skipped",
            s.failures, s.skip
        ))
    }

    /// A call on `shape` failed: the next `4^failures - 1` calls on it are skipped.
    pub(super) fn failed(&mut self, shape: Shape) {
        let s = self.shapes.entry(shape).or_default();
        s.failures += 1;
        s.skip = 4u32
            .checked_pow(s.failures)
            .map_or(MAX_SKIP, |n| (n - 1).min(MAX_SKIP));
    }

    /// A call on `shape` gave predicates: no more skipping.
    pub(super) fn helped(&mut self, shape: &Shape) {
        self.shapes.remove(shape);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(head: u32) -> Shape {
        let mut s = Shape::new();
        s.entry(cir::ir::FuncId(0))
            .or_default()
            .insert(cir::ir::NodeId(head));
        s
    }

    /// The calls made (not skipped) among the first `n` on one shape that always fails.
    fn calls_made(n: usize) -> Vec<usize> {
        let mut b = Backoff::default();
        let mut made = Vec::new();
        for i in 0..n {
            if b.skip(&shape(1)).is_none() {
                made.push(i);
                b.failed(shape(1));
            }
        }
        made
    }

    #[test]
    fn failures_in_a_row_skip_geometrically_more_calls() {
        assert_eq!(calls_made(90), vec![0, 4, 20, 84]);
    }

    #[test]
    fn the_skips_are_capped() {
        let made = calls_made(400);
        let gaps: Vec<usize> = made.windows(2).map(|w| w[1] - w[0]).collect();
        assert_eq!(
            gaps.iter().max(),
            Some(&(MAX_SKIP as usize + 1)),
            "{gaps:?}"
        );
    }

    #[test]
    fn a_call_that_helps_ends_the_back_off_and_shapes_are_separate() {
        let mut b = Backoff::default();
        b.failed(shape(1));
        b.failed(shape(1));
        assert!(b.skip(&shape(2)).is_none());
        let why = b.skip(&shape(1)).expect("skipped");
        assert!(why.contains("2 failure(s)"), "{why}");
        b.helped(&shape(1));
        assert!(b.skip(&shape(1)).is_none());
    }
}
