//! The BDD variable layout: one [`BddVariableSet`] for the whole program.
//!
//! Every program variable lives in a *slot*: a global, a return-value slot, or a frame slot
//! shared by all procedures (the parameters and locals of a procedure occupy frame slots
//! `0..k`, parameters first, so procedures of any frame size reuse the same BDD variables, as
//! Ball & Rajamani suggest for Bebop, SPIN 2000). Each slot has three *versions*, adjacent in the
//! variable order:
//!
//! - [`Ver::Entry`]: the value at the entry of the current procedure (path edges' source),
//! - [`Ver::Next`]: an intermediate copy (post-state of a transfer, callee entry at a call),
//! - [`Ver::Cur`]: the current value (path edges' target).
//!
//! The order inside a slot is `Entry < Next < Cur`, globals first, then the return slots and
//! the frame slots interleaved (`Ret(i) < Frame(i)`, the frame slots in the order the frame
//! layout chose, [`crate::order::frame_layout`]; in their own order `Ret(0) < Frame(0) <
//! Ret(1) < Frame(1) < …`), then a few *temporaries* (one per `*`/`schoose` occurrence of the
//! busiest statement, always quantified away when a statement's relation is built). A
//! procedure returns the values of its first frame slots more often than any others (c2bp
//! returns the predicates over the formals, in the formals' order), and `ret_i ↔ frame_i` for
//! all i is exponential when the return slots all come before the frame. With this order the
//! renamings the engine needs are order-preserving (biodivine-lib-bdd's `rename_variables`
//! requires it): `Next → Cur` while `Entry` is present, `Entry → Next` while `Cur` is present,
//! `Cur → Next` while `Entry` is present. No other module does index arithmetic on BDD variables.

use crate::BebopError;
use biodivine_lib_bdd::{Bdd, BddPartialValuation, BddValuation, BddVariable, BddVariableSet};

/// Where a program variable lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Slot {
    /// The i-th global variable (declaration order).
    Global(u32),
    /// The i-th return value of the procedure that is returning.
    Ret(u32),
    /// The i-th frame variable of the active procedure (parameters, then locals).
    Frame(u32),
}

/// Which copy of a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ver {
    /// The value at the entry of the procedure.
    Entry,
    /// The intermediate copy (next state, or callee entry at a call).
    Next,
    /// The current value.
    Cur,
}

impl Ver {
    fn offset(self) -> usize {
        match self {
            Ver::Entry => 0,
            Ver::Next => 1,
            Ver::Cur => 2,
        }
    }
}

/// The one variable set of a program and its layout.
pub struct VarMap {
    set: BddVariableSet,
    n_globals: u32,
    n_ret: u32,
    n_frame: u32,
    n_temps: u32,
    /// Per frame slot, its place in the order (see [`VarMap::with_frame_order`]).
    frame_index: Vec<u32>,
    /// Per return slot, its place in the order.
    ret_index: Vec<u32>,
    /// What each place in the order (`0..slots`, globals excluded) holds.
    at_index: Vec<Slot>,
}

/// What a BDD variable stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarInfo {
    /// A version of a slot.
    Slot(Slot, Ver),
    /// A temporary (a `*` occurrence).
    Temp(u32),
}

impl VarMap {
    /// A layout for `n_globals` globals, `n_ret` return slots, `n_frame` frame slots and
    /// `n_temps` temporaries, the frame slots in their own order.
    pub fn new(
        n_globals: u32,
        n_ret: u32,
        n_frame: u32,
        n_temps: u32,
    ) -> Result<VarMap, BebopError> {
        Self::with_frame_order(n_globals, n_ret, n_frame, n_temps, &[])
    }

