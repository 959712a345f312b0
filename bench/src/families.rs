//! Deterministic generators of the benchmark families, as `.bp` text.
//!
//! Every generator takes its parameters and a seed, draws from the workspace's one
//! pseudo-random generator ([`bp_testkit::prng::SplitMix64`]) and returns an [`Instance`]: the program text (fully parenthesised, so it reads the same
//! under both precedence dialects), the figures the benchmark table shows, and the verdict the
//! program must get. The first line of every text is a header annotation
//! `//@@ family=... size=... seed=...` (size 0 marks hand-picked parameters).
//!
//! **Locality.** In `chain` and `straight` every random statement draws its variables from a
//! *window* of [`WINDOW`] consecutive variables of the scope (globals, then locals, in
//! declaration order), and an `if` and everything nested in it share one window, the way the
//! predicates one C statement touches are about related variables. Without it (window 0: any
//! variable anywhere) the reachable sets are unions of unrelated random constraints over the
//! whole scope, and their BDDs blow up whatever the checker does (a few dozen statements of
//! `straight` already give BDDs of a hundred thousand nodes): that would measure the family,
//! not the checker. `order` is the family that breaks locality on purpose, in a way a
//! good variable order undoes.
//!
//! Why each verdict holds, by construction (the unit tests also check the small instances with
//! the reference interpreter of `bp-testkit`):
//!
//! - `chain` and `straight` keep the invariant `g0 = (g1 ^ g2)`. `main` establishes it with
//!   `g0 := (g1 ^ g2)`; afterwards every assignment whose targets include `g1` or `g2` also
//!   assigns `g0 := *` and carries `constrain ('g0 = ('g1 ^ 'g2))`, and no other statement
//!   writes `g0`, `g1` or `g2` (locals start arbitrary, globals are the only carriers). So the
//!   final `assert((g0 = (g1 ^ g2)))` never fails.
//! - The assert is not vacuously safe: every `constrain` is satisfiable from every state (it only
//!   restricts variables assigned `*`, each fixed by a formula over values chosen before it, see
//!   `update`), and in `straight` every `assume` on the path is chosen true in a concrete
//!   *witness* run that the generator simulates alongside; so the assert, labelled `SLIC_OK`, is
//!   reachable, which `bebop --label SLIC_OK` confirms.
//! - `counter`: the counter `c` is zero in `main` and `count` adds one on entry, so the
//!   `count` frame at call depth d (main is depth 0) sees c = d; nothing else writes `c`. The
//!   assert `!(c = 2^K − 1)` fails exactly in the frame at depth 2^K − 1, and that path exists
//!   (the `if (*) then return; fi` may always be skipped).
//! - `order`: `main` assumes `g_i = g_{i+m}` (m = n/2) for every i; every later assignment
//!   writes both halves of a pair with equal values (copies, negations, xors of pairs, a shared
//!   temporary, or `*, * constrain ('g_i = 'g_{i+m})`). So every assert of a pair equality holds.

use bp_testkit::prng::SplitMix64;
use std::fmt::Write as _;

mod relay;
pub use relay::{RelayParams, relay};

/// The five families.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// A chain of procedures with random updates (safe).
    Chain,
    /// One long procedure with random assignments, assumes and ifs (safe).
    Straight,
    /// A recursive K-bit counter; the error is at depth 2^K − 1 (unsafe).
    Counter,
    /// Pairwise equalities of globals, sensitive to the BDD variable order (safe).
    Order,
    /// A chain of procedures shaped like c2bp's output, unsafe through the whole chain.
    Relay,
}

impl Family {
    /// All families, in table order.
    pub const ALL: [Family; 5] = [
        Family::Chain,
        Family::Straight,
        Family::Counter,
        Family::Order,
        Family::Relay,
    ];

    /// The family's name as written in headers and on command lines.
    pub fn name(self) -> &'static str {
        match self {
            Family::Chain => "chain",
            Family::Straight => "straight",
            Family::Counter => "counter",
            Family::Order => "order",
            Family::Relay => "relay",
        }
    }

    /// The family with this name.
    pub fn from_name(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The seed the benchmark uses for this family unless told otherwise.
    pub fn default_seed(self) -> u64 {
        match self {
            Family::Chain => 0xC4A1_0001,
            Family::Straight => 0x5742_0002,
            Family::Counter => 0xC0DE_0003,
            Family::Order => 0x0BDD_0004,
            Family::Relay => 0x2E1A_0005,
        }
    }
}

/// The verdict an instance must get.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// The error is unreachable (`bebop` exits 0).
    Safe,
    /// The error is reachable (`bebop` exits 10 and prints a trace).
    Unsafe,
}

/// A generated program and what is known about it.
#[derive(Clone, Debug)]
pub struct Instance {
    /// Its family.
    pub family: Family,
    /// Its size factor (1, 2, 4; 0 for hand-picked parameters).
    pub size: u32,
    /// The seed it was drawn with.
    pub seed: u64,
    /// The family's size parameter, e.g. `procs=1000`, `K=8`, `n=20`.
    pub param: String,
    /// The `.bp` text.
    pub text: String,
    /// Procedures, `main` included.
    pub n_procs: usize,
    /// Statements, nested ones included (pre-order count over all procedures).
    pub n_stmts: usize,
    /// Global variables.
    pub n_globals: usize,
    /// The most variables in scope at one point (globals + parameters + locals).
    pub max_scope: usize,
    /// The expected verdict.
    pub expect: Expect,
    /// For a safe instance: a label in front of the final assert, reachable by construction.
    pub reachable_label: Option<&'static str>,
    /// For an unsafe instance: the call depth (main = 0) of the frame in which the error occurs.
    pub error_depth: Option<u64>,
}

/// The label in front of the final assert of every safe family.
pub const OK_LABEL: &str = "SLIC_OK";

