#!/usr/bin/env bash
# What reading a JVM's native memory summary (NMT) through jload's attach client costs kv-service:
#  1. its safepoints: kv-service with -Xlog:safepoint, idle, SECONDS s without reads then 20 reads 1 s apart
#     (examples/nmt_reads.rs, the first read attaches by .attach_pid + SIGQUIT): the VM operations logged in each
#     window, with their count and longest total time, and the JVM's CPU time in each window and in its Attach
#     Listener thread (the one that runs the reads);
#  2. its throughput: `jload bench -c 16 -d SECONDS` on random_get?keyRange=1000 after a 5 s warm-up that fills the
#     store (random_set of 100 bytes on the same keys), on a fresh JVM
#     each time, in three configurations — no NMT, -XX:NativeMemoryTracking=summary, and NMT with a read every
#     READ_MS during the measured run (1 s; `jload run` reads every 5 s) — alternately, ROUNDS times; the median
#     req/s of each, and the safepoints logged during the measured runs by VM operation.
#
# Usage: bench/nmt-cost.sh [ROUNDS (3)] [SECONDS (10)] [READ_MS (1000)]
#        (SKIP_IDLE=1 or SKIP_LOAD=1 leave out part 1 or 2)
# Env:   JAVA_HOME (default /usr/lib/jvm/java-17-openjdk-amd64); JLOAD, the load generator (default the debug build,
#        target/debug/jload; RELEASE=1: target/release/jload). The example is the debug build. Both are built if
#        missing; the load generator's speed is the same in all three configurations.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${1:-3}
SECONDS_PER_RUN=${2:-10}
READ_MS=${3:-1000}
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
JAR=samples/kv-service/target/kv-service.jar
if [[ -n ${RELEASE:-} ]]; then JLOAD=${JLOAD:-target/release/jload}; else JLOAD=${JLOAD:-target/debug/jload}; fi
READER=target/debug/examples/nmt_reads
[[ -f $JAR ]] || mvn -q -f samples/kv-service package -DskipTests
[[ -x $JLOAD ]] || cargo build --quiet ${RELEASE:+--release}
[[ -x $READER ]] || cargo build --quiet --example nmt_reads

work=$(mktemp -d /tmp/jload-nmt-cost.XXXXXX)
jvm_pid=
stop_jvm() {
    [[ -n $jvm_pid ]] || return 0
    kill "$jvm_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$jvm_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$jvm_pid" 2>/dev/null || true
    wait "$jvm_pid" 2>/dev/null || true
    rm -f "/tmp/.java_pid$jvm_pid" # left behind only when it had to be killed
    jvm_pid=
}
cleanup() { stop_jvm; rm -rf "$work"; }
trap cleanup EXIT

# start_jvm LOG [JVM OPTIONS…]: kv-service on a free port ($PORT, $URL) with a safepoint log in LOG; waits until it
# answers, and makes sure the answer is its own.
start_jvm() {
    local log=$1
    shift
    PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    URL="http://127.0.0.1:$PORT/random_get?keyRange=1000"
    "$JAVA_HOME/bin/java" "$@" "-Xlog:safepoint=info:file=$log:uptime,level,tags" -Dkv.port=$PORT -jar "$JAR" \
        >"$work/jvm.out" 2>&1 &
    jvm_pid=$!
    for _ in $(seq 300); do
        kill -0 "$jvm_pid" 2>/dev/null || break
        if curl -s -o /dev/null "http://127.0.0.1:$PORT/health"; then
            ss -ltnp "sport = :$PORT" | grep -q "pid=$jvm_pid," && return 0
            break
        fi
        sleep 0.1
    done
    echo "kv-service did not start on port $PORT: $(tail -1 "$work/jvm.out")" >&2
    exit 1
}

# safepoints LOG FROM_LINE: "count op longest_total_ms" per VM operation logged after line FROM_LINE.
safepoints() {
    tail -n +"$(($2 + 1))" "$1" | { grep -o 'Safepoint "[^"]*".*Total: [0-9]* ns' || true; } |
        sed -E 's/Safepoint "([^"]*)".*Total: ([0-9]+) ns/\1 \2/' |
        awk '{ n[$1]++; if ($2 > m[$1]) m[$1] = $2 } END { for (op in n) printf "%6d  %-32s %9.3f ms\n", n[op], op, m[op] / 1e6 }' |
        sort -k2
}

lines() { wc -l <"$1"; }

