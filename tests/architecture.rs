//! ARCHITECTURE.md's crate dependency list is the workspace's: every crate is listed, with
//! exactly its normal dependencies on other crates of the workspace, as `cargo metadata` reads
//! them from the manifests. The map cannot drift from the code (rust-analyzer's tidy tests keep
//! its docs true the same way).

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

type Deps = BTreeMap<String, BTreeSet<String>>;

/// The normal dependencies between the workspace's packages, by `cargo metadata`.
fn workspace_deps() -> Deps {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata is JSON");
    let packages = meta["packages"].as_array().expect("packages");
    let names: BTreeSet<String> = packages
        .iter()
        .filter_map(|p| p["name"].as_str().map(str::to_string))
        .collect();
    packages
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|d| d["kind"].is_null())
                .filter_map(|d| d["name"].as_str())
                .filter(|n| names.contains(*n))
                .map(str::to_string)
                .collect();
            (p["name"].as_str().expect("name").to_string(), deps)
        })
        .collect()
}

/// The list of ARCHITECTURE.md's section "Crate dependencies": lines
/// `` - `crate` → `dep`, `dep` `` (or `→ (none)`).
fn documented_deps() -> Deps {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md");
    let text = std::fs::read_to_string(&path).expect("ARCHITECTURE.md");
    let start = text
        .find("## Crate dependencies")
        .expect("ARCHITECTURE.md has a section \"Crate dependencies\"");
    let section = text[start..]
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("## "));
    let mut out = Deps::new();
    for line in section {
        let Some(rest) = line.strip_prefix("- `") else {
            continue;
        };
        let Some((name, deps)) = rest.split_once("` → ") else {
            continue;
        };
        let deps = deps
            .split(',')
            .map(|d| d.trim().trim_matches('`'))
            .filter(|d| !d.is_empty() && *d != "(none)")
            .map(str::to_string)
            .collect();
        assert!(
            out.insert(name.to_string(), deps).is_none(),
            "`{name}` is listed twice"
        );
    }
    out
}

#[test]
fn the_documented_crate_dependencies_are_the_manifests() {
    let actual = workspace_deps();
    let documented = documented_deps();
    let mut problems = Vec::new();
    for (name, deps) in &actual {
        match documented.get(name) {
            None => problems.push(format!("`{name}` is not listed")),
            Some(d) if d != deps => problems.push(format!(
                "`{name}`: documented {:?}, the manifest has {:?}",
                d, deps
            )),
            Some(_) => {}
        }
    }
    for name in documented.keys() {
        if !actual.contains_key(name) {
            problems.push(format!(
                "`{name}` is listed but is not a crate of the workspace"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "ARCHITECTURE.md's \"Crate dependencies\" differs from the manifests:\n  {}",
        problems.join("\n  ")
    );
}
