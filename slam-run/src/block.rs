//! Blocking a C edge in a Boolean program c2bp wrote: every `assume` annotated with the edge
//! (`edge=NAME part=cond`, the statement that abstracts the edge's condition) becomes
//! `assume F`, so no run of the program takes the edge any more.
//!
//! The loop uses it to look for further abstract error traces of one abstraction after newton
//! refuted one (module `cegar`): with the edge that made the refuted trace infeasible blocked,
//! bebop's next trace is a different one. Blocking only removes runs, so every trace of the
//! blocked program is a trace of the program c2bp wrote, and its C path (`bp_c::trace::c_path`)
//! a path of the C program; what newton makes of it is as valid as for the first trace. The
//! statements keep their spans and annotations, so bebop's traces map back as usual.

use bp_grammar::ast::{Expr, Program, Span, Stmt, StmtKind};

/// Blocks the C edge `edge` (its name, `f#k`) in `bp`; the number of statements blocked (0:
/// the program has no `assume` for that edge, nothing changed).
pub(crate) fn block_edge(bp: &mut Program, edge: &str) -> usize {
    bp.procs
        .iter_mut()
        .map(|p| block_in(&mut p.body, edge))
        .sum()
}

/// [`block_edge`] in a list of statements and the statements nested in them.
fn block_in(body: &mut [Stmt], edge: &str) -> usize {
    let mut n = 0;
    for s in body.iter_mut() {
        let annotated =
            s.annotations.get("edge") == Some(edge) && s.annotations.get("part") == Some("cond");
        match &mut s.kind {
            StmtKind::Assume(cond) if annotated => {
                *cond = Expr::Const(false, Span::NONE);
                n += 1;
            }
            StmtKind::If { arms, els } => {
                n += arms
                    .iter_mut()
                    .map(|a| block_in(&mut a.body, edge))
                    .sum::<usize>();
                if let Some(b) = els {
                    n += block_in(b, edge);
                }
            }
            StmtKind::While { body, .. } => n += block_in(body, edge),
            _ => {}
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_edges_condition_is_blocked() {
        let text = "void main() begin\n  decl a;\n  goto E1, E2;\n  //@ edge=main#1 part=cond\n  \
                    E1: assume a;\n  //@ edge=main#1 part=goto\n  goto L3;\n  \
                    //@ edge=main#2 part=cond\n  E2: assume !a;\n  L3: skip;\nend\n";
        let mut bp = bp_grammar::parse_and_check(text, &bp_grammar::ParseOptions::default())
            .expect("the test program checks");
        assert_eq!(block_edge(&mut bp, "main#3"), 0);
        assert_eq!(block_edge(&mut bp, "main#1"), 1);
        let printed = bp_grammar::print::print(&bp);
        assert!(printed.contains("E1: assume F;"), "{printed}");
        assert!(printed.contains("E2: assume !a;"), "{printed}");
    }
}