    /// A layout whose frame slots come in the order `frame_order` (a permutation of
    /// `0..n_frame`; empty for the slots' own order), each frame slot `i` preceded by the
    /// return slot `i`, if there is one; the return slots without a frame slot of their
    /// index come last.
    ///
    /// Frame slots are shared by all procedures, parameters first, so the order of the slots
    /// is the order of every procedure's frame. A procedure whose parameters are copied to
    /// and from its locals (c2bp passes the predicates over a formal as parameters and
    /// keeps a local state variable's predicates as locals) needs its locals between its
    /// parameters, which this order allows.
    pub fn with_frame_order(
        n_globals: u32,
        n_ret: u32,
        n_frame: u32,
        n_temps: u32,
        frame_order: &[u32],
    ) -> Result<VarMap, BebopError> {
        let slots = n_globals as usize + n_ret as usize + n_frame as usize;
        let total = 3 * slots + n_temps as usize;
        if total >= usize::from(u16::MAX) {
            return Err(BebopError::TooManyVariables { needed: total });
        }
        let total16 =
            u16::try_from(total).map_err(|_| BebopError::TooManyVariables { needed: total })?;
        let order: Vec<u32> = if frame_order.is_empty() {
            (0..n_frame).collect()
        } else {
            let mut sorted = frame_order.to_vec();
            sorted.sort_unstable();
            if !sorted.iter().copied().eq(0..n_frame) {
                return Err(BebopError::Internal(format!(
                    "a frame order of {} slots that is not a permutation of 0..{n_frame}",
                    frame_order.len()
                )));
            }
            frame_order.to_vec()
        };
        let mut frame_index = vec![0; n_frame as usize];
        let mut ret_index = vec![0; n_ret as usize];
        let mut at_index = Vec::with_capacity(slots - n_globals as usize);
        for &f in &order {
            if f < n_ret {
                ret_index[f as usize] = at_index.len() as u32;
                at_index.push(Slot::Ret(f));
            }
            frame_index[f as usize] = at_index.len() as u32;
            at_index.push(Slot::Frame(f));
        }
        for r in n_frame..n_ret {
            ret_index[r as usize] = at_index.len() as u32;
            at_index.push(Slot::Ret(r));
        }
        Ok(VarMap {
            set: BddVariableSet::new_anonymous(total16),
            n_globals,
            n_ret,
            n_frame,
            n_temps,
            frame_index,
            ret_index,
            at_index,
        })
    }

    fn slot_index(&self, slot: Slot) -> usize {
        let g = self.n_globals as usize;
        match slot {
            Slot::Global(i) => {
                debug_assert!(i < self.n_globals);
                i as usize
            }
            Slot::Ret(i) => g + self.ret_index[i as usize] as usize,
            Slot::Frame(i) => g + self.frame_index[i as usize] as usize,
        }
    }

    /// The BDD variable of a version of a slot.
    pub fn var(&self, slot: Slot, ver: Ver) -> BddVariable {
        BddVariable::from_index(3 * self.slot_index(slot) + ver.offset())
    }

    /// The j-th temporary.
    pub fn temp(&self, j: u32) -> BddVariable {
        debug_assert!(j < self.n_temps);
        let slots = (self.n_globals + self.n_ret + self.n_frame) as usize;
        BddVariable::from_index(3 * slots + j as usize)
    }

    /// The first `n` temporaries.
    pub fn temps(&self, n: u32) -> Vec<BddVariable> {
        (0..n).map(|j| self.temp(j)).collect()
    }

    /// How many temporaries exist.
    pub fn n_temps(&self) -> u32 {
        self.n_temps
    }

    /// What a BDD variable stands for.
    pub fn describe(&self, var: BddVariable) -> VarInfo {
        let ix = var.to_index();
        let slots = (self.n_globals + self.n_ret + self.n_frame) as usize;
        if ix >= 3 * slots {
            return VarInfo::Temp((ix - 3 * slots) as u32);
        }
        let s = (ix / 3) as u32;
        let ver = match ix % 3 {
            0 => Ver::Entry,
            1 => Ver::Next,
            _ => Ver::Cur,
        };
        let slot = if s < self.n_globals {
            Slot::Global(s)
        } else {
            self.at_index[(s - self.n_globals) as usize]
        };
        VarInfo::Slot(slot, ver)
    }

    /// The number of BDD variables.
    pub fn num_vars(&self) -> usize {
        usize::from(self.set.num_vars())
    }

