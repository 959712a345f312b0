//! The search for `enforce`'s inconsistent cubes has a budget (5 × `max_queries` queries): a
//! long enforce length over many related predicates once ran for hours. Stopped, it keeps the
//! cubes found — by length, so every shorter one — and counts as a capped search; excluding
//! fewer cubes is sound.

mod common;

/// The cubes of `main`'s `enforce` clause (`enforce (!(c1) & !(c2) & …);`), as texts.
fn enforce_cubes(text: &str) -> Vec<String> {
    let inner = common::enforce_line(text)
        .trim_start_matches("enforce (!(")
        .trim_end_matches("));");
    inner.split(") & !(").map(str::to_string).collect()
}

/// `tests/data/FILE` at enforce length 5 with a query budget.
fn abstract_budget(file: &str, max_queries: u64) -> c2bp::Output {
    let opts = c2bp::Options {
        enforce_len: 5,
        max_queries,
        ..c2bp::Options::default()
    };
    common::abstract_data(file, &opts)
}

#[test]
fn a_stopped_search_keeps_the_shorter_inconsistent_cubes() {
    let run = |max_queries: u64| abstract_budget("budget.c", max_queries);
    let full = run(20_000);
    let short = run(80);
    let capped = |o: &c2bp::Output| o.procs.iter().map(|p| p.capped).sum::<u64>();
    assert_eq!(capped(&full), 0, "the full search is complete");
    assert!(capped(&short) >= 1, "the budget stops the search");
    let (all, kept) = (enforce_cubes(&full.text), enforce_cubes(&short.text));
    assert!(
        !kept.is_empty() && kept.len() < all.len(),
        "{kept:?} of {all:?}"
    );
    for c in &kept {
        assert!(
            all.contains(c),
            "{c} is not an inconsistent cube of the full search"
        );
    }
    // Every cube of two literals (`x > 1` without `x > 0`, ...) is among those kept: the search
    // goes by length.
    let pairs: Vec<&String> = all
        .iter()
        .filter(|c| c.matches(" & ").count() == 1)
        .collect();
    assert!(!pairs.is_empty());
    for c in pairs {
        assert!(kept.contains(c), "{c} is missing");
    }
}

#[test]
fn a_stopped_search_over_global_predicates_is_counted() {
    let run = |max_queries: u64| abstract_budget("budget_global.c", max_queries);
    let (full, short) = (run(20_000), run(80));
    assert!(!full.global_capped, "the full search is complete");
    assert!(short.global_capped, "the budget stops the search");
    // `--stats` counts it with the procedures' stopped searches.
    let procs: u64 = short.procs.iter().map(|p| p.capped).sum();
    let line = format!("cube searches stopped by the query limit: {}", procs + 1);
    assert!(short.stats_text().contains(&line), "{}", short.stats_text());
    assert!(enforce_cubes(&short.text).len() < enforce_cubes(&full.text).len());
}