# CPU time (ns) of the JVM's threads so far: all of them, or those whose name starts with $1 (/proc …/schedstat).
jvm_cpu_ns() {
    local task total=0
    for task in /proc/"$jvm_pid"/task/*; do
        [[ -z ${1:-} || $(cat "$task/comm" 2>/dev/null) == "$1"* ]] || continue
        total=$((total + $(cut -d' ' -f1 "$task/schedstat" 2>/dev/null || echo 0)))
    done
    echo "$total"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "target: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1); load average $(cut -d' ' -f1-3 /proc/loadavg)"

# 1. Safepoints of an idle JVM, without reads and with 20 reads.
if [[ -z ${SKIP_IDLE:-} ]]; then
start_jvm "$work/idle.log" -XX:NativeMemoryTracking=summary
sleep 5
from=$(lines "$work/idle.log")
cpu_before=$(jvm_cpu_ns)
sleep 20
cpu_idle=$(($(jvm_cpu_ns) - cpu_before))
echo "== idle kv-service, 20 s without reads: safepoints (count, VM operation, longest)"
safepoints "$work/idle.log" "$from"
from=$(lines "$work/idle.log")
cpu_before=$(jvm_cpu_ns)
"$READER" "$jvm_pid" 20 1000 >"$work/reads.out"
cpu_reads=$(($(jvm_cpu_ns) - cpu_before))
listener=$(jvm_cpu_ns "Attach Listener")
echo "== idle kv-service, 20 reads 1 s apart: safepoints (count, VM operation, longest)"
safepoints "$work/idle.log" "$from"
head -1 "$work/reads.out"
tail -1 "$work/reads.out"
awk -v l="$listener" -v r="$cpu_reads" -v i="$cpu_idle" 'BEGIN {
    printf "JVM CPU: 20 s idle %.1f ms, 20 s with 20 reads %.1f ms; its Attach Listener thread %.1f ms, %.2f ms a read\n",
        i / 1e6, r / 1e6, l / 1e6, l / 20e6 }'
stop_jvm

fi
[[ -n ${SKIP_LOAD:-} ]] && exit 0

# 2. Throughput in three configurations, alternately.
declare -A options=([off]="" [nmt]="-XX:NativeMemoryTracking=summary" [nmt+reads]="-XX:NativeMemoryTracking=summary")
configurations=(off nmt nmt+reads)
for round in $(seq "$ROUNDS"); do
    for config in "${configurations[@]}"; do
        log="$work/$config-$round.log"
        # shellcheck disable=SC2086
        start_jvm "$log" ${options[$config]}
        "$JLOAD" bench -q -c 16 -d 5s "${URL/random_get/random_set}&valueSize=100" >/dev/null
        from=$(lines "$log")
        reader=
        if [[ $config == nmt+reads ]]; then
            "$READER" "$jvm_pid" "$((SECONDS_PER_RUN * 1000 / READ_MS))" "$READ_MS" >"$work/reads-$round.out" &
            reader=$!
        fi
        "$JLOAD" bench -q -c 16 -d "${SECONDS_PER_RUN}s" --ok-status 200-299,404 --json "$work/$config-$round.json" "$URL" >/dev/null
        [[ -n $reader ]] && wait "$reader"
        rps=$(jq .rps "$work/$config-$round.json")
        echo "$rps" >>"$work/$config.rps"
        safepoints "$log" "$from" >"$work/$config-$round.safepoints"
        echo "round $round $config: $rps req/s" >&2
        stop_jvm
    done
done
echo "== kv-service under $JLOAD bench -c 16 -d ${SECONDS_PER_RUN}s, $ROUNDS rounds, reads every $READ_MS ms: median req/s"
for config in "${configurations[@]}"; do
    printf '%-10s %10.0f req/s   (runs: %s)\n' "$config" "$(median <"$work/$config.rps")" "$(paste -sd' ' "$work/$config.rps")"
done
for config in "${configurations[@]}"; do
    echo "== safepoints during the measured runs, $config, all rounds (count, VM operation, longest)"
    cat "$work/$config"-*.safepoints | awk '{ n[$2] += $1; t = $3 + 0; if (t > m[$2]) m[$2] = t } END { for (op in n) printf "%6d  %-32s %9.3f ms\n", n[op], op, m[op] }' | sort -k2
done
echo "== reads during the load (jload's side)"
tail -qn 1 "$work"/reads-*.out
