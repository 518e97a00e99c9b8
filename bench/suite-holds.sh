#!/usr/bin/env bash
# Where the integration suite's time goes: runs `cargo test --test tests` (the suite binary) with every hold of the
# machine logged (JLOAD_MACHINE_LOG, tests/common/machine.rs), then prints the binary's wall time, the seconds the
# machine was held by two tests, one and none, the sum of the holds (two holders at a time can do no better than half
# of it), the suites and tests that held it longest, and the stretches of 3 s or more that one test or none held it.
# Usage: bench/suite-holds.sh [FILTER ...] (passed to the test binary, e.g. run_tune::); HOLDS=FILE reads a log
# written before instead of running the suite.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
trap cleanup EXIT
need python3:python3
cd "$REPO_DIR"

log=${HOLDS:-}
if [ -z "$log" ]; then
  log="$WORK/holds.log"
  cargo test --test tests --no-run -q 2>/dev/null
  start=$(date +%s.%N)
  JLOAD_MACHINE_LOG="$log" cargo test -q --test tests -- "$@" > "$WORK/suite.out" 2>&1 || {
    grep -E "^test .* FAILED|^failures:" "$WORK/suite.out" >&2 || true
    echo "suite-holds.sh: the suite failed (its output: $WORK/suite.out is removed at exit)" >&2
  }
  end=$(date +%s.%N)
  echo "suite binary: $(python3 -c "print(round($end - $start))") s"
fi

python3 - "$log" <<'PY'
import collections, sys
rows = [line.split(maxsplit=3) for line in open(sys.argv[1])]
holds = sorted((float(taken), float(released), kind, test.strip()) for taken, released, kind, test in rows)
start, end = holds[0][0], max(released for _, released, _, _ in holds)
events = sorted([(taken, 1, test) for taken, _, _, test in holds] + [(released, -1, test) for _, released, _, test in holds])
by_count, holding, last, stretches = collections.Counter(), collections.Counter(), start, []
for at, change, test in events:
    holders = sum(holding.values())
    by_count[holders] += at - last
    if at - last >= 3 and holders < 2:
        stretches.append((last - start, at - last, sorted(+holding)))
    holding[test] += change
    last = at
total = sum(released - taken for taken, released, _, _ in holds)
print(f"from the first hold to the last release: {end - start:.0f} s; held by two tests {by_count[2]:.0f} s, by one "
      f"{by_count[1]:.0f} s, by none {by_count[0]:.0f} s; the holds sum to {total:.0f} s (paired perfectly: {total / 2:.0f} s)")
suites = collections.Counter()
for taken, released, _, test in holds:
    suites[[part for part in test.split("::") if part not in ("a_started_first", "a_alone")][0]] += released - taken
print("suites: " + ", ".join(f"{suite} {seconds:.0f} s" for suite, seconds in suites.most_common(12)))
print("longest holds:")
for taken, released, kind, test in sorted(holds, key=lambda hold: hold[0] - hold[1])[:12]:
    print(f"  {released - taken:5.1f} s {kind:6} {test}")
print("one holder or none for 3 s or more:")
for at, seconds, holding in stretches:
    print(f"  at {at:5.0f} s for {seconds:4.1f} s: {', '.join(holding) or 'none'}")
PY
