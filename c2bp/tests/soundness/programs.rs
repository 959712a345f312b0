//! Random small C programs with predicate files, for the soundness-by-execution test: several
//! procedures (an acyclic call graph, sometimes one bounded recursive function), pointers to
//! locals and globals passed to callees that write through them, structure fields through `.`
//! and `->`, signed, unsigned and `unsigned char` arithmetic (with wrap-around and
//! signed/unsigned comparisons), calls whose actuals change (`x0 = f1(x0, &x0)`), bounded loops
//! and error sites; with [`generate_with_heap`], heap structures too: a `malloc`ed `struct H`
//! with a pointer field to another (`m0->next->a`), pointers to its fields passed to callees
//! and held in `p0`, a `struct H *` parameter. Every program terminates; every pointer
//! dereferenced points to a live object. Deterministic in the seed.

use bp_testkit::prng::SplitMix64;

/// A generated program and its predicate file.
pub struct Generated {
    /// The C text.
    pub c: String,
    /// The predicate file (`global:` / `function NAME:` sections).
    pub preds: String,
}

/// The kinds of parameter a generated function may take.
#[derive(Clone, Copy, PartialEq)]
enum Param {
    Int,
    Unsigned,
    IntPtr,
    StructPtr,
    HeapPtr,
}

#[derive(Clone, Copy, PartialEq)]
enum Ret {
    Void,
    Int,
    Unsigned,
}

struct Func {
    name: String,
    params: Vec<Param>,
    ret: Ret,
}

struct Gen {
    r: SplitMix64,
    out: String,
    funcs: Vec<Func>,
    /// Atoms usable as predicates in the function being generated.
    atoms: Vec<String>,
    has_globals: bool,
    /// Heap structures too ([`generate_with_heap`]).
    heap: bool,
}

const INTS: [&str; 3] = ["x0", "x1", "x2"];

impl Gen {
    fn line(&mut self, depth: usize, s: &str) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn small(&mut self) -> i64 {
        self.r.below(7) as i64 - 3
    }

    /// An `int` operand: a local, the pointer's target, a parameter, a global or a constant.
    fn int_atom(&mut self, ints: &[String]) -> String {
        match self.r.below(6) {
            0 => format!("{}", self.small()),
            1 if self.has_globals => "g0".into(),
            _ => self.r.pick(ints).clone(),
        }
    }

    /// A side-effect-free `int` expression.
    fn int_expr(&mut self, ints: &[String]) -> String {
        let a = self.int_atom(ints);
        match self.r.below(5) {
            0 => a,
            1 => format!("{a} + {}", self.int_atom(ints)),
            2 => format!("{a} - {}", self.int_atom(ints)),
            3 => format!("{a} * {}", 1 + self.r.below(3)),
            _ => format!("{a} + {}", self.small()),
        }
    }

    /// A condition over the function's variables.
    fn cond(&mut self, ints: &[String], uns: &[String]) -> String {
        let ops = ["<", "<=", ">", ">=", "==", "!="];
        let op = *self.r.pick(&ops);
        let c = match self.r.below(6) {
            0 if !uns.is_empty() => {
                // A signed/unsigned comparison: the usual arithmetic conversions apply.
                let u = self.r.pick(uns).clone();
                format!("{} {op} {u}", self.int_atom(ints))
            }
            1 if !uns.is_empty() => {
                let u = self.r.pick(uns).clone();
                format!("{u} {op} {}u", self.r.below(4))
            }
            _ => format!("{} {op} {}", self.int_atom(ints), self.int_expr(ints)),
        };
        if self.r.chance(25) {
            let d = self.cond_simple(ints);
            let j = if self.r.coin() { "&&" } else { "||" };
            return format!("({c}) {j} ({d})");
        }
        if self.r.chance(10) {
            return format!("!({c})");
        }
        c
    }

    fn cond_simple(&mut self, ints: &[String]) -> String {
        let ops = ["<", "==", "!=", ">"];
        let op = *self.r.pick(&ops);
        format!("{} {op} {}", self.r.pick(ints).clone(), self.small())
    }

    fn record(&mut self, atom: String) {
        if !self.atoms.contains(&atom) {
            self.atoms.push(atom);
        }
    }

