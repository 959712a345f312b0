//! The random C program generator of the soundness fuzz test (`../fuzz.rs`): owns the generator
//! ([`program`]), nothing else; its random choices come from the workspace's one PRNG,
//! `bp_testkit::prng::SplitMix64`.
//!
//! Every program is small and over small domains, so that the concrete interpreter can run all
//! of its executions: `unsigned char` and `_Bool` variables only, at most two
//! `__VERIFIER_nondet_uchar()` inputs (each cut down to `0..=3` or so by an early return or
//! `__VERIFIER_assume` right after it is drawn), a few `__VERIFIER_nondet_bool()`, loops
//! `for (i = 0; i < K; i++)` (or `i != K`) with `K ≤ 3` a constant or an input, `main` plus
//! one or two helpers taking `unsigned char` values and `unsigned char *` pointers to their
//! caller's locals (or globals) and returning `unsigned char` or `_Bool`, globals, `if`/`else`
//! on comparisons (`int` arithmetic after promotion: `t + 1 == 256` holds only for
//! `t == 255`), `+`/`-` wrapping modulo 256 when stored back, `_Bool` conversions, and one to
//! three `reach_error()` calls under conditions; sometimes two `calloc`ed `struct R` in `main`
//! linked by their `next` fields, whose `unsigned char` fields (`r0->a`, `r0->next->b`) are
//! read, written and passed by address like locals (`calloc`: zero contents, no draws).
//!
//! Invariants the ground truth of the fuzz test relies on:
//! - every local is declared at the top of its function *with an initialiser* (the explorer
//!   does not enumerate the initial values of locals, which are then never read);
//! - no undefined behaviour: arithmetic is on promoted `unsigned char` values (no `int`
//!   overflow), pointers always point to live objects (locals of a caller, globals), no
//!   division, no recursion (a helper calls only helpers with a larger index);
//! - every execution is bounded (loop counters are never assigned in their body).
//!
//! Deterministic: the same seed gives the same text.

use bp_testkit::prng::SplitMix64;

/// Small constants, and those where `unsigned char` arithmetic wraps.
const CONSTS: &[u32] = &[0, 0, 1, 1, 1, 2, 2, 3, 3, 4, 5, 7, 128, 200, 254, 255, 255];
/// Constants compared with `int` values (promoted sums reach 256 and beyond).
const CMP_CONSTS: &[u32] = &[0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 254, 255, 256];

/// A formal parameter of a helper.
#[derive(Clone)]
enum Param {
    /// `unsigned char name`.
    Val(String),
    /// `unsigned char *name`.
    Ptr(String),
}

/// A helper's signature.
struct Helper {
    name: String,
    params: Vec<Param>,
    /// Returns `_Bool` (else `unsigned char`).
    ret_bool: bool,
}

/// What the statements of one function may use.
#[derive(Clone, Default)]
struct Scope {
    /// `unsigned char` rvalues (`x`, `*p`, `g0`, loop counters).
    uread: Vec<String>,
    /// `unsigned char` lvalues that may be assigned (`*p`, locals, globals).
    uwrite: Vec<String>,
    /// `_Bool` variables (read and written).
    bools: Vec<String>,
    /// `unsigned char` objects whose address may be taken (the function's locals, globals).
    addressable: Vec<String>,
    /// Pointer variables (`unsigned char *`) holding the address of a live object.
    ptrs: Vec<String>,
    /// Pointer locals that may be re-pointed (`q = &y;`).
    ptr_locals: Vec<String>,
    /// Helpers (indices) this function may call.
    callees: Vec<usize>,
    /// Inside a loop (`break` allowed).
    in_loop: bool,
    /// In `main` (`return 0;`) rather than a helper.
    in_main: bool,
}

struct Gen {
    rng: SplitMix64,
    helpers: Vec<Helper>,
    /// `reach_error()` calls still to place among the statements.
    errors_left: usize,
    /// `__VERIFIER_nondet_bool()` assignments still allowed among the statements.
    nondet_bools_left: usize,
    /// Declarations of the function being generated (loop counters are added as found).
    decls: Vec<String>,
    /// Loop counters used in the function being generated.
    counters: usize,
    /// Loops still allowed in the whole program.
    loops_left: usize,
    /// Helpers called somewhere so far (the uncalled ones are called at the end of `main`).
    called: Vec<bool>,
}

