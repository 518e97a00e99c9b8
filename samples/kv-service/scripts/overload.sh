#!/usr/bin/env bash
# Seed 001's scenario: 1,000 concurrent connections writing 10,000-byte values into the heap store of a small JVM
# (-Xmx128m), for each kv.maxMemory given (default: the 50% default, 80%, 100%). Prints whether the JVM survived,
# throughput, socket errors and GC figures. Loads go to 127.0.0.1 only and last SECONDS (default 15) each.
# Usage: scripts/overload.sh [maxMemory ...]   e.g. scripts/overload.sh 50% 100%
set -euo pipefail
cd "$(dirname "$0")/.."
JAR=target/kv-service.jar
SECONDS_PER_RUN=${SECONDS_PER_RUN:-15}
PORT=${KV_BENCH_PORT:-18089}
[ -f "$JAR" ] || { echo "build first: mvn -q -f samples/kv-service package" >&2; exit 2; }
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 2; }
[ $# -gt 0 ] || set -- 50% 80% 100%

echo "| kv.maxMemory | JVM after the run | random_set req/s | wrk socket errors | entries | evictions | young GCs | full GCs |"
echo "|---|---|---|---|---|---|---|---|"
for share in "$@"; do
  if curl -s -m1 "http://127.0.0.1:$PORT/health" >/dev/null; then
    echo "port $PORT is already serving: stop that process or set KV_BENCH_PORT" >&2; exit 1
  fi
  work=$(mktemp -d)
  java -Xmx128m -Xlog:gc:file="$work/gc.log" -Dkv.port="$PORT" -Dkv.maxMemory="$share" -jar "$JAR" \
      >"$work/out.log" 2>&1 &
  pid=$!
  trap "kill $pid 2>/dev/null || true" EXIT
  for _ in $(seq 1 100); do grep -q "pid=$pid" "$work/out.log" 2>/dev/null && break; sleep 0.1; done
  wrk -t2 -c1000 -d"$SECONDS_PER_RUN"s --timeout 5s \
      "http://127.0.0.1:$PORT/random_set?keyRange=1000000&valueSize=10000" >"$work/wrk.txt" || true
  rate=$(awk '/Requests\/sec/ {printf "%d", $2}' "$work/wrk.txt")
  errors=$(awk '/Socket errors/ {sub(/.*Socket errors: /, ""); print}' "$work/wrk.txt")
  stats=$(curl -s -m5 "http://127.0.0.1:$PORT/stats" || true)
  entries=$(echo "$stats" | awk -F': ' '/"entries"/ && !seen {gsub(",", "", $2); print $2; seen = 1}')
  evictions=$(echo "$stats" | awk -F': ' '/"evictions"/ && !seen {gsub(",", "", $2); print $2; seen = 1}')
  young=$(grep -c 'Pause Young' "$work/gc.log" || true)
  full=$(grep -c 'Pause Full' "$work/gc.log" || true)
  if kill "$pid" 2>/dev/null; then
    wait "$pid" || true
    state="alive, stopped by SIGTERM"
  else
    code=0; wait "$pid" || code=$?
    state="exited with code $code: $(sed -n '/^kv-service ready/!{/./{p;q}}' "$work/out.log")"
  fi
  trap - EXIT
  echo "| $share | $state | ${rate:-0} | ${errors:-none} | ${entries:--} | ${evictions:--} | $young | $full |"
  rm -rf "$work"
done