/// Generates `family` at size factor `size` (1, 2 or 4; any positive value works).
pub fn generate(family: Family, size: u32, seed: u64) -> Instance {
    match family {
        Family::Chain => chain(&ChainParams::for_size(size), seed),
        Family::Straight => straight(&StraightParams::for_size(size), seed),
        Family::Counter => counter(&CounterParams::for_size(size), seed),
        Family::Order => order(&OrderParams::for_size(size), seed),
        Family::Relay => relay(&RelayParams::for_size(size), seed),
    }
}

// ---------------------------------------------------------------------------------------------
// Expressions: a tiny tree that prints fully parenthesised and evaluates on a witness state.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    And,
    Or,
    Xor,
    Eq,
    Implies,
}

impl Op {
    fn symbol(self) -> &'static str {
        match self {
            Op::And => "&",
            Op::Or => "|",
            Op::Xor => "^",
            Op::Eq => "=",
            Op::Implies => "=>",
        }
    }

    fn apply(self, a: bool, b: bool) -> bool {
        match self {
            Op::And => a && b,
            Op::Or => a || b,
            Op::Xor => a != b,
            Op::Eq => a == b,
            Op::Implies => !a || b,
        }
    }

    /// One of `& | ^ =`, at random.
    fn random_sym(rng: &mut SplitMix64) -> Op {
        [Op::And, Op::Or, Op::Xor, Op::Eq][rng.below(4)]
    }
}

/// An expression over variables numbered in a scope.
#[derive(Clone, Debug)]
enum Ex {
    Const(bool),
    Var(usize),
    Primed(usize),
    Star,
    Not(Box<Ex>),
    Bin(Op, Box<Ex>, Box<Ex>),
    Schoose(Box<Ex>, Box<Ex>),
}

impl Ex {
    fn not(e: Ex) -> Ex {
        Ex::Not(Box::new(e))
    }

    fn bin(op: Op, a: Ex, b: Ex) -> Ex {
        Ex::Bin(op, Box::new(a), Box::new(b))
    }

    /// `a1 & a2 & ...` (left-nested); `T` when empty.
    fn and_all(items: impl IntoIterator<Item = Ex>) -> Ex {
        items
            .into_iter()
            .reduce(|a, b| Ex::bin(Op::And, a, b))
            .unwrap_or(Ex::Const(true))
    }

    fn write(&self, names: &[String], out: &mut String) {
        match self {
            Ex::Const(b) => out.push(if *b { 'T' } else { 'F' }),
            Ex::Var(v) => out.push_str(&names[*v]),
            Ex::Primed(v) => {
                out.push('\'');
                out.push_str(&names[*v]);
            }
            Ex::Star => out.push('*'),
            Ex::Not(e) => {
                out.push('!');
                e.write(names, out);
            }
            Ex::Bin(op, a, b) => {
                out.push('(');
                a.write(names, out);
                let _ = write!(out, " {} ", op.symbol());
                b.write(names, out);
                out.push(')');
            }
            Ex::Schoose(p, n) => {
                out.push_str("schoose[");
                p.write(names, out);
                out.push_str(", ");
                n.write(names, out);
                out.push(']');
            }
        }
    }

    fn show(&self, names: &[String]) -> String {
        let mut out = String::new();
        self.write(names, &mut out);
        out
    }

    /// The value in pre-state `pre` and post-state `post`; `*` and an undecided `schoose` draw
    /// from `rng` (one concrete run).
    fn eval(&self, pre: &[bool], post: &[bool], rng: &mut SplitMix64) -> bool {
        match self {
            Ex::Const(b) => *b,
            Ex::Var(v) => pre[*v],
            Ex::Primed(v) => post[*v],
            Ex::Star => rng.coin(),
            Ex::Not(e) => !e.eval(pre, post, rng),
            Ex::Bin(op, a, b) => {
                let a = a.eval(pre, post, rng);
                let b = b.eval(pre, post, rng);
                op.apply(a, b)
            }
            Ex::Schoose(p, n) => {
                if p.eval(pre, post, rng) {
                    true
                } else if n.eval(pre, post, rng) {
                    false
                } else {
                    rng.coin()
                }
            }
        }
    }
}

/// A run of consecutive variables of a scope, `lo..lo + len`, that one statement draws from.
#[derive(Clone, Copy, Debug)]
struct Pool {
    lo: usize,
    len: usize,
}

impl Pool {
    /// A random window of `window` consecutive variables among `0..n_vars` (all of them when
    /// `window` is 0 or at least `n_vars`).
    fn window(rng: &mut SplitMix64, n_vars: usize, window: usize) -> Pool {
        if window == 0 || window >= n_vars {
            Pool { lo: 0, len: n_vars }
        } else {
            Pool {
                lo: rng.below(n_vars - window + 1),
                len: window,
            }
        }
    }

    fn pick(self, rng: &mut SplitMix64) -> usize {
        self.lo + rng.below(self.len)
    }
}

/// `v` or `!v` for a random `v` of `pool`.
fn literal(rng: &mut SplitMix64, pool: Pool) -> Ex {
    let v = Ex::Var(pool.pick(rng));
    if rng.coin() { v } else { Ex::not(v) }
}

/// A random right-hand side over `pool`: below `cuts[0]` percent `*`, then up to `cuts[1]` a
/// `schoose` of two literals, up to `cuts[2]` a literal, else a binary formula.
fn random_rhs(rng: &mut SplitMix64, pool: Pool, cuts: [usize; 3]) -> Ex {
    let roll = rng.below(100);
    if roll < cuts[0] {
        Ex::Star
    } else if roll < cuts[1] {
        match small_formula(rng, pool) {
            Ex::Bin(_, p, n) => Ex::Schoose(p, n),
            _ => unreachable!("small_formula is binary"),
        }
    } else if roll < cuts[2] {
        literal(rng, pool)
    } else {
        small_formula(rng, pool)
    }
}