/// The C text of the program of `seed`.
pub fn program(seed: u64) -> String {
    let mut g = Gen {
        rng: SplitMix64::new(seed),
        helpers: Vec::new(),
        errors_left: 0,
        nondet_bools_left: 0,
        decls: Vec::new(),
        counters: 0,
        loops_left: 0,
        called: Vec::new(),
    };
    g.program()
}

impl Gen {
    fn program(&mut self) -> String {
        let mut out = String::from(
            "extern unsigned char __VERIFIER_nondet_uchar(void);\n\
             extern _Bool __VERIFIER_nondet_bool(void);\n\
             extern void __VERIFIER_assume(int);\n\
             extern void *calloc(unsigned long, unsigned long);\n\
             struct R { unsigned char a; unsigned char b; struct R *next; };\n\
             void reach_error(void) {}\n",
        );
        self.errors_left = self.rng.range(0, 2);
        self.nondet_bools_left = self.rng.range(0, 2);
        self.loops_left = self.rng.range(1, 3);
        // Globals.
        let mut globals = Scope::default();
        for k in 0..self.rng.range(1, 2) {
            let name = format!("g{k}");
            out.push_str(&format!(
                "unsigned char {name} = {};\n",
                self.rng.pick(&[0, 0, 1, 2, 3, 255])
            ));
            globals.uread.push(name.clone());
            globals.uwrite.push(name.clone());
            globals.addressable.push(name);
        }
        if self.rng.chance(50) {
            out.push_str(&format!("_Bool h0 = {};\n", self.rng.below(2)));
            globals.bools.push("h0".into());
        }
        // Helper signatures: f1 .. fn, fk calls only fj with j > k (defined first).
        let n = self.rng.range(1, 2);
        for k in 1..=n {
            let mut params = Vec::new();
            let np = self.rng.range(1, 3);
            let (mut vals, mut ptrs) = (0, 0);
            for _ in 0..np {
                if self.rng.chance(50) {
                    params.push(Param::Ptr(["p", "q", "r"][ptrs].to_string()));
                    ptrs += 1;
                } else {
                    params.push(Param::Val(["a", "b", "c"][vals].to_string()));
                    vals += 1;
                }
            }
            let ret_bool = self.rng.chance(33);
            self.helpers.push(Helper {
                name: format!("f{k}"),
                params,
                ret_bool,
            });
        }
        self.called = vec![false; n];
        for k in (0..n).rev() {
            let f = self.helper(k, &globals);
            out.push_str(&f);
        }
        out.push_str(&self.main(&globals));
        out
    }

    /// Resets the per-function state.
    fn start_function(&mut self) {
        self.decls.clear();
        self.counters = 0;
    }

    fn helper(&mut self, k: usize, globals: &Scope) -> String {
        self.start_function();
        let mut sc = globals.clone();
        sc.callees = (k + 1..self.helpers.len()).collect();
        let h = &self.helpers[k];
        let ret_bool = h.ret_bool;
        let name = h.name.clone();
        let params = h.params.clone();
        let mut formals = Vec::new();
        for p in &params {
            match p {
                Param::Val(x) => {
                    formals.push(format!("unsigned char {x}"));
                    sc.uread.push(x.clone());
                    // An assigned formal (cir copies it at entry).
                    if self.rng.chance(25) {
                        sc.uwrite.push(x.clone());
                    }
                }
                Param::Ptr(p) => {
                    formals.push(format!("unsigned char *{p}"));
                    sc.uread.push(format!("*{p}"));
                    sc.uwrite.push(format!("*{p}"));
                    sc.ptrs.push(p.clone());
                }
            }
        }
        for l in 0..self.rng.range(1, 2) {
            let t = format!("t{l}");
            let init = self.init_value(&sc);
            self.decls.push(format!("unsigned char {t} = {init};"));
            sc.uread.push(t.clone());
            sc.uwrite.push(t.clone());
            sc.addressable.push(t);
        }
        if self.rng.chance(33) {
            let init = self.rng.below(2);
            self.decls.push(format!("_Bool e0 = {init};"));
            sc.bools.push("e0".into());
        }
        let mut body = String::new();
        let n = self.rng.range(2, 5);
        self.stmts(&mut body, &sc, n, 1, 0);
        let ret = if ret_bool {
            self.bool_expr(&sc)
        } else {
            self.uexpr(&sc)
        };
        body.push_str(&format!("  return {ret};\n"));
        let rty = if ret_bool { "_Bool" } else { "unsigned char" };
        let mut s = format!("{rty} {name}({}) {{\n", formals.join(", "));
        for d in &self.decls {
            s.push_str(&format!("  {d}\n"));
        }
        s.push_str(&body);
        s.push_str("}\n");
        s
    }

