//! Shared helpers of `bebop`'s integration tests: parse and check a program, run `bebop`, and
//! validate every trace three ways (bebop's own replay, the reference replayer of `bp-testkit`,
//! the JSON round trip).

#![allow(dead_code)]

use bebop::{Options, Outcome, Property, Verdict, verify};
use bp_grammar::Program;
use bp_grammar::trace::{Step, StepKind, Trace};
use bp_testkit::reference::RefProperty;

/// Parses and checks `src`, panicking with the diagnostics if it is not well-formed.
pub fn parse(src: &str) -> Program {
    let prog = bp_grammar::parse(src).unwrap_or_else(|d| panic!("does not parse: {d:?}\n{src}"));
    let errors: Vec<_> = bp_grammar::check(&prog, src)
        .into_iter()
        .filter(|d| d.is_error())
        .collect();
    assert!(errors.is_empty(), "ill-formed: {errors:?}\n{src}");
    prog
}

fn ref_property(p: &Property) -> RefProperty {
    match p {
        Property::AssertsAndSlicError => RefProperty::AssertsAndSlicError,
        Property::Label(l) => RefProperty::Label(l.clone()),
    }
}

/// Runs `bebop` on `src` for `prop` and validates the trace if there is one.
pub fn run_prop(src: &str, prop: Property) -> Outcome {
    let prog = parse(src);
    let opts = Options {
        property: prop.clone(),
        self_check: true,
        program_name: "test.bp".into(),
        source: Some(src.to_string()),
        ..Options::default()
    };
    let out = verify(&prog, &opts).unwrap_or_else(|e| panic!("bebop failed: {e}\n{src}"));
    if let Verdict::Unsafe(tr) = &out.verdict {
        validate(&prog, &opts, tr, src);
    }
    // The reference interpreter agrees on the verdict.
    if let Ok(expected) = bp_testkit::reference::try_reachable_error(&prog, &ref_property(&prop)) {
        assert_eq!(
            !out.verdict.is_safe(),
            expected,
            "bebop and the reference interpreter disagree on\n{src}"
        );
    }
    out
}

/// Checks a trace with bebop's replay, the reference replayer and the JSON round trip.
pub fn validate(prog: &Program, opts: &Options, tr: &Trace, src: &str) {
    if let Err(e) = bebop::check_trace(prog, opts, tr) {
        panic!(
            "bebop's replay rejects the trace: {e}\n{src}\n{}",
            tr.to_json()
        );
    }
    if let Err(e) = bp_testkit::replay(prog, tr, &ref_property(&opts.property)) {
        panic!(
            "the reference replayer rejects the trace: {e:?}\n{src}\n{}",
            tr.to_json()
        );
    }
    let back = Trace::from_json(&tr.to_json()).expect("the JSON form reads back");
    assert_eq!(&back, tr, "JSON round trip");
}

/// Runs with the default property.
pub fn run(src: &str) -> Outcome {
    run_prop(src, Property::AssertsAndSlicError)
}

/// Asserts the program is safe.
pub fn safe(src: &str) {
    let o = run(src);
    assert!(o.verdict.is_safe(), "expected SAFE:\n{src}");
}

/// Asserts the program is unsafe and returns the trace.
pub fn unsafe_(src: &str) -> Trace {
    let o = run(src);
    // Within the default budget: the trace is shortest.
    assert!(o.stats.trace_shortest, "search budget exceeded:\n{src}");
    match o.verdict {
        Verdict::Unsafe(t) => *t,
        Verdict::Safe => panic!("expected UNSAFE:\n{src}"),
    }
}

/// The steps of a kind.
pub fn steps_of(tr: &Trace, kind: StepKind) -> Vec<&Step> {
    tr.steps.iter().filter(|s| s.kind == kind).collect()
}

/// The last step (the error).
pub fn last(tr: &Trace) -> &Step {
    tr.steps.last().expect("a trace has steps")
}
