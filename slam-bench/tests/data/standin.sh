#!/usr/bin/env bash
# A deterministic stand-in for slam-run, for slam-bench's tests. It takes slam-run's command
# line and answers from lines of the task's C file (for a .yml task, its input file):
#   // standin MODE: VERDICT   the verdict line for --constrain MODE (`*`: any mode)
#   // standin sleep: SECONDS  sleep first
#   // standin spin            burn CPU until killed
#   // standin crash           die of SIGSEGV without a verdict
# With --stats-json it writes statistics: 3 iterations, 4 predicates, as many constraints as
# the mode's name has letters (off 3, lazy 4, eager 5), 1 NDF round, 17 prover queries.
mode=lazy; stats=""; task=""
while [ $# -gt 0 ]; do
  case "$1" in
    --constrain) mode=$2; shift 2 ;;
    --stats-json) stats=$2; shift 2 ;;
    --timeout|--cube-len|--enforce-len|--max-iterations) shift 2 ;;
    --*) shift ;;
    *) task=$1; shift ;;
  esac
done
c=$task
case "$task" in
  *.yml) c=$(dirname "$task")/$(sed -n "s/^input_files: *'\{0,1\}\([^']*\)'\{0,1\} *$/\1/p" "$task") ;;
esac
if [ ! -f "$c" ]; then echo "standin: $c: no such file" >&2; exit 2; fi
s=$(sed -n 's|^// standin sleep: *||p' "$c")
if [ -n "$s" ]; then sleep "$s"; fi
if grep -q '^// standin spin' "$c"; then while :; do :; done; fi
if grep -q '^// standin crash' "$c"; then echo "standin: crashed" >&2; kill -SEGV $$; fi
v=$(sed -n "s|^// standin $mode: *||p" "$c")
if [ -z "$v" ]; then v=$(sed -n 's|^// standin \*: *||p' "$c"); fi
if [ -z "$v" ]; then v="UNKNOWN (the stand-in has no verdict)"; fi
if [ -n "$stats" ]; then
  printf '{"format":"slam-run-stats/1","iterations":[{},{},{}],"predicates":4,"constraints":%d,"constrain_calls":1,"ndf":1,"prover_queries":17}\n' "${#mode}" > "$stats"
fi
echo "$v"
echo "summary: iterations=3 predicates=4 seconds=0.01 (stand-in)"
case "$v" in TRUE) exit 0 ;; FALSE*) exit 10 ;; *) exit 5 ;; esac
