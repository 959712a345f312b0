//! The single Z3 encoding of C expressions (issue 3 §1, "Semantics" and "The single Z3
//! encoding"). Every tool that asks a question about C values (`c2bp`, `newton`, `constrain`)
//! asks it here, so this module doc is **the** documented C semantics of the toolkit.
//!
//! # Queries
//! A [`Prover`] answers [`Prover::is_valid`] (do the assumptions imply the goal?) and
//! [`Prover::is_satisfiable`] (can all the formulas hold together?) over one
//! [`crate::ir::Program`] and one [`Semantics`]. A formula is an [`Expr`] used as a C condition:
//! it holds when its value is non-zero. All formulas of one query describe **one** program state.
//!
//! - **Threads.** The z3 crate (0.22) keeps its ASTs in a thread-local context. A `Prover` holds
//!   no Z3 object: every query builds a fresh Z3 context in the calling thread, encodes, solves
//!   and drops it (or, inside [`one_context`], uses the scope's context). A `Prover` is
//!   therefore `Send + Sync` and can be shared by `rayon` workers; only our own normalised
//!   texts (cache keys) cross threads.
//! - **Determinism.** Limits use Z3's deterministic resource limit (`rlimit`, see
//!   [`Prover::with_rlimit`], default [`DEFAULT_RLIMIT`]), never wall-clock time. With a fresh
//!   context per query, the same query gets the same answer on any machine, whatever was asked
//!   before, on whatever thread; every name the encoder invents is numbered per query and all
//!   collections that produce facts are ordered. A [`one_context`] scope runs a fixed sequence
//!   of queries (its caller's) in one context, which is as reproducible.
//! - **Cache.** Keyed on the normalised query: the [`Semantics`], the kind of query, the sorted
//!   and deduplicated canonical texts of the assumptions and the goal's text (a fully
//!   parenthesised prefix form with the type of every node: two formulas with the same key are
//!   the same formula). `Unknown` is **never** cached and counts as "not proved": callers must
//!   treat [`Answer::Unknown`] as not valid and [`SatAnswer::Unknown`] as satisfiable.
//! - **Statistics** ([`Stats`], for `--stats`): queries, cache hits, solver calls, unknowns.
//!
//! # Semantics of values (default: mathematical integers)
//! - **Types and ranges.** Widths and signedness come from [`DataModel`] (ILP32 default, LP64:
//!   `long` and pointers are 64 bits; `char` is signed). Every variable, memory cell, and
//!   freshly invented value of an integer type lies in its type's range (a *range fact*); so do
//!   results of unsigned arithmetic (by construction, modulo 2^width).
//! - **Signed arithmetic** (`+ - *`, unary `-`, `/`, `%`, `<<` on signed types) is computed on
//!   mathematical integers with **no** range fact on the result: signed overflow is undefined
//!   behaviour, and asserting the result's range would silently remove the states where the
//!   program overflows from every query (making implications vacuously valid there). So for
//!   `int x`, `x + 1 > x` is valid.
//! - **Unsigned arithmetic wraps**: `+ - *`, unary `-`, `<<` on an unsigned type are taken
//!   modulo 2^width (Z3's `mod`, non-negative for a positive divisor). So for `unsigned x`,
//!   `x + 1 > x` is not valid (`x == UINT_MAX`).
//! - **The usual arithmetic conversions** (C11 6.3.1.8, [`usual_arithmetic`]) decide the common
//!   type of the operands of arithmetic operators and comparisons; the IR does not materialise
//!   implicit conversions, so the encoder applies them: operands are converted to the node's type
//!   for arithmetic, to the common type of the operands for comparisons (`-1 < 1u` is false:
//!   `-1` becomes `UINT_MAX`). The right operand of a shift is only promoted.
//! - **Conversions** between integer types: to `_Bool`, `v != 0`; to a type whose range contains
//!   the source range, the value is unchanged; to an unsigned type, `v mod 2^w` (from a signed
//!   type no wider: `v < 0 ? v + 2^w : v`, equal for every value of the source type and much
//!   cheaper for Z3; the projection keeps `mod`, which it reads back as a cast); to a narrower
//!   signed type (implementation-defined in C), wrap-around as gcc does
//!   (`(signed char)200 == -56`). Pointers convert to and from integers as unsigned integers of
//!   the pointer width (the same rules).
//! - **Division and remainder** truncate toward zero as in C (Z3's `div`/`mod` are Euclidean, so
//!   `/` is `sign * (|a| div |b|)` and `a % b` is `a - b * (a / b)`): `7 / -2 == -3`,
//!   `7 % -2 == 1`, `-7 % 2 == -1`. Division or remainder by zero is undefined behaviour: its
//!   value is an unconstrained (but functional: same operands, same value) value of the result
//!   type, within its range.
//! - **Comparisons and logical operators** are Boolean, with C's `int` results when used as
//!   values (`(a < b) + 1` is 1 or 2). `!e` is `e == 0`, `a && b` and `a || b` are conjunction
//!   and disjunction (no side effects in the IR, so short-circuiting does not matter), `c ? a : b`
//!   (from Morris's axiom in weakest preconditions) is an `ite` whose branches are converted to
//!   the node's type.
//! - **Bitwise operators** (Int mode) are precise where cheap: `~x` is `-x - 1` (signed) or
//!   `2^w - 1 - x` (unsigned); `x & m` with a constant `m = 2^k - 1` is `x mod 2^k` (also right
//!   for negative `x` in two's complement), `x & 0 == 0`, `x & -1 == x`, `x | 0`, `x ^ 0`;
//!   `x << c` with a constant `0 <= c < w` is `x * 2^c` (modulo 2^w when unsigned, mathematical
//!   when signed: overflow is undefined); `x >> c` is `x div 2^c` (floor: gcc's arithmetic
//!   shift for negative signed `x`). Everything else (`&`, `|`, `^` of two non-constants,
//!   shifts by a non-constant or out-of-range amount) is an **uninterpreted function** of its
//!   operands with a range fact on the result: a sound over-approximation (any real result is
//!   one of the values allowed), functional (the same `x & y` twice is the same value), but
//!   imprecise: use `--bitvector` for parity, masks and shifts.
//!
//! # `--bitvector` mode
//! Every integer is a bit-vector of its type's width (`_Bool`: 1 bit; pointers: the pointer
//! width), operations choose their signed or unsigned version by type (`bvsdiv`/`bvudiv`,
//! `bvsrem`/`bvurem`, `bvslt`/`bvult`, `bvashr`/`bvlshr`; Z3's `bvsdiv`/`bvsrem` truncate as C
//! does); conversions sign- or zero-extend by the source type or truncate. Fully precise,
//! including signed overflow, which wraps (two's complement, what gcc does in practice).
//! Division by zero and shifts by an amount outside `[0, w)` are undefined in C: they give an
//! uninterpreted-function value, as in Int mode.
//!
//! # Memory: a logical model, sufficient for predicates
//! The memory model proper (which cells an assignment changes) belongs to weakest preconditions
//! and points-to analysis, which express it with Morris's axiom (`(p == &x) ? e : x` becomes an
//! `ite` here). Within one state this module uses:
//! - **Addresses.** `&x` is a constant per variable (also per function designator and per string
//!   literal), non-null and pairwise distinct. Pointers are unsigned values of the pointer width;
//!   the null pointer is 0. Addresses are abstract: `&s.f` is `field_f(&s)` (an uninterpreted
//!   function per field name), `&a[i]` and `p + i` are `base + i` in *element units* (so
//!   `p[0] == *p`, `&a[i] == a + i`); `p - q` is the difference of the two values.
//! - **Cells.** `*p`, `p->f`, `s.f`, `a[i]` of a scalar type `T` are `mem_T(address)`, an
//!   uninterpreted function per type from addresses to values (with a range fact): functional,
//!   so `p == q` implies `*p == *q`, and `p == &s` implies `p->f == s.f`. A scalar variable `x`
//!   whose address occurs in the query is linked to its cell: `mem_T(&x) == x`, so `p == &x`
//!   implies `*p == x`. Different types are different memories (no type punning).
//! - Arrays and functions used as values decay to their address.
//! - **Not expressible** (floating-point values, structure or union values, casts to `void`,
//!   comparisons of non-scalars): a fresh constant, within its type's range when it has one —
//!   sound, since it may be any value.
//!
//! Every fact the encoder adds (ranges, distinct addresses, cell links) is a truth about every
//! state, never an assumption about the program's path.

