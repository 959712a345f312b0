//! The BDD operations every image of the engine and of trace extraction is made of: the
//! relational product `∃ q. f ∧ g`, plain `∃ q. f`, and the Boolean operations `∧`, `∨`, `∧ ¬`
//! on biodivine BDDs, each in one recursive pass.
//!
//! biodivine's `binary_op_with_exists` first builds the whole conjunction's cofactors below a
//! quantified variable and only then joins them, and every operation allocates its tables
//! afresh and (for the products) copies its result once more to put it in order. Here the
//! classic recursion of Burch, Clarke & Long ("Symbolic model checking with partitioned
//! transition relations", VLSI 1991, §3) quantifies as it goes: below a quantified variable
//! the `false` cofactor is computed first and the `true` one is skipped when the first is
//! already `true`. The tables live in a per-thread scratch area and are cleared, not freed,
//! between calls: most operations of a Boolean program's analysis touch a few dozen nodes,
//! where allocating tables cost more than the operation.
//!
//! Every result is laid out exactly as biodivine lays out its own (a depth-first post-order
//! from the root, `true` children first), so it is `==` to what biodivine computes for the
//! same function: the engine's fixpoint tests compare BDDs structurally.

use biodivine_lib_bdd::{Bdd, BddNode, BddPointer, BddVariable, op_function};
use std::cell::RefCell;
use std::collections::HashMap;

type Map<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// Tables whose capacity grew past this many entries are dropped after the call instead of
/// cleared: clearing costs their capacity, which a long run of small products would pay again
/// and again.
const KEEP_CAPACITY: usize = 1 << 16;

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
    /// The result node of each `(var, low, high)`.
    unique: Map<(u16, u32, u32), u32>,
    /// Products done, by the pair of input nodes.
    prod: Map<u64, u32>,
    /// Disjunctions of result nodes done, by the (ordered) pair.
    or: Map<u64, u32>,
    /// Per BDD variable: whether it is quantified.
    quant: Vec<bool>,
    /// For the final layout: the new index of each result node (`u32::MAX`: not yet placed).
    placed: Vec<u32>,
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
        // biodivine's operations keep explicit stacks: slower, but any depth is safe.
        return Bdd::binary_op_with_exists(f, g, op, q);
    }
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        s.start(f.num_vars(), q);
        let mut run = Run {
            s: &mut s,
            f,
            g,
            op,
        };
        let root = run.prod(f.root_pointer(), g.root_pointer());
        let out = s.layout(root, f.num_vars());
        s.finish();
        out
    })
}

/// Empties `m`, keeping its capacity unless it grew past [`KEEP_CAPACITY`].
fn empty<K, V>(m: &mut Map<K, V>) {
    if m.capacity() > KEEP_CAPACITY {
        *m = Map::default();
    } else {
        m.clear();
    }
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

    fn finish(&mut self) {
        empty(&mut self.prod);
        empty(&mut self.or);
        empty(&mut self.unique);
        if self.nodes.capacity() > KEEP_CAPACITY {
            self.nodes = Vec::new();
            self.placed = Vec::new();
        }
    }

    /// The reduced node `(v, lo, hi)`.
    fn mk(&mut self, v: u16, lo: u32, hi: u32) -> u32 {
        if lo == hi {
            return lo;
        }
        let next = self.nodes.len() as u32;
        let id = *self.unique.entry((v, lo, hi)).or_insert(next);
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
        let key = u64::from(a) << 32 | u64::from(b);
        if let Some(&r) = self.or.get(&key) {
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
        self.or.insert(key, r);
        r
    }

    /// The result from `root` as a biodivine BDD, laid out as biodivine's own results are
    /// (its `fix_bdd_alignment`: an explicit-stack depth-first search pushing the `false`
    /// child, then the `true` child, a node placed once both children are).
    fn layout(&mut self, root: u32, num_vars: u16) -> Bdd {
        if root == ZERO {
            return constant(num_vars, false);
        }
        let mut out = vec![BddNode::mk_zero(num_vars), BddNode::mk_one(num_vars)];
        if root != ONE {
            self.placed.clear();
            self.placed.resize(self.nodes.len(), u32::MAX);
            self.placed[0] = 0;
            self.placed[1] = 1;
            let mut stack = vec![root];
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
        Bdd::from_nodes(&out).expect("a well-formed BDD")
    }
}

/// One operation: the scratch area, the two inputs and the operation on constants.
struct Run<'s, 'b, F> {
    s: &'s mut Scratch,
    f: &'b Bdd,
    g: &'b Bdd,
    op: F,
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
        let key = (a.to_index() as u64) << 32 | b.to_index() as u64;
        if let Some(&r) = self.s.prod.get(&key) {
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
        self.s.prod.insert(key, r);
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
