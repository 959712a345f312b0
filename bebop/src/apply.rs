//! The BDD operations every image of the engine and of trace extraction is made of: the
//! relational product `∃ q. f ∧ g`, plain `∃ q. f`, and the Boolean operations `∧`, `∨`, `∧ ¬`,
//! `↔`, `⊕`, `→` on biodivine BDDs, each in one recursive pass.
//!
//! biodivine's `binary_op_with_exists` first builds the whole conjunction's cofactors below a
//! quantified variable and only then joins them, and every operation allocates its tables
//! afresh and (for the products) copies its result once more to put it in order. Here the
//! classic recursion of Burch, Clarke & Long ("Symbolic model checking with partitioned
//! transition relations", VLSI 1991, §3) quantifies as it goes: below a quantified variable
//! the `false` cofactor is computed first and the `true` one is skipped when the first is
//! already `true`. The tables live in a per-thread scratch area, kept from one operation to
//! the next: most operations of a Boolean program's analysis touch a few dozen nodes, where
//! allocating tables cost more than the operation.
//!
//! The tables are open-addressed with linear probing and stamped rather than cleared: an
//! entry counts only when its stamp is the current operation's, so starting an operation
//! costs nothing whatever the size the tables grew to (the operations are many and mostly
//! small; clearing a general-purpose hash map costs its capacity every time), and a key is
//! hashed by one multiplication. An operation on small inputs (at most `DIRECT_PAIRS` pairs
//! of nodes, most of them) memoises its products in an array indexed by the pair instead.
//!
//! Every result is laid out exactly as biodivine lays out its own (a depth-first post-order
//! from the root, `true` children first), so it is `==` to what biodivine computes for the
//! same function: the engine's fixpoint tests compare BDDs structurally.

use biodivine_lib_bdd::{Bdd, BddNode, BddPointer, BddVariable, op_function};
use std::cell::RefCell;

/// Tables that grew past this many slots (6 MiB each, of 24-byte slots) are given back when
/// the next operation starts: a rare large operation should not keep more than that for the
/// rest of the run.
const KEEP_CAPACITY: usize = 1 << 18;

/// The capacity of a fresh table (a power of two).
const MIN_CAPACITY: usize = 1 << 10;

/// Operations whose inputs have at most this many pairs of nodes (most of an analysis's:
/// a statement's relation and a few hundred states) index their products directly by the
/// pair, with no hashing or probing.
const DIRECT_PAIRS: usize = 1 << 12;

/// The recursion goes one level deeper per variable, twice over under a quantification: past
/// this many variables the operations are biodivine's own (the same results, on an explicit
/// stack), so that a caller's small stack (2 MiB for a test thread) always suffices.
const MAX_RECURSIVE_VARS: u16 = 2048;

/// Index of the `false` and `true` terminals, in the inputs and in the scratch result.
const ZERO: u32 = 0;
const ONE: u32 = 1;

