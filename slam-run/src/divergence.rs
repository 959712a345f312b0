//! The divergence detector: weakest preconditions of one trace at a time follow a loop one
//! iteration per refinement (`x >= 50`, `x + 1 >= 50`, `x + 2 >= 50`, …), which is the
//! unrolling that path invariants are meant to cut short (Beyer, Henzinger, Majumdar,
//! Rybalchenko, "Path invariants", PLDI 2007, §1). The loop says so instead of running into
//! its limits.
//!
//! Newton's predicates of an iteration *continue* a predicate of the iteration before when
//! both come from the same condition of the program (the `assume` edge of the core) and
//! the same scope, differ, mention the same variables, and either are the same up to their
//! integer constants (`x + 1 >= 50` and `x + 2 >= 50`) or the older one's text, constants
//! aside, is a proper subsequence of the newer one's (a growing term: `y == x` and
//! `y == x + x`). Divergence is a chain of continuations over 3 consecutive iterations.
//! Keying on the condition keeps a state machine's `s == 1`, `s == 2`, `s == 3` — one
//! predicate per branch, from different conditions — from counting.

use std::collections::BTreeSet;

/// Iterations a chain spans before it is divergence.
pub(crate) const CHAIN: usize = 3;

/// A predicate newton added, with where it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Added {
    /// `global` or the function's name.
    pub(crate) scope: String,
    /// The predicate's text.
    pub(crate) text: String,
    /// The condition it comes from (the core assume's edge, `f#k`).
    pub(crate) origin: String,
}

/// A token of a predicate's text; integer constants are one token `#`.
fn skeleton(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            while i < chars.len() && chars[i].is_ascii_alphanumeric() {
                i += 1;
            }
            out.push("#".to_string());
        } else if c.is_alphabetic() || c == '_' || c == '\\' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || matches!(chars[i], '_' | '#' | '@' | '\\'))
            {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else {
            out.push(c.to_string());
            i += 1;
        }
    }
    out
}

fn identifiers(sk: &[String]) -> BTreeSet<&str> {
    sk.iter()
        .filter(|t| t.starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '\\'))
        .map(String::as_str)
        .collect()
}

/// Whether `short` is a subsequence of `long`.
fn subsequence(short: &[String], long: &[String]) -> bool {
    let mut it = long.iter();
    short.iter().all(|s| it.any(|l| l == s))
}

/// Whether `newer` continues `older` (see the module doc).
pub(crate) fn continues(newer: &Added, older: &Added) -> bool {
    if newer.scope != older.scope || newer.origin != older.origin || newer.text == older.text {
        return false;
    }
    let (a, b) = (skeleton(&newer.text), skeleton(&older.text));
    if identifiers(&a) != identifiers(&b) {
        return false;
    }
    a == b || (a.len() > b.len() && subsequence(&b, &a))
}

/// The predicates newton added in each iteration so far.
#[derive(Debug, Default)]
pub(crate) struct Detector {
    history: Vec<Vec<Added>>,
}

impl Detector {
    /// Records an iteration's predicates; the chain of [`CHAIN`] predicates (oldest first)
    /// when they end one.
    pub(crate) fn push(&mut self, added: Vec<Added>) -> Option<Vec<String>> {
        self.history.push(added);
        let n = self.history.len();
        if n < CHAIN {
            return None;
        }
        let window = &self.history[n - CHAIN..];
        for last in &window[CHAIN - 1] {
            let mut chain = vec![last];
            for earlier in window[..CHAIN - 1].iter().rev() {
                let at = chain.last().expect("non-empty");
                match earlier.iter().find(|q| continues(at, q)) {
                    Some(q) => chain.push(q),
                    None => break,
                }
            }
            if chain.len() == CHAIN {
                return Some(chain.iter().rev().map(|a| a.text.clone()).collect());
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn added(text: &str, origin: &str) -> Added {
        Added {
            scope: "main".into(),
            text: text.into(),
            origin: origin.into(),
        }
    }

    #[test]
    fn unrolling_is_divergence() {
        let mut d = Detector::default();
        assert_eq!(d.push(vec![added("x >= 50", "main#3")]), None);
        assert_eq!(d.push(vec![added("x + 1 >= 50", "main#3")]), None);
        assert_eq!(
            d.push(vec![
                added("y == 0", "main#5"),
                added("x + 2 >= 50", "main#3")
            ]),
            Some(vec![
                "x >= 50".to_string(),
                "x + 1 >= 50".to_string(),
                "x + 2 >= 50".to_string()
            ])
        );
    }

    #[test]
    fn a_growing_term_is_divergence() {
        let mut d = Detector::default();
        d.push(vec![added("y == x", "f#1")]);
        d.push(vec![added("y == x + x", "f#1")]);
        assert!(d.push(vec![added("y == x + x + x", "f#1")]).is_some());
    }

    #[test]
    fn a_state_machine_is_not() {
        // One predicate per branch condition: different origins.
        let mut d = Detector::default();
        d.push(vec![added("s == 1", "main#4")]);
        d.push(vec![added("s == 2", "main#9")]);
        assert_eq!(d.push(vec![added("s == 3", "main#14")]), None);
        // A gap breaks a chain; other variables are other predicates.
        let mut d = Detector::default();
        d.push(vec![added("x >= 50", "main#3")]);
        d.push(vec![]);
        d.push(vec![added("x + 1 >= 50", "main#3")]);
        assert_eq!(d.push(vec![added("x + 2 >= 50", "main#3")]), None);
        assert!(!continues(
            &added("z + 1 >= 50", "main#3"),
            &added("x + 1 >= 50", "main#3")
        ));
    }
}