/// The variable of a literal (`v`, `!v`, `'v`, `!'v`).
fn root_var(e: &Ex) -> Option<usize> {
    match e {
        Ex::Var(v) | Ex::Primed(v) => Some(*v),
        Ex::Not(e) => root_var(e),
        _ => None,
    }
}

/// `(l1 op l2)` over random literals of two different variables of `pool` (of 2 or more).
fn small_formula(rng: &mut SplitMix64, pool: Pool) -> Ex {
    let a = literal(rng, pool);
    let mut b = literal(rng, pool);
    while root_var(&b) == root_var(&a) {
        b = literal(rng, pool);
    }
    Ex::bin(Op::random_sym(rng), a, b)
}

// ---------------------------------------------------------------------------------------------
// Output helpers.

/// Builds program text with indentation and counts the statements written.
struct Text {
    out: String,
    indent: usize,
    n_stmts: usize,
}

impl Text {
    fn new(header: &str) -> Text {
        Text {
            out: format!("//@@ {header}\n"),
            indent: 0,
            n_stmts: 0,
        }
    }

    /// A line that is not a statement (declaration, `begin`, `else`, ...).
    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// A line that starts a statement.
    fn stmt(&mut self, text: &str) {
        self.n_stmts += 1;
        self.line(text);
    }
}

/// `decl a, b, c;` (nothing when `names` is empty).
fn decl(names: &[String]) -> String {
    if names.is_empty() {
        String::new()
    } else {
        format!("decl {};", names.join(", "))
    }
}

