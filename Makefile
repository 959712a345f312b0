# Everyday commands. `make demo` and `make test` do all the set-up on a fresh machine.
.PHONY: all build demo test lint fmt bench ci slam-table slam-bench benchexec-check

all: build

build:
	scripts/setup.sh
	cargo build --release

# The main job on the bundled examples: slam-run proves the Lazy Abstraction paper's locking
# example safe, and finds (and replays) the double release in its buggy variant.
demo:
	scripts/setup.sh
	cargo build --release
	@echo "== slam-run examples/c/funlock.c       (expected: TRUE, exit code 0)"
	@target/release/slam-run examples/c/funlock.c
	@echo "== slam-run examples/c/funlock-bug.c   (expected: FALSE(unreach-call) and a counterexample, exit code 10)"
	@target/release/slam-run examples/c/funlock-bug.c; test $$? -eq 10

test:
	scripts/test.sh

lint:
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings

fmt:
	cargo fmt --all

# The SV-COMP corpus, when it is there, and the task sets of the slam-run table.
CORPUS = ../shared/corpus/sv-benchmarks
TABLE_SETS = $(CORPUS)/locks $(CORPUS)/ntdrivers-simplified $(CORPUS)/loop-acceleration \
  $(CORPUS)/svcomp16-loop-acceleration
# slam-run once per task of TABLE_SETS: a row per task, then the correct verdicts per set, then
# the SLAM_BREAKDOWN (default 5) slowest tasks broken down by phase and iteration.
SLAM_TABLE = if [ -d $(CORPUS) ]; then \
    target/release/slam-bench table $(TABLE_SETS) --cpu-limit $${SLAM_TIMEOUT:-10} \
      --breakdown $${SLAM_BREAKDOWN:-5} \
      --slam-run $${SLAM_BIN:-target/release/slam-run} -- $${SLAM_ARGS:-}; \
  else echo "SKIP: $(CORPUS) not found"; fi

# Performance of bebop on generated families (a)-(d) at sizes x1, x2, x4: a table on stdout.
# Then c2bp on the SV-COMP corpus: time, prover queries, share of `*` updates per program.
# Then the slam-run table (as `make slam-table`), with the slowest tasks broken down by phase.
bench:
	scripts/setup.sh
	cargo build --release -p bebop -p bp-bench
	target/release/bebop-bench
	target/release/c2bp-bench $(CORPUS)
	cargo build --release -p slam-run -p slam-bench
	@$(SLAM_TABLE)

# slam-run on the SV-COMP corpus: task, expected, verdict, iterations, predicates, seconds, then
# the slowest tasks by phase (SLAM_TIMEOUT=N changes the per-task CPU limit, default 10 s;
# SLAM_BREAKDOWN=N how many slowest tasks are broken down, default 5; SLAM_ARGS adds slam-run options,
# e.g. SLAM_ARGS='--constrain off'; SLAM_BIN names another slam-run binary, for an A/B
# comparison with an older build).
slam-table:
	scripts/setup.sh
	cargo build --release -p slam-run -p slam-bench
	@$(SLAM_TABLE)

# slam-bench over the SV-COMP corpus with the Constrain paper's Fig. 4 configurations (no-constrain,
# lazy, eager): results, summary tables, plots and report.html in bench-results/fig4
# (SLAM_TIMEOUT=N CPU seconds per run, default 10; JOBS=N runs at a time, default 1 for steady times).
slam-bench:
	scripts/setup.sh
	cargo build --release -p slam-run -p slam-bench
	rm -rf bench-results/fig4
	target/release/slam-bench run $(TABLE_SETS) --preset fig4 \
	  --cpu-limit $${SLAM_TIMEOUT:-10} --jobs $${JOBS:-1} --mem-limit 8192 --out bench-results/fig4

# The BenchExec tool-info module checked with BenchExec's own test_tool_info (part of `make test`).
benchexec-check:
	scripts/benchexec-check.sh

ci: lint test
