//! Hand-written programs with known verdicts, one or more per rule of `docs/bp-semantics.md`
//! ("Semantics"), plus Boppo regression tasks (`../shared/corpus/bp/boppo`, expectations from
//! its `EXPECTED.tsv`).
//!
//! Every checker of Boolean programs in the toolkit can be run over [`CASES`]: the reference
//! interpreter's tests do, and so does the differential test for `bebop`.

use crate::reference::RefProperty;

/// A program with its expected verdict.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    /// A short unique name.
    pub name: &'static str,
    /// The semantic rule it illustrates.
    pub rule: &'static str,
    /// The `.bp` text.
    pub src: &'static str,
    /// `None` for the default property, `Some(L)` for reaching label L.
    pub label: Option<&'static str>,
    /// Is the error reachable?
    pub unsafe_: bool,
}

impl Case {
    /// The property asked.
    pub fn property(&self) -> RefProperty {
        match self.label {
            None => RefProperty::AssertsAndSlicError,
            Some(l) => RefProperty::Label(l.to_string()),
        }
    }
}

const fn case(name: &'static str, rule: &'static str, src: &'static str, unsafe_: bool) -> Case {
    Case {
        name,
        rule,
        src,
        label: None,
        unsafe_,
    }
}

const fn label_case(
    name: &'static str,
    rule: &'static str,
    src: &'static str,
    label: &'static str,
    unsafe_: bool,
) -> Case {
    Case {
        name,
        rule,
        src,
        label: Some(label),
        unsafe_,
    }
}