fn names(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

// ---------------------------------------------------------------------------------------------
// Random updates that keep `a = (b ^ c)`.

/// The invariant `a = (b ^ c)` over three variables of the scope (globals in practice).
#[derive(Clone, Copy, Debug)]
struct XorInvariant {
    a: usize,
    b: usize,
    c: usize,
}

impl XorInvariant {
    fn expr(self) -> Ex {
        Ex::bin(
            Op::Eq,
            Ex::Var(self.a),
            Ex::bin(Op::Xor, Ex::Var(self.b), Ex::Var(self.c)),
        )
    }

    fn holds(self, state: &[bool]) -> bool {
        state[self.a] == (state[self.b] != state[self.c])
    }
}

/// How the random part of a `constrain` restricts its variable `y`.
#[derive(Clone, Copy)]
enum ConstrainForm {
    /// `'y = E`
    Equals,
    /// `'y => E`
    Implies,
    /// `E => 'y`
    ImpliedBy,
}

/// One random parallel assignment over 3–5 distinct variables of `pool` (all in scope; at
/// least 3), keeping `inv` (whose `a` may lie outside `pool`). Returns its text; when `witness` is given, runs it on that concrete state.
///
/// Satisfiability of the `constrain` clause from every pre-state, by construction: the targets
/// other than `y` and `inv.a` take their right-hand sides (always defined); the random part
/// mentions `'y` once and otherwise only pre-state values and primed targets other than `y` and
/// `inv.a`, so some value of `y` (assigned `*`) satisfies it; then `inv.a` (assigned `*`) is set
/// to `'b ^ 'c`. The witness run makes exactly these choices.
fn update(
    rng: &mut SplitMix64,
    names: &[String],
    pool: Pool,
    inv: XorInvariant,
    witness: Option<&mut Vec<bool>>,
) -> String {
    let k = (3 + rng.below(3)).min(pool.len);
    let mut targets: Vec<usize> = rng
        .distinct(k, pool.len)
        .into_iter()
        .map(|t| pool.lo + t)
        .collect();
    let touches = |t: &[usize], v: usize| t.contains(&v);
    if (touches(&targets, inv.b) || touches(&targets, inv.c)) && !touches(&targets, inv.a) {
        // Replace a target other than b, c by a (k >= 3, so there is one).
        let slot = targets
            .iter()
            .rposition(|&t| t != inv.b && t != inv.c)
            .expect("three targets include one outside {b, c}");
        targets[slot] = inv.a;
    }
    let keeps_inv = touches(&targets, inv.a);

    let rhs: Vec<Ex> = targets
        .iter()
        .map(|&t| {
            if t == inv.a {
                return Ex::Star;
            }
            random_rhs(rng, pool, [30, 55, 75])
        })
        .collect();

    // The random part of the constraint.
    let free: Vec<usize> = (0..targets.len())
        .filter(|&i| targets[i] != inv.a && matches!(rhs[i], Ex::Star))
        .collect();
    let mut random_part: Option<(usize, ConstrainForm, Ex)> = None;
    if !free.is_empty() && rng.chance(60) {
        let y = targets[free[rng.below(free.len())]];
        let primable: Vec<usize> = targets
            .iter()
            .copied()
            .filter(|&t| t != y && t != inv.a)
            .collect();
        let atom = |rng: &mut SplitMix64| {
            let e = if !primable.is_empty() && rng.coin() {
                Ex::Primed(primable[rng.below(primable.len())])
            } else {
                Ex::Var(pool.pick(rng))
            };
            if rng.coin() { e } else { Ex::not(e) }
        };
        let a = atom(rng);
        let mut b = atom(rng);
        while root_var(&b) == root_var(&a) {
            b = atom(rng);
        }
        let e = Ex::bin(Op::random_sym(rng), a, b);
        let form = match rng.below(4) {
            0 | 1 => ConstrainForm::Equals,
            2 => ConstrainForm::Implies,
            _ => ConstrainForm::ImpliedBy,
        };
        random_part = Some((y, form, e));
    }

    let mut clauses = Vec::new();
    if let Some((y, form, e)) = &random_part {
        let y = Ex::Primed(*y);
        clauses.push(match form {
            ConstrainForm::Equals => Ex::bin(Op::Eq, y, e.clone()),
            ConstrainForm::Implies => Ex::bin(Op::Implies, y, e.clone()),
            ConstrainForm::ImpliedBy => Ex::bin(Op::Implies, e.clone(), y),
        });
    }
    if keeps_inv {
        clauses.push(Ex::bin(
            Op::Eq,
            Ex::Primed(inv.a),
            Ex::bin(Op::Xor, Ex::Primed(inv.b), Ex::Primed(inv.c)),
        ));
    }

    if let Some(state) = witness {
        let pre = state.clone();
        let mut post = pre.clone();
        let y = random_part.as_ref().map(|(y, _, _)| *y);
        for (&t, e) in targets.iter().zip(&rhs) {
            if Some(t) != y && !(keeps_inv && t == inv.a) {
                post[t] = e.eval(&pre, &pre, rng);
            }
        }
        if let Some((y, form, e)) = &random_part {
            let value = e.eval(&pre, &post, rng);
            post[*y] = match form {
                ConstrainForm::Equals => value,
                ConstrainForm::Implies => value && rng.coin(),
                ConstrainForm::ImpliedBy => value || rng.coin(),
            };
        }
        if keeps_inv {
            post[inv.a] = post[inv.b] != post[inv.c];
        }
        *state = post;
    }

    let lhs: Vec<&str> = targets.iter().map(|&t| names[t].as_str()).collect();
    let rhs: Vec<String> = rhs.iter().map(|e| e.show(names)).collect();
    let mut text = format!("{} := {}", lhs.join(", "), rhs.join(", "));
    if let Some(c) = clauses.into_iter().reduce(|a, b| Ex::bin(Op::And, a, b)) {
        let _ = write!(text, " constrain {}", c.show(names));
    }
    text.push(';');
    text
}

// ---------------------------------------------------------------------------------------------
// (a) chain

/// Parameters of the `chain` family.
#[derive(Clone, Debug)]
pub struct ChainParams {
    /// Size factor recorded in the header (0: hand-picked).
    pub size: u32,
    /// Procedures in the chain (`main` not included).
    pub procs: usize,
    /// Globals (at least 3: `g0`, `g1`, `g2` carry the invariant).
    pub globals: usize,
    /// Locals of each chain procedure.
    pub locals: usize,
    /// Random updates before the call of the next procedure.
    pub updates_before: usize,
    /// Random updates after it returns.
    pub updates_after: usize,
    /// Each update draws its targets and operands from this many consecutive variables of
    /// the scope (0: from all of it).
    pub window: usize,
}

impl ChainParams {
    /// The benchmark's parameters at size factor `s`: 1,000·s procedures, 30 globals, 10 locals.
    pub fn for_size(s: u32) -> ChainParams {
        ChainParams {
            size: s,
            procs: 1000 * s as usize,
            globals: 30,
            locals: 10,
            updates_before: 3,
            updates_after: 1,
            window: WINDOW,
        }
    }
}

/// The `chain` family: `main` establishes `g0 = (g1 ^ g2)` and calls `p0`; each `p_i` makes
/// random updates of globals and its locals (each within a window of consecutive variables),
/// calls `p_{i+1}`, makes more; `main` then asserts the invariant (safe).
pub fn chain(p: &ChainParams, seed: u64) -> Instance {
    assert!(
        p.globals >= 3 && p.procs >= 1,
        "chain needs 3 globals and a procedure"
    );
    let mut rng = SplitMix64::new(seed);
    let globals = names("g", p.globals);
    let mut scope = globals.clone();
    scope.extend(names("l", p.locals));
    let n_scope = scope.len();
    let inv = XorInvariant { a: 0, b: 1, c: 2 };

    let mut t = Text::new(&format!(
        "family=chain size={} seed={seed} procs={} globals={} locals={} window={}",
        p.size, p.procs, p.globals, p.locals, p.window
    ));
    t.line(&decl(&globals));
    t.line("");
    t.line("void main() begin");
    t.indent += 1;
    t.stmt("g0 := (g1 ^ g2);");
    t.stmt("p0();");
    t.stmt(&format!("{OK_LABEL}: assert({});", inv.expr().show(&scope)));
    t.indent -= 1;
    t.line("end");

    for i in 0..p.procs {
        t.line("");
        t.line(&format!("void p{i}() begin"));
        t.indent += 1;
        t.line(&decl(&scope[p.globals..]));
        for _ in 0..p.updates_before {
            let pool = Pool::window(&mut rng, n_scope, p.window);
            let u = update(&mut rng, &scope, pool, inv, None);
            t.stmt(&u);
        }
        if i + 1 < p.procs {
            t.stmt(&format!("p{}();", i + 1));
        }
        for _ in 0..p.updates_after {
            let pool = Pool::window(&mut rng, n_scope, p.window);
            let u = update(&mut rng, &scope, pool, inv, None);
            t.stmt(&u);
        }
        t.indent -= 1;
        t.line("end");
    }

    Instance {
        family: Family::Chain,
        size: p.size,
        seed,
        param: format!("procs={}", p.procs),
        n_stmts: t.n_stmts,
        text: t.out,
        n_procs: p.procs + 1,
        n_globals: p.globals,
        max_scope: n_scope,
        expect: Expect::Safe,
        reachable_label: Some(OK_LABEL),
        error_depth: None,
    }
}

// ---------------------------------------------------------------------------------------------
// (b) straight

/// Parameters of the `straight` family.
#[derive(Clone, Debug)]
pub struct StraightParams {
    /// Size factor recorded in the header (0: hand-picked).
    pub size: u32,
    /// Statements of `main`, nested ones included (at least 2).
    pub stmts: usize,
    /// Globals (at least 3).
    pub globals: usize,
    /// Locals of `main`.
    pub locals: usize,
    /// Each statement draws its variables from this many consecutive variables of the scope
    /// (0: from all of it).
    pub window: usize,
}

impl StraightParams {
    /// The benchmark's parameters at size factor `s`: 10,000·s statements, 30 + 30 variables.
    pub fn for_size(s: u32) -> StraightParams {
        StraightParams {
            size: s,
            stmts: 10_000 * s as usize,
            globals: 30,
            locals: 30,
            window: WINDOW,
        }
    }
}

/// The default width of the window of consecutive variables one random statement of `chain`
/// and `straight` draws from.
pub const WINDOW: usize = 8;

/// Most statements in one branch of a generated `if`.
const MAX_BRANCH: usize = 12;
/// Deepest nesting of generated `if`s.
const MAX_IF_DEPTH: usize = 3;

/// What every statement of a `straight` block draws from.
#[derive(Clone, Copy)]
struct Block<'a> {
    scope: &'a [String],
    inv: XorInvariant,
    window: usize,
}

