#!/usr/bin/env bash
# How many trials a tune needs, against a grid's ground truth (issue 24, docs/benchmarks.md "Tune against a grid"):
# kv-service's heap store over 4 heaps × 3 collectors × 3 values of -XX:NewRatio, 36 cells, each's figure found once
# by `jload run` of the grid plan; then the tune's search replayed on the grid's own figures (examples/tune_replay.rs)
# — the space of the tune plan beside it, seeds 1..N, method "model" and "random", each proposal answered with its
# grid cell's figure — counting the trials (the defaults' trial 1 included) until one is within 5 % of the grid's
# best. With --real, also real tunes of that plan (12 trials, seeds 1 and 2, each method), each trial looked up in
# the grid. Two objectives, each a pair of plans in bench/tune-vs-grid/:
#   capacity  grid.toml / tune.toml: the capacity within p99 <= 20 ms (a search per cell; about 18 minutes on 2 cores)
#   memory    memory-grid.toml / memory-tune.toml: the least memory (whole-life RSS peak) holding p99 <= 20 ms at
#             5,000 req/s (one fixed-rate phase per cell; about 10 minutes)
# Usage: bench/tune-vs-grid.sh [--objective capacity|memory (capacity)] [--grid DIR] [--seeds N (10)] [--real] [--out DIR]
#   --grid DIR  replay on an existing grid results folder instead of running the grid
#   --out DIR   where the grid, the real tunes and grid.tsv go (default: /tmp/jload-tune-vs-grid-<time>)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
OBJECTIVE=capacity
GRID=
SEEDS=10
REAL=no
OUT=/tmp/jload-tune-vs-grid-$(date +%Y%m%d-%H%M%S)
while [ $# -gt 0 ]; do
  case $1 in
    --objective) OBJECTIVE=$2; shift 2 ;;
    --grid) GRID=$2; shift 2 ;;
    --seeds) SEEDS=$2; shift 2 ;;
    --real) REAL=yes; shift ;;
    --out) OUT=$2; shift 2 ;;
    *) sed -n 's/^# Usage: //p' "$0" >&2; exit 2 ;;
  esac
done
case $OBJECTIVE in
  capacity) GRID_PLAN=grid.toml; TUNE_PLAN=tune.toml ;;
  memory) GRID_PLAN=memory-grid.toml; TUNE_PLAN=memory-tune.toml ;;
  *) echo "tune-vs-grid.sh: --objective $OBJECTIVE is neither capacity nor memory" >&2; exit 2 ;;
esac
trap cleanup EXIT
PLANS=bench/tune-vs-grid
REPLAY="$REPO_DIR/target/release/examples/tune_replay"

build_jload
(cd "$REPO_DIR" && cargo build --release -q --example tune_replay)
[ -f "$KV_JAR" ] || mvn -q -f "$REPO_DIR/samples/kv-service" package -DskipTests
mkdir -p "$OUT"
cd "$REPO_DIR"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo), load average" \
  "$(cut -d' ' -f1-3 /proc/loadavg) at the start; $(java -version 2>&1 | head -1)"

if [ -z "$GRID" ]; then
  GRID=$OUT/grid
  echo "== the grid: jload run $PLANS/$GRID_PLAN --out $GRID"
  started=$(date +%s)
  "$JLOAD" run "$PLANS/$GRID_PLAN" --out "$GRID" > "$OUT/grid.out" 2> "$OUT/grid.err" ||
    { echo "the grid failed (exit $?): see $OUT/grid.err; finish it with jload run --resume $GRID" >&2; exit 1; }
  echo "($(( $(date +%s) - started )) s)"
fi

REAL_DIRS=()
if [ "$REAL" = yes ]; then
  # The plan with another method and seed, beside a copy of its mix (relative paths resolve against the plan's folder).
  mkdir -p "$OUT/plans"
  cp "$PLANS/kv-get-set.toml" "$OUT/plans/"
  for method in model random; do
    for seed in 1 2; do
      plan=$OUT/plans/tune-$method-$seed.toml
      sed -e "s/^seed = .*/seed = $seed/" -e "s/^method = .*/method = \"$method\"/" "$PLANS/$TUNE_PLAN" > "$plan"
      echo "== real tune: jload run $plan (method $method, seed $seed, 12 trials)"
      started=$(date +%s)
      "$JLOAD" run "$plan" --out "$OUT/tune-$method-$seed" > "$OUT/tune-$method-$seed.out" 2> "$OUT/tune-$method-$seed.err" ||
        { echo "the tune failed (exit $?): see $OUT/tune-$method-$seed.err" >&2; exit 1; }
      echo "($(( $(date +%s) - started )) s)"
      REAL_DIRS+=(--real "$OUT/tune-$method-$seed")
    done
  done
fi

echo
echo "== replay: $REPLAY $PLANS/$TUNE_PLAN $GRID --seeds $SEEDS"
"$REPLAY" "$PLANS/$TUNE_PLAN" "$GRID" --seeds "$SEEDS" --table "$OUT/grid.tsv" "${REAL_DIRS[@]}"
echo
echo "grid table: $OUT/grid.tsv; results: $GRID"
