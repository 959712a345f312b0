//! The `relay` family: Boolean programs shaped like c2bp's output, at scale.
//!
//! A chain of procedures `p0 … p{N-1}` over 10 globals; each takes two parameters, has four
//! locals (six frame variables) and returns one value. Its statements are those c2bp writes
//! for C statements over a handful of predicates ("Automatic Predicate Abstraction of C
//! Programs", PLDI 2001, §4): assignments that update one or two variables from at most two
//! others (literals, binary formulas, `*`, `schoose`), a havoc followed by an `assume` (a
//! predicate whose new value is only constrained), `if (*)` with `assume` of the condition and
//! of its negation at the head of the branches, `while (*)` loops, and one call of the next
//! procedure with actuals and a returned value. Every statement draws its variables from a
//! window of [`WINDOW`](super::WINDOW) consecutive variables of the scope (see the module
//! documentation of [`families`](super) on locality).
//!
//! **Verdict (unsafe, only through the whole chain), by construction.** The local `r` of each
//! procedure is written only by its call (`r := p{i+1}(…)`) and is what it returns; the last
//! procedure returns `T`; `main` calls `p0` into its `r` and asserts `!r`. Every path through a
//! body is feasible from every state: an `assume` after a havoc of `x` is satisfiable by some
//! value of `x` whatever the other variables hold (`x = e`, `x ^ e`, `x | e`, `x => e`,
//! `e => x`), of the two branches of an `if (*)` one assumes the condition and the other its
//! negation, and a `while (*)` may always exit. So the assert fails, and only after every
//! procedure of the chain has returned; with the last procedure returning `F` it never fails
//! (the unit tests check both with the reference interpreter on small instances).

use super::{Ex, Expect, Family, Instance, Op, Pool, Text, decl, literal, names, small_formula};
use bp_testkit::prng::SplitMix64;

/// Parameters of the `relay` family.
#[derive(Clone, Debug)]
pub struct RelayParams {
    /// Size factor recorded in the header (0: hand-picked).
    pub size: u32,
    /// Procedures in the chain (`main` not included).
    pub procs: usize,
    /// Statements of each chain procedure, nested ones and the call included (at least 3).
    pub stmts_per_proc: usize,
    /// Globals (at least 1).
    pub globals: usize,
    /// Each statement draws its variables from this many consecutive variables of the scope.
    pub window: usize,
    /// Percent of statements over a window of the globals; the others draw from the frame
    /// and the last globals (the last `window` writable variables of the scope).
    pub global_percent: u32,
}

/// Statements per procedure at the benchmark's sizes.
const STMTS_PER_PROC: usize = 25;
/// Percent of statements over the globals at the benchmark's sizes.
const GLOBAL_PERCENT: u32 = 10;

impl RelayParams {
    /// The benchmark's parameters at size factor `s`: 25,000·s statements in procedures of 25,
    /// 10 globals.
    pub fn for_size(s: u32) -> RelayParams {
        RelayParams {
            size: s,
            procs: 1000 * s as usize,
            stmts_per_proc: STMTS_PER_PROC,
            globals: 10,
            window: super::WINDOW,
            global_percent: GLOBAL_PERCENT,
        }
    }
}

/// Parameters and locals of a chain procedure; `r` (the last) carries the returned value.
const FRAME: [&str; 6] = ["a0", "a1", "l0", "l1", "l2", "r"];
/// Frame variables the random statements may write (all but `r`).
const WRITABLE_FRAME: usize = FRAME.len() - 1;
/// Most statements in a loop body or a branch.
const MAX_NESTED: usize = 4;

/// One random right-hand side over `pool`: a literal, a binary formula, `*` or `schoose`.
fn rhs(rng: &mut SplitMix64, pool: Pool) -> Ex {
    super::random_rhs(rng, pool, [20, 40, 65])
}