/// Writes exactly `budget` statements (pre-order count). `witness`, when given, is a concrete
/// run that reaches the end of the block: it takes one branch of each `if`, and every `assume`
/// it meets is chosen true in its state.
fn straight_block(
    rng: &mut SplitMix64,
    t: &mut Text,
    ctx: &Block,
    mut budget: usize,
    depth: usize,
    fixed: Option<Pool>,
    mut witness: Option<&mut Vec<bool>>,
) {
    let Block { scope, inv, window } = *ctx;
    let n_vars = scope.len();
    while budget > 0 {
        let pool = fixed.unwrap_or_else(|| Pool::window(rng, n_vars, window));
        let roll = rng.below(100);
        if roll < 12 && budget >= 3 && depth < MAX_IF_DEPTH {
            let n_then = 1 + rng.below((budget - 2).min(MAX_BRANCH));
            let room = budget - 1 - n_then;
            let n_else = if room > 0 && rng.coin() {
                1 + rng.below(room.min(MAX_BRANCH))
            } else {
                0
            };
            let cond = if rng.chance(30) {
                Ex::Star
            } else if rng.coin() {
                literal(rng, pool)
            } else {
                small_formula(rng, pool)
            };
            let take_then = match &mut witness {
                Some(state) => cond.eval(state, state, rng),
                None => false,
            };
            t.stmt(&format!("if {} then", cond.show(scope)));
            t.indent += 1;
            let w_then = if take_then {
                witness.as_deref_mut()
            } else {
                None
            };
            straight_block(rng, t, ctx, n_then, depth + 1, Some(pool), w_then);
            t.indent -= 1;
            if n_else > 0 {
                t.line("else");
                t.indent += 1;
                let w_else = if take_then {
                    None
                } else {
                    witness.as_deref_mut()
                };
                straight_block(rng, t, ctx, n_else, depth + 1, Some(pool), w_else);
                t.indent -= 1;
            }
            t.line("fi");
            budget -= 1 + n_then + n_else;
        } else if roll < 27 {
            let mut cond = if rng.coin() {
                small_formula(rng, pool)
            } else {
                let a = small_formula(rng, pool);
                let b = literal(rng, pool);
                Ex::bin(Op::random_sym(rng), a, b)
            };
            if let Some(state) = &mut witness
                && !cond.eval(state, state, rng)
            {
                cond = Ex::not(cond);
            }
            t.stmt(&format!("assume({});", cond.show(scope)));
            budget -= 1;
        } else {
            let u = update(rng, scope, pool, inv, witness.as_deref_mut());
            t.stmt(&u);
            budget -= 1;
        }
    }
}

/// The `straight` family: one procedure `main` of random assignments (over 3–5 variables, with
/// `schoose` and `constrain`), assumes and nested ifs (an `if` and its branches within one
/// window of consecutive variables), keeping `g0 = (g1 ^ g2)`, and a final assert of it (safe).
pub fn straight(p: &StraightParams, seed: u64) -> Instance {
    assert!(
        p.globals >= 3 && p.stmts >= 2,
        "straight needs 3 globals, 2 statements"
    );
    let mut rng = SplitMix64::new(seed);
    let globals = names("g", p.globals);
    let mut scope = globals.clone();
    scope.extend(names("l", p.locals));
    let inv = XorInvariant { a: 0, b: 1, c: 2 };

    let mut t = Text::new(&format!(
        "family=straight size={} seed={seed} stmts={} globals={} locals={} window={}",
        p.size, p.stmts, p.globals, p.locals, p.window
    ));
    t.line(&decl(&globals));
    t.line("");
    t.line("void main() begin");
    t.indent += 1;
    t.line(&decl(&scope[p.globals..]));
    t.stmt("g0 := (g1 ^ g2);");
    let mut witness: Vec<bool> = (0..scope.len()).map(|_| rng.coin()).collect();
    witness[inv.a] = witness[inv.b] != witness[inv.c];
    let ctx = Block {
        scope: &scope,
        inv,
        window: p.window,
    };
    straight_block(
        &mut rng,
        &mut t,
        &ctx,
        p.stmts - 2,
        0,
        None,
        Some(&mut witness),
    );
    debug_assert!(inv.holds(&witness));
    t.stmt(&format!("{OK_LABEL}: assert({});", inv.expr().show(&scope)));
    t.indent -= 1;
    t.line("end");

    Instance {
        family: Family::Straight,
        size: p.size,
        seed,
        param: format!("stmts={}", p.stmts),
        n_stmts: t.n_stmts,
        text: t.out,
        n_procs: 1,
        n_globals: p.globals,
        max_scope: scope.len(),
        expect: Expect::Safe,
        reachable_label: Some(OK_LABEL),
        error_depth: None,
    }
}

// ---------------------------------------------------------------------------------------------
// (c) counter

