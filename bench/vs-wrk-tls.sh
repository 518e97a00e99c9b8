#!/usr/bin/env bash
# jload over TLS and HTTP/2 against wrk, h2load (and oha when installed) on a single-worker nginx on loopback, in the
# manner of vs-wrk.sh: alternate runs in each round, then per tool the median req/s and generator CPU µs per request,
# and the medians of the per-round ratios (the machine drifts between rounds; tools in one round ran back to back).
#   https  HTTPS keep-alive, -c50 -t1: jload vs wrk (and oha).
#   h2     HTTP/2 over TLS (ALPN h2), C connections × M streams, one thread: jload --http2 vs h2load (and oha).
#   h2c    HTTP/2 in cleartext (prior knowledge), the same load: jload --http2 vs h2load (and oha).
#   close  a new TLS connection per request ("Connection: close"), -c50 -t1: jload vs wrk (and oha); responses per
#          second are handshakes per second; jload's connection count, reconnects and handshake time are shown.
# A tool that fails in a round (e.g. jload before it speaks HTTP/2) is shown as failed; the rest go on. Each run
# also shows the CPU nginx's worker used (% of one core): near 100 % the server, not the generator, set the pace.
# All tools get TLS 1.3 with TLS_AES_128_GCM_SHA256 and X25519 (nginx offers one suite) and none checks the
# certificate (jload -k, oha --insecure; wrk and h2load never check). oha runs on every core (its own runtime).
# nginx refuses TLS session resumption, so every new connection is a full handshake for every tool (TLS_RESUME=on
# lets clients resume; TLS_LOG=FILE logs what each request's connection negotiated, see start_nginx_tls in lib.sh).
# Usage: bench/vs-wrk-tls.sh [ROUNDS (3)] [SECONDS (10)]
#   SECTIONS="https h2 h2c close" (the default: all), H2_CONNECTIONS=10, H2_STREAMS=10 in the environment.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
trap cleanup EXIT
ROUNDS=${1:-3}
SECONDS_PER_RUN=${2:-10}
SECTIONS=${SECTIONS:-https h2 h2c close}
H2_CONNECTIONS=${H2_CONNECTIONS:-10}
H2_STREAMS=${H2_STREAMS:-10}
TLS_PORT=18190
H2C_PORT=18191
TLS_URL="https://127.0.0.1:$TLS_PORT/"
H2C_URL="http://127.0.0.1:$H2C_PORT/"
LIMIT=$((SECONDS_PER_RUN + 30))  # every run is killed after this many seconds

need nginx:nginx-light wrk:wrk h2load:nghttp2-client bc:bc curl:curl jq:jq openssl:openssl
build_jload
start_nginx_tls "$TLS_PORT" "$H2C_PORT"
has_oha=false
command -v oha >/dev/null && has_oha=true

section_url() { case $1 in h2c) echo "$H2C_URL" ;; *) echo "$TLS_URL" ;; esac; }
section_tools() {
  local tools
  case $1 in https | close) tools=(wrk jload) ;; h2 | h2c) tools=(h2load jload) ;; esac
  $has_oha && tools+=(oha)
  echo "${tools[*]}"
}
section_title() {
  case $1 in
    https) echo "HTTPS keep-alive on $TLS_URL, -c50 -t1" ;;
    h2) echo "HTTP/2 over TLS (ALPN h2) on $TLS_URL, $H2_CONNECTIONS connections × $H2_STREAMS streams, one thread" ;;
    h2c) echo "HTTP/2 cleartext (prior knowledge) on $H2C_URL, $H2_CONNECTIONS connections × $H2_STREAMS streams," \
      "one thread" ;;
    close) echo "a new TLS connection per request (Connection: close) on $TLS_URL, -c50 -t1" ;;
  esac
}

timeout_note() { case $TIME_STATUS in 124 | 137) echo ", killed after ${LIMIT}s" ;; esac; }

# Runs one tool for one section; prints "req/s µs-CPU-per-request nginx-CPU-% note…", or "FAILED reason".
run_tool() {
  local tool=$1 section=$2 url requests rps errors note="" server_cpu_s started
  url=$(section_url "$section")
  server_cpu_s=$(nginx_cpu_s)
  started=$(date +%s.%N)
  _run_tool "$@" || return 0
  echo "$rps $(echo "$TIME_CPU_S * 1000000 / $requests" | bc -l)" \
    "$(echo "($(nginx_cpu_s) - $server_cpu_s) * 100 / ($(date +%s.%N) - $started)" | bc -l)" "$note"
}

