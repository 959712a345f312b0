//! What the end-to-end tests share: the path of a tool's executable. Integration tests of this
//! package cannot name another package's binary with `CARGO_BIN_EXE_*`, so the executable is
//! looked up next to the test executable (`target/<profile>/`) and built with the same cargo
//! when it is not there yet (a `cargo test -p slam-toolkit` on a clean tree).
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

/// Serialises the builds of missing tools between the tests of one test binary.
static BUILDING: Mutex<()> = Mutex::new(());

/// The executable of the workspace's binary `name` (package `package`), built when missing.
pub fn tool(package: &str, name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable has a path");
    // target/<profile>/deps/<test> → target/<profile>/<name>
    let dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("the test executable sits in target/<profile>/deps");
    let path = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    let _guard = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
    if !path.exists() {
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