/// One operation's working state.
#[derive(Default)]
struct Scratch {
    /// Result nodes, terminals at 0 and 1 (unreduced garbage possible: the `or`s of a
    /// quantification leave intermediate nodes behind).
    nodes: Vec<(u16, u32, u32)>,
    /// The result node of each `(low, high)` pair and variable.
    unique: Table,
    /// Products done, by the pair of input nodes.
    prod: Table,
    /// Products done in an operation on two small inputs (at most [`DIRECT_PAIRS`] pairs of
    /// nodes), by the pair's index `a * |g| + b`: `(stamp, result)`, live when the stamp is
    /// `direct_stamp`.
    direct: Vec<(u32, u32)>,
    direct_stamp: u32,
    /// Disjunctions of result nodes done, by the (ordered) pair.
    or: Table,
    /// Per BDD variable: whether it is quantified.
    quant: Vec<bool>,
    /// For the final layout: the new index of each result node (`u32::MAX`: not yet placed).
    placed: Vec<u32>,
    /// For the final layout: its depth-first stack and the nodes laid out (copied into the
    /// result, which is then exactly as large as it needs to be).
    stack: Vec<u32>,
    out: Vec<BddNode>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// `∃ q. f ∧ g`.
pub fn and_exists(f: &Bdd, g: &Bdd, q: &[BddVariable]) -> Bdd {
    run(f, g, q, op_function::and)
}

/// `∃ q. f`.
pub fn exists(f: &Bdd, q: &[BddVariable]) -> Bdd {
    if q.is_empty() || f.as_bool().is_some() {
        return f.clone();
    }
    run(f, f, q, op_function::and)
}

/// `f ∧ g`.
pub fn and(f: &Bdd, g: &Bdd) -> Bdd {
    run(f, g, &[], op_function::and)
}

/// `f ∨ g`.
pub fn or(f: &Bdd, g: &Bdd) -> Bdd {
    run(f, g, &[], op_function::or)
}

/// `f ∧ ¬g`.
pub fn and_not(f: &Bdd, g: &Bdd) -> Bdd {
    run(f, g, &[], op_function::and_not)
}

/// `f ↔ g`.
pub fn iff(f: &Bdd, g: &Bdd) -> Bdd {
    run(f, g, &[], op_function::iff)
}

/// `f ⊕ g`.
pub fn xor(f: &Bdd, g: &Bdd) -> Bdd {
    run(f, g, &[], op_function::xor)
}

/// `f → g`.
pub fn imp(f: &Bdd, g: &Bdd) -> Bdd {
    run(f, g, &[], op_function::imp)
}

/// `∃ q. op(f, g)`, `op` given on constants as biodivine's `op_function`s are (`None`: not
/// decided by the constants known).
fn run<F>(f: &Bdd, g: &Bdd, q: &[BddVariable], op: F) -> Bdd
where
    F: Fn(Option<bool>, Option<bool>) -> Option<bool>,
{
    assert_eq!(
        f.num_vars(),
        g.num_vars(),
        "BDDs over different variable sets"
    );
    if let Some(c) = op(f.as_bool(), g.as_bool()) {
        return constant(f.num_vars(), c);
    }
    if f.num_vars() > MAX_RECURSIVE_VARS {
        // biodivine's operations keep explicit stacks: slower, but any depth is safe. Their
        // result vector grows by doubling; a clone holds exactly its nodes, as ours do (the
        // engine keeps its path edges to the end).
        return Bdd::binary_op_with_exists(f, g, op, q).clone();
    }
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        s.start(f.num_vars(), q);
        let stride = (f.size() * g.size() <= DIRECT_PAIRS).then(|| {
            s.direct_start();
            g.size()
        });
        let mut run = Run {
            s: &mut s,
            f,
            g,
            op,
            stride,
        };
        let root = run.prod(f.root_pointer(), g.root_pointer());
        let out = s.layout(root, f.num_vars());
        s.finish();
        out
    })
}

/// One slot of a [`Table`]: a key (a pair of `u32` node indices and a tag, the variable of a
/// unique-table entry), its value, and the stamp of the operation that wrote it.
#[derive(Clone, Copy, Default)]
struct Slot {
    key: u64,
    tag: u32,
    val: u32,
    stamp: u32,
}

/// A map from `(pair, tag)` to `u32`, open-addressed with linear probing, emptied in O(1) by
/// moving to the next stamp (see the module doc).
struct Table {
    slots: Vec<Slot>,
    /// The stamp of the live entries (never 0: a fresh slot's stamp is 0).
    stamp: u32,
    /// The number of live entries.
    len: usize,
}

impl Default for Table {
    fn default() -> Self {
        Table {
            slots: vec![Slot::default(); MIN_CAPACITY],
            stamp: 1,
            len: 0,
        }
    }
}