# run_tool's body: runs the tool, sets requests, rps and note, or prints "FAILED reason" and returns 1.
_run_tool() {
  local -a args=()
  case $tool in
    wrk)
      if [ "$section" = close ]; then args=(-H "Connection: close"); fi
      timed timeout -k 5 "$LIMIT" wrk -t1 -c50 -d"${SECONDS_PER_RUN}s" "${args[@]}" "$url" > "$WORK/out" 2>&1
      if [ "$TIME_STATUS" != 0 ]; then
        echo "FAILED (exit $TIME_STATUS$(timeout_note)) $(tail -n 1 "$WORK/out")"; return 1
      fi
      requests=$(awk '/requests in/ { print $1 }' "$WORK/out")
      rps=$(awk '/Requests\/sec/ { print $2 }' "$WORK/out")
      note=$(grep -E 'Socket errors|Non-2xx' "$WORK/out" | tr -s ' \n' ' ' || true) ;;
    h2load)
      timed timeout -k 5 "$LIMIT" h2load -c "$H2_CONNECTIONS" -m "$H2_STREAMS" -t 1 -D "$SECONDS_PER_RUN" "$url" \
        > "$WORK/out" 2>&1
      if [ "$TIME_STATUS" != 0 ]; then
        echo "FAILED (exit $TIME_STATUS$(timeout_note)) $(tail -n 1 "$WORK/out")"; return 1
      fi
      # "finished in 10.00s, 123456.70 req/s, 4.71MB/s" and "requests: T total, S started, D done, OK succeeded, …"
      rps=$(awk '/^finished in/ { print $4 }' "$WORK/out")
      requests=$(awk '/^requests:/ { print $8 }' "$WORK/out")
      errors=$(awk '/^requests:/ { print $10 + $12 + $14 }' "$WORK/out")
      if [ "${errors:-0}" -gt 0 ]; then note="$errors failed/errored/timed out"; fi ;;
    jload)
      case $section in
        https) args=(-c50 -k) ;;
        close) args=(-c50 -k -H "Connection: close") ;;
        h2) args=(--http2 -c "$H2_CONNECTIONS" --streams "$H2_STREAMS" -k) ;;
        h2c) args=(--http2 -c "$H2_CONNECTIONS" --streams "$H2_STREAMS") ;;
      esac
      rm -f "$WORK/j.json"
      timed timeout -k 5 "$LIMIT" "$JLOAD" bench -q -t1 -d"${SECONDS_PER_RUN}s" "${args[@]}" --json "$WORK/j.json" \
        "$url" > "$WORK/out" 2>&1
      if [ "$TIME_STATUS" != 0 ]; then
        echo "FAILED (exit $TIME_STATUS$(timeout_note))" \
          "$(grep -E '^ *Errors|^jload:' "$WORK/out" | tail -n 1 | tr -s ' ')"; return 1
      fi
      requests=$(jq '.requests - .errors.total' "$WORK/j.json")  # responses that succeeded
      rps=$(jq .rps "$WORK/j.json")
      errors=$(jq .errors.total "$WORK/j.json")
      if [ "$errors" -gt 0 ]; then note="$errors errors: $(jq -c '.errors | del(.total)' "$WORK/j.json"); "; fi
      if [ "$section" = close ]; then
        jq -r '[.connection_setup.connections, .reconnects, .connection_setup.time_ms.p50,
          .connection_setup.time_ms.p99] | @tsv' "$WORK/j.json" > "$WORK/setup"
        cat "$WORK/setup" >> "$WORK/close.jload.setup"
        note+=$(awk -F'\t' '{ printf "connections %d, reconnects %d, connect+handshake p50 %.2f ms p99 %.2f ms",
          $1, $2, $3, $4 }' "$WORK/setup")
      fi ;;
    oha)
      case $section in
        https) args=(-c 50 --insecure) ;;
        close) args=(-c 50 --insecure --disable-keepalive) ;;
        h2) args=(-c "$H2_CONNECTIONS" -p "$H2_STREAMS" --http2 --insecure) ;;
        h2c) args=(-c "$H2_CONNECTIONS" -p "$H2_STREAMS" --http2) ;;
      esac
      timed timeout -k 5 "$LIMIT" oha --no-tui --output-format json -z "${SECONDS_PER_RUN}s" "${args[@]}" "$url" \
        > "$WORK/o.json" 2> "$WORK/out"
      if [ "$TIME_STATUS" != 0 ]; then
        echo "FAILED (exit $TIME_STATUS$(timeout_note)) $(tail -n 1 "$WORK/out")"; return 1
      fi
      rps=$(jq .summary.requestsPerSec "$WORK/o.json")
      requests=$(jq '[.statusCodeDistribution[]] | add // 0' "$WORK/o.json")
      # Requests in flight at the deadline are "aborted due to deadline": not errors (the others stop them too).
      errors=$(jq '.errorDistribution | del(."aborted due to deadline") | [.[]] | add // 0' "$WORK/o.json")
      if [ "$errors" -gt 0 ]; then note="$errors errors: $(jq -c .errorDistribution "$WORK/o.json")"; fi ;;
  esac
  if [ -z "$requests" ] || [ "$requests" = 0 ] || [ "$requests" = null ]; then
    echo "FAILED no response counted ($(tail -n 1 "$WORK/out"))"; return 1
  fi
}