    /// Every global slot.
    pub fn globals(&self) -> Vec<Slot> {
        (0..self.n_globals).map(Slot::Global).collect()
    }

    /// Every return slot (as many as the largest return arity of the program).
    pub fn rets(&self) -> Vec<Slot> {
        (0..self.n_ret).map(Slot::Ret).collect()
    }

    /// The number of globals.
    pub fn n_globals(&self) -> u32 {
        self.n_globals
    }

    /// The conjunction of `parts` as a clustered relation ([`crate::relation`]).
    pub fn relation(&self, parts: impl IntoIterator<Item = Bdd>) -> crate::relation::Relation {
        crate::relation::Relation::conjunction(self.tt(), parts)
    }

    /// The constant true.
    pub fn tt(&self) -> Bdd {
        self.set.mk_true()
    }

    /// The constant false.
    pub fn ff(&self) -> Bdd {
        self.set.mk_false()
    }

    /// A constant.
    pub fn constant(&self, b: bool) -> Bdd {
        if b { self.tt() } else { self.ff() }
    }

    /// The literal `slot@ver = value`.
    pub fn lit(&self, slot: Slot, ver: Ver, value: bool) -> Bdd {
        self.set.mk_literal(self.var(slot, ver), value)
    }

    /// The literal of a temporary.
    pub fn temp_lit(&self, j: u32) -> Bdd {
        self.set.mk_var(self.temp(j))
    }

    /// The BDD variables of `slots` in version `ver`.
    pub fn vars(&self, slots: &[Slot], ver: Ver) -> Vec<BddVariable> {
        slots.iter().map(|s| self.var(*s, ver)).collect()
    }

    /// Renames version `from` of `slots` to version `to`. The caller guarantees the renaming is
    /// order-preserving on the support of `bdd` and that no target variable is in the support
    /// (see the module doc).
    ///
    /// Implemented as one pass over the node vector (biodivine-lib-bdd's `rename_variables`
    /// hashes every node); `Bdd::from_nodes` re-checks that the variable order still holds.
    pub fn rename(&self, bdd: &Bdd, slots: &[Slot], from: Ver, to: Ver) -> Bdd {
        if from == to || slots.is_empty() || bdd.size() <= 2 {
            return bdd.clone();
        }
        let mut map: Vec<(BddVariable, BddVariable)> = slots
            .iter()
            .map(|s| (self.var(*s, from), self.var(*s, to)))
            .collect();
        map.sort_unstable();
        let mut nodes = bdd.clone().to_nodes();
        debug_assert!(
            nodes
                .iter()
                .skip(2)
                .all(|n| map.iter().all(|(_, t)| *t != n.var)),
            "a renaming target is already in the support"
        );
        for n in nodes.iter_mut().skip(2) {
            if let Ok(i) = map.binary_search_by_key(&n.var, |(a, _)| *a) {
                n.var = map[i].1;
            }
        }
        Bdd::from_nodes(&nodes).expect("renamings between adjacent copies preserve the order")
    }

    /// `⋀ (slot@a ↔ slot@b)` over `slots`.
    pub fn identity(&self, slots: &[Slot], a: Ver, b: Ver) -> Bdd {
        let mut sorted: Vec<Slot> = slots.to_vec();
        sorted.sort_by_key(|s| self.slot_index(*s));
        let mut acc = self.tt();
        for s in sorted.iter().rev() {
            let eq = self.lit(*s, a, true).iff(&self.lit(*s, b, true));
            acc = eq.and(&acc);
        }
        acc
    }

    /// The conjunction of literals `slot@ver = value`.
    pub fn cube<'a>(&self, vals: impl IntoIterator<Item = (&'a Slot, bool)>, ver: Ver) -> Bdd {
        let pv = BddPartialValuation::from_values(
            &vals
                .into_iter()
                .map(|(s, b)| (self.var(*s, ver), b))
                .collect::<Vec<_>>(),
        );
        self.set.mk_conjunctive_clause(&pv)
    }

    /// The value of `slot@ver` in a full valuation.
    pub fn value(&self, val: &BddValuation, slot: Slot, ver: Ver) -> bool {
        val.value(self.var(slot, ver))
    }

    /// An all-false valuation of every variable.
    pub fn empty_valuation(&self) -> BddValuation {
        BddValuation::all_false(self.set.num_vars())
    }

    /// The variable set (for DNF rendering).
    pub fn set(&self) -> &BddVariableSet {
        &self.set
    }
}

