//! From Spacer's derivation of the error in a path program back to a C path: each step of
//! the derivation concludes a relation instance with ground values at its arguments only, so
//! the clause it used — which edges between the two cut points, which branch — is recovered
//! by asking which clause with those relations admits those values
//! ([`cir::smt::horn::clause_admits`], only where several clauses could have been used); the
//! clauses' edges, in order, with calls expanded through the derivation of the callee's
//! summary, are the path. The caller replays it on the concrete interpreter: nothing here is
//! trusted.

use bp_c::trace::CStep;
use cir::smt::horn::{Derivation, clause_admits};

use super::encode::{ClauseKind, Encoding};

/// The C path the derivation `d` of the error stands for (from `main`'s entry to the error
/// edge).
pub fn path_of(enc: &Encoding, d: &Derivation, rlimit: u32) -> Result<Vec<CStep>, String> {
    let mut out = Vec::new();
    steps(enc, d, 0, rlimit, &mut out)?;
    Ok(out)
}

/// Appends the steps of the derivation `d` (in an activation at `depth`) to `out`: those of
/// its first premise, then its clause's edges.
fn steps(
    enc: &Encoding,
    d: &Derivation,
    depth: u32,
    rlimit: u32,
    out: &mut Vec<CStep>,
) -> Result<(), String> {
    let k = clause_of(enc, d, rlimit)?;
    match &enc.kinds[k] {
        // `main` starts, or a callee starts (its caller's steps are the call's).
        ClauseKind::Init | ClauseKind::Enter(_) => Ok(()),
        ClauseKind::Segment(edges) => {
            if let Some(p) = d.premises.first() {
                steps(enc, p, depth, rlimit, out)?;
            }
            out.extend(edges.iter().map(|&edge| CStep { edge, depth }));
            Ok(())
        }
        ClauseKind::Call(edge) => {
            let (Some(caller), Some(summary)) = (d.premises.first(), d.premises.get(1)) else {
                return Err("a call step without its premises".into());
            };
            steps(enc, caller, depth, rlimit, out)?;
            out.push(CStep { edge: *edge, depth });
            steps(enc, summary, depth + 1, rlimit, out)
        }
    }
}

/// The clause that derived `d`: the one whose head and body relations are `d`'s and its
/// premises', and, when there are several, the first that admits their values.
fn clause_of(enc: &Encoding, d: &Derivation, rlimit: u32) -> Result<usize, String> {
    let body: Vec<_> = d.premises.iter().map(|p| p.rel).collect();
    let candidates: Vec<usize> = (0..enc.problem.clauses.len())
        .filter(|&k| {
            let c = &enc.problem.clauses[k];
            c.head.as_ref().map(|h| h.rel) == d.rel
                && c.body.len() == body.len()
                && c.body.iter().zip(&body).all(|(b, r)| Some(b.rel) == *r)
        })
        .collect();
    if let [k] = candidates[..] {
        return Ok(k);
    }
    let values: Vec<Vec<Option<i128>>> = d.premises.iter().map(|p| p.args.clone()).collect();
    tracing::trace!(?candidates, rel = ?d.rel, args = ?d.args, ?values, clauses = ?enc.problem.clauses, "derivation step");
    candidates
        .into_iter()
        .find(|&k| {
            clause_admits(
                &enc.ext,
                &enc.problem,
                &enc.problem.clauses[k],
                &values,
                &d.args,
                rlimit,
            )
        })
        .ok_or_else(|| "a step of the solver's derivation matches no clause".to_string())
}