rustls=$(awk '/^name = "rustls"$/ { getline; print $3 }' "$REPO_DIR/Cargo.lock" | tr -d '"')
echo "jload $("$JLOAD" --version | awk '{ print $2 }') ($(git -C "$REPO_DIR" rev-parse --short HEAD)), rustls $rustls"
oha_version=$($has_oha && oha --version | awk '{ print $2 }' || echo 'not installed')
echo "$(wrk -v 2>&1 | awk 'NR == 1 { print $1, $2 }'), $(h2load --version), oha $oha_version," \
  "$(openssl version | awk '{ print $1, $2 }') (wrk, h2load, nginx)"
echo "$(nginx -v 2>&1 | sed 's/^nginx version: //'), 1 worker, ECDSA P-256 certificate," \
  "TLS resumption ${TLS_RESUME:-off}"
"$JLOAD" bench -q -t1 -c1 -n 20 -k --json "$WORK/probe.json" "$TLS_URL" > /dev/null
echo "negotiated by jload: $(jq -r '.connection_setup.tls | "\(.version) \(.cipher) ALPN \(.alpn // "none")"' \
  "$WORK/probe.json")"
h2load -n 20 -c 1 "$TLS_URL" 2>&1 | awk '/^TLS Protocol|^Cipher|^Server Temp Key|^Application protocol/ {
  printf "%s", (n++ ? ", " : "negotiated by h2load: ") $0 } END { print "" }'
echo "$ROUNDS rounds of ${SECONDS_PER_RUN}s runs, tools alternating in each round"

for section in $SECTIONS; do
  read -ra tools <<<"$(section_tools "$section")"
  echo
  echo "== $section: $(section_title "$section"): ${tools[*]}"
  for round in $(seq "$ROUNDS"); do
    for tool in "${tools[@]}"; do
      read -r rps cpu server note <<<"$(run_tool "$tool" "$section")"
      if [ "$rps" = FAILED ]; then
        printf "  round %d  %-6s FAILED: %s %s %s\n" "$round" "$tool" "$cpu" "$server" "$note"
        continue
      fi
      printf "  round %d  %-6s %10.0f req/s  %6.2f µs CPU/request  nginx %3.0f %% CPU  %s\n" "$round" "$tool" "$rps" \
        "$cpu" "$server" "$note"
      echo "$round $rps $cpu $server" >> "$WORK/$section.$tool"
    done
  done

  echo
  printf "  %-8s %12s %18s %18s\n" tool "median req/s" "median µs CPU/req" "median nginx CPU"
  for tool in "${tools[@]}"; do
    if [ ! -s "$WORK/$section.$tool" ]; then
      printf "  %-8s failed in every round\n" "$tool"
      continue
    fi
    printf "  %-8s %12.0f %18.2f %16.0f %%\n" "$tool" "$(cut -d' ' -f2 "$WORK/$section.$tool" | median)" \
      "$(cut -d' ' -f3 "$WORK/$section.$tool" | median)" "$(cut -d' ' -f4 "$WORK/$section.$tool" | median)"
  done
  if [ "$section" = close ] && [ -s "$WORK/close.jload.setup" ]; then
    printf "  jload (medians): connections set up %.0f, reconnects %.0f, connect+handshake p50 %.2f ms, p99 %.2f ms\n" \
      "$(cut -f1 "$WORK/close.jload.setup" | median)" "$(cut -f2 "$WORK/close.jload.setup" | median)" \
      "$(cut -f3 "$WORK/close.jload.setup" | median)" "$(cut -f4 "$WORK/close.jload.setup" | median)"
  fi
  # Compare within each round (the tools ran back to back), then take the median of those ratios; rounds where
  # either tool failed are left out.
  for tool in "${tools[@]}"; do
    [ "$tool" = jload ] && continue
    touch "$WORK/$section.jload" "$WORK/$section.$tool"
    # Per round where both ran: jload's req/s and µs CPU/request over the other tool's.
    awk 'NR == FNR { rps[$1] = $2; cpu[$1] = $3; next } ($1 in rps) { print rps[$1] / $2, cpu[$1] / $3 }' \
      "$WORK/$section.jload" "$WORK/$section.$tool" > "$WORK/pairs"
    if [ ! -s "$WORK/pairs" ]; then
      printf "  jload / %-6s no ratio (no round where both ran)\n" "$tool"
      continue
    fi
    rps_ratio=$(cut -d' ' -f1 "$WORK/pairs" | median)
    cpu_ratio=$(cut -d' ' -f2 "$WORK/pairs" | median)
    printf "  jload / %-6s req/s ratio %.3f   CPU-per-request ratio %.3f   (medians of %d per-round ratios)\n" \
      "$tool" "$rps_ratio" "$cpu_ratio" "$(wc -l < "$WORK/pairs")"
  done
done
