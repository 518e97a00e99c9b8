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
KV_JAR="$REPO_DIR/samples/kv-service/target/kv-service.jar"
KV_PID=

stop_kv() { [ -n "$KV_PID" ] && kill "$KV_PID" 2>/dev/null && wait "$KV_PID" 2>/dev/null || true; }
trap 'stop_kv; cleanup' EXIT

need jq:jq
build_jload
[ -f "$KV_JAR" ] || mvn -q -f "$REPO_DIR/samples/kv-service" package -DskipTests

java -Xms256m -Xmx256m -XX:+UseG1GC -Dkv.port=0 -Dkv.threads=1 -jar "$KV_JAR" > "$WORK/kv.out" 2> "$WORK/kv.err" &
KV_PID=$!
for _ in $(seq 100); do grep -q "kv-service ready" "$WORK/kv.out" 2>/dev/null && break; sleep 0.1; done
PORT=$(sed -n 's/.*kv-service ready port=\([0-9]*\).*/\1/p' "$WORK/kv.out")
[ -n "$PORT" ] || { echo "kv-service did not start: $(cat "$WORK/kv.err")" >&2; exit 1; }
BASE="http://127.0.0.1:$PORT"
URL="$BASE/random_get?keyRange=100000"
JLOAD_FLAGS=(-q -t1 -c"$CONNECTIONS" --ok-status 200-299,404)
echo "prefill and JIT warm-up: 300,000 random_set of 100 bytes over 100,000 keys"
"$JLOAD" bench "${JLOAD_FLAGS[@]}" -n 300000 "$BASE/random_set?keyRange=100000&valueSize=100" > /dev/null

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