    /// A call of an earlier function with actuals built from the caller's variables.
    fn call(&mut self, callee: usize, ints: &[String], ptr_ok: bool) -> Option<String> {
        let f = &self.funcs[callee];
        let name = f.name.clone();
        let params = f.params.clone();
        let ret = f.ret;
        let mut args = Vec::new();
        for p in params {
            args.push(match p {
                Param::Int => self.int_expr(ints),
                Param::Unsigned => format!("{}u", self.r.below(3)),
                Param::IntPtr => {
                    if !ptr_ok {
                        return None;
                    }
                    match self.r.below(4) {
                        0 => "p0".into(),
                        1 if self.has_globals => "&g0".into(),
                        2 if self.heap => (*self.r.pick(&["&m0->b", "&m0->next->a"])).into(),
                        _ => format!("&{}", self.r.pick(&INTS[..2])),
                    }
                }
                Param::StructPtr => {
                    if !ptr_ok {
                        return None;
                    }
                    "&s0".into()
                }
                Param::HeapPtr => {
                    if !ptr_ok {
                        return None;
                    }
                    (*self.r.pick(&["m0", "m0->next"])).into()
                }
            });
        }
        let call = format!("{name}({})", args.join(", "));
        Some(match ret {
            Ret::Void => format!("{call};"),
            Ret::Int => format!("{} = {call};", self.r.pick(&INTS)),
            Ret::Unsigned => format!("u0 = {call};"),
        })
    }

    /// A write into the heap structures: a field of `m0` or of `m0->next`, the `next` link
    /// (always to a live `struct H`), or `p0` aimed at a field.
    fn heap_stmt(&mut self, depth: usize, ints: &[String]) {
        match self.r.below(5) {
            0 => {
                let e = self.int_expr(ints);
                self.line(depth, &format!("m0->a = {e};"));
                let x = self.r.pick(&INTS[..]).to_string();
                self.record(format!("m0->a > {x}"));
            }
            1 => {
                let e = self.int_expr(ints);
                self.line(depth, &format!("m0->next->a = {e};"));
                self.record("m0->next->a == 0".into());
            }
            2 => {
                let t = *self.r.pick(&["m0", "m1"]);
                self.line(depth, &format!("m0->next = {t};"));
                self.record("m0->next == m0".into());
            }
            3 => {
                let k = self.small();
                self.line(depth, &format!("m0->b = m0->next->a + {k};"));
                self.record("m0->b < m0->a".into());
            }
            _ => {
                let t = *self.r.pick(&["&m0->a", "&m1->b"]);
                self.line(depth, &format!("p0 = {t};"));
                self.record(format!("p0 == {t}"));
            }
        }
    }

    fn stmts(&mut self, depth: usize, n: usize, ctx: &Ctx) {
        for _ in 0..n {
            self.stmt(depth, ctx);
        }
    }

    fn stmt(&mut self, depth: usize, ctx: &Ctx) {
        let ints = &ctx.ints;
        let weights: &[u32] = if self.heap {
            &[6, 3, 2, 2, 2, 3, 1, 2, 2, 1, 3]
        } else {
            &[6, 3, 2, 2, 2, 3, 1, 2, 2, 1]
        };
        match self.r.weighted(weights) {
            0 => {
                let x = self.r.pick(&INTS[..]).to_string();
                let e = self.int_expr(ints);
                self.line(depth, &format!("{x} = {e};"));
            }
            1 => {
                let e = self.int_expr(ints);
                self.line(depth, &format!("*p0 = {e};"));
                self.record("*p0 > 0".into());
            }
            2 => {
                let t = *self.r.pick(&["&x0", "&x1"]);
                self.line(depth, &format!("p0 = {t};"));
                self.record(format!("p0 == {t}"));
            }
            3 => {
                let s = match self.r.below(4) {
                    0 => "u0 = u0 - 1u;".to_string(),
                    1 => "u0 = u0 + 4294967295u;".to_string(),
                    2 => "c0 = c0 + 200;".to_string(),
                    _ => format!("u0 = u0 + {}u;", self.r.below(3)),
                };
                self.line(depth, &s);
                self.record("u0 == 0".into());
                self.record("c0 < 100".into());
            }
            4 => {
                let f = *self.r.pick(&["a", "b"]);
                let e = if f == "a" {
                    self.int_expr(ints)
                } else {
                    format!("{}u", self.r.below(3))
                };
                self.line(depth, &format!("s0.{f} = {e};"));
                let x = self.r.pick(&INTS[..]).to_string();
                self.record(format!("s0.a < {x}"));
            }
            5 if depth < 3 => {
                let c = self.cond(ints, &ctx.uns);
                self.line(depth, &format!("if ({c}) {{"));
                let n = 1 + self.r.below(2);
                self.stmts(depth + 1, n, ctx);
                if self.r.coin() {
                    self.line(depth, "} else {");
                    let n = 1 + self.r.below(2);
                    self.stmts(depth + 1, n, ctx);
                }
                self.line(depth, "}");
            }
            6 if depth < 3 && !ctx.in_loop => {
                let k = 1 + self.r.below(3);
                self.line(depth, &format!("for (i0 = 0; i0 < {k}; i0++) {{"));
                let inner = Ctx {
                    in_loop: true,
                    ..ctx.clone()
                };
                let n = 1 + self.r.below(2);
                self.stmts(depth + 1, n, &inner);
                self.line(depth, "}");
            }
            7 | 8 if ctx.index > 0 => {
                let callee = self.r.below(ctx.index);
                if let Some(s) = self.call(callee, ints, true) {
                    self.line(depth, &s);
                }
            }
            9 => {
                let c = self.cond(ints, &ctx.uns);
                self.line(depth, &format!("if ({c}) reach_error();"));
            }
            10 => self.heap_stmt(depth, ints),
            _ => {
                let x = self.r.pick(&INTS[..]).to_string();
                self.line(depth, &format!("{x} = {x} + 1;"));
            }
        }
    }
}