use std::fmt;

use crate::types::DataModel;

mod canon;
mod encode;
mod project;
mod prover;
mod session;

pub use canon::canonical;
pub use prover::Prover;
pub use session::{Session, SolverCx, one_context};

/// Default resource limit of one query (Z3's `rlimit`, deterministic).
pub const DEFAULT_RLIMIT: u32 = 5_000_000;

/// Which C semantics a query uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Semantics {
    /// Widths of `long` and pointers.
    pub data_model: DataModel,
    /// Bit-precise reasoning (`--bitvector`) instead of mathematical integers with ranges.
    pub bitvector: bool,
}

impl fmt::Display for Semantics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}",
            self.data_model,
            if self.bitvector { "bv" } else { "int" }
        )
    }
}

/// Answer of a validity query. `Unknown` (resource limit reached, or a theory Z3 gave up on)
/// means "not proved".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Answer {
    /// The assumptions imply the goal in every state.
    Valid,
    /// Some state satisfies the assumptions and not the goal.
    NotValid,
    /// Not decided within the resource limit.
    Unknown,
}

impl Answer {
    /// Proved valid (`Unknown` is not).
    pub fn is_valid(self) -> bool {
        self == Answer::Valid
    }
}

/// Answer of a satisfiability query. `Unknown` counts as satisfiable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SatAnswer {
    /// Some state satisfies all the formulas.
    Sat,
    /// No state does.
    Unsat,
    /// Not decided within the resource limit.
    Unknown,
}

impl SatAnswer {
    /// Possibly satisfiable (`Sat` or `Unknown`): the sound reading.
    pub fn maybe_sat(self) -> bool {
        self != SatAnswer::Unsat
    }
}

/// Counters of a [`Prover`] (for `--stats`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    /// Queries asked (validity and satisfiability).
    pub queries: u64,
    /// Queries answered from the cache.
    pub cache_hits: u64,
    /// Queries sent to Z3.
    pub solver_calls: u64,
    /// Z3 answers `unknown` (never cached).
    pub unknowns: u64,
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "prover queries {}, cache hits {}, solver calls {}, unknown {}",
            self.queries, self.cache_hits, self.solver_calls, self.unknowns
        )
    }
}
