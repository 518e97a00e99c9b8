#!/usr/bin/env bash
# Whether a plan's capacities reproduce: `jload run PLAN` N times back to back (the release build), then each cell's
# capacity in every run side by side with its median over the runs, the largest deviation from that median, and the
# cell each run's recommendation names as the highest (or that it could not tell the best from the runner-up).
# Usage: bench/capacity-spread.sh [PLAN (plans/quickstart.toml)] [RUNS (3)] [PHASE (the plan's capacity phase)]
# The runs are kept in results/spread-<yyyymmdd-hhmmss>/run-N; with RESULTS=DIR1,DIR2,… it reads those finished
# runs instead of running the plan.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
PLAN=${1:-plans/quickstart.toml}
RUNS=${2:-3}
PHASE=${3:-}
trap cleanup EXIT

need python3:python3
dirs=()
if [ -n "${RESULTS:-}" ]; then
  IFS=, read -r -a dirs <<< "$RESULTS"
else
  build_jload
  cd "$REPO_DIR"
  out="results/spread-$(date +%Y%m%d-%H%M%S)"
  mkdir -p "$out"
  for run in $(seq "$RUNS"); do
    started=$(date +%s)
    "$JLOAD" run "$PLAN" --out "$out/run-$run" > "$out/run-$run.log" 2>&1 || true
    echo "run $run: $(( $(date +%s) - started )) s ($out/run-$run, its output in $out/run-$run.log)"
    dirs+=("$out/run-$run")
  done
fi

python3 - "$PHASE" "${dirs[@]}" <<'PY'
import json, statistics, sys

phase_name, dirs = sys.argv[1], sys.argv[2:]
runs = [json.load(open(f"{d}/report.json")) for d in dirs]

def capacity_phase(report):
    for phase in report["phases"]:
        if phase_name and phase["name"] != phase_name:
            continue
        if any("capacity_rps" in cell["figures"] for cell in phase["cells"]):
            return phase
    sys.exit(f"no capacity phase {phase_name!r} in {report['results_dir']}")

phases = [capacity_phase(report) for report in runs]
cells = [cell["cell"] for cell in phases[0]["cells"]]
print(f"phase {phases[0]['name']}: capacity (req/s) per run, median, largest deviation from the median")
print(f"{'cell':34}" + "".join(f"{'run ' + str(i + 1):>10}" for i in range(len(runs))) + f"{'median':>10}{'spread':>9}")
worst = 0.0
for name in cells:
    values = []
    for phase in phases:
        cell = next((c for c in phase["cells"] if c["cell"] == name), None)
        figure = cell and cell["figures"].get("capacity_rps")
        values.append(figure["median"] if figure else None)
    found = [v for v in values if v is not None]
    median = statistics.median(found) if found else None
    spread = max(abs(v - median) / median for v in found) if found else None
    worst = max(worst, spread or 0.0)
    shown = "".join(f"{v:>10.0f}" if v is not None else f"{'-':>10}" for v in values)
    print(f"{name:34}{shown}{median or 0:>10.0f}{(spread or 0) * 100:>8.1f}%")
print(f"largest deviation from a cell's median: {worst * 100:.1f} %")
for i, phase in enumerate(phases):
    findings = phase["recommendation"]["findings"]
    highest = next((f["text"] for f in findings if f["kind"] == "capacity"), "no capacity finding")
    print(f"run {i + 1}: {highest}")
PY
