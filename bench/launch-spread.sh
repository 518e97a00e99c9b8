#!/usr/bin/env bash
# How much one JVM configuration of kv-service differs between launches: LAUNCHES fresh JVMs per configuration, each
# filled as the quickstart fills it, then six 6-s closed-model windows of the quickstart's mix at 50 connections.
# Prints each launch's throughput per window, and per configuration the spread of the last three windows' mean
# between launches (largest deviation from the median launch). A capacity found on one launch can differ from
# another launch's by no less than this.
# Usage: bench/launch-spread.sh [LAUNCHES (3)] [CONFIG ...] (default: "-Xmx256m -XX:+UseG1GC" "-Xmx64m -XX:+UseParallelGC")
# TARGET_CPUS and LOAD_CPUS (taskset lists, e.g. 1 and 0) pin the JVM and the load apart, as a plan's [target] cpus
# and [load] cpus do.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
LAUNCHES=${1:-3}
shift || true
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=("-Xmx256m -XX:+UseG1GC" "-Xmx64m -XX:+UseParallelGC")
trap cleanup EXIT
need python3:python3
build_jload
cd "$REPO_DIR"
mvn -q -f samples/kv-service package -DskipTests

launch() { # $1: JVM options; prints the throughput of each window
  local port rates=()
  # shellcheck disable=SC2086
  ${TARGET_CPUS:+taskset -c "$TARGET_CPUS"} java -Dkv.port=0 -Dkv.store=heap -Xms32m $1 -jar "$KV_JAR" > "$WORK/kv.out" 2> "$WORK/kv.err" &
  KV_PID=$!
  for _ in $(seq 150); do grep -q "kv-service ready" "$WORK/kv.out" 2> /dev/null && break; sleep 0.1; done
  port=$(sed -n 's/.*kv-service ready port=\([0-9]*\).*/\1/p' "$WORK/kv.out")
  [ -n "$port" ] || { echo "kv-service did not start: $(cat "$WORK/kv.err")" >&2; exit 1; }
  "$JLOAD" bench ${LOAD_CPUS:+--cpus "$LOAD_CPUS"} -c 20 -n 50000 "http://127.0.0.1:$port/random_set?keyRange=50000&valueSize=1000" > /dev/null
  sed "s/{port}/$port/g" plans/mixes/kv-get-set.toml > "$WORK/mix.toml"
  for _ in 1 2 3 4 5 6; do
    "$JLOAD" bench ${LOAD_CPUS:+--cpus "$LOAD_CPUS"} -c 50 -d 6s --mix "$WORK/mix.toml" --ok-status 200-299,404 --json "$WORK/window.json" > /dev/null
    rates+=("$(python3 -c "import json,sys; print(round(json.load(open(sys.argv[1]))['rps']))" "$WORK/window.json")")
  done
  stop_kv
  echo "${rates[*]}"
}

for config in "${configs[@]}"; do
  launches=()
  for n in $(seq "$LAUNCHES"); do
    rates=$(launch "$config")
    echo "$config launch $n: $rates req/s"
    launches+=("$rates")
  done
  python3 - "$config" "${launches[@]}" <<'PY'
import statistics, sys
config, launches = sys.argv[1], [list(map(int, l.split())) for l in sys.argv[2:]]
settled = [statistics.mean(l[-3:]) for l in launches]
median = statistics.median(settled)
spread = max(abs(s - median) for s in settled) / median
print(f"{config}: last three windows' mean per launch {', '.join(f'{s:,.0f}' for s in settled)} req/s; "
      f"largest deviation from the median launch {spread:.1%}")
PY
done
