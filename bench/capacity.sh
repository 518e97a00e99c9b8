#!/usr/bin/env bash
# The capacity search on kv-service next to a hand-made ladder: kv-service (one event-loop thread, fixed heap) on
# loopback, prefilled; `jload bench --capacity SLO` finds the highest rate meeting the SLO; then wrk2-style fixed rates
# around that capacity (`jload bench -R r`, one fresh run per rate) and wrk's closed model at the same connections,
# printed side by side.
# Usage: bench/capacity.sh [SLO (p99<=10ms)] [CONNECTIONS (50)] [SECONDS per fixed-rate run (10)]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
SLO=${1:-p99<=10ms}
CONNECTIONS=${2:-50}
SECONDS_PER_RUN=${3:-10}
trap cleanup EXIT

need wrk:wrk jq:jq curl:curl bc:bc
build_jload
mvn -q -f "$REPO_DIR/samples/kv-service" package -DskipTests

# A fixed heap and one event-loop thread, on a free port, logging GC (the search's --jvm block shows its pauses).
start_kv "-Xlog:gc:file=$WORK/gc.log"
URL="$BASE/random_get?keyRange=100000"
JLOAD_FLAGS=(-q -t1 -c"$CONNECTIONS" --ok-status 200-299,404)
echo "kv-service: $(head -1 "$WORK/kv.out")"
prefill_kv "${JLOAD_FLAGS[@]}"

echo
echo "== jload bench --capacity '$SLO' -c$CONNECTIONS -t1 --jvm auto $URL"
started=$(date +%s)
set +e
"$JLOAD" bench "${JLOAD_FLAGS[@]}" --capacity "$SLO" --jvm auto --json "$WORK/capacity.json" "$URL" > "$WORK/capacity.out"
search_exit=$?
set -e
search_seconds=$(( $(date +%s) - started ))
sed -n '/^Capacity search/,$p' "$WORK/capacity.out"
echo "(exit $search_exit, $search_seconds s)"
capacity=$(jq -r '.capacity.rps // empty' "$WORK/capacity.json")
if [ -z "$capacity" ]; then
  echo "no capacity claimed: $(jq -r .capacity.verdict "$WORK/capacity.json")"
  exit 1
fi

echo
echo "== hand-made ladder, wrk2 style: jload bench -R r -d${SECONDS_PER_RUN}s, one fresh run per rate"
printf "%-8s %9s %9s %8s %8s %8s %8s %8s %7s  %s\n" share rate achieved p50 p90 p99 p99.9 max errors "meets $SLO"
for share in 0.25 0.5 0.75 0.9 1.0 1.1 1.25 1.5; do
  rate=$(printf "%.0f" "$(echo "$capacity * $share" | bc -l)")
  "$JLOAD" bench "${JLOAD_FLAGS[@]}" -R "$rate" -d "${SECONDS_PER_RUN}s" --threshold "$SLO" --json "$WORK/r.json" "$URL" \
    > /dev/null || true
  jq -r --arg share "$share" '[$share, .rate, .rps, .latency_ms.p50, .latency_ms.p90, .latency_ms.p99,
      .latency_ms.p999, .latency_ms.max, .errors.total, (.thresholds[0].passed)] | @tsv' \
    "$WORK/r.json" |
    awk -F'\t' '{ printf "%-8s %9.0f %9.1f %8.3f %8.3f %8.3f %8.3f %8.1f %7d  %s\n", $1 "x", $2, $3, $4, $5, $6, $7, $8, $9, $10 }'
done

echo
echo "== wrk closed model (reference): wrk -t1 -c$CONNECTIONS -d${SECONDS_PER_RUN}s --latency"
wrk -t1 -c"$CONNECTIONS" -d"${SECONDS_PER_RUN}s" --latency "$URL" > "$WORK/wrk.out"
rps=$(awk '/Requests\/sec/ { print $2 }' "$WORK/wrk.out")
percentiles=$(awk '/Latency Distribution/ { on = 1; next } on && NF == 2 { sub("%", "", $1); printf "p%s %s  ", $1, $2 }
  on && NF != 2 { on = 0 }' "$WORK/wrk.out")
echo "wrk: $rps req/s, latency $percentiles(from each actual send: not comparable with the fixed-rate p99s above)"