/// Picks one satisfying valuation deterministically: walking from the root, take the `false`
/// branch whenever it is satisfiable (variables not on the path are `false`).
pub fn pick(bdd: &Bdd) -> Option<BddValuation> {
    bdd.first_valuation()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renamings_are_order_preserving() {
        let vm = VarMap::new(2, 1, 2, 1).expect("small");
        let g = Slot::Global(0);
        let f = Slot::Frame(1);
        // Entry and Cur present: Entry -> Next keeps the order.
        let r = vm.identity(&[g, f], Ver::Entry, Ver::Cur);
        let s = vm.rename(&r, &[g, f], Ver::Entry, Ver::Next);
        assert_eq!(s, vm.identity(&[g, f], Ver::Next, Ver::Cur));
        // Entry and Next present: Next -> Cur keeps the order.
        let t = vm.rename(
            &vm.identity(&[g], Ver::Entry, Ver::Next),
            &[g],
            Ver::Next,
            Ver::Cur,
        );
        assert_eq!(t, vm.identity(&[g], Ver::Entry, Ver::Cur));
        assert_eq!(
            vm.describe(vm.var(f, Ver::Next)),
            VarInfo::Slot(f, Ver::Next)
        );
        assert_eq!(vm.describe(vm.temp(0)), VarInfo::Temp(0));
    }

    #[test]
    fn every_slot_has_its_own_variables_and_describes_back() {
        for (globals, rets, frame) in [(2, 3, 5), (1, 5, 3), (0, 0, 4), (3, 4, 0), (2, 2, 2)] {
            let vm = VarMap::new(globals, rets, frame, 2).expect("small");
            let slots = (0..globals)
                .map(Slot::Global)
                .chain((0..rets).map(Slot::Ret))
                .chain((0..frame).map(Slot::Frame));
            let mut seen = std::collections::HashSet::new();
            for slot in slots {
                for ver in [Ver::Entry, Ver::Next, Ver::Cur] {
                    let v = vm.var(slot, ver);
                    assert!(seen.insert(v), "{slot:?} {ver:?} shares a variable");
                    assert_eq!(vm.describe(v), VarInfo::Slot(slot, ver));
                }
            }
            assert_eq!(seen.len() + 2, vm.num_vars());
        }
    }

    #[test]
    fn a_frame_order_places_the_slots_and_must_be_a_permutation() {
        let vm = VarMap::with_frame_order(1, 2, 3, 0, &[2, 0, 1]).expect("a permutation");
        let at = |s| vm.var(s, Ver::Entry).to_index();
        assert!(at(Slot::Frame(2)) < at(Slot::Frame(0)));
        assert!(at(Slot::Frame(0)) < at(Slot::Frame(1)));
        assert_eq!(at(Slot::Frame(0)), at(Slot::Ret(0)) + 3);
        assert!(VarMap::with_frame_order(1, 2, 3, 0, &[2, 0, 0]).is_err());
        assert!(VarMap::with_frame_order(1, 2, 3, 0, &[1, 0]).is_err());
    }

    #[test]
    fn a_return_slot_sits_next_to_the_frame_slot_of_its_index() {
        let vm = VarMap::new(1, 2, 4, 0).expect("small");
        let at = |s| vm.var(s, Ver::Entry).to_index();
        assert_eq!(at(Slot::Frame(0)), at(Slot::Ret(0)) + 3);
        assert_eq!(at(Slot::Ret(1)), at(Slot::Frame(0)) + 3);
        assert_eq!(at(Slot::Frame(2)), at(Slot::Frame(1)) + 3);
    }
}
