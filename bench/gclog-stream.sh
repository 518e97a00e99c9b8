#!/usr/bin/env bash
# Peak memory of `jload gclog` on a big GC log: SIZE_MB of real log (tests/fixtures/gclog/serial-jdk17.log repeated,
# each copy's uptimes shifted past the previous copy's, so it is one long JVM run), read plain and gzip-compressed,
# timed with /usr/bin/time -v. The file is read line by line, so the peak RSS is that of the parsed events, not a
# multiple of the file.
#
# Usage: bench/gclog-stream.sh [SIZE_MB]      (default 240)
# Env:   JLOAD (default target/release/jload, built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE_MB=${1:-240}
JLOAD=${JLOAD:-target/release/jload}
[[ -x $JLOAD ]] || cargo build --release --quiet
[[ -x /usr/bin/time ]] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fixture=tests/fixtures/gclog/serial-jdk17.log
copies=$(( SIZE_MB * 1024 * 1024 / $(wc -c <"$fixture") + 1 ))
# Each copy is shifted by 1 s (the fixture covers 0.4 s of uptime): `[0.889s]` in copy k becomes `[k+0.889s]`.
awk -v copies="$copies" '
    { line[NR] = $0 }
    END {
        for (k = 0; k < copies; k++)
            for (i = 1; i <= NR; i++) {
                text = line[i]
                if (match(text, /\]\[[0-9]+\.[0-9]+s\]/)) {
                    uptime = substr(text, RSTART + 2, RLENGTH - 4) + k
                    text = substr(text, 1, RSTART + 1) sprintf("%.3fs", uptime) substr(text, RSTART + RLENGTH - 1)
                }
                print text
            }
    }' "$fixture" >"$work/gc.log"
gzip -k -1 "$work/gc.log"

measure() {
    /usr/bin/time -v "$JLOAD" gclog --no-rotated "$1" 2>"$work/time.txt" >"$work/out.txt"
    local rss seconds
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
    seconds=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time.txt")
    local size_mb
    size_mb=$(awk -v bytes="$(stat -c %s "$1")" 'BEGIN { printf "%.1f", bytes / 1048576 }')
    printf '%-6s %7s MB file   peak RSS %5d MB   wall %s   (%s)\n' "$2" "$size_mb" "$((rss / 1024))" "$seconds" \
        "$(grep -m1 -o '[0-9]* lines' "$work/out.txt")"
}
measure "$work/gc.log" plain
measure "$work/gc.log.gz" gzip