/// The cases.
pub const CASES: &[Case] = &[
    // Initial values.
    case(
        "init-global",
        "initial values are nondeterministic",
        "decl g; void main() begin assert(g); end",
        true,
    ),
    case(
        "init-main-param",
        "initial values are nondeterministic",
        "void main(p) begin assert(!p); end",
        true,
    ),
    case(
        "boppo-Initialization1",
        "initial values are nondeterministic",
        "void main() begin decl a; assert(!a); end",
        true,
    ),
    case(
        "boppo-Local_Variables1",
        "locals are arbitrary at every call",
        "void f(a) begin decl l; if a then assert(l); else l:=1; fi end
         void main() begin f(0); f(1); end",
        true,
    ),
    // enforce.
    case(
        "boppo-Enforce1",
        "enforce is assumed after every step",
        "decl a, b;
         void f() begin enforce a & !b; assert(a&!b); a, b:=*,*; assert(a&!b); end
         void main() begin a,b:=*,*; f(); end",
        false,
    ),
    case(
        "enforce-entry",
        "enforce is assumed on entry",
        "decl g; void f() begin enforce g; assert(g); end void main() begin g := *; f(); end",
        false,
    ),
    case(
        "enforce-after-return",
        "enforce is assumed after a call returns into its procedure",
        "decl g; void f() begin g := T; end void main() begin enforce !g; f(); assert(F); end",
        false,
    ),
    case(
        "enforce-after-return-end",
        "enforce is assumed after a call returns into its procedure",
        "decl g; void f() begin g := T; end
         bool h() begin enforce !g; f(); end
         void main() begin decl x; x := h(); assert(!g); end",
        false,
    ),
    case(
        "enforce-main-init",
        "enforce of main restricts the initial states",
        "void main() begin decl a; enforce a; assert(a); end",
        false,
    ),
    case(
        "enforce-false",
        "an unsatisfiable enforce blocks everything",
        "void main() begin enforce F; SLIC_ERROR: skip; end",
        false,
    ),
    // Expressions.
    case(
        "nondet-fresh",
        "every * is a fresh value",
        "void main() begin decl x; x := (* = *); assert(x); end",
        true,
    ),
    case(
        "nondet-var-same",
        "a variable has one value",
        "void main() begin decl x, y; y := *; x := (y = y); assert(x); end",
        false,
    ),
    case(
        "boppo-History1",
        "every * is a fresh value",
        "decl g1; void main() begin g1:=*; assume(g1); goto L5, L8; L8: g1:=* & g1; L5: assert(g1); end",
        true,
    ),
    case(
        "schoose-T-x",
        "schoose[T, x] is T",
        "void main() begin decl x, y; x := schoose[T, y]; assert(x); end",
        false,
    ),
    case(
        "schoose-x-T",
        "schoose[x, T] is x",
        "void main() begin decl x, y; x := schoose[y, T]; assert(x = y); end",
        false,
    ),
    case(
        "schoose-F-F",
        "schoose[F, F] is arbitrary",
        "void main() begin decl x; x := schoose[F, F]; assert(!x); end",
        true,
    ),
    case(
        "schoose-a-not-a",
        "schoose[a, !a] is a",
        "void main() begin decl x, a; x := schoose[a, !a]; assert(x = a); end",
        false,
    ),
    case(
        "schoose-condition",
        "schoose as a decider",
        "void main() begin decl a; if schoose[a, !a] then assert(a); fi end",
        false,
    ),
    // Assignment and constrain.
    case(
        "parallel-swap",
        "parallel assignment reads the pre-state",
        "void main() begin decl a, b, c, d; c, d := a, b; a, b := b, a; assert(a = d & b = c); end",
        false,
    ),
    case(
        "boppo-Constrain1",
        "constrain over primed assigned variables",
        "decl g0; void main() begin g0:=schoose[F,F] constrain 'g0; assert(g0); end",
        false,
    ),
    case(
        "boppo-Constrain2",
        "constrain over primed assigned variables",
        "decl g0, g1; void main() begin g0, g1 := *, * constrain ('g0 & 'g1) | (!'g0 & !'g1); assert(g0 = g1); end",
        false,
    ),
    case(
        "constrain-unassigned-primed",
        "an unassigned primed variable is its old value",
        "decl a, b; void main() begin assume(b); a := T constrain !'b; assert(F); end",
        false,
    ),
    case(
        "constrain-unprimed-pre",
        "unprimed variables in constrain are the pre-state",
        "decl a; void main() begin a := !a constrain a; assert(!a); end",
        false,
    ),
    case(
        "constrain-nondet",
        "* in constrain is a free choice",
        "decl a; void main() begin a := T constrain *; assert(!a); end",
        true,
    ),
    // Calls.
    case(
        "boppo-Arguments1",
        "calls are by value",
        "bool f(a) begin return !a; end
         void main() begin decl l1, l2; l1,l2:=*,*; l2:=f(l1); assert(l1=!l2); end",
        false,
    ),
    case(
        "by-value",
        "calls are by value",
        "void f(a) begin a := !a; end void main() begin decl x, y; y := x; f(x); assert(x = y); end",
        false,
    ),
    case(
        "globals-as-left",
        "the caller sees the globals as the callee left them",
        "decl g; bool<2> f() begin g := T; return F, T; end
         void main() begin decl x; g := F; _, x := f(); assert(g & x); end",
        false,
    ),
    case(
        "global-target-wins",
        "a global target gets the returned value",
        "decl g; bool f() begin g := T; return F; end void main() begin g := f(); assert(!g); end",
        false,
    ),
    case(
        "return-in-callee-state",
        "return values are evaluated in the callee's state",
        "decl g; bool f() begin decl l; l := g; g := !g; return l; end
         void main() begin decl x, y; y := g; x := f(); assert(x = y & g = !y); end",
        false,
    ),
    case(
        "fall-off-arbitrary",
        "falling off end returns arbitrary values",
        "bool f() begin skip; end void main() begin decl x; x := f(); assert(x); end",
        true,
    ),
    case(
        "fall-off-empty-body",
        "falling off end returns arbitrary values",
        "bool<2> f() begin end void main() begin decl x, y; x, y := f(); assert(x = y); end",
        true,
    ),
    case(
        "boppo-Function1",
        "calls, returns and discards",
        "decl g0;
         void g() begin g0:=T; end
         bool<2> f(a, b) begin a,b:=!a,!b; return a, b; end
         void main() begin decl ma, mb; g(); assert(g0); g0:=*; _, _ := f(g0, g0);
           ma, mb := f(g0, g0); assert(ma=!g0); assert(mb=!g0); end",
        false,
    ),
    case(
        "boppo-Initialization2",
        "calls with assumptions on globals",
        "decl g1, g0;
         void main() begin foo(T); foo(F); assert(0); end
         void foo(y) begin goto L1, L2;
           L1: assume((!y | g1) & (y | !g1)); return;
           L2: assume((!y | g0) & (y | !g0)); return; end",
        true,
    ),
    // main ends the run.
    case(
        "return-in-main",
        "a return in main ends the run",
        "void main() begin return; assert(F); end",
        false,
    ),
    case(
        "boppo-Return2",
        "a return in main ends the run",
        "decl g; bool<2> f() begin return g, !g; end
         bool<2> main() begin decl l1, l2; g:=*; l1,l2:=f(); return l1,l2; assert(0); end",
        false,
    ),
    // Recursion.
    case(
        "recursion-parity-odd",
        "recursion is unbounded",
        "decl g; void f() begin g := !g; if * then f(); fi end
         void main() begin g := F; f(); assert(g); end",
        true,
    ),
    case(
        "recursion-parity-even",
        "recursion is unbounded",
        "decl g; void f() begin g := !g; if * then f(); fi end
         void main() begin g := F; f(); assert(!g); end",
        true,
    ),
    case(
        "recursion-mutual-invariant",
        "recursion is unbounded",
        "decl g, h;
         void even() begin if * then g, h := h, g; odd(); fi end
         void odd() begin g, h := h, g; even(); end
         void main() begin assume(g = h); even(); assert(g = h); end",
        false,
    ),
    case(
        "recursion-never-returns",
        "recursion is unbounded",
        "void f() begin f(); end void main() begin f(); assert(F); end",
        false,
    ),
    case(
        "recursion-values-flow-back",
        "recursion is unbounded",
        "bool f(a) begin decl r; if * then r := f(a); return r; fi return a; end
         void main() begin decl x, y; x := *; y := f(x); assert(x = y); end",
        false,
    ),
    // Control.
    case(
        "if-arms-in-order",
        "if/elsif conditions are tried in order",
        "void main() begin if T then skip; elsif T then assert(F); else assert(F); fi end",
        false,
    ),
    case(
        "elsif-nondet",
        "if/elsif conditions are tried in order",
        "decl g; void main() begin if g then skip; elsif * then skip; else assert(!g); fi end",
        false,
    ),
    case(
        "while-exit",
        "a loop exits when its condition is false",
        "decl g; void main() begin while g do g := *; od assert(!g); end",
        false,
    ),
    case(
        "while-empty-body",
        "an empty loop body returns to the head",
        "decl g; void main() begin while g do od assert(!g); end",
        false,
    ),
    case(
        "goto-backward",
        "goto jumps to any of its targets",
        "decl g; void main() begin g := F; L: if * then g := T; goto L; fi assert(!g); end",
        true,
    ),
    case(
        "goto-into-loop",
        "the end of a loop body returns to the loop head",
        "decl g; void main() begin g := F; goto In; while F do In: g := T; od assert(!g); end",
        true,
    ),
    case(
        "boppo-Taken1",
        "goto jumps to any of its targets",
        "decl g1; void main() begin L0: g1:=*; L1: if g1 then goto l; fi; L2: goto endl; L3: l: assert(0); L4: endl: skip; end",
        true,
    ),
    case(
        "boppo-Simple3",
        "if, goto",
        "decl g0; void main() begin g0:=schoose[F,F]; if g0 then goto L1; fi; assert(!g0); L1: skip end",
        false,
    ),
    case(
        "boppo-SimpleFixpoint",
        "a loop without exit",
        "decl g0; void main() begin g0:=F; x: g0:=T; goto x; assert(F); end",
        false,
    ),
    case(
        "assume-cuts",
        "assume cuts the paths where it is false",
        "decl g; void main() begin assume(g & !g); assert(F); end",
        false,
    ),
    case(
        "dead-havoc",
        "dead havocs",
        "void main() begin decl x; x := T; dead x; assert(x); end",
        true,
    ),
    case(
        "dead-others-kept",
        "dead havocs only its variables",
        "void main() begin decl x, y; x, y := T, T; dead x; assert(y); end",
        false,
    ),
    // The error.
    case(
        "slic-error-before-it-runs",
        "reaching SLIC_ERROR is the error",
        "void main() begin SLIC_ERROR: assume(F); end",
        true,
    ),
    case(
        "slic-error-unreachable",
        "reaching SLIC_ERROR is the error",
        "decl g; void main() begin assume(!g); if g then SLIC_ERROR: skip; fi end",
        false,
    ),
    case(
        "slic-error-in-callee",
        "reaching SLIC_ERROR is the error",
        "void f() begin SLIC_ERROR: skip; end void main() begin f(); end",
        true,
    ),
    label_case(
        "label-assert-is-assume",
        "under a label property asserts are assumes",
        "decl g; void main() begin assume(!g); assert(g); MY: skip; end",
        "MY",
        false,
    ),
    label_case(
        "label-assert-passes",
        "under a label property asserts are assumes",
        "decl g; void main() begin assert(g); MY: skip; end",
        "MY",
        true,
    ),
    label_case(
        "label-ignores-asserts-and-slic",
        "under a label property only the label is the error",
        "void main() begin assert(F); SLIC_ERROR: skip; end",
        "MY",
        false,
    ),
    label_case(
        "boppo-Reachability1",
        "reaching the label is the error",
        "decl g0; void main() begin g0:=*; if g0 then MY_ERROR_LABEL: skip; fi; end",
        "MY_ERROR_LABEL",
        true,
    ),
    label_case(
        "label-in-two-procedures",
        "any statement with the label counts",
        "void f() begin L: skip; end void main() begin f(); assume(F); L: skip; end",
        "L",
        true,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = CASES.iter().map(|c| c.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CASES.len());
    }
}