/// The condition of an `assume` right after `x := *`: satisfiable by some value of `x` in
/// every state (`x = e`, `x ^ e`, `x | e`, `x => e`, `e => x` with `e` over other variables).
fn assume_after_havoc(rng: &mut SplitMix64, x: usize, pool: Pool) -> Ex {
    let other = |rng: &mut SplitMix64| loop {
        let l = literal(rng, pool);
        if super::root_var(&l) != Some(x) {
            return l;
        }
    };
    let e = if pool.len > 2 && rng.coin() {
        let a = other(rng);
        let mut b = other(rng);
        while super::root_var(&b) == super::root_var(&a) {
            b = other(rng);
        }
        Ex::bin(Op::random_sym(rng), a, b)
    } else {
        other(rng)
    };
    let x = Ex::Var(x);
    match rng.below(5) {
        0 => Ex::bin(Op::Eq, x, e),
        1 => Ex::bin(Op::Xor, x, e),
        2 => Ex::bin(Op::Or, x, e),
        3 => Ex::bin(Op::Implies, x, e),
        _ => Ex::bin(Op::Implies, e, x),
    }
}

/// The scope of a chain procedure with the pool of variables a statement may write and read:
/// a window of the globals and the writable frame variables.
struct Scope<'a> {
    names: &'a [String],
    globals: usize,
    writable: usize,
    window: usize,
    global_percent: u32,
}

impl Scope<'_> {
    fn pool(&self, rng: &mut SplitMix64) -> Pool {
        if rng.chance(self.global_percent) {
            Pool::window(rng, self.globals, self.window)
        } else {
            let len = self.window.min(self.writable);
            Pool {
                lo: self.writable - len,
                len,
            }
        }
    }
}

/// Writes exactly `budget` random statements (pre-order count), none of them a call.
fn block(rng: &mut SplitMix64, t: &mut Text, sc: &Scope, mut budget: usize, nested: bool) {
    while budget > 0 {
        let pool = sc.pool(rng);
        let roll = rng.below(100);
        let names = sc.names;
        if !nested && budget >= 3 && roll < 10 {
            // while (*) do S od
            let n = 1 + rng.below((budget - 1).min(MAX_NESTED));
            t.stmt("while * do");
            t.indent += 1;
            block(rng, t, sc, n, true);
            t.indent -= 1;
            t.line("od");
            budget -= 1 + n;
        } else if !nested && budget >= 5 && roll < 22 {
            // if (*) then assume(c); S else assume(!c); S fi
            let room = budget - 3;
            let n_then = rng.below(room.min(MAX_NESTED) + 1);
            let n_else = rng.below((room - n_then).min(MAX_NESTED) + 1);
            let c = if rng.coin() {
                literal(rng, pool)
            } else {
                small_formula(rng, pool)
            };
            t.stmt("if * then");
            t.indent += 1;
            t.stmt(&format!("assume({});", c.show(names)));
            block(rng, t, sc, n_then, true);
            t.indent -= 1;
            t.line("else");
            t.indent += 1;
            t.stmt(&format!("assume({});", Ex::not(c).show(names)));
            block(rng, t, sc, n_else, true);
            t.indent -= 1;
            t.line("fi");
            budget -= 3 + n_then + n_else;
        } else if budget >= 2 && roll < 40 {
            // x := *; assume(x op e)
            let x = pool.pick(rng);
            t.stmt(&format!("{} := *;", names[x]));
            let c = assume_after_havoc(rng, x, pool);
            t.stmt(&format!("assume({});", c.show(names)));
            budget -= 2;
        } else if roll < 65 && pool.len >= 2 {
            // x, y := e1, e2
            let xs = rng.distinct(2, pool.len);
            let (x, y) = (pool.lo + xs[0], pool.lo + xs[1]);
            let (e1, e2) = (rhs(rng, pool), rhs(rng, pool));
            t.stmt(&format!(
                "{}, {} := {}, {};",
                names[x],
                names[y],
                e1.show(names),
                e2.show(names)
            ));
            budget -= 1;
        } else {
            // x := e
            let x = pool.pick(rng);
            t.stmt(&format!("{} := {};", names[x], rhs(rng, pool).show(names)));
            budget -= 1;
        }
    }
}

