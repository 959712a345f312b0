#!/usr/bin/env bash
# Runs the whole test suite (unit, integration, corpus, differential, doc tests).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace --no-fail-fast
else
  cargo test --workspace --no-fail-fast --all-targets
fi
cargo test --workspace --doc
# The BenchExec tool-info module, with BenchExec's own check (skipped without python3/PyPI).
scripts/benchexec-check.sh
