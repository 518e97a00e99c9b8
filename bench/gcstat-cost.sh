#!/usr/bin/env bash
# Cost of one GC sample: `jload gcstat PID 0 N` (N samples back to back, per-sample cost = (run of N − run of 1)
# / (N − 1), printing included) against one `jstat -gcutil PID` call (which starts a JVM), both timed with
# /usr/bin/time on the same idle JVM, alternately, ROUNDS times; medians are printed with the ratio.
#
# Usage: bench/gcstat-cost.sh [SAMPLES] [ROUNDS]      (defaults 10000 and 5)
# Env:   JAVA_HOME (default /usr/lib/jvm/java-17-openjdk-amd64), JLOAD (default target/release/jload, built if
#        missing).
set -euo pipefail
cd "$(dirname "$0")/.."

SAMPLES=${1:-10000}
ROUNDS=${2:-5}
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
JLOAD=${JLOAD:-target/release/jload}
[[ -x $JLOAD ]] || cargo build --release --quiet
[[ -x /usr/bin/time ]] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 2; }

work=$(mktemp -d)
jvm_pid=
cleanup() {
    [[ -n $jvm_pid ]] && kill "$jvm_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# The target: the test program, idle after its allocation phase, exiting by itself after 5 minutes at most.
"$JAVA_HOME/bin/java" -Xmx64m tests/java/Alloc.java --exit-after-ms 300000 >"$work/jvm.out" &
jvm_pid=$!
for _ in $(seq 1 300); do
    grep -q '^idle' "$work/jvm.out" 2>/dev/null && break
    sleep 0.1
done
grep -q '^idle' "$work/jvm.out" || { echo "the test JVM did not become idle within 30 s" >&2; exit 1; }

# Prints "wall_s cpu_s" (user + sys) of one command, its output discarded.
measure() {
    /usr/bin/time -f '%e %U %S' -o "$work/time" "$@" >/dev/null
    awk '{ printf "%.4f %.4f\n", $1, $2 + $3 }' "$work/time"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: >"$work/jload"
: >"$work/jstat"
for round in $(seq 1 "$ROUNDS"); do
    read -r one_wall one_cpu < <(measure "$JLOAD" gcstat "$jvm_pid" 0 1)
    read -r many_wall many_cpu < <(measure "$JLOAD" gcstat "$jvm_pid" 0 "$SAMPLES")
    awk -v n="$SAMPLES" -v w1="$one_wall" -v c1="$one_cpu" -v wn="$many_wall" -v cn="$many_cpu" \
        'BEGIN { printf "%.3f %.3f\n", (wn - w1) / (n - 1) * 1e6, (cn - c1) / (n - 1) * 1e6 }' >>"$work/jload"
    read -r jstat_wall jstat_cpu < <(measure "$JAVA_HOME/bin/jstat" -gcutil "$jvm_pid")
    awk -v w="$jstat_wall" -v c="$jstat_cpu" 'BEGIN { printf "%.3f %.3f\n", w * 1e6, c * 1e6 }' >>"$work/jstat"
    echo "round $round: jload $(tail -1 "$work/jload") µs/sample (wall cpu), jstat $(tail -1 "$work/jstat") µs/call" >&2
done

jload_wall=$(cut -d' ' -f1 "$work/jload" | median)
jload_cpu=$(cut -d' ' -f2 "$work/jload" | median)
jstat_wall=$(cut -d' ' -f1 "$work/jstat" | median)
jstat_cpu=$(cut -d' ' -f2 "$work/jstat" | median)
echo "target: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1), pid $jvm_pid; $SAMPLES samples per jload run, $ROUNDS rounds, medians"
printf '%-28s %14s %14s\n' "" "wall µs" "CPU µs"
printf '%-28s %14.1f %14.1f\n' "jload gcstat, per sample" "$jload_wall" "$jload_cpu"
printf '%-28s %14.0f %14.0f\n' "jstat -gcutil, per call" "$jstat_wall" "$jstat_cpu"
awk -v a="$jstat_wall" -v b="$jload_wall" -v c="$jstat_cpu" -v d="$jload_cpu" \
    'BEGIN { printf "%-28s %13.0fx %13.0fx\n", "jstat / jload", (b > 0 ? a / b : 0), (d > 0 ? c / d : 0) }'
