//! A static order of the global variables for the BDDs.
//!
//! BDD sizes depend on the variable order; `g_i = g_{i+n}` for all i is exponential when all
//! `g_i` come before all `g_{i+n}` and linear when the pairs are interleaved. The order is
//! chosen once, before the analysis, with the FORCE heuristic (F. Aloul, I. Markov,
//! K. Sakallah, "FORCE: a fast and easy-to-implement variable-ordering heuristic", GLSVLSI
//! 2003): the variables of a statement (if few), of an assignment's target with its value, and
//! of every small sub-expression form hyperedges; each round moves every variable to the mean
//! centre of its hyperedges and sorts. The declaration order is kept unless FORCE reduces the
//! total span of the hyperedges by a clear margin (programs are often written, or generated,
//! with related variables declared together).

use bp_grammar::{Expr, Lhs, Program, Stmt, StmtKind};
use std::collections::HashMap;

/// Statements and assignments with more variables than this give no hyperedge of their own.
const MAX_EDGE: usize = 12;
/// Sub-expressions with at most this many variables are hyperedges.
const MAX_ATOM: usize = 4;
/// FORCE rounds.
const ROUNDS: usize = 50;
/// FORCE is used only if it lowers the total span to this fraction of the declaration order's.
const GAIN: f64 = 0.9;

struct Edges<'a> {
    index: &'a HashMap<&'a str, usize>,
    edges: Vec<Vec<usize>>,
}

impl Edges<'_> {
    fn vars_of(&self, e: &Expr, out: &mut Vec<usize>) {
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            match e {
                Expr::Var(id) | Expr::Primed(id) => {
                    if let Some(&i) = self.index.get(id.name.as_str())
                        && !out.contains(&i)
                    {
                        out.push(i);
                    }
                }
                Expr::Const(..) | Expr::Nondet(_) => {}
                Expr::Not(a, _) => stack.push(a),
                Expr::Binary(_, a, b, _) | Expr::Schoose(a, b, _) => {
                    stack.push(a);
                    stack.push(b);
                }
            }
        }
    }

    fn push(&mut self, mut vars: Vec<usize>) {
        vars.sort_unstable();
        vars.dedup();
        if vars.len() >= 2 {
            self.edges.push(vars);
        }
    }

    /// The small sub-expressions of `e` (2 to [`MAX_ATOM`] variables; all of them, so that
    /// the smallest groups weigh most).
    fn atoms(&mut self, e: &Expr) {
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            let mut vs = Vec::new();
            self.vars_of(e, &mut vs);
            if vs.len() < 2 {
                continue;
            }
            if vs.len() <= MAX_ATOM {
                self.push(vs);
            }
            match e {
                Expr::Not(a, _) => stack.push(a),
                Expr::Binary(_, a, b, _) | Expr::Schoose(a, b, _) => {
                    stack.push(a);
                    stack.push(b);
                }
                _ => {}
            }
        }
    }

    /// One statement: all its variables if few, each target with its value, and the small
    /// sub-expressions.
    fn stmt(&mut self, s: &Stmt) {
        let mut exprs: Vec<&Expr> = Vec::new();
        let mut targets: Vec<usize> = Vec::new();
        let lhs_var = |l: &Lhs| match l {
            Lhs::Var(id) => self.index.get(id.name.as_str()).copied(),
            Lhs::Discard(_) => None,
        };
        match &s.kind {
            StmtKind::Assign {
                lhs,
                rhs,
                constrain,
            } => {
                let ts: Vec<Option<usize>> = lhs.iter().map(lhs_var).collect();
                for (t, e) in ts.iter().zip(rhs.iter()) {
                    let mut vs: Vec<usize> = t.iter().copied().collect();
                    self.vars_of(e, &mut vs);
                    if vs.len() <= MAX_EDGE {
                        self.push(vs);
                    }
                }
                targets.extend(ts.into_iter().flatten());
                exprs.extend(rhs.iter());
                exprs.extend(constrain.iter());
            }
            StmtKind::Call { lhs, args, .. } => {
                targets.extend(lhs.iter().filter_map(lhs_var));
                exprs.extend(args.iter());
            }
            StmtKind::Return(es) | StmtKind::Print(es) => exprs.extend(es.iter()),
            StmtKind::If { arms, .. } => exprs.extend(arms.iter().map(|a| &a.cond)),
            StmtKind::While { cond, .. } | StmtKind::Assert(cond) | StmtKind::Assume(cond) => {
                exprs.push(cond)
            }
            StmtKind::Dead(vs) => targets.extend(
                vs.iter()
                    .filter_map(|v| self.index.get(v.name.as_str()).copied()),
            ),
            StmtKind::Skip | StmtKind::Goto(_) => {}
        }
        let mut all = targets;
        for e in &exprs {
            self.vars_of(e, &mut all);
        }
        if all.len() <= MAX_EDGE {
            self.push(all);
        }
        for e in exprs {
            self.atoms(e);
        }
    }
}