/// What a function body may use.
#[derive(Clone)]
struct Ctx {
    /// `int` operands in scope (locals, `*p0`, `int` parameters).
    ints: Vec<String>,
    /// `unsigned` operands in scope.
    uns: Vec<String>,
    /// Functions `0..index` may be called.
    index: usize,
    in_loop: bool,
}

/// The program of `seed` (without heap structures).
#[allow(dead_code)] // each test that includes this file uses one of the two
pub fn generate(seed: u64) -> Generated {
    generate_in(seed, false)
}

/// The program of `seed` with heap structures (see the module doc).
#[allow(dead_code)]
pub fn generate_with_heap(seed: u64) -> Generated {
    generate_in(seed, true)
}

fn generate_in(seed: u64, heap: bool) -> Generated {
    let mut g = Gen {
        r: SplitMix64::new(seed ^ 0x5eed_c2b9),
        out: String::new(),
        funcs: Vec::new(),
        atoms: Vec::new(),
        has_globals: false,
        heap,
    };
    g.out.push_str(
        "extern int __VERIFIER_nondet_int(void);\nextern unsigned int __VERIFIER_nondet_uint(void);\n\
         extern void __VERIFIER_assume(int);\nvoid reach_error(void);\n\
         struct S { int a; unsigned b; };\n",
    );
    if heap {
        g.out.push_str(
            "extern void *malloc(unsigned long);\nstruct H { int a; int b; struct H *next; };\n",
        );
    }
    g.has_globals = g.r.chance(60);
    if g.has_globals {
        g.out.push_str("int g0;\nunsigned h0 = 3u;\n");
    }
    let mut preds = String::new();
    if g.has_globals {
        preds.push_str("global:\n");
        preds.push_str(if g.r.coin() { "g0 == 0\n" } else { "g0 < 2\n" });
    }
    let recursive = g.r.chance(30);
    if recursive {
        g.out
            .push_str("int rec(int n) {\n  if (n <= 0) return 0;\n  return rec(n - 1) + 2;\n}\n");
        g.funcs.push(Func {
            name: "rec".into(),
            params: vec![Param::Int],
            ret: Ret::Int,
        });
        preds.push_str("function rec:\n\\result >= n\n");
    }
    let nfuncs = 2 + g.r.below(2);
    for k in 0..=nfuncs {
        let is_main = k == nfuncs;
        let name = if is_main {
            "main".to_string()
        } else {
            format!("f{k}")
        };
        let (params, ret) = if is_main {
            (Vec::new(), Ret::Int)
        } else {
            let n = g.r.below(3);
            let all: &[Param] = if heap {
                &[
                    Param::Int,
                    Param::Unsigned,
                    Param::IntPtr,
                    Param::StructPtr,
                    Param::HeapPtr,
                ]
            } else {
                &[Param::Int, Param::Unsigned, Param::IntPtr, Param::StructPtr]
            };
            let mut ps = Vec::new();
            for _ in 0..n {
                let p = *g.r.pick(all);
                if !ps.contains(&p) {
                    ps.push(p);
                }
            }
            (ps, *g.r.pick(&[Ret::Void, Ret::Int, Ret::Unsigned]))
        };
        let mut sig = Vec::new();
        let mut ints: Vec<String> = INTS.iter().map(|s| s.to_string()).collect();
        ints.push("*p0".into());
        if heap {
            ints.push("m0->a".into());
            ints.push("m0->next->a".into());
        }
        let mut uns = vec!["u0".to_string()];
        g.atoms.clear();
        for p in &params {
            match p {
                Param::Int => {
                    sig.push("int a".to_string());
                    ints.push("a".into());
                }
                Param::Unsigned => {
                    sig.push("unsigned b".to_string());
                    uns.push("b".into());
                }
                Param::IntPtr => {
                    sig.push("int *q".to_string());
                    ints.push("*q".into());
                }
                Param::StructPtr => {
                    sig.push("struct S *r".to_string());
                    ints.push("r->a".into());
                }
                Param::HeapPtr => {
                    sig.push("struct H *h".to_string());
                    ints.push("h->b".into());
                }
            }
        }
        let rty = match ret {
            Ret::Void => "void",
            Ret::Int => "int",
            Ret::Unsigned => "unsigned",
        };
        let sig = if sig.is_empty() {
            "void".to_string()
        } else {
            sig.join(", ")
        };
        g.line(0, &format!("{rty} {name}({sig}) {{"));
        g.line(1, "int x0 = __VERIFIER_nondet_int(), x1 = 0, x2, i0;");
        g.line(1, "unsigned u0 = __VERIFIER_nondet_uint();");
        g.line(1, "unsigned char c0 = 250;");
        g.line(1, "struct S s0;");
        g.line(1, "int *p0 = &x0;");
        g.line(1, "s0.a = x1; s0.b = 0u;");
        if heap {
            // Two heap objects, m0->next always one of them; m1's fields start arbitrary.
            g.line(1, "struct H *m0 = malloc(sizeof(struct H));");
            g.line(1, "struct H *m1 = malloc(sizeof(struct H));");
            g.line(
                1,
                "m0->a = x1; m0->b = 0; m0->next = m1; m1->a = 0; m1->next = m0;",
            );
        }
        if g.r.chance(50) {
            g.line(1, "__VERIFIER_assume(-100 <= x0 && x0 <= 100);");
        }
        if g.r.chance(50) {
            g.line(1, "x2 = __VERIFIER_nondet_int();");
        } else {
            g.line(1, "x2 = x0 + 1;");
        }
        if params.contains(&Param::Int) && g.r.coin() {
            // The C code assigns a formal: the IR gives it a local copy.
            g.line(1, "a = a + 1;");
        }
        if params.contains(&Param::IntPtr) {
            let e = g.int_expr(&ints);
            g.line(1, &format!("*q = {e};"));
            g.record("*q == 0".into());
        }
        if params.contains(&Param::StructPtr) {
            g.line(1, "r->a = r->a + 1;");
            g.record("r->a > 0".into());
        }
        if params.contains(&Param::HeapPtr) {
            g.line(1, "h->b = h->next->a + 1;");
            g.record("h->b > 0".into());
        }
        if is_main && recursive {
            g.line(1, "x1 = rec(x0 < 0 ? 0 : x0 % 4);");
            g.record("x0 < x1".into());
        }
        let ctx = Ctx {
            ints: ints.clone(),
            uns,
            index: g.funcs.len(),
            in_loop: false,
        };
        let n = 2 + g.r.below(4);
        g.stmts(1, n, &ctx);
        if is_main && g.funcs.len() > usize::from(recursive) {
            // At least one call whose actuals change: x0 = f(x0 ..., &x0 ...).
            let callee = g.funcs.len() - 1;
            if let Some(s) = g.call(callee, &["x0".to_string()], true) {
                g.line(1, &s);
            }
        }
        let c = g.cond(&ints, &ctx.uns);
        g.line(1, &format!("if ({c}) reach_error();"));
        for _ in 0..2 {
            let a = g.r.pick(&INTS[..]).to_string();
            let b = g.int_atom(&ints[..3]);
            let op = *g.r.pick(&["<", "==", "<="]);
            if a != b {
                g.record(format!("{a} {op} {b}"));
            }
        }
        match ret {
            Ret::Void => {}
            Ret::Int => {
                let e = g.int_expr(&ints);
                g.line(1, &format!("return {e};"));
                if params.contains(&Param::Int) {
                    g.record("\\result > a".into());
                } else {
                    g.record("\\result == 0".into());
                }
            }
            Ret::Unsigned => {
                g.line(1, "return u0;");
                g.record("\\result == 0".into());
            }
        }
        g.line(0, "}");
        // Up to five predicates of this function.
        let mut chosen = Vec::new();
        let atoms = g.atoms.clone();
        for a in atoms {
            if chosen.len() < 5 && g.r.chance(60) {
                chosen.push(a);
            }
        }
        if !chosen.is_empty() {
            preds.push_str(&format!("function {name}:\n"));
            for a in chosen {
                preds.push_str(&a);
                preds.push('\n');
            }
        }
        if !is_main {
            g.funcs.push(Func { name, params, ret });
        }
    }
    Generated { c: g.out, preds }
}
