# Shared helpers for the bench/ scripts (sourced, not run): tool installation, a loopback nginx, CPU timing.

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$BENCH_DIR/.." && pwd)
JLOAD="$REPO_DIR/target/release/jload"
WORK=$(mktemp -d /tmp/jload-bench.XXXXXX)

# Install Debian packages for the given commands when they are missing (the scripts run as root here).
need() {
  local missing=()
  for pair in "$@"; do
    command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

build_jload() {
  (cd "$REPO_DIR" && cargo build --release -q)
}

# Write $WORK/nginx/nginx.conf with one worker and the ANCHORS.md settings around the given server blocks, start
# nginx. The callers wait for it to answer.
run_nginx() {
  local servers=$1
  mkdir -p "$WORK/nginx"
  cat > "$WORK/nginx/nginx.conf" <<CONF
worker_processes 1;
worker_rlimit_nofile 30000;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log;
events { worker_connections 25000; }
http {
  access_log off;
  keepalive_requests 1000000;
$servers
}
CONF
  nginx -c "$WORK/nginx/nginx.conf"
}

# Start nginx with one worker answering "hello world" on 127.0.0.1:$1 (as in ANCHORS.md).
start_nginx() {
  local port=$1
  run_nginx "  server {
    listen 127.0.0.1:$port backlog=16384;
    location / { return 200 \"hello world\\n\"; }
  }"
  for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/" >/dev/null && return 0; sleep 0.1; done
  echo "nginx did not start on port $port" >&2; return 1
}

# A test CA and a server certificate it signs (ECDSA P-256; SAN IP:127.0.0.1 and DNS:localhost), so a client can
# trust the CA (--cacert $WORK/tls/ca.pem) or skip the check (-k). Writes ca.pem, server.pem, server.key in $WORK/tls.
# ECDSA, not RSA: an RSA-2048 signature costs nginx's one worker far more than a client's handshake costs the client,
# so the new-connection benchmark would measure the server.
make_test_cert() {
  local dir=$WORK/tls
  mkdir -p "$dir"
  openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=jload bench CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
    -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null
  printf '%s\n' "basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature" \
    "extendedKeyUsage=serverAuth" "subjectAltName=IP:127.0.0.1,DNS:localhost" > "$dir/server.ext"
  openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 2 \
    -extfile "$dir/server.ext" -out "$dir/server.pem" 2>/dev/null
}

# Start nginx with one worker answering "hello world" (as in ANCHORS.md) over TLS with HTTP/2 (ALPN h2, else
# http/1.1) on 127.0.0.1:$1, and over cleartext HTTP/2 (h2c, prior knowledge only) on 127.0.0.1:$2 when given.
# Makes the test certificate (make_test_cert). TLS 1.2 and 1.3 are offered; every client here negotiates 1.3.
# One TLS 1.3 cipher suite, TLS_AES_128_GCM_SHA256 (TLS13_CIPHERS to change it), so every client encrypts alike:
# left to choose, wrk and jload pick AES-256-GCM and h2load AES-128-GCM (nginx follows the client's preference).
# TLS_RESUME=off (default): nginx refuses session resumption (no session cache, no tickets, and no TLS 1.3
# NewSessionTicket sent, which OpenSSL would otherwise send twice per handshake for nothing), so every new connection
# is a full handshake for every client — the same work whatever a client's session cache does (wrk's OpenSSL and
# jload's rustls both resume when allowed). TLS_RESUME=on: a shared session cache and tickets.
# TLS_LOG=FILE: an access log of the TLS port in FILE, a line per request — connection number, its request number,
# TLS version, cipher, "r" when the session was resumed, HTTP version, user agent (wrk sends none) — to see what
# the clients did; it costs throughput.
start_nginx_tls() {
  local port=$1 h2c_port=${2:-} sessions log=""
  make_test_cert
  if [ "${TLS_RESUME:-off}" = on ]; then
    sessions="ssl_session_cache shared:SSL:10m; ssl_session_tickets on;"
  else
    sessions="ssl_session_cache off; ssl_session_tickets off; ssl_conf_command NumTickets 0;"
  fi
  local servers=""
  if [ -n "${TLS_LOG:-}" ]; then
    servers="  log_format tls '\$connection \$connection_requests \$ssl_protocol \$ssl_cipher \$ssl_session_reused '
                 '\$server_protocol \"\$http_user_agent\"';
"
    log="access_log $TLS_LOG tls;"
  fi
  servers+="  server {
    listen 127.0.0.1:$port ssl http2 backlog=16384;
    ssl_certificate $WORK/tls/server.pem;
    ssl_certificate_key $WORK/tls/server.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_conf_command Ciphersuites ${TLS13_CIPHERS:-TLS_AES_128_GCM_SHA256};
    $sessions
    $log
    location / { return 200 \"hello world\\n\"; }
  }"
  if [ -n "$h2c_port" ]; then
    servers+="
  server {
    listen 127.0.0.1:$h2c_port http2 backlog=16384;
    location / { return 200 \"hello world\\n\"; }
  }"
  fi
  run_nginx "$servers"
  for _ in $(seq 50); do
    if curl -sf --cacert "$WORK/tls/ca.pem" "https://127.0.0.1:$port/" >/dev/null &&
      { [ -z "$h2c_port" ] || curl -sf --http2-prior-knowledge "http://127.0.0.1:$h2c_port/" >/dev/null; }; then
      return 0
    fi
    sleep 0.1
  done
  echo "nginx (TLS) did not start on port $port${h2c_port:+ and $h2c_port}" >&2; return 1
}

# CPU seconds (user + system) that nginx's workers have used so far: sampled around a run, it tells whether the
# single worker was the bottleneck (near 100 % of a core) or the load generator was.
nginx_cpu_s() {
  local ticks=0 pid
  for pid in $(pgrep -P "$(cat "$WORK/nginx/nginx.pid")"); do
    ticks=$((ticks + $(awk '{ print $14 + $15 }' "/proc/$pid/stat")))
  done
  echo "$ticks / $(getconf CLK_TCK)" | bc -l
}

stop_nginx() {
  [ -f "$WORK/nginx/nginx.pid" ] && kill "$(cat "$WORK/nginx/nginx.pid")" 2>/dev/null || true
}

# Run a command under /usr/bin/time; sets TIME_CPU_S (user+sys seconds), TIME_RSS_KB (peak RSS) and TIME_STATUS (the
# command's exit status) after it ends. The figures are the last line of time's output: a command that failed
# puts "Command exited with non-zero status N" before it.
timed() {
  TIME_STATUS=0
  /usr/bin/time -f "%U %S %M" -o "$WORK/time.out" "$@" || TIME_STATUS=$?
  read -r user sys rss < <(tail -n 1 "$WORK/time.out")
  TIME_CPU_S=$(echo "$user + $sys" | bc -l)
  TIME_RSS_KB=$rss
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# kv-service as the capacity benches load it: one event-loop thread, a fixed 256 MB G1 heap (and the JVM options given),
# on a free loopback port. Sets KV_PID, PORT and BASE; stop_kv (and cleanup) stops it.
KV_JAR="$REPO_DIR/samples/kv-service/target/kv-service.jar"
KV_PID=
start_kv() {
  java -Xms256m -Xmx256m -XX:+UseG1GC "$@" -Dkv.port=0 -Dkv.threads=1 -jar "$KV_JAR" > "$WORK/kv.out" 2> "$WORK/kv.err" &
  KV_PID=$!
  for _ in $(seq 100); do grep -q "kv-service ready" "$WORK/kv.out" 2>/dev/null && break; sleep 0.1; done
  PORT=$(sed -n 's/.*kv-service ready port=\([0-9]*\).*/\1/p' "$WORK/kv.out")
  [ -n "$PORT" ] || { echo "kv-service did not start: $(cat "$WORK/kv.err")" >&2; exit 1; }
  BASE="http://127.0.0.1:$PORT"
}
stop_kv() { [ -n "$KV_PID" ] && kill "$KV_PID" 2>/dev/null && wait "$KV_PID" 2>/dev/null || true; }

# Prefill kv-service and warm its JIT: 300,000 random_set of 100 bytes over 100,000 keys, with jload's flags given.
prefill_kv() {
  echo "prefill and JIT warm-up: 300,000 random_set of 100 bytes over 100,000 keys"
  "$JLOAD" bench "$@" -n 300000 "$BASE/random_set?keyRange=100000&valueSize=100" > /dev/null
}

cleanup() { stop_kv; stop_nginx; rm -rf "$WORK"; }
