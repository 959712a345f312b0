//! Typed indices used across the modules of `bebop` (never bare `usize`s between modules).
//! The lowest module of the crate: it depends on none of the others (the vectors these ids
//! index, in `lower::Model`, say so in their own docs).

use std::fmt;

/// A procedure of the program (an index into the model's procedures).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProcId(pub u32);

/// A node of the interprocedural control-flow graph (an index into the model's nodes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// An edge of the control-flow graph (an index into the model's edges).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EdgeId(pub u32);

/// The worklist iteration in which a state was found (its "layer"); initial states have 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Stamp(pub u32);

impl ProcId {
    /// As an index into a vector.
    pub fn ix(self) -> usize {
        self.0 as usize
    }
}

impl NodeId {
    /// As an index into a vector.
    pub fn ix(self) -> usize {
        self.0 as usize
    }
}

impl EdgeId {
    /// As an index into a vector.
    pub fn ix(self) -> usize {
        self.0 as usize
    }
}

impl Stamp {
    /// The stamp before this one (`None` for 0).
    pub fn prev(self) -> Option<Stamp> {
        self.0.checked_sub(1).map(Stamp)
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "n{}", self.0)
    }
}
