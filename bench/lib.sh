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

# Start nginx with one worker answering "hello world" on 127.0.0.1:$1 (as in ANCHORS.md).
start_nginx() {
  local port=$1
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
  server {
    listen 127.0.0.1:$port backlog=16384;
    location / { return 200 "hello world\n"; }
  }
}
CONF
  nginx -c "$WORK/nginx/nginx.conf"
  for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/" >/dev/null && return 0; sleep 0.1; done
  echo "nginx did not start on port $port" >&2; return 1
}

stop_nginx() {
  [ -f "$WORK/nginx/nginx.pid" ] && kill "$(cat "$WORK/nginx/nginx.pid")" 2>/dev/null || true
}

# Run a command under /usr/bin/time; sets TIME_CPU_S (user+sys seconds) and TIME_RSS_KB (peak RSS) after it ends.
timed() {
  /usr/bin/time -f "%U %S %M" -o "$WORK/time.out" "$@"
  read -r user sys rss < "$WORK/time.out"
  TIME_CPU_S=$(echo "$user + $sys" | bc -l)
  TIME_RSS_KB=$rss
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

cleanup() { stop_nginx; rm -rf "$WORK"; }
