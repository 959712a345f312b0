//! What the end-to-end tests share: the path of a tool's executable. Integration tests of this
//! package cannot name another package's binary with `CARGO_BIN_EXE_*`, and cargo builds
//! another package's binaries for them only when that package has integration tests of its
//! own, so each tool is built with the same cargo (a no-op when it is up to date) the first
//! time a test binary asks for it, and found next to the test executable
//! (`target/<profile>/`). An executable merely present may be stale: it is never trusted.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

/// The tools this test binary has brought up to date; the lock serialises their builds.
static BUILT: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// The executable of the workspace's binary `name` (package `package`), brought up to date by
/// the first call.
pub fn tool(package: &str, name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable has a path");
    // target/<profile>/deps/<test> → target/<profile>/<name>
    let dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("the test executable sits in target/<profile>/deps");
    let path = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if built.insert(name.to_string()) {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.args(["build", "--quiet", "-p", package, "--bin", name]);
        if dir.file_name().is_some_and(|p| p == "release") {
            cmd.arg("--release");
        }
        let status = cmd
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building `{name}` failed");
        assert!(
            path.exists(),
            "`{name}` was built but is not at {}",
            path.display()
        );
    }
    path
}
