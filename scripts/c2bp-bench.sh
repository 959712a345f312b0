#!/usr/bin/env bash
# c2bp on every program of ../shared/corpus/sv-benchmarks (issue 3, acceptance 5): time, prover
# queries and share of `*` updates, with the empty predicate set and with the predicates of the
# branch conditions (goal: each under 2 s with branch-condition predicates), and bebop's verdict
# on the result next to the task's expected verdict. A table on stdout; skipped when the corpus
# is absent.
set -u
cd "$(dirname "$0")/.."
corpus=../shared/corpus/sv-benchmarks
if [ ! -d "$corpus" ]; then
  echo "SKIP: $corpus not found"
  exit 0
fi
c2bp=target/release/c2bp
bebop=target/release/bebop
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf "%-44s %-8s %-6s %8s %9s %7s  %s\n" program expected preds seconds queries "*-share" "bebop"
for f in "$corpus"/*/*.c "$corpus"/*/*.i; do
  [ -f "$f" ] || continue
  b=$(basename "$f")
  exp=""
  yml="${f%.*}.yml"
  if [ -f "$yml" ]; then
    exp=$(grep -A1 "unreach-call.prp" "$yml" | grep expected_verdict | awk '{print $2}')
  fi
  case "$b" in *_true-unreach*) exp=true ;; *_false-unreach*) exp=false ;; esac
  for mode in empty branch; do
    extra=()
    [ "$mode" = branch ] && extra=(--branch-preds)
    s=$(date +%s.%N)
    "$c2bp" "$f" "${extra[@]}" -o "$tmp/out.bp" --stats 2>"$tmp/err.txt"
    rc=$?
    e=$(date +%s.%N)
    if [ $rc -ne 0 ]; then
      printf "%-44s %-8s %-6s c2bp failed (exit %s)\n" "${b:0:44}" "$exp" "$mode" "$rc"
      continue
    fi
    q=$(sed -n 's/.*prover queries \([0-9]*\).*/\1/p' "$tmp/err.txt")
    st=$(sed -n 's/.*updates: .*(\(.*\)%).*/\1/p' "$tmp/err.txt")
    v=$("$bebop" -q "$tmp/out.bp" 2>&1 | head -1)
    case "$v" in *FAILED*) v="error reachable" ;; *SUCCESSFUL*) v="safe" ;; esac
    printf "%-44s %-8s %-6s %8.2f %9s %6s%%  %s\n" "${b:0:44}" "$exp" "$mode" "$(awk -v a="$s" -v b="$e" 'BEGIN{print b-a}')" "$q" "$st" "$v"
  done
done