impl Table {
    /// The home slot of a key: Fibonacci hashing (Knuth, TAOCP vol. 3, §6.4) of the pair
    /// mixed with the tag.
    fn home(&self, key: u64, tag: u32) -> usize {
        let h = (key ^ u64::from(tag).rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> (64 - self.slots.len().trailing_zeros())) as usize
    }

    fn get(&self, key: u64, tag: u32) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key, tag);
        loop {
            let s = &self.slots[i];
            if s.stamp != self.stamp {
                return None;
            }
            if s.key == key && s.tag == tag {
                return Some(s.val);
            }
            i = (i + 1) & mask;
        }
    }

    /// Inserts `key ↦ val`; the key must not be present.
    fn insert(&mut self, key: u64, tag: u32, val: u32) {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(key, tag);
        while self.slots[i].stamp == self.stamp {
            i = (i + 1) & mask;
        }
        self.slots[i] = Slot {
            key,
            tag,
            val,
            stamp: self.stamp,
        };
        self.len += 1;
    }

    /// The value of `key`, inserting `val` when it is absent (one probe sequence for both).
    fn get_or_insert(&mut self, key: u64, tag: u32, val: u32) -> u32 {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(key, tag);
        loop {
            let s = &mut self.slots[i];
            if s.stamp != self.stamp {
                *s = Slot {
                    key,
                    tag,
                    val,
                    stamp: self.stamp,
                };
                self.len += 1;
                return val;
            }
            if s.key == key && s.tag == tag {
                return s.val;
            }
            i = (i + 1) & mask;
        }
    }

    /// Doubles the capacity, keeping the live entries.
    fn grow(&mut self) {
        let doubled = vec![Slot::default(); 2 * self.slots.len()];
        let old = std::mem::replace(&mut self.slots, doubled);
        let stamp = self.stamp;
        self.stamp = 1;
        self.len = 0;
        for s in old.into_iter().filter(|s| s.stamp == stamp) {
            self.insert(s.key, s.tag, s.val);
        }
    }

    /// Forgets every entry: the next stamp, unless the table grew past [`KEEP_CAPACITY`]
    /// (then a fresh one) or the stamps wrapped around.
    fn empty(&mut self) {
        if self.slots.len() > KEEP_CAPACITY || self.stamp == u32::MAX {
            *self = Table::default();
        } else {
            self.stamp += 1;
            self.len = 0;
        }
    }
}

/// The variables `b` depends on, in increasing order: one pass over its nodes (biodivine's
/// `support_set` hashes each node's variable into a set).
pub fn support(b: &Bdd) -> Vec<BddVariable> {
    let mut seen = vec![false; usize::from(b.num_vars())];
    for i in 2..b.size() {
        seen[b.var_of(BddPointer::from_index(i)).to_index()] = true;
    }
    seen.iter()
        .enumerate()
        .filter(|(_, s)| **s)
        .map(|(i, _)| BddVariable::from_index(i))
        .collect()
}

/// The key of a pair of node indices.
fn pair(a: u32, b: u32) -> u64 {
    u64::from(a) << 32 | u64::from(b)
}

/// The constant `c` over `num_vars` variables.
fn constant(num_vars: u16, c: bool) -> Bdd {
    let zero = BddNode::mk_zero(num_vars);
    let nodes: &[BddNode] = if c {
        &[zero, BddNode::mk_one(num_vars)]
    } else {
        &[zero]
    };
    Bdd::from_nodes(nodes).expect("a constant BDD")
}

impl Scratch {
    fn start(&mut self, num_vars: u16, q: &[BddVariable]) {
        // Emptied when an operation starts rather than when it finishes: one that panicked
        // never finished, and its entries must not answer the next one.
        self.prod.empty();
        self.or.empty();
        self.unique.empty();
        self.nodes.clear();
        // Terminals: their variable is the number of variables, as in biodivine.
        self.nodes.push((num_vars, ZERO, ZERO));
        self.nodes.push((num_vars, ONE, ONE));
        self.quant.clear();
        self.quant.resize(usize::from(num_vars), false);
        for v in q {
            self.quant[v.to_index()] = true;
        }
    }