    fn main(&mut self, globals: &Scope) -> String {
        self.start_function();
        let mut sc = globals.clone();
        sc.in_main = true;
        sc.callees = (0..self.helpers.len()).collect();
        let mut body = String::new();
        // Inputs: read-only, bounded right after they are drawn.
        for k in 0..self.rng.range(0, 2) {
            let x = format!("x{k}");
            self.decls.push(format!("unsigned char {x} = 0;"));
            body.push_str(&format!("  {x} = __VERIFIER_nondet_uchar();\n"));
            let bound = self.rng.range(1, 3);
            match self.rng.below(3) {
                0 => body.push_str(&format!("  if ({x} > {bound}) return 0;\n")),
                1 => body.push_str(&format!("  if ({x} >= {}) return 0;\n", bound + 1)),
                _ => body.push_str(&format!("  __VERIFIER_assume({x} <= {bound});\n")),
            }
            sc.uread.push(x);
        }
        for k in 0..self.rng.range(0, 1) {
            let c = format!("c{k}");
            self.decls.push(format!("_Bool {c} = 0;"));
            body.push_str(&format!("  {c} = __VERIFIER_nondet_bool();\n"));
            sc.bools.push(c);
        }
        for k in 0..self.rng.range(1, 3) {
            let y = format!("y{k}");
            let init = self.init_value(&sc);
            self.decls.push(format!("unsigned char {y} = {init};"));
            sc.uread.push(y.clone());
            sc.uwrite.push(y.clone());
            sc.addressable.push(y);
        }
        if self.rng.chance(50) {
            let init = self.rng.below(2);
            self.decls.push(format!("_Bool d0 = {init};"));
            sc.bools.push("d0".into());
        }
        if self.rng.chance(40) {
            // Heap structures: r0->next is r1 or r0 itself (then r0->next->b is r0->b).
            self.decls
                .push("struct R *r0 = calloc(1, sizeof(struct R));".into());
            self.decls
                .push("struct R *r1 = calloc(1, sizeof(struct R));".into());
            let next = if self.rng.chance(50) { "r1" } else { "r0" };
            body.push_str(&format!("  r0->next = {next};\n  r1->next = r0;\n"));
            for f in ["r0->a", "r0->next->b", "r1->a"] {
                sc.uread.push(f.into());
                sc.uwrite.push(f.into());
            }
            sc.addressable.push("r0->b".into());
        }
        if self.rng.chance(50) {
            let target = self.rng.pick(&sc.addressable).clone();
            self.decls.push(format!("unsigned char *w = &{target};"));
            sc.uread.push("*w".into());
            sc.uwrite.push("*w".into());
            sc.ptrs.push("w".into());
            sc.ptr_locals.push("w".into());
        }
        let n = self.rng.range(3, 6);
        self.stmts(&mut body, &sc, n, 1, 0);
        for k in 0..self.helpers.len() {
            if !self.called[k] {
                let lv = self.rng.pick(&sc.uwrite).clone();
                let call = self.call(&sc, k);
                body.push_str(&format!("  {lv} = {call};\n"));
            }
        }
        // At least one error site, at the end of main.
        let cond = self.cond(&sc, 0);
        body.push_str(&format!("  if ({cond}) reach_error();\n  return 0;\n"));
        let mut s = String::from("int main(void) {\n");
        for d in &self.decls {
            s.push_str(&format!("  {d}\n"));
        }
        s.push_str(&body);
        s.push_str("}\n");
        s
    }

    /// The initialiser of a local: a constant, or (sometimes) a value in scope.
    fn init_value(&mut self, sc: &Scope) -> String {
        if !sc.uread.is_empty() && self.rng.chance(25) {
            self.rng.pick(&sc.uread).clone()
        } else {
            self.rng.pick(CONSTS).to_string()
        }
    }

    fn indent(depth: usize) -> String {
        "  ".repeat(depth)
    }

    /// `n` statements at nesting `depth` (1: the function body), `nest` blocks deep.
    fn stmts(&mut self, out: &mut String, sc: &Scope, n: usize, depth: usize, nest: usize) {
        for _ in 0..n {
            self.stmt(out, sc, depth, nest);
        }
    }