/// Parameters of the `counter` family.
#[derive(Clone, Debug)]
pub struct CounterParams {
    /// Size factor recorded in the header (0: hand-picked).
    pub size: u32,
    /// Bits of the counter (at least 1); the error is at call depth 2^k − 1.
    pub k: u32,
}

impl CounterParams {
    /// The benchmark's parameters at size factor `s`: K = 8 + log2(s), so that the depth of the
    /// error, hence the work, doubles with s (K = 8, 9, 10 for s = 1, 2, 4).
    pub fn for_size(s: u32) -> CounterParams {
        CounterParams {
            size: s,
            k: 8 + s.max(1).ilog2(),
        }
    }
}

/// The `counter` family: a global K-bit counter `c`, zeroed by `main`, incremented by one at the
/// entry of the recursive procedure `count` (through a chain of carry procedures
/// `inc0`…`inc{K-1}`), which asserts that `c` is not all ones, may return (`if (*)`), or
/// recurses. The counter equals the call depth, so the assert fails only in the frame at depth
/// 2^K − 1 (unsafe). `count`'s summaries (entry c ↦ exit values c+1 … 2^K − 2) take 2^K rounds.
pub fn counter(p: &CounterParams, seed: u64) -> Instance {
    assert!((1..=20).contains(&p.k), "counter bits out of range");
    let k = p.k as usize;
    let bits = names("c", k);
    let mut t = Text::new(&format!(
        "family=counter size={} seed={seed} k={}",
        p.size, p.k
    ));
    t.line(&decl(&bits));
    t.line("");
    t.line("void main() begin");
    t.indent += 1;
    let zeros = vec!["F"; k];
    t.stmt(&format!("{} := {};", bits.join(", "), zeros.join(", ")));
    t.stmt("count();");
    t.indent -= 1;
    t.line("end");

    t.line("");
    t.line("void count() begin");
    t.indent += 1;
    t.stmt("inc0();");
    let all_ones = Ex::and_all((0..k).map(Ex::Var));
    t.stmt(&format!("assert(!{});", all_ones.show(&bits)));
    t.stmt("if * then");
    t.indent += 1;
    t.stmt("return;");
    t.indent -= 1;
    t.line("fi");
    t.stmt("count();");
    t.indent -= 1;
    t.line("end");

    for (i, bit) in bits.iter().enumerate() {
        t.line("");
        t.line(&format!("void inc{i}() begin"));
        t.indent += 1;
        if i + 1 < k {
            t.stmt(&format!("if {bit} then"));
            t.indent += 1;
            t.stmt(&format!("{bit} := F;"));
            t.stmt(&format!("inc{}();", i + 1));
            t.indent -= 1;
            t.line("else");
            t.indent += 1;
            t.stmt(&format!("{bit} := T;"));
            t.indent -= 1;
            t.line("fi");
        } else {
            t.stmt(&format!("{bit} := !{bit};"));
        }
        t.indent -= 1;
        t.line("end");
    }

    Instance {
        family: Family::Counter,
        size: p.size,
        seed,
        param: format!("K={}", p.k),
        n_stmts: t.n_stmts,
        text: t.out,
        n_procs: 2 + k,
        n_globals: k,
        max_scope: k,
        expect: Expect::Unsafe,
        reachable_label: None,
        error_depth: Some((1u64 << p.k) - 1),
    }
}

// ---------------------------------------------------------------------------------------------
// (d) order

/// Parameters of the `order` family.
#[derive(Clone, Debug)]
pub struct OrderParams {
    /// Size factor recorded in the header (0: hand-picked).
    pub size: u32,
    /// Globals (even, at least 4): `g_i` is paired with `g_{i+n/2}`.
    pub n: usize,
    /// Update procedures called from `main`'s loop.
    pub procs: usize,
    /// Updates in each of them.
    pub updates: usize,
}

impl OrderParams {
    /// The benchmark's parameters at size factor `s`: n = 20·s globals, 4 procedures of 6
    /// updates.
    pub fn for_size(s: u32) -> OrderParams {
        OrderParams {
            size: s,
            n: 20 * s as usize,
            procs: 4,
            updates: 6,
        }
    }
}

/// One pair-preserving update of procedure-local scope `scope` (globals `0..n`, then the
/// temporaries `t0`, `t1`); returns the statements.
fn order_update(rng: &mut SplitMix64, scope: &[String], n: usize) -> Vec<String> {
    let m = n / 2;
    let g = |i: usize| scope[i].as_str();
    let (t0, t1) = (scope[n].as_str(), scope[n + 1].as_str());
    let i = rng.below(m);
    let mut j = rng.below(m - 1);
    if j >= i {
        j += 1;
    }
    let (a, a2, b, b2) = (g(i), g(i + m), g(j), g(j + m));
    match rng.below(7) {
        0 => vec![format!("{a}, {a2} := *, * constrain ('{a} = '{a2});")],
        1 => vec![format!("{a}, {a2} := {b}, {b2};")],
        2 => vec![format!("{a2}, {a} := !{a2}, !{a};")],
        3 => vec![format!("{a}, {a2} := ({a} ^ {b}), ({a2} ^ {b2});")],
        4 => vec![format!("{a}, {b}, {a2}, {b2} := {b}, {a}, {b2}, {a2};")],
        5 => {
            let k = rng.below(m);
            let (c, c2) = (g(k), g(k + m));
            vec![
                format!("{t0}, {t1} := schoose[{b}, {c}], ({b2} & {c2});"),
                format!("{a}, {a2} := {t0}, {t0};"),
            ]
        }
        _ => {
            let k = rng.below(n);
            vec![format!(
                "{a}, {a2} := schoose[{b}, {}], * constrain ('{a2} = '{a});",
                g(k)
            )]
        }
    }
}