    /// Starts an operation whose products are indexed directly.
    fn direct_start(&mut self) {
        if self.direct.is_empty() || self.direct_stamp == u32::MAX {
            self.direct.clear();
            self.direct.resize(DIRECT_PAIRS, (0, 0));
            self.direct_stamp = 0;
        }
        self.direct_stamp += 1;
    }

    fn finish(&mut self) {
        if self.nodes.capacity() > KEEP_CAPACITY {
            self.nodes = Vec::new();
            self.placed = Vec::new();
            self.stack = Vec::new();
            self.out = Vec::new();
        }
    }

    /// The reduced node `(v, lo, hi)`.
    fn mk(&mut self, v: u16, lo: u32, hi: u32) -> u32 {
        if lo == hi {
            return lo;
        }
        let next = self.nodes.len() as u32;
        let id = self.unique.get_or_insert(pair(lo, hi), u32::from(v), next);
        if id == next {
            self.nodes.push((v, lo, hi));
        }
        id
    }

    /// `a ∨ b` over result nodes.
    fn or(&mut self, a: u32, b: u32) -> u32 {
        if a == ONE || b == ONE {
            return ONE;
        }
        if a == ZERO || a == b {
            return b;
        }
        if b == ZERO {
            return a;
        }
        let (a, b) = (a.min(b), a.max(b));
        let key = pair(a, b);
        if let Some(r) = self.or.get(key, 0) {
            return r;
        }
        let (va, a0, a1) = self.nodes[a as usize];
        let (vb, b0, b1) = self.nodes[b as usize];
        let v = va.min(vb);
        let (a0, a1) = if va == v { (a0, a1) } else { (a, a) };
        let (b0, b1) = if vb == v { (b0, b1) } else { (b, b) };
        let lo = self.or(a0, b0);
        let hi = self.or(a1, b1);
        let r = self.mk(v, lo, hi);
        self.or.insert(key, 0, r);
        r
    }

    /// The result from `root` as a biodivine BDD, laid out as biodivine's own results are
    /// (its `fix_bdd_alignment`: an explicit-stack depth-first search pushing the `false`
    /// child, then the `true` child, a node placed once both children are).
    fn layout(&mut self, root: u32, num_vars: u16) -> Bdd {
        if root == ZERO {
            return constant(num_vars, false);
        }
        let out = &mut self.out;
        out.clear();
        out.extend([BddNode::mk_zero(num_vars), BddNode::mk_one(num_vars)]);
        if root != ONE {
            self.placed.clear();
            self.placed.resize(self.nodes.len(), u32::MAX);
            self.placed[0] = 0;
            self.placed[1] = 1;
            let stack = &mut self.stack;
            stack.clear();
            stack.push(root);
            while let Some(&top) = stack.last() {
                if self.placed[top as usize] != u32::MAX {
                    stack.pop();
                    continue;
                }
                let (v, lo, hi) = self.nodes[top as usize];
                let (nlo, nhi) = (self.placed[lo as usize], self.placed[hi as usize]);
                if nlo != u32::MAX && nhi != u32::MAX {
                    out.push(BddNode::mk_node(
                        BddVariable::from_index(usize::from(v)),
                        BddPointer::from_index(nlo as usize),
                        BddPointer::from_index(nhi as usize),
                    ));
                    self.placed[top as usize] = (out.len() - 1) as u32;
                    stack.pop();
                } else {
                    if nlo == u32::MAX {
                        stack.push(lo);
                    }
                    if nhi == u32::MAX {
                        stack.push(hi);
                    }
                }
            }
        }
        Bdd::from_nodes(out).expect("a well-formed BDD")
    }
}

/// One operation: the scratch area, the two inputs and the operation on constants.
struct Run<'s, 'b, F> {
    s: &'s mut Scratch,
    f: &'b Bdd,
    g: &'b Bdd,
    op: F,
    /// For small inputs, the size of `g`: products are then memoised in `Scratch::direct`.
    stride: Option<usize>,
}

