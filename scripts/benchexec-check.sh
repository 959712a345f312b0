#!/usr/bin/env bash
# The BenchExec tool-info module (contrib/benchexec) checked with the `benchexec`
# package from PyPI: its unit tests (determine_result on recorded slam-run outputs, the command
# line of a task), then BenchExec's own check, `python3 -m benchexec.test_tool_info`, which
# must print no warning except the documented one (tasks of several input files are not
# supported). Skipped, saying so, when python3, venv or PyPI is not available.
set -euo pipefail
cd "$(dirname "$0")/.."
skip() { echo "SKIP: BenchExec tool-info check: $*"; exit 0; }
command -v python3 >/dev/null 2>&1 || skip "python3 not found"
venv=target/benchexec-venv
py=$venv/bin/python
if ! "$py" -c "import benchexec" >/dev/null 2>&1; then
  rm -rf "$venv"
  python3 -m venv "$venv" >/dev/null 2>&1 || skip "python3 cannot create a virtual environment (python3-venv missing?)"
  "$venv/bin/pip" install -q "benchexec==3.27" >/dev/null 2>&1 || skip "cannot install benchexec 3.27 from PyPI"
fi
if [ ! -x target/release/slam-run ] && [ ! -x target/debug/slam-run ]; then
  cargo build -q -p slam-run
fi
echo "== unit tests of contrib/benchexec/slam_toolkit/slam_run.py"
(cd contrib/benchexec && "../../$py" -m unittest test_slam_toolkit)
echo "== python3 -m benchexec.test_tool_info slam_toolkit.slam_run"
o=contrib/benchexec/outputs
out=$(PYTHONPATH=contrib/benchexec "$py" -m benchexec.test_tool_info slam_toolkit.slam_run \
  --no-container --tool-directory . \
  --tool-output $o/true.log $o/false.log $o/unknown.log $o/timeout.log \
  --task-definition contrib/benchexec/tasks/funlock.yml 2>&1) || { echo "$out"; echo "FAIL: test_tool_info failed"; exit 1; }
echo "$out"
bad=$(echo "$out" | grep -E "WARNING|ERROR:|Error|Traceback" | grep -v "does not support tasks with multiple input files" || true)
if [ -n "$bad" ]; then
  echo "FAIL: BenchExec's tool-info check warns:"
  echo "$bad"
  exit 1
fi
for want in "true.log”:" "“true”" "false.log”:" "“false(unreach-call)”" "“unknown”" "“TIMEOUT”" "Version: “"; do
  echo "$out" | grep -qF "$want" || { echo "FAIL: test_tool_info output lacks $want"; exit 1; }
done
echo "BenchExec tool-info check: ok"