/// The `order` family: n globals with the invariant `g_i = g_{i+n/2}` for every i, assumed at
/// the start of `main` and kept by every update; `main` loops calling random update procedures
/// and finally asserts all the equalities (safe). Declared in the order `g0 … g{n-1}`, the
/// reachable set has a BDD of 2^{n/2} nodes; interleaving each `g_i` with `g_{i+n/2}` makes it
/// linear.
pub fn order(p: &OrderParams, seed: u64) -> Instance {
    assert!(
        p.n >= 4 && p.n.is_multiple_of(2) && p.procs >= 1,
        "order needs an even n >= 4"
    );
    let mut rng = SplitMix64::new(seed);
    let n = p.n;
    let m = n / 2;
    let globals = names("g", n);
    let mut scope = globals.clone();
    scope.push("t0".to_string());
    scope.push("t1".to_string());
    let pairs = |from: usize, to: usize| {
        Ex::and_all((from..to).map(|i| Ex::bin(Op::Eq, Ex::Var(i), Ex::Var(i + m))))
    };

    let mut t = Text::new(&format!(
        "family=order size={} seed={seed} n={n} procs={} updates={}",
        p.size, p.procs, p.updates
    ));
    t.line(&decl(&globals));
    t.line("");
    t.line("void main() begin");
    t.indent += 1;
    t.stmt(&format!("assume({});", pairs(0, m).show(&scope)));
    t.stmt("while * do");
    t.indent += 1;
    for j in 0..p.procs {
        let head = if j == 0 { "if * then" } else { "elsif * then" };
        if j + 1 == p.procs && p.procs > 1 {
            t.line("else");
        } else if j == 0 {
            t.stmt(head);
        } else {
            t.line(head);
        }
        t.indent += 1;
        t.stmt(&format!("upd{j}();"));
        t.indent -= 1;
    }
    t.line("fi");
    t.indent -= 1;
    t.line("od");
    t.stmt(&format!(
        "{OK_LABEL}: assert({});",
        pairs(0, m).show(&scope)
    ));
    t.indent -= 1;
    t.line("end");

    for j in 0..p.procs {
        t.line("");
        t.line(&format!("void upd{j}() begin"));
        t.indent += 1;
        t.line(&decl(&scope[n..]));
        for _ in 0..p.updates {
            for s in order_update(&mut rng, &scope, n) {
                t.stmt(&s);
            }
        }
        let i = rng.below(m);
        t.stmt(&format!(
            "assert({});",
            Ex::bin(Op::Eq, Ex::Var(i), Ex::Var(i + m)).show(&scope)
        ));
        t.indent -= 1;
        t.line("end");
    }

    Instance {
        family: Family::Order,
        size: p.size,
        seed,
        param: format!("n={n}"),
        n_stmts: t.n_stmts,
        text: t.out,
        n_procs: 1 + p.procs,
        n_globals: n,
        max_scope: n + 2,
        expect: Expect::Safe,
        reachable_label: Some(OK_LABEL),
        error_depth: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(inst: &Instance) -> bp_grammar::Program {
        let prog = bp_grammar::parse(&inst.text).unwrap_or_else(|d| {
            panic!("{} does not parse: {d:?}", inst.family.name());
        });
        let errors: Vec<_> = bp_grammar::check(&prog, &inst.text)
            .into_iter()
            .filter(|d| d.is_error())
            .collect();
        assert!(
            errors.is_empty(),
            "{} is ill-formed: {errors:?}",
            inst.family.name()
        );
        prog
    }

    /// The figures an instance claims, counted on its AST.
    fn check_figures(inst: &Instance, prog: &bp_grammar::Program) {
        let n_stmts: usize = prog.procs.iter().map(|p| p.stmts_preorder().len()).sum();
        let max_scope = prog
            .procs
            .iter()
            .map(|p| p.frame_vars().count())
            .max()
            .unwrap_or(0)
            + prog.global_vars().count();
        assert_eq!(prog.procs.len(), inst.n_procs, "procedures");
        assert_eq!(n_stmts, inst.n_stmts, "statements");
        assert_eq!(prog.global_vars().count(), inst.n_globals, "globals");
        assert_eq!(max_scope, inst.max_scope, "variables in scope");
        assert_eq!(
            prog.header.get("family"),
            Some(inst.family.name()),
            "header"
        );
        assert_eq!(
            prog.header.get("seed"),
            Some(inst.seed.to_string().as_str())
        );
    }

    #[test]
    fn generators_are_deterministic() {
        for family in Family::ALL {
            let a = generate(family, 1, 7);
            let b = generate(family, 1, 7);
            assert_eq!(a.text, b.text, "{}", family.name());
            if family != Family::Counter {
                let c = generate(family, 1, 8);
                assert_ne!(a.text, c.text, "{} ignores its seed", family.name());
            }
        }
    }

    #[test]
    fn sizes_are_as_specified() {
        let chain = generate(Family::Chain, 1, 1);
        assert_eq!(
            (chain.n_procs, chain.n_globals, chain.max_scope),
            (1001, 30, 40)
        );
        let straight = generate(Family::Straight, 1, 1);
        assert_eq!(
            (straight.n_procs, straight.n_stmts, straight.max_scope),
            (1, 10_000, 60)
        );
        for (s, k) in [(1, 8), (2, 9), (4, 10)] {
            let counter = generate(Family::Counter, s, 1);
            assert_eq!(counter.n_globals, k);
            assert_eq!(counter.error_depth, Some((1 << k) - 1));
        }
        let order = generate(Family::Order, 1, 1);
        assert_eq!(order.n_globals, 20);
        let prog = parsed(&chain);
        for proc in prog.procs.iter().filter(|p| p.name.name != "main") {
            assert_eq!(
                proc.frame_vars().count(),
                10,
                "locals of {}",
                proc.name.name
            );
        }
    }

    #[test]
    fn size_one_instances_parse_check_and_have_their_figures() {
        for family in Family::ALL {
            let inst = generate(family, 1, family.default_seed());
            let prog = parsed(&inst);
            check_figures(&inst, &prog);
        }
    }

    /// Small instances of every family, within reach of the explicit-state reference
    /// interpreter.
    fn small_instances(seed: u64) -> Vec<Instance> {
        vec![
            chain(
                &ChainParams {
                    size: 0,
                    procs: 5,
                    globals: 4,
                    locals: 3,
                    updates_before: 3,
                    updates_after: 1,
                    window: 4,
                },
                seed,
            ),
            straight(
                &StraightParams {
                    size: 0,
                    stmts: 150,
                    globals: 4,
                    locals: 4,
                    window: 5,
                },
                seed,
            ),
            counter(&CounterParams { size: 0, k: 3 }, seed),
            order(
                &OrderParams {
                    size: 0,
                    n: 6,
                    procs: 2,
                    updates: 4,
                },
                seed,
            ),
        ]
    }

    #[test]
    fn reference_interpreter_agrees_with_the_expected_verdicts() {
        use bp_testkit::reference::{Limits, RefProperty, analyze};
        for seed in 0..6 {
            for inst in small_instances(seed) {
                let what = format!("{} seed {seed}", inst.family.name());
                let prog = parsed(&inst);
                check_figures(&inst, &prog);
                let analysis =
                    analyze(&prog, &RefProperty::AssertsAndSlicError, &Limits::default())
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(
                    analysis.error_reachable(),
                    inst.expect == Expect::Unsafe,
                    "{what}: verdict"
                );
                if let Some(label) = inst.reachable_label {
                    let by_label = analyze(
                        &prog,
                        &RefProperty::Label(label.to_string()),
                        &Limits::default(),
                    )
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                    assert!(by_label.error_reachable(), "{what}: {label} unreachable");
                }
                // Without assumes, every statement is reachable: no constrain ever blocks.
                if matches!(inst.family, Family::Chain | Family::Order) {
                    for proc in &prog.procs {
                        for (id, _) in proc.stmts_preorder() {
                            assert!(
                                analysis.is_reachable(&proc.name.name, id).unwrap(),
                                "{what}: {} statement {} unreachable",
                                proc.name.name,
                                id.0
                            );
                        }
                    }
                }
                if inst.family == Family::Counter {
                    // The only error is count's assert, reached with the counter all ones.
                    let sites = analysis.error_sites();
                    assert_eq!(sites.len(), 1, "{what}: {sites:?}");
                    assert_eq!(sites[0].0, "count");
                    let states = analysis.reachable_states("count", sites[0].1).unwrap();
                    assert!(states.iter().any(|v| v.values().all(|&b| b)));
                }
            }
        }
    }

    #[test]
    fn safe_families_are_safe_because_of_their_invariant() {
        // Drop what keeps the invariant and the reference interpreter finds the error: the
        // asserts are not safe for a trivial reason.
        use bp_testkit::reference::{RefProperty, reachable_error};
        for seed in 0..3 {
            for inst in small_instances(seed) {
                let mutant = match inst.family {
                    Family::Chain | Family::Straight => inst
                        .text
                        .replace(" & ('g0 = ('g1 ^ 'g2))", "")
                        .replace(" constrain ('g0 = ('g1 ^ 'g2))", ""),
                    Family::Order => {
                        let assume = inst.text.find("  assume(").unwrap();
                        let end = assume + inst.text[assume..].find('\n').unwrap();
                        let mut text = inst.text.clone();
                        text.replace_range(assume..end, "  skip;");
                        text
                    }
                    Family::Counter | Family::Relay => continue,
                };
                assert_ne!(mutant, inst.text);
                let prog = bp_grammar::parse(&mutant).expect("mutant parses");
                assert!(
                    reachable_error(&prog, &RefProperty::AssertsAndSlicError),
                    "{} seed {seed}: still safe without its invariant",
                    inst.family.name()
                );
            }
        }
    }

    #[test]
    fn counter_error_needs_the_full_depth() {
        // With the recursion cut at depth d (count replaced by a chain of d copies whose last
        // one does not recurse), the error is reachable exactly when d >= 2^K - 1.
        use bp_testkit::reference::{RefProperty, reachable_error};
        let k = 3u32;
        let full = counter(&CounterParams { size: 0, k }, 0);
        for depth in 1..=8u64 {
            let mut text = full.text.replace("count", "count1");
            let body_start = text.find("void count1() begin").unwrap();
            let body_end = body_start + text[body_start..].find("\nend\n").unwrap() + 5;
            let body = text[body_start..body_end].to_string();
            let mut copies = String::new();
            for d in 1..=depth {
                let copy = body.replace("count1", &format!("count{d}"));
                let copy = if d == depth {
                    copy.replace(&format!("  count{d}();\n"), "  skip;\n")
                } else {
                    copy.replace(
                        &format!("  count{d}();\n"),
                        &format!("  count{}();\n", d + 1),
                    )
                };
                copies.push_str(&copy);
                copies.push('\n');
            }
            text.replace_range(body_start..body_end, &copies);
            let prog = bp_grammar::parse(&text).expect("cut program parses");
            assert!(
                bp_grammar::check(&prog, &text)
                    .iter()
                    .all(|d| !d.is_error())
            );
            let reached = reachable_error(&prog, &RefProperty::AssertsAndSlicError);
            assert_eq!(reached, depth >= (1 << k) - 1, "depth bound {depth}");
        }
    }

    #[test]
    fn straight_witness_keeps_the_invariant() {
        // The generator's own debug assertion checks the witness; run a few seeds.
        for seed in 0..20 {
            let inst = straight(
                &StraightParams {
                    size: 0,
                    stmts: 300,
                    globals: 4,
                    locals: 3,
                    window: 4,
                },
                seed,
            );
            assert_eq!(inst.n_stmts, 300);
        }
    }
}
