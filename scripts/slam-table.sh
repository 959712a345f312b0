#!/usr/bin/env bash
# slam-run on the SV-COMP corpus (issue 4, acceptance 2 and 6): one row per task — expected
# verdict, slam-run's verdict, whether it is correct, iterations, final predicates, wall and CPU
# seconds — with a per-task limit (SLAM_TIMEOUT seconds, default 10), then a count per
# directory. SLAM_ARGS adds options to every run (e.g. SLAM_ARGS='--constrain off'); SLAM_BIN
# names another slam-run binary (an A/B against an older build). Skipped when ../shared/corpus
# is absent.
set -u
cd "$(dirname "$0")/.."
corpus=../shared/corpus/sv-benchmarks
if [ ! -d "$corpus" ]; then
  echo "SKIP: $corpus not found"
  exit 0
fi
bin=${SLAM_BIN:-target/release/slam-run}
limit=${SLAM_TIMEOUT:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TIMEFORMAT='%U %S'
printf "%-44s %-6s %-22s %-7s %5s %6s %8s %8s\n" task expect verdict result iters preds wall-s cpu-s
declare -A ok total wrong
for dir in locks ntdrivers-simplified loop-acceleration svcomp16-loop-acceleration; do
  for f in "$corpus/$dir"/*.yml "$corpus/$dir"/*.i; do
    [ -f "$f" ] || continue
    case "$f" in *.i) [ -f "${f%.i}.yml" ] && continue ;; esac
    b=$(basename "$f")
    exp=""
    case "$f" in
      *.yml) exp=$(grep -A1 "unreach-call.prp" "$f" | grep expected_verdict | awk '{print $2}') ;;
    esac
    case "$b" in *_true-unreach*) exp=true ;; *_false-unreach*) exp=false ;; esac
    { time "$bin" ${SLAM_ARGS:-} --timeout "$limit" --stats-json "$tmp/s.json" "$f" > "$tmp/out" 2>/dev/null ; } 2> "$tmp/time"
    verdict=$(head -1 "$tmp/out")
    cpu=$(awk '{printf "%.2f", $1 + $2}' "$tmp/time")
    sum=$(grep '^summary:' "$tmp/out")
    iters=$(echo "$sum" | sed -n 's/.*iterations=\([0-9]*\).*/\1/p')
    preds=$(echo "$sum" | sed -n 's/.*predicates=\([0-9]*\).*/\1/p')
    wall=$(echo "$sum" | sed -n 's/.*seconds=\([0-9.]*\).*/\1/p')
    result=unknown
    case "$verdict" in
      TRUE) [ "$exp" = true ] && result=correct || result=WRONG ;;
      FALSE*) [ "$exp" = false ] && result=correct || result=WRONG ;;
    esac
    total[$dir]=$(( ${total[$dir]:-0} + 1 ))
    [ "$result" = correct ] && ok[$dir]=$(( ${ok[$dir]:-0} + 1 ))
    [ "$result" = WRONG ] && wrong[$dir]=$(( ${wrong[$dir]:-0} + 1 ))
    printf "%-44s %-6s %-22s %-7s %5s %6s %8s %8s\n" "$dir/$b" "$exp" "$verdict" "$result" "${iters:--}" "${preds:--}" "${wall:--}" "$cpu"
  done
done
echo
echo "options: ${SLAM_ARGS:-(defaults)}"
for dir in locks ntdrivers-simplified loop-acceleration svcomp16-loop-acceleration; do
  printf "%-28s %3s/%-3s correct, %s wrong (limit %s s per task)\n" "$dir" "${ok[$dir]:-0}" "${total[$dir]:-0}" "${wrong[$dir]:-0}" "$limit"
done
