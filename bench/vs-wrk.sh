#!/usr/bin/env bash
# jload bench against wrk (and oha when installed) on a single-worker nginx on loopback: alternate runs
# (wrk, jload, oha, wrk, jload, oha, …), then the median req/s and generator CPU µs per request of each, and the
# median of the per-round ratios (the machine drifts between rounds; tools in one round ran back to back).
# Usage: bench/vs-wrk.sh [PAIRS (3)] [SECONDS (10)]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
trap cleanup EXIT
PAIRS=${1:-3}
SECONDS_PER_RUN=${2:-10}
PORT=18181
URL="http://127.0.0.1:$PORT/"

need nginx:nginx-light wrk:wrk bc:bc curl:curl
build_jload
start_nginx "$PORT"
tools=(wrk jload)
command -v oha >/dev/null && tools+=(oha)

run_tool() {  # prints "req/s cpu_us_per_request"
  local tool=$1 requests rps
  case $tool in
    wrk)
      timed wrk -t1 -c50 -d"${SECONDS_PER_RUN}s" "$URL" > "$WORK/out"
      requests=$(awk '/requests in/ { print $1 }' "$WORK/out")
      rps=$(awk '/Requests\/sec/ { print $2 }' "$WORK/out") ;;
    jload)
      timed "$JLOAD" bench -q -t1 -c50 -d"${SECONDS_PER_RUN}s" --json "$WORK/j.json" "$URL" > /dev/null
      requests=$(jq .requests "$WORK/j.json")
      rps=$(jq .rps "$WORK/j.json") ;;
    oha)
      timed oha --no-tui --output-format json -c 50 -z "${SECONDS_PER_RUN}s" "$URL" > "$WORK/o.json"
      rps=$(jq .summary.requestsPerSec "$WORK/o.json")
      requests=$(jq '[.statusCodeDistribution[]] | add' "$WORK/o.json") ;;
  esac
  echo "$rps $(echo "$TIME_CPU_S * 1000000 / $requests" | bc -l)"
}

echo "jload vs ${tools[*]}: nginx (1 worker) on $URL, -c50 -t1, ${SECONDS_PER_RUN}s runs, $PAIRS rounds, alternating"
for round in $(seq "$PAIRS"); do
  for tool in "${tools[@]}"; do
    read -r rps cpu <<<"$(run_tool "$tool")"
    printf "  round %d  %-6s %10.0f req/s  %6.2f µs CPU/request\n" "$round" "$tool" "$rps" "$cpu"
    echo "$rps" >> "$WORK/$tool.rps"
    echo "$cpu" >> "$WORK/$tool.cpu"
  done
done

echo
printf "%-8s %12s %18s\n" tool "median req/s" "median µs CPU/req"
for tool in "${tools[@]}"; do
  printf "%-8s %12.0f %18.2f\n" "$tool" "$(median < "$WORK/$tool.rps")" "$(median < "$WORK/$tool.cpu")"
done
# The machine drifts: compare within each round (the tools ran back to back), then take the median of those ratios.
echo
for tool in "${tools[@]}"; do
  [ "$tool" = jload ] && continue
  rps_ratio=$(paste "$WORK/jload.rps" "$WORK/$tool.rps" | awk '{ print $1 / $2 }' | median)
  cpu_ratio=$(paste "$WORK/jload.cpu" "$WORK/$tool.cpu" | awk '{ print $1 / $2 }' | median)
  printf "jload / %-4s  req/s ratio %.3f   CPU-per-request ratio %.3f   (medians of the per-round ratios)\n" \
    "$tool" "$rps_ratio" "$cpu_ratio"
done
