#!/usr/bin/env bash
# Speed and peak memory of `jload jfr summary` against the JDK's `jfr summary` on a ~SIZE_MB recording: one
# recording of tests/java/JfrWorkload.java (SECONDS s, the profile settings plus every socket and file operation,
# class load and compilation, so chunks of a few MB), concatenated until SIZE_MB (a JFR file is a sequence of chunks,
# so `cat` of recordings is a valid recording). Each reader runs ROUNDS times on the warm file; the best wall time of
# each gives its MB/s, and the two outputs must be equal. jload's and jfr's peak RSS come from /usr/bin/time -v.
#
# Usage: bench/jfr-read.sh [SIZE_MB (100)] [SECONDS (10)] [ROUNDS (3)]
# Env:   JDK, the JDK that records and whose `jfr` is compared (default /usr/lib/jvm/temurin-25-jdk-amd64);
#        JLOAD (default target/release/jload, built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE_MB=${1:-100}
SECONDS_RECORDED=${2:-10}
ROUNDS=${3:-3}
JDK=${JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
JLOAD=${JLOAD:-target/release/jload}
[[ -x $JLOAD ]] || cargo build --release --quiet
if [[ ! -x /usr/bin/time ]]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$JDK/bin/javac" -d "$work/classes" tests/java/JfrWorkload.java
"$JDK/bin/java" "-XX:StartFlightRecording:settings=profile,settings=tests/java/every-operation.jfc,filename=$work/one.jfr" \
    -cp "$work/classes" JfrWorkload "$SECONDS_RECORDED" "$work" >/dev/null
one_bytes=$(stat -c %s "$work/one.jfr")
copies=$(( SIZE_MB * 1000 * 1000 / one_bytes + 1 ))
for _ in $(seq "$copies"); do cat "$work/one.jfr"; done >"$work/big.jfr"
bytes=$(stat -c %s "$work/big.jfr")
chunks=$(awk '/ Chunks:/ {print $2}' <("$JLOAD" jfr summary "$work/big.jfr"))

# The best wall time in seconds of ROUNDS runs of the command; its output in $work/$1.out, its peak RSS in KB in
# $work/$1.rss (of the last run).
best_of() {
    local name=$1 best=
    shift
    for _ in $(seq "$ROUNDS"); do
        /usr/bin/time -v "$@" >"$work/$name.out" 2>"$work/$name.time"
        local wall
        wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$work/$name.time")
        if [[ -z $best ]] || awk -v a="$wall" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$wall; fi
    done
    awk -F': ' '/Maximum resident set size/ {print $2}' "$work/$name.time" >"$work/$name.rss"
    echo "$best"
}
jload_s=$(best_of jload "$JLOAD" jfr summary "$work/big.jfr")
jfr_s=$(best_of jfr "$JDK/bin/jfr" summary "$work/big.jfr")
if cmp -s "$work/jload.out" "$work/jfr.out"; then same=yes; else same=NO; diff "$work/jfr.out" "$work/jload.out" | head -5; fi

awk -v bytes="$bytes" -v chunks="$chunks" -v one="$one_bytes" -v copies="$copies" -v js="$jload_s" -v fs="$jfr_s" \
    -v jr="$(cat "$work/jload.rss")" -v fr="$(cat "$work/jfr.rss")" -v same="$same" -v jdk="$JDK" 'BEGIN {
    printf "file: %.1f MB, %d chunks (%d copies of a %.1f MB recording), recorded and compared with %s\n",
        bytes / 1e6, chunks, copies, one / 1e6, jdk
    printf "%-20s %8s %9s %13s\n", "reader", "wall s", "MB/s", "peak RSS MB"
    printf "%-20s %8.2f %9.0f %13.1f\n", "jload jfr summary", js, bytes / 1e6 / js, jr / 1024
    printf "%-20s %8.2f %9.0f %13.1f\n", "jfr summary", fs, bytes / 1e6 / fs, fr / 1024
    printf "jload / jfr speed: %.1fx; outputs equal: %s\n", fs / js, same
}'
