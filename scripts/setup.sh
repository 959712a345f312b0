#!/usr/bin/env bash
# Installs what the toolkit needs on a fresh Debian machine that has only the Rust toolchain.
# Idempotent: does nothing when everything is present.
set -euo pipefail

need_apt=()
# Z3's C library and headers: the C-side crates link against the system Z3 (never a bundled build).
if ! { [ -f /usr/include/z3.h ] || dpkg -s libz3-dev >/dev/null 2>&1; }; then need_apt+=(libz3-dev); fi
command -v gcc >/dev/null 2>&1 || need_apt+=(gcc)
command -v make >/dev/null 2>&1 || need_apt+=(make)

if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]} with apt-get" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}"
fi

if ! cargo nextest --version >/dev/null 2>&1; then
  echo "setup: cargo-nextest not found; tests will run with cargo test" >&2
fi
