#!/usr/bin/env bash
# Measures random_set / random_get / random_mget throughput of kv-service for each store with wrk at 50 keep-alive
# connections on 127.0.0.1, and prints a Markdown table. Every load is bounded by wrk's -d; the service is stopped
# with SIGTERM afterwards. Usage: scripts/throughput.sh [seconds-per-run] (default 10). Needs wrk and the built jar.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_RUN=${1:-10}
PORT=${KV_BENCH_PORT:-18088}
JAR=target/kv-service.jar
BASE="http://127.0.0.1:$PORT"
KEYS=${KV_BENCH_KEYS:-100000}
VALUE=${KV_BENCH_VALUE:-100}
[ -f "$JAR" ] || { echo "build first: mvn -q -f samples/kv-service package" >&2; exit 2; }
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 2; }

rate() { # url seconds -> requests/sec (integer)
  wrk -t1 -c50 -d"$2"s "$1" | awk '/Requests\/sec/ {printf "%d", $2}'
}

run_store() { # name, then JVM options
  local name=$1; shift
  local data; data=$(mktemp -d)
  java -Xms1g -Xmx1g -XX:MaxDirectMemorySize=1g -Dkv.port="$PORT" -Dkv.dir="$data" "$@" -jar "$JAR" \
      >"$data/out.log" 2>&1 &
  local pid=$!
  trap "kill $pid 2>/dev/null || true" EXIT
  for _ in $(seq 1 100); do curl -sf -m1 "$BASE/health" >/dev/null && break; sleep 0.1; done
  # Fill: every key once on average, then warm the JIT briefly on gets.
  wrk -t1 -c50 -d"$SECONDS_PER_RUN"s "$BASE/random_set?keyRange=$KEYS&valueSize=$VALUE" >/dev/null
  wrk -t1 -c50 -d3s "$BASE/random_get?keyRange=$KEYS" >/dev/null
  local set get mget entries
  get=$(rate "$BASE/random_get?keyRange=$KEYS" "$SECONDS_PER_RUN")
  set=$(rate "$BASE/random_set?keyRange=$KEYS&valueSize=$VALUE" "$SECONDS_PER_RUN")
  mget=$(rate "$BASE/random_mget?keyRange=$KEYS&keyNum=20" "$SECONDS_PER_RUN")
  entries=$(curl -s "$BASE/stats" | awk -F': ' '/"entries"/ && !seen {gsub(",", "", $2); print $2; seen = 1}')
  if ! kill "$pid"; then
    echo "kv-service ($name) died during the run:" >&2
    cat "$data/out.log" >&2
    exit 1
  fi
  wait "$pid" || true
  trap - EXIT
  rm -rf "$data"
  echo "| $name | $get | $set | $mget | $entries |"
}

echo "| store | random_get req/s | random_set req/s | random_mget (keyNum=20) req/s | entries after |"
echo "|---|---|---|---|---|"
run_store heap -Dkv.store=heap
run_store offheap -Dkv.store=offheap -Dkv.offheap.capacity=256m
run_store bdb -Dkv.store=bdb -Dkv.shards=4