    fn stmt(&mut self, out: &mut String, sc: &Scope, depth: usize, nest: usize) {
        let ind = Self::indent(depth);
        loop {
            match self.rng.below(20) {
                0..=5 => {
                    let lv = self.rng.pick(&sc.uwrite).clone();
                    let e = self.uexpr(sc);
                    out.push_str(&format!("{ind}{lv} = {e};\n"));
                }
                6..=7 if !sc.bools.is_empty() => {
                    let b = self.rng.pick(&sc.bools).clone();
                    if self.nondet_bools_left > 0 && self.rng.chance(33) {
                        self.nondet_bools_left -= 1;
                        out.push_str(&format!("{ind}{b} = __VERIFIER_nondet_bool();\n"));
                    } else {
                        let e = self.bool_expr(sc);
                        out.push_str(&format!("{ind}{b} = {e};\n"));
                    }
                }
                8..=10 if nest < 2 => {
                    let c = self.cond(sc, 0);
                    out.push_str(&format!("{ind}if ({c}) {{\n"));
                    let n = self.rng.range(1, 2);
                    self.stmts(out, sc, n, depth + 1, nest + 1);
                    if self.rng.chance(50) {
                        out.push_str(&format!("{ind}}} else {{\n"));
                        let n = self.rng.range(1, 2);
                        self.stmts(out, sc, n, depth + 1, nest + 1);
                    }
                    out.push_str(&format!("{ind}}}\n"));
                }
                11..=12 if nest < 2 && self.loops_left > 0 => {
                    self.loops_left -= 1;
                    let i = format!("i{}", self.counters);
                    self.counters += 1;
                    self.decls.push(format!("unsigned char {i} = 0;"));
                    // A constant bound, or an input (read-only, at most 4).
                    let inputs: Vec<&String> =
                        sc.uread.iter().filter(|v| v.starts_with('x')).collect();
                    let bound = if !inputs.is_empty() && self.rng.chance(25) {
                        (*self.rng.pick(&inputs)).clone()
                    } else {
                        self.rng.range(1, 3).to_string()
                    };
                    // `i != K` terminates too: `i` counts up from 0 to `K <= 3`.
                    let op = if self.rng.chance(20) { "!=" } else { "<" };
                    out.push_str(&format!("{ind}for ({i} = 0; {i} {op} {bound}; {i}++) {{\n"));
                    let mut inner = sc.clone();
                    inner.uread.push(i);
                    inner.in_loop = true;
                    let n = self.rng.range(1, 3);
                    self.stmts(out, &inner, n, depth + 1, nest + 1);
                    out.push_str(&format!("{ind}}}\n"));
                }
                13..=14 if !sc.callees.is_empty() => {
                    let k = *self.rng.pick(&sc.callees);
                    let call = self.call(sc, k);
                    if self.helpers[k].ret_bool && !sc.bools.is_empty() && self.rng.chance(67) {
                        let b = self.rng.pick(&sc.bools).clone();
                        out.push_str(&format!("{ind}{b} = {call};\n"));
                    } else if self.rng.chance(80) {
                        let lv = self.rng.pick(&sc.uwrite).clone();
                        out.push_str(&format!("{ind}{lv} = {call};\n"));
                    } else {
                        out.push_str(&format!("{ind}{call};\n"));
                    }
                }
                15 if self.errors_left > 0 => {
                    self.errors_left -= 1;
                    let c = self.cond(sc, 0);
                    out.push_str(&format!("{ind}if ({c}) reach_error();\n"));
                }
                16 if !sc.ptr_locals.is_empty() => {
                    let p = self.rng.pick(&sc.ptr_locals).clone();
                    let t = self.rng.pick(&sc.addressable).clone();
                    out.push_str(&format!("{ind}{p} = &{t};\n"));
                }
                17 if sc.in_loop => {
                    let c = self.cond(sc, 0);
                    out.push_str(&format!("{ind}if ({c}) break;\n"));
                }
                18 if nest > 0 && self.rng.chance(33) => {
                    let c = self.cond(sc, 0);
                    let v = if sc.in_main {
                        "0".to_string()
                    } else {
                        self.uexpr(sc)
                    };
                    out.push_str(&format!("{ind}if ({c}) return {v};\n"));
                }
                _ => continue,
            }
            return;
        }
    }

