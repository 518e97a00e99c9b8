#!/usr/bin/env bash
# What the steady-state rule costs a capacity search on a target already steady (issue 21): kv-service (one
# event-loop thread, fixed heap) on loopback, prefilled and warmed by 300,000 random_set as bench/capacity.sh does;
# then the same `jload bench --capacity SLO` alternately without the rule (`--steady-max 0s`: the 2 s probe, no
# warm-up, no check — the search as it was before) and with it (the defaults), ROUNDS times each; per search its wall
# time, steps, capacity and whether the target was flagged as changed.
# Usage: bench/steady-cost.sh [SLO (p99<=100ms)] [ROUNDS (2)] [CONNECTIONS (50)]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
SLO=${1:-p99<=100ms}
ROUNDS=${2:-2}
CONNECTIONS=${3:-50}
trap cleanup EXIT

need jq:jq
build_jload
[ -f "$KV_JAR" ] || mvn -q -f "$REPO_DIR/samples/kv-service" package -DskipTests

start_kv
URL="$BASE/random_get?keyRange=100000"
JLOAD_FLAGS=(-q -t1 -c"$CONNECTIONS" --ok-status 200-299,404)
prefill_kv "${JLOAD_FLAGS[@]}"

printf "%-6s %-15s %8s %6s %10s %8s  %-7s %s\n" round rule seconds steps capacity warm-up changed "warm-up windows (req/s)"
for round in $(seq "$ROUNDS"); do
  for rule in off on; do
    flags=()
    [ "$rule" = off ] && flags=(--steady-max 0s)
    started=$(date +%s.%N)
    "$JLOAD" bench "${JLOAD_FLAGS[@]}" --capacity "$SLO" "${flags[@]}" --json "$WORK/r.json" "$URL" > /dev/null || true
    seconds=$(echo "$(date +%s.%N) - $started" | bc -l)
    jq -r --arg round "$round" --arg rule "$rule" --arg seconds "$(printf %.1f "$seconds")" \
      '[$round, $rule, $seconds, (.steps | length), (.capacity.rps // "none"),
        ((.steadiness.warmups[0].windows_rps // []) | length | tostring) + " s",
        ((.steadiness.changes // []) | length > 0),
        ((.steadiness.warmups[0].windows_rps // []) | map(floor | tostring) | join(" "))] | @tsv' "$WORK/r.json" |
      awk -F'\t' '{ printf "%-6s %-15s %8s %6s %10s %8s  %-7s %s\n", $1, ($2 == "off" ? "--steady-max 0s" : "default"), $3, $4, $5, $6, $7, $8 }'
  done
done
