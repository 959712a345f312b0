//! Generated programs are well-formed for `bp_grammar::check` (no errors; warnings such as a
//! value-returning procedure that can reach its `end` are legal programs) and survive the
//! canonical printer and the parser unchanged.

use bp_grammar::Severity;
use bp_testkit::generator::{GenConfig, random_program};

/// The errors among a check's diagnostics.
fn errors(diags: Vec<bp_grammar::Diagnostic>) -> Vec<bp_grammar::Diagnostic> {
    diags
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .collect()
}

#[test]
fn generated_programs_check_and_round_trip() {
    let cfg = GenConfig::default();
    for seed in 0..2000 {
        let prog = random_program(seed, &cfg);
        let text = bp_grammar::print(&prog);
        let diags = errors(bp_grammar::check(&prog, &text));
        assert!(
            diags.is_empty(),
            "seed {seed}: {diags:?}\n{}",
            bp_testkit::text::program_text(&prog)
        );
        let back = bp_grammar::parse(&text)
            .unwrap_or_else(|e| panic!("seed {seed}: printed text does not parse: {e:?}\n{text}"));
        assert_eq!(
            back, prog,
            "seed {seed}: round trip changes the program\n{text}"
        );
        let diags = errors(bp_grammar::check(&back, &text));
        assert!(diags.is_empty(), "seed {seed}: {diags:?}\n{text}");
    }
}