impl<F> Run<'_, '_, F>
where
    F: Fn(Option<bool>, Option<bool>) -> Option<bool>,
{
    /// `∃ q. op(f@a, g@b)` as a result node.
    fn prod(&mut self, a: BddPointer, b: BddPointer) -> u32 {
        if let Some(c) = (self.op)(a.as_bool(), b.as_bool()) {
            return if c { ONE } else { ZERO };
        }
        let key = pair(a.to_index() as u32, b.to_index() as u32);
        let direct = self.stride.map(|n| a.to_index() * n + b.to_index());
        let known = match direct {
            Some(i) => {
                let (stamp, r) = self.s.direct[i];
                (stamp == self.s.direct_stamp).then_some(r)
            }
            None => self.s.prod.get(key, 0),
        };
        if let Some(r) = known {
            return r;
        }
        let (va, vb) = (self.f.var_of(a), self.g.var_of(b));
        let v = va.min(vb);
        let (a0, a1) = if va == v {
            (self.f.low_link_of(a), self.f.high_link_of(a))
        } else {
            (a, a)
        };
        let (b0, b1) = if vb == v {
            (self.g.low_link_of(b), self.g.high_link_of(b))
        } else {
            (b, b)
        };
        let lo = self.prod(a0, b0);
        let r = if !self.s.quant[v.to_index()] {
            let hi = self.prod(a1, b1);
            self.s.mk(v.to_index() as u16, lo, hi)
        } else if lo == ONE {
            ONE
        } else {
            let hi = self.prod(a1, b1);
            self.s.or(lo, hi)
        };
        match direct {
            Some(i) => self.s.direct[i] = (self.s.direct_stamp, r),
            None => self.s.prod.insert(key, 0, r),
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use biodivine_lib_bdd::BddVariableSet;
    use bp_testkit::prng::SplitMix64;

    /// A random BDD over `set`: a conjunction of `k` random clauses of two literals, or'ed
    /// with another such conjunction.
    fn random(set: &BddVariableSet, rng: &mut SplitMix64, k: usize) -> Bdd {
        let v = set.variables();
        let mut conj = || {
            (0..k).fold(set.mk_true(), |acc, _| {
                let a = set.mk_literal(v[rng.below(v.len())], rng.coin());
                let b = set.mk_literal(v[rng.below(v.len())], rng.coin());
                acc.and(&a.or(&b))
            })
        };
        let x = conj();
        x.or(&conj())
    }

    #[test]
    fn products_equal_biodivines_node_for_node() {
        let set = BddVariableSet::new_anonymous(12);
        let v = set.variables();
        let mut rng = SplitMix64::new(11);
        for round in 0..400 {
            let f = random(&set, &mut rng, 1 + round % 5);
            let g = random(&set, &mut rng, 1 + round % 4);
            let q: Vec<BddVariable> = v.iter().copied().filter(|_| rng.coin()).collect();
            let want = Bdd::binary_op_with_exists(&f, &g, biodivine_lib_bdd::op_function::and, &q);
            // Structural equality: the engine's fixpoint tests depend on the layout.
            let got = and_exists(&f, &g, &q);
            assert_eq!(got, want, "round {round}");
            assert_eq!(exists(&f, &q), f.exists(&q), "round {round}");
            assert_eq!(and(&f, &g), f.and(&g), "round {round}");
            assert_eq!(or(&f, &g), f.or(&g), "round {round}");
            assert_eq!(and_not(&f, &g), f.and_not(&g), "round {round}");
            assert_eq!(and_not(&f, &f), f.and_not(&f), "round {round}");
            assert_eq!(iff(&f, &g), f.iff(&g), "round {round}");
            assert_eq!(xor(&f, &g), f.xor(&g), "round {round}");
            assert_eq!(imp(&f, &g), f.imp(&g), "round {round}");
            let mut want: Vec<BddVariable> = f.support_set().into_iter().collect();
            want.sort();
            assert_eq!(support(&f), want, "round {round}");
        }
    }

    #[test]
    fn large_products_equal_biodivines_node_for_node() {
        // Inputs of hundreds of nodes: past the directly indexed memo, into the hashed
        // tables, which grow several times within an operation.
        let set = BddVariableSet::new_anonymous(40);
        let v = set.variables();
        let mut rng = SplitMix64::new(23);
        let mut grown = 0;
        for round in 0..40 {
            let f = random(&set, &mut rng, 6 + round % 6);
            let g = random(&set, &mut rng, 6 + round % 5);
            let q: Vec<BddVariable> = v.iter().copied().filter(|_| rng.coin()).collect();
            let want = Bdd::binary_op_with_exists(&f, &g, biodivine_lib_bdd::op_function::and, &q);
            assert_eq!(and_exists(&f, &g, &q), want, "round {round}");
            assert_eq!(and(&f, &g), f.and(&g), "round {round}");
            assert_eq!(or(&f, &g), f.or(&g), "round {round}");
            if f.size() * g.size() > DIRECT_PAIRS {
                grown += 1;
            }
        }
        assert!(grown > 20, "only {grown} large operations");
        assert!(
            SCRATCH.with(|s| s.borrow().unique.slots.len()) > MIN_CAPACITY,
            "the tables never grew"
        );
    }

    #[test]
    fn stamps_wrapping_around_forget_every_entry() {
        let set = BddVariableSet::new_anonymous(8);
        let mut rng = SplitMix64::new(5);
        let f = random(&set, &mut rng, 3);
        let g = random(&set, &mut rng, 3);
        let want = f.and(&g);
        SCRATCH.with(|s| {
            let s = &mut *s.borrow_mut();
            for t in [&mut s.prod, &mut s.or, &mut s.unique] {
                t.stamp = u32::MAX - 2;
            }
            s.direct_stamp = u32::MAX - 2;
        });
        for _ in 0..6 {
            assert_eq!(and(&f, &g), want);
            assert_eq!(or(&f, &g), f.or(&g));
        }
    }

    #[test]
    fn the_deepest_recursion_fits_a_test_threads_stack() {
        // A chain through every variable, quantified away: recursion as deep as it gets.
        for n in [MAX_RECURSIVE_VARS, MAX_RECURSIVE_VARS + 1] {
            let set = BddVariableSet::new_anonymous(n);
            let v = set.variables();
            let chain = v
                .iter()
                .rev()
                .fold(set.mk_true(), |acc, &x| set.mk_var(x).and(&acc));
            let odd: Vec<BddVariable> = v.iter().copied().skip(1).step_by(2).collect();
            let other = chain.not().not();
            let want = Bdd::binary_op_with_exists(
                &chain,
                &other,
                biodivine_lib_bdd::op_function::and,
                &odd,
            );
            assert_eq!(and_exists(&chain, &other, &odd), want);
            assert_eq!(exists(&chain, &v), set.mk_true());
        }
    }

    #[test]
    fn constants_and_full_quantification() {
        let set = BddVariableSet::new_anonymous(4);
        let v = set.variables();
        let x = set.mk_var(v[1]).and(&set.mk_var(v[3]).not());
        assert_eq!(and_exists(&x, &set.mk_false(), &v), set.mk_false());
        assert_eq!(and_exists(&x, &set.mk_true(), &v), set.mk_true());
        assert_eq!(and_exists(&x, &x.not(), &v), set.mk_false());
        assert_eq!(exists(&set.mk_true(), &v), set.mk_true());
        assert_eq!(exists(&x, &[v[1]]), set.mk_var(v[3]).not());
        assert_eq!(or(&x, &x.not()), set.mk_true());
        assert_eq!(and_not(&x, &set.mk_true()), set.mk_false());
        assert_eq!(and(&x, &set.mk_true()), x);
    }
}
