//! Statement-level reuse across abstractions of one program: the translation of one C edge
//! read only the predicates its abstraction can read or write, so when a refinement adds
//! predicates elsewhere (a new global one changes every procedure's vocabulary, but few of its
//! statements) the edge keeps the text of the previous abstraction.
//!
//! An edge's *vocabulary* is the set of Boolean variables in its scope connected, through shared
//! locations, to what the edge touches: the locations it reads or writes, and the predicates
//! whose meaning it may change (those reading a location the edge may write, or the call's
//! result). It is closed under sharing a location, as the relevance filter of the cube searches
//! is (C2BP, Ball, Majumdar, Millstein, Rajamani, PLDI'01, §4.1: a cube is grown only with
//! variables that share a location with it; SATABS, Clarke, Kroening, Sharygina, Yorav,
//! "Predicate Abstraction of ANSI-C Programs using SAT", §4 does the same), and minimal
//! inconsistent cubes are connected: every cube search and every excluded cube of the edge's
//! translation is over its vocabulary. The edge's key ([`crate::emit`] builds it) is that
//! vocabulary (names and meanings, in scope order), the inconsistent cubes over it, and the
//! signatures of the functions it may call; two abstractions that give an edge the same key
//! give it the same statements, which `tests/cache.rs` checks against fresh abstractions.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use cir::ir::FuncId;
use cir::pointsto::Loc;

use crate::cubes::PredVar;

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

/// The indices of `vars` in the vocabulary seeded by the locations `locs` and by the variables
/// for which `seed` holds: those, and transitively every variable sharing a location with one
/// already in. A variable over no location at all is always in (nothing connects it, yet a
/// search for its own meaning finds it by its text).
pub fn vocabulary(
    vars: &[&PredVar],
    locs: &BTreeSet<Loc>,
    seed: impl Fn(&PredVar) -> bool,
) -> Vec<usize> {
    let mut reach = locs.clone();
    let mut inside: Vec<bool> = vars
        .iter()
        .map(|v| v.locs.is_empty() || seed(v) || !v.locs.is_disjoint(&reach))
        .collect();
    for (v, _) in vars.iter().zip(&inside).filter(|(_, i)| **i) {
        reach.extend(v.locs.iter().cloned());
    }
    let mut changed = true;
    while changed {
        changed = false;
        for (i, v) in vars.iter().enumerate() {
            if !inside[i] && !v.locs.is_disjoint(&reach) {
                inside[i] = true;
                reach.extend(v.locs.iter().cloned());
                changed = true;
            }
        }
    }
    (0..vars.len()).filter(|&i| inside[i]).collect()
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
