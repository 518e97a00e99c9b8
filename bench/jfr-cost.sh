#!/usr/bin/env bash
# What a flight recording costs kv-service (docs/profiling.md; the default of `[target] profile` follows from it):
# one JVM (a 256 MB G1 heap, one event-loop thread), prefilled and warmed up (a first recording made and dropped, as
# jload does once a target is ready), then ROUNDS rounds, each a
# window without a recording and one with JDK Flight Recorder recording (`JFR.start settings=profile`, as jload
# starts it, a second before the window; written and stopped after it), in alternating order so that a drift of the
# machine shifts both alike. Two loads: closed model at 50 connections (the throughput cost, and the p99 at
# saturation), then open model at half the closed model's median throughput (the p99 cost at a load the service
# holds). Prints each round's figures, then the medians with JFR as ratios of the medians without, and the median of
# each round's own ratio (with / without, the pair measured back to back).
# Usage: bench/jfr-cost.sh [ROUNDS (5)] [WINDOW (8s)]. TARGET_CPUS and LOAD_CPUS (taskset lists) pin the JVM and the
# load apart.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ROUNDS=${1:-5}
WINDOW=${2:-8s}
trap cleanup EXIT
need python3:python3
build_jload
cd "$REPO_DIR"
mvn -q -f samples/kv-service package -DskipTests
JCMD="$(dirname "$(readlink -f "$(command -v java)")")/jcmd"

TASKSET=${TARGET_CPUS:+taskset -c $TARGET_CPUS}
start_kv_pinned() {
  $TASKSET java -Xms256m -Xmx256m -XX:+UseG1GC -Dkv.port=0 -Dkv.threads=1 -jar "$KV_JAR" > "$WORK/kv.out" 2> "$WORK/kv.err" &
  KV_PID=$!
  for _ in $(seq 100); do grep -q "kv-service ready" "$WORK/kv.out" 2>/dev/null && break; sleep 0.1; done
  PORT=$(sed -n 's/.*kv-service ready port=\([0-9]*\).*/\1/p' "$WORK/kv.out")
  [ -n "$PORT" ] || { echo "kv-service did not start: $(cat "$WORK/kv.err")" >&2; exit 1; }
  BASE="http://127.0.0.1:$PORT"
}
start_kv_pinned
LOAD=("$JLOAD" bench ${LOAD_CPUS:+--cpus "$LOAD_CPUS"})
prefill_kv ${LOAD_CPUS:+--cpus "$LOAD_CPUS"}
"${LOAD[@]}" -c 50 -d 20s "$BASE/random_get?keyRange=100000" > /dev/null
# JFR's own start-up (its classes loaded and compiled, its event classes instrumented) outside every window, as jload
# does once a target is ready.
"$JCMD" "$KV_PID" JFR.start name=warm-up settings=profile > /dev/null
"$JCMD" "$KV_PID" JFR.stop name=warm-up > /dev/null
"${LOAD[@]}" -c 50 -d 5s "$BASE/random_get?keyRange=100000" > /dev/null

# One window of the load in "$@" (without the URL); prints "req/s p99_ms".
window() {
  "${LOAD[@]}" "$@" -d "$WINDOW" --json "$WORK/window.json" "$BASE/random_get?keyRange=100000" > /dev/null
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['rps'], r['latency_ms']['p99'])" "$WORK/window.json"
}

# A window with a recording made as jload makes one.
recorded_window() {
  "$JCMD" "$KV_PID" JFR.start name=cost settings=profile disk=true maxsize=536870912 > /dev/null
  sleep 1
  window "$@"
  "$JCMD" "$KV_PID" JFR.stop name=cost filename="$WORK/cost.jfr" > /dev/null
  sleep 1
}

# ROUNDS alternating pairs of the load in "$@"; prints "without_rps without_p99 with_rps with_p99" per round.
rounds() {
  for round in $(seq "$ROUNDS"); do
    if [ $((round % 2)) -eq 1 ]; then
      plain=$(window "$@"); recorded=$(recorded_window "$@")
    else
      recorded=$(recorded_window "$@"); plain=$(window "$@")
    fi
    echo "$plain $recorded"
  done
}

report() { # $1: the load's name; stdin: rounds
  python3 -c '
import statistics, sys
name, rows = sys.argv[1], [list(map(float, line.split())) for line in sys.stdin if line.strip()]
for n, (rps, p99, jrps, jp99) in enumerate(rows, 1):
    print(f"  {name} round {n}: without {rps:,.0f} req/s p99 {p99:.2f} ms; with JFR {jrps:,.0f} req/s p99 {jp99:.2f} ms")
med = [statistics.median(column) for column in zip(*rows)]
paired = [statistics.median(row[2] / row[0] for row in rows), statistics.median(row[3] / row[1] for row in rows)]
print(f"{name}: median without {med[0]:,.0f} req/s p99 {med[1]:.2f} ms; with JFR {med[2]:,.0f} req/s p99 {med[3]:.2f} ms; "
      f"ratio req/s {med[2] / med[0]:.3f}, p99 {med[3] / med[1]:.3f}; "
      f"median of the rounds' own ratios: req/s {paired[0]:.3f}, p99 {paired[1]:.3f}")
' "$1"
}

closed=$(rounds -c 50)
report "closed model, 50 connections" <<< "$closed"
half=$(python3 -c "import statistics,sys; print(round(statistics.median(float(l.split()[0]) for l in sys.stdin) / 2))" <<< "$closed")
report "open model at $half req/s" <<< "$(rounds -c 50 -R "$half")"
echo "recording of the last window: $(du -h "$WORK/cost.jfr" | cut -f1)"
