//! Statement-level reuse across abstractions of one program: the translation of one C edge
//! read only the predicates its abstraction can read or write, so when a refinement adds
//! predicates elsewhere (a new global one changes every procedure's vocabulary, but few of its
//! statements) the edge keeps the text of the previous abstraction.
//!
//! An edge's *vocabulary* is the set of Boolean variables in its scope related, through the
//! cells they read ([`crate::relevance`]), to what the edge touches: the cells it reads or
//! writes, and the predicates whose meaning it may change (those reading a location the edge
//! may write, or the call's result). It is closed under the relation the cube searches use
//! (C2BP, Ball, Majumdar, Millstein, Rajamani, PLDI'01, §4.1: a cube is grown only with
//! variables that share a location with it), and minimal inconsistent cubes are connected by
//! it: every cube search and every excluded cube of the edge's translation is over its
//! vocabulary. Where the edge's weakest preconditions may compare addresses (an assignment
//! that may alias a location a predicate reads under another name, a call, a havoc), its
//! seed counts the pointers it reaches through as values ([`Relevance::promote`]), since those
//! comparisons read them so. The edge's key ([`crate::emit`] builds it) is that
//! vocabulary (names and meanings, in scope order), the inconsistent cubes over it, and the
//! signatures of the functions it may call; two abstractions that give an edge the same key
//! give it the same statements, which `tests/cache.rs` checks against fresh abstractions.

use std::collections::HashMap;
use std::sync::Arc;

use cir::ir::FuncId;
use cir::pointsto::PointsTo;

use crate::cubes::PredVar;
use crate::relevance::{self, Relevance};

/// The statements of one edge's translation (alternatives of statement lists, each a part and
/// its text) and the counters and temporaries the translation added.
#[derive(Debug, Clone, Default)]
pub struct EdgeText {
    /// Per alternative, the statements as (part, text).
    pub blocks: Vec<Vec<(&'static str, String)>>,
    /// Predicate updates emitted.
    pub updates: u64,
    /// Of which `*`.
    pub star_updates: u64,
    /// Exact relations among them that stopped short.
    pub exact_capped: u64,
    /// Cubes the statements are written with.
    pub cubes: u64,
    /// Call temporaries the translation declared, in order.
    pub temps: Vec<String>,
}

/// An edge's key and its statements; `None` for an edge whose translation is not reused (a
/// search of it stopped at its budget or met an `unknown`, so a fresh one may differ).
pub type EdgeSlot = Option<(String, Arc<EdgeText>)>;

/// The statements of the last abstraction, by function and edge index.
pub type EdgeTexts = HashMap<FuncId, Vec<EdgeSlot>>;

/// The indices of `vars` in the vocabulary seeded by the cells `locs` and by the variables
/// for whose index `seed` holds: those, and transitively every variable related to one already in
/// ([`crate::relevance`], the relation of the cube searches). A variable that reads no cell at
/// all is always in (nothing relates it, yet a search for its own meaning finds it by its text).
/// `graph` is the relation among the first of `vars` ([`relevance::connected`]).
pub fn vocabulary(
    graph: &relevance::Graph,
    vars: &[&PredVar],
    locs: &Relevance,
    seed: impl Fn(usize) -> bool,
    pts: &PointsTo,
) -> Vec<usize> {
    let start = vars
        .iter()
        .enumerate()
        .map(|(i, v)| v.locs.is_empty() || seed(i))
        .collect();
    let cells: Vec<&Relevance> = vars.iter().map(|v| &v.locs).collect();
    relevance::connected(graph, &cells, locs, start, pts)
}

/// Counters of statement reuse in one procedure.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReuseStats {
    /// Edges whose statements were taken from the previous abstraction.
    pub reused: u64,
    /// Edges translated.
    pub translated: u64,
    /// Of the translated edges, those not kept for reuse: a search stopped at its budget or
    /// met an `unknown` (a fresh translation may differ from a reused one there).
    pub not_kept: u64,
}
