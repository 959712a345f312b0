#!/usr/bin/env bash
# A deterministic stand-in for slam-run, for slam-bench's tests. It takes slam-run's command
# line (an option slam-run does not have is a usage error, exit 2, as with slam-run) and answers
# from lines of the task's C file (for a .yml task, its input file):
#   // standin MODE: VERDICT   the verdict line for --constrain MODE (`*`: any mode)
#   // standin sleep: SECONDS  sleep first; past --timeout (wall-clock, as slam-run's), stop
#                              there with UNKNOWN (timeout) and statistics, as slam-run does
#   // standin spin: SECONDS   burn SECONDS of CPU time first
#   // standin spin            burn CPU until killed
#   // standin catch-xcpu      at the soft CPU limit (SIGXCPU) answer UNKNOWN (timeout) with
#                              statistics, as slam-run does (without it, SIGXCPU kills)
#   // standin crash           die of SIGSEGV without a verdict
# --version prints a version line, as slam-run's does. With --stats-json it writes statistics (slam-run-stats/2): 3 iterations, 4 predicates, as
# many constraints as the mode's name has letters (off 3, lazy 4, eager 5), 1 NDF round, 17
# prover queries; phases c2bp 0.5 s, bebop 0.25 s, newton 0.125 s, constrain 0.0625 s (CPU and
# wall-clock alike); peak memory 42.5 MiB. A run stopped by a limit says in which phase.
mode=lazy; stats=""; task=""; timeout=""
while [ $# -gt 0 ]; do
  case "$1" in
    --*=*) flag=${1%%=*}; value=${1#*=}; shift; set -- "$flag" "$value" "$@"; continue ;;
  esac
  case "$1" in
    --version) echo "slam-run 0.0.0 (stand-in)"; exit 0 ;;
    --constrain) mode=$2; shift 2 ;;
    --stats-json) stats=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    -p|--preds|--cube-len|--enforce-len|--max-cube-len|--data-model|--error-fn|--error-label|--property|\
    --max-iterations|--keep|--witness|--rlimit|--max-queries) shift 2 ;;
    --no-guard-preds|--bitvector|--assert|-v|-vv|-vvv|--verbose) shift ;;
    -*) printf "error: unexpected argument '%s' found\n\nUsage: slam-run [OPTIONS] <FILE>\n\nFor more information, try '--help'.\n" "$1" >&2
        exit 2 ;;
    *) task=$1; shift ;;
  esac
done
c=$task
case "$task" in
  *.yml) c=$(dirname "$task")/$(sed -n "s/^input_files: *'\{0,1\}\([^']*\)'\{0,1\} *$/\1/p" "$task") ;;
esac
if [ ! -f "$c" ]; then echo "standin: $c: no such file" >&2; exit 2; fi
write_stats() { # $1: the verdict line, $2: the phase a limit stopped the run in (or null)
  [ -n "$stats" ] || return 0
  local it='{"alternation":0,"c2bp_seconds":0.5,"bebop_seconds":0.25,"newton_seconds":0.125,"constrain_seconds":0.0625,"outcome":"infeasible"}'
  printf '{"format":"slam-run-stats/2","verdict":"%s","stopped_in":%s,"iterations":[%s,%s,%s],"predicates":4,"constraints":%d,"constrain_calls":1,"ndf":1,"prover_queries":17,"c2bp_seconds":1.5,"c2bp_cpu_seconds":1.5,"bebop_seconds":0.75,"bebop_cpu_seconds":0.75,"newton_seconds":0.375,"newton_cpu_seconds":0.375,"constrain_seconds":0.1875,"constrain_cpu_seconds":0.1875,"peak_rss_mib":42.5}\n' \
    "$1" "$2" "$it" "$it" "$it" "${#mode}" > "$stats"
}
stop() { # stopped by a limit, as slam-run stops
  write_stats "UNKNOWN (timeout)" '"bebop"'
  echo "UNKNOWN (timeout)"
  echo "summary: iterations=3 predicates=4 seconds=0.01 (stand-in) stopped-in=bebop"
  exit 5
}
usecs() { awk -v s="$1" 'BEGIN { printf "%d", s * 1000000 }'; }
if grep -q '^// standin catch-xcpu' "$c"; then trap stop XCPU; fi
s=$(sed -n 's|^// standin sleep: *||p' "$c")
if [ -n "$s" ]; then
  if [ -n "$timeout" ] && [ "$(usecs "$s")" -gt "$(usecs "$timeout")" ]; then
    sleep "$timeout"; stop
  fi
  sleep "$s"
fi
spin=$(sed -n 's|^// standin spin: *||p' "$c")
if [ -n "$spin" ]; then
  # CPU time, not wall-clock time: a loaded machine must not make the spin shorter.
  hz=$(getconf CLK_TCK); ticks=0
  cpu_ticks() { local f; read -ra f < /proc/$$/stat; ticks=$(( f[13] + f[14] )); }
  cpu_ticks; end=$(( ticks + $(usecs "$spin") * hz / 1000000 ))
  while [ "$ticks" -lt "$end" ]; do cpu_ticks; done
fi
if grep -q '^// standin spin$' "$c"; then while :; do :; done; fi
if grep -q '^// standin crash' "$c"; then echo "standin: crashed" >&2; kill -SEGV $$; fi
v=$(sed -n "s|^// standin $mode: *||p" "$c")
if [ -z "$v" ]; then v=$(sed -n 's|^// standin \*: *||p' "$c"); fi
if [ -z "$v" ]; then v="UNKNOWN (the stand-in has no verdict)"; fi
write_stats "$v" null
echo "$v"
echo "summary: iterations=3 predicates=4 seconds=0.01 (stand-in)"
case "$v" in TRUE) exit 0 ;; FALSE*) exit 10 ;; *) exit 5 ;; esac