/// The total span of the hyperedges under positions `pos`.
fn span(edges: &[Vec<usize>], pos: &[f64]) -> f64 {
    edges
        .iter()
        .map(|e| {
            let (lo, hi) = e.iter().fold((f64::MAX, f64::MIN), |(lo, hi), v| {
                (lo.min(pos[*v]), hi.max(pos[*v]))
            });
            hi - lo
        })
        .sum()
}

/// The order of the globals: `order[k]` is the declaration index of the global placed k-th.
pub fn global_order(prog: &Program) -> Vec<usize> {
    let names: Vec<&str> = prog.global_vars().map(|g| g.name.as_str()).collect();
    let n = names.len();
    let identity: Vec<usize> = (0..n).collect();
    if n < 3 {
        return identity;
    }
    let index: HashMap<&str, usize> = names.iter().enumerate().map(|(i, s)| (*s, i)).collect();
    let mut ed = Edges {
        index: &index,
        edges: Vec::new(),
    };
    for p in &prog.procs {
        if let Some(e) = &p.enforce {
            ed.atoms(e);
        }
        for (_, s) in p.stmts_preorder() {
            ed.stmt(s);
        }
    }
    let edges = ed.edges;
    if edges.is_empty() {
        return identity;
    }
    let mut member: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, e) in edges.iter().enumerate() {
        for v in e {
            member[*v].push(i);
        }
    }
    let declared: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let base = span(&edges, &declared);
    let mut pos = declared.clone();
    let mut best = (base, identity.clone());
    for _ in 0..ROUNDS {
        let centre: Vec<f64> = edges
            .iter()
            .map(|e| e.iter().map(|v| pos[*v]).sum::<f64>() / e.len() as f64)
            .collect();
        let target: Vec<f64> = (0..n)
            .map(|v| {
                if member[v].is_empty() {
                    pos[v]
                } else {
                    member[v].iter().map(|e| centre[*e]).sum::<f64>() / member[v].len() as f64
                }
            })
            .collect();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|a, b| {
            target[*a]
                .total_cmp(&target[*b])
                .then(pos[*a].total_cmp(&pos[*b]))
        });
        for (k, v) in order.iter().enumerate() {
            pos[*v] = k as f64;
        }
        let s = span(&edges, &pos);
        if s < best.0 {
            best = (s, order);
        } else if s > best.0 * 1.5 {
            break;
        }
    }
    if best.0 <= base * GAIN {
        best.1
    } else {
        identity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_interleaved() {
        // The shape of the benchmark family `order`: g_i is paired with g_{i+8}.
        let n = 8;
        let g = |i: usize| format!("g{i}");
        let pairs: Vec<String> = (0..n)
            .map(|i| format!("({} = {})", g(i), g(i + n)))
            .collect();
        let decl: Vec<String> = (0..2 * n).map(g).collect();
        let mut body = format!("assume({});\n", pairs.join(" & "));
        for i in 0..n {
            let j = (i + 3) % n;
            body.push_str(&format!(
                "{}, {} := ({} ^ {}), ({} ^ {});\n",
                g(i),
                g(i + n),
                g(i),
                g(j),
                g(i + n),
                g(j + n)
            ));
        }
        let src = format!("decl {}; void main() begin {body} end", decl.join(", "));
        let prog = bp_grammar::parse(&src).expect("parses");
        let order = global_order(&prog);
        let pos = |v: usize| order.iter().position(|x| *x == v).expect("placed");
        for i in 0..n {
            // Close enough for the BDD of all pair equalities to stay narrow.
            assert!(
                pos(i).abs_diff(pos(i + n)) <= 3,
                "g{i} near g{}: {order:?}",
                i + n
            );
        }
    }

    #[test]
    fn a_good_declaration_order_is_kept() {
        let src = "decl a, b, c, d, e, f;
            void main() begin a, b := b, a; c, d := d, c; e, f := f, e; end";
        let prog = bp_grammar::parse(src).expect("parses");
        assert_eq!(global_order(&prog), vec![0, 1, 2, 3, 4, 5]);
    }
}