    /// A call of helper `k` with arguments from `sc`.
    fn call(&mut self, sc: &Scope, k: usize) -> String {
        self.called[k] = true;
        let params = self.helpers[k].params.clone();
        let mut args = Vec::new();
        for p in &params {
            match p {
                Param::Val(_) => args.push(self.uexpr(sc)),
                Param::Ptr(_) => {
                    if !sc.ptrs.is_empty() && self.rng.chance(33) {
                        args.push(self.rng.pick(&sc.ptrs).clone());
                    } else {
                        let t = self.rng.pick(&sc.addressable).clone();
                        args.push(format!("&{t}"));
                    }
                }
            }
        }
        format!("{}({})", self.helpers[k].name, args.join(", "))
    }

    /// An `unsigned char` value or constant.
    fn atom(&mut self, sc: &Scope) -> String {
        if sc.uread.is_empty() || self.rng.chance(25) {
            self.rng.pick(CONSTS).to_string()
        } else {
            self.rng.pick(&sc.uread).clone()
        }
    }

    /// An `unsigned char` variable (a constant only when none is in scope).
    fn var_atom(&mut self, sc: &Scope) -> String {
        if sc.uread.is_empty() {
            self.rng.pick(CONSTS).to_string()
        } else {
            self.rng.pick(&sc.uread).clone()
        }
    }

    /// A value of an assignment: `+`/`-` on promoted values, truncated when stored.
    fn uexpr(&mut self, sc: &Scope) -> String {
        match self.rng.below(8) {
            0..=1 => self.atom(sc),
            2..=3 => {
                let a = self.atom(sc);
                let c = self.rng.pick(&[1, 1, 2, 3, 255, 254]);
                let op = self.rng.pick(&["+", "-"]);
                format!("{a} {op} {c}")
            }
            4..=6 => {
                let a = self.atom(sc);
                let b = self.atom(sc);
                let op = self.rng.pick(&["+", "-"]);
                format!("{a} {op} {b}")
            }
            _ if !sc.bools.is_empty() => {
                // A `_Bool` is 0 or 1 as an integer.
                let b = self.rng.pick(&sc.bools).clone();
                let a = self.atom(sc);
                format!("{a} + {b}")
            }
            _ => self.atom(sc),
        }
    }

    /// A value of a `_Bool` assignment or return.
    fn bool_expr(&mut self, sc: &Scope) -> String {
        match self.rng.below(6) {
            0..=2 => self.cond(sc, 1),
            3 if !sc.bools.is_empty() => {
                let b = self.rng.pick(&sc.bools).clone();
                format!("!{b}")
            }
            // Conversion to `_Bool`: non-zero is 1.
            4 => self.uexpr(sc),
            _ => self.rng.below(2).to_string(),
        }
    }

    /// A comparison (`int` arithmetic after promotion).
    fn comparison(&mut self, sc: &Scope) -> String {
        let op = *self.rng.pick(&["==", "==", "!=", "<", "<=", ">", ">="]);
        let a = if self.rng.chance(25) {
            // Promoted: no wrap-around here.
            let x = self.var_atom(sc);
            let c = self.rng.pick(&[1, 2, 255]);
            let o = self.rng.pick(&["+", "-"]);
            format!("{x} {o} {c}")
        } else {
            self.var_atom(sc)
        };
        let b = if self.rng.chance(50) {
            self.rng.pick(CMP_CONSTS).to_string()
        } else {
            self.atom(sc)
        };
        format!("{a} {op} {b}")
    }

    /// A branch condition; `level` bounds the nesting of `&&`, `||`, `!`.
    fn cond(&mut self, sc: &Scope, level: usize) -> String {
        match self.rng.below(10) {
            0..=4 => self.comparison(sc),
            5 if !sc.bools.is_empty() => self.rng.pick(&sc.bools).clone(),
            6 if !sc.bools.is_empty() => {
                let b = self.rng.pick(&sc.bools).clone();
                format!("!{b}")
            }
            7..=8 if level < 2 => {
                let a = self.cond(sc, level + 1);
                let b = self.cond(sc, level + 1);
                let op = self.rng.pick(&["&&", "||"]);
                format!("({a}) {op} ({b})")
            }
            9 if level < 2 => {
                let a = self.cond(sc, level + 1);
                format!("!({a})")
            }
            _ => self.comparison(sc),
        }
    }
}
