# Everyday commands. `make demo` and `make test` do all the set-up on a fresh machine.
.PHONY: all build demo test lint fmt bench ci

all: build

build:
	scripts/setup.sh
	cargo build --release

# The main job on a bundled example: bebop finds an (abstract) double-acquire in SLAM's lock example.
demo:
	scripts/setup.sh
	cargo build --release -p bebop
	@echo "== bebop examples/bebop/lock-coarse.bp   (expected: VERIFICATION FAILED, exit code 10)"
	@target/release/bebop examples/bebop/lock-coarse.bp; test $$? -eq 10
	@echo "== bebop examples/bebop/lock.bp          (expected: VERIFICATION SUCCESSFUL, exit code 0)"
	@target/release/bebop examples/bebop/lock.bp

test:
	scripts/test.sh

lint:
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings

fmt:
	cargo fmt --all

# Performance of bebop on generated families (a)-(d) at sizes x1, x2, x4: a table on stdout.
# Then c2bp on the SV-COMP corpus: time, prover queries, share of `*` updates per program.
bench:
	scripts/setup.sh
	cargo build --release -p bebop -p bp-bench -p c2bp
	target/release/bebop-bench
	scripts/c2bp-bench.sh

ci: lint test
