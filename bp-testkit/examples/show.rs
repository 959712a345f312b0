//! Prints generated programs and their reference verdicts: `cargo run -p bp-testkit --example
//! show -- SEED [COUNT]`.

use bp_testkit::generator::{GenConfig, random_program};
use bp_testkit::reference::{RefProperty, reachable_error};

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a number"))
        .collect();
    let seed = args.first().copied().unwrap_or(0);
    let count = args.get(1).copied().unwrap_or(1);
    for s in seed..seed + count {
        let p = random_program(s, &GenConfig::default());
        let v = reachable_error(&p, &RefProperty::AssertsAndSlicError);
        println!("// seed {s}: {}", if v { "UNSAFE" } else { "SAFE" });
        println!("{}", bp_grammar::print(&p));
    }
}