/// The `relay` family (see the module documentation): unsafe, the error in `main` after the
/// whole chain has returned.
pub fn relay(p: &RelayParams, seed: u64) -> Instance {
    assert!(
        p.globals >= 1 && p.procs >= 1 && p.stmts_per_proc >= 3,
        "relay needs a global, a procedure and 3 statements per procedure"
    );
    let mut rng = SplitMix64::new(seed);
    let globals = names("g", p.globals);
    let mut scope = globals.clone();
    scope.extend(FRAME.iter().map(|s| s.to_string()));
    let sc = Scope {
        names: &scope,
        globals: p.globals,
        writable: p.globals + WRITABLE_FRAME,
        window: p.window,
        global_percent: p.global_percent,
    };
    let actuals = |rng: &mut SplitMix64, names: &[String], pool: Pool| {
        let a = literal(rng, pool).show(names);
        let b = if rng.coin() {
            literal(rng, pool)
        } else {
            small_formula(rng, pool)
        };
        format!("{a}, {}", b.show(names))
    };

    let mut t = Text::new(&format!(
        "family=relay size={} seed={seed} procs={} stmts_per_proc={} globals={} window={} \
         global_percent={}",
        p.size, p.procs, p.stmts_per_proc, p.globals, p.window, p.global_percent
    ));
    t.line(&decl(&globals));
    t.line("");
    t.line("void main() begin");
    t.indent += 1;
    t.line("decl r;");
    let gpool = Pool::window(&mut rng, p.globals, p.window);
    t.stmt(&format!("r := p0({});", actuals(&mut rng, &globals, gpool)));
    t.stmt("assert(!r);");
    t.indent -= 1;
    t.line("end");

    for i in 0..p.procs {
        t.line("");
        t.line(&format!("bool p{i}(a0, a1) begin"));
        t.indent += 1;
        t.line(&decl(&scope[p.globals + 2..]));
        // The statements before the call, the call, the ones after it, the return.
        let last = i + 1 == p.procs;
        let body = p.stmts_per_proc - 1 - usize::from(!last);
        let before = rng.below(body + 1);
        block(&mut rng, &mut t, &sc, before, false);
        if !last {
            let pool = sc.pool(&mut rng);
            t.stmt(&format!(
                "r := p{}({});",
                i + 1,
                actuals(&mut rng, &scope, pool)
            ));
        }
        block(&mut rng, &mut t, &sc, body - before, false);
        t.stmt(if last { "return T;" } else { "return r;" });
        t.indent -= 1;
        t.line("end");
    }

    Instance {
        family: Family::Relay,
        size: p.size,
        seed,
        param: format!("procs={}", p.procs),
        n_stmts: t.n_stmts,
        text: t.out,
        n_procs: p.procs + 1,
        n_globals: p.globals,
        max_scope: p.globals + FRAME.len(),
        expect: Expect::Unsafe,
        reachable_label: None,
        error_depth: Some(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bp_testkit::reference::{RefProperty, reachable_error};

    fn small(seed: u64) -> Instance {
        relay(
            &RelayParams {
                size: 0,
                procs: 4,
                stmts_per_proc: 12,
                globals: 3,
                window: 5,
                global_percent: 40,
            },
            seed,
        )
    }

    #[test]
    fn sizes_are_as_specified() {
        let inst = relay(&RelayParams::for_size(1), 3);
        assert_eq!(inst.n_stmts, 25_000 + 2);
        assert_eq!((inst.n_procs, inst.max_scope), (1001, 16));
        let prog = bp_grammar::parse(&inst.text).expect("parses");
        let errors: Vec<_> = bp_grammar::check(&prog, &inst.text)
            .into_iter()
            .filter(|d| d.is_error())
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
        let n: usize = prog.procs.iter().map(|p| p.stmts_preorder().len()).sum();
        assert_eq!(n, inst.n_stmts);
    }

    #[test]
    fn unsafe_only_through_the_whole_chain() {
        for seed in 0..8 {
            let inst = small(seed);
            let prog = bp_grammar::parse(&inst.text).expect("parses");
            assert!(
                reachable_error(&prog, &RefProperty::AssertsAndSlicError),
                "seed {seed}: the error is unreachable"
            );
            // The last procedure returning F: nothing else makes `r` true.
            let cut = inst.text.replace("return T;", "return F;");
            assert_ne!(cut, inst.text);
            let prog = bp_grammar::parse(&cut).expect("parses");
            assert!(
                !reachable_error(&prog, &RefProperty::AssertsAndSlicError),
                "seed {seed}: the error is reachable without the chain"
            );
        }
    }
}
