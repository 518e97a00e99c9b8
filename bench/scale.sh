#!/usr/bin/env bash
# Scale checks for jload bench against a single-worker nginx on loopback, side by side with wrk where it applies:
#   1. 10 million requests: jload's peak RSS (goal: under 50 MB, and flat: the same as for 1 million; only the slow
#      requests are kept one by one, in a store of fixed size) next to wrk's.
#   2. 10,000 connections: no errors (the open-files limit is raised automatically).
# Usage: bench/scale.sh [REQUESTS (10000000)] [CONNECTIONS (10000)]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
trap cleanup EXIT
REQUESTS=${1:-10000000}
CONNECTIONS=${2:-10000}
PORT=18182
URL="http://127.0.0.1:$PORT/"

need nginx:nginx-light wrk:wrk bc:bc curl:curl
build_jload
start_nginx "$PORT"
ulimit -n 65536 2>/dev/null || true

echo "1. $REQUESTS requests, -c50 -t1"
timed "$JLOAD" bench -q -t1 -c50 -n "$((REQUESTS / 10))" --json "$WORK/n10.json" "$URL" > /dev/null
tenth_rss=$TIME_RSS_KB
timed "$JLOAD" bench -q -t1 -c50 -n "$REQUESTS" --json "$WORK/n.json" "$URL" > /dev/null
jload_rss=$TIME_RSS_KB
printf "  jload: %s requests in %.1f s, %d errors, peak RSS %.1f MB\n" "$(jq .requests "$WORK/n.json")" \
  "$(jq .duration_s "$WORK/n.json")" "$(jq .errors.total "$WORK/n.json")" "$(echo "$jload_rss / 1024" | bc -l)"
seconds=$(jq '.duration_s | ceil' "$WORK/n.json")
timed wrk -t1 -c50 -d"${seconds}s" "$URL" > "$WORK/w.out"
printf "  wrk:   %s requests in %s s, peak RSS %.1f MB\n" "$(awk '/requests in/ { print $1 }' "$WORK/w.out")" "$seconds" \
  "$(echo "$TIME_RSS_KB / 1024" | bc -l)"
printf "  jload RSS / wrk RSS: %.2f   (goal: jload under 50 MB)\n" "$(echo "$jload_rss / $TIME_RSS_KB" | bc -l)"
printf "  jload RSS at %s requests / at %s: %.2f   (goal: 1.0, flat; %.1f MB / %.1f MB, %s slow requests kept)\n" \
  "$REQUESTS" "$((REQUESTS / 10))" "$(echo "$jload_rss / $tenth_rss" | bc -l)" "$(echo "$jload_rss / 1024" | bc -l)" \
  "$(echo "$tenth_rss / 1024" | bc -l)" "$(jq .slow_requests.kept "$WORK/n.json")"

echo "2. $CONNECTIONS connections for 10 s, -t2"
timed "$JLOAD" bench -q -t2 -c "$CONNECTIONS" -d10s --json "$WORK/c.json" "$URL" > /dev/null
printf "  jload: %s requests, %.0f req/s, errors %s, p99 %.2f ms, peak RSS %.1f MB\n" "$(jq .requests "$WORK/c.json")" \
  "$(jq .rps "$WORK/c.json")" "$(jq -c .errors "$WORK/c.json")" "$(jq .latency_ms.p99 "$WORK/c.json")" \
  "$(echo "$TIME_RSS_KB / 1024" | bc -l)"
timed wrk -t2 -c "$CONNECTIONS" -d10s "$URL" > "$WORK/wc.out"
printf "  wrk:   %s requests, %s req/s, socket errors: %s\n" "$(awk '/requests in/ { print $1 }' "$WORK/wc.out")" \
  "$(awk '/Requests\/sec/ { print $2 }' "$WORK/wc.out")" "$(grep -o 'Socket errors.*' "$WORK/wc.out" || echo none)"
