#!/usr/bin/env bash
# reframe_test.sh — the shipped ReFrame tests (reframe/scalebench_check.py) through ReFrame's local
# scheduler (reframe/config/local.py, partition default) against this build's scalebench (ctest
# reframe.point). The points are studies/smoke.toml's model, mirrored at N = 1 and 2, two
# repetitions each; the baseline is results/baselines/cpu-demo.h5 relabelled to that model with
# mirrored N = 1 made 1000x slower and N = 2 1000x faster (tests/reframe/scaled_baseline.py), so the
# verdicts are known whatever this host's speed: with the bounds on (the default) N = 1 must PASS
# and N = 2 must FAIL in the performance stage on images_per_s; ring is skipped (no MPI launcher on
# a local partition). Checks too that each repetition is a `scalebench train` line in the job script,
# that the perflog carries reference and lower bound per variable (bound <= the metric's -10 %
# tolerance in metrics.def) and that N = 2 reports efficiency (from its N = 1 dependency's runs).
# Usage: reframe_test.sh <scalebench binary>. Exit 0 pass, 1 fail, 77 skip (reframe-hpc or h5py not
# installed: tools/install-deps.sh installs both).
set -euo pipefail
SB=$1
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if command -v reframe >/dev/null; then
  RF=(reframe)
elif python3 -c 'import reframe' 2>/dev/null; then
  RF=(python3 -m reframe)
else
  echo "SKIP: reframe-hpc is not installed (tools/install-deps.sh: python3 -m pip install reframe-hpc)"
  exit 77
fi
/usr/bin/python3 -c 'import h5py' 2>/dev/null || { echo "SKIP: /usr/bin/python3 has no h5py (python3-h5py)"; exit 77; }
TMP="$(mktemp -d /tmp/sb-reframe.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
fail() { echo "FAIL: $*"; exit 1; }
MODEL=$(sed -n 's/^models = \["\(.*\)"\]/\1/p' "$ROOT/studies/smoke.toml")
[[ -n "$MODEL" ]] || fail "no model in studies/smoke.toml"
/usr/bin/python3 "$ROOT/tests/reframe/scaled_baseline.py" "$ROOT/results/baselines/cpu-demo.h5" scaled.h5 \
  --model "$MODEL" --scale mirrored:1:0.001 --scale mirrored:2:1000
# ReFrame reads no site or user configuration but ours; everything it writes stays under $TMP.
# TMPDIR too: ReFrame writes its start-up log to a temporary file before it reads the configuration.
export RFM_CONFIG_FILES="$ROOT/reframe/config/local.py" HOME="$TMP" RFM_COLORIZE=n TMPDIR="$TMP"
set +e
"${RF[@]}" -c "$ROOT/reframe/scalebench_check.py" --system scalebench-local:default --prefix "$TMP/rfm" \
  -S "scalebench=$SB" -S "spec=$ROOT/studies/smoke.toml" -S repetitions=2 -S sets=train.epochs=2 \
  -S baseline="$TMP/scaled.h5" -r > rfm.log 2>&1
rc=$?
set -e
cat rfm.log
((rc != 0)) || fail "reframe exited 0, but N = 2 is 1000x below its reference"
grep -q '\[  FAILED  \] Ran 2/4 test case(s) from 4 check(s) (1 failure(s), 0 expected failure(s), 2 skipped' rfm.log ||
  fail "expected 2 test cases run, 1 failure, 2 skipped (ring)"
grep -Eq '^\[ +OK +\] .*ScalebenchPoint %strategy=mirrored %devices=1 ' rfm.log || fail "mirrored N=1 did not pass"
grep -Eq '^\[ +FAIL +\] .*ScalebenchPoint %strategy=mirrored %devices=2 ' rfm.log || fail "mirrored N=2 did not fail"
grep -q 'Failing phase: performance' rfm.log || fail "the failure is not in the performance stage"
grep -A3 'Reason: performance error' rfm.log | grep -Eq '(reference\(s\): | +)images_per_s=[0-9]' ||
  fail "the failure does not name images_per_s"
grep -q 'ring starts 1 MPI ranks; partition scalebench-local:default has the local launcher' rfm.log ||
  fail "ring was not skipped for want of an MPI launcher"
# each repetition is a train line of the job script (the first in prerun, the last the executable)
script=$(find "$TMP/rfm" -path '*ScalebenchPoint*' -name 'rfm_job.sh' | head -n1)
[[ -n "$script" ]] || fail "no job script"
[[ $(grep -c "scalebench train --model $MODEL " "$script") == 2 ]] || fail "job script: not 2 train lines: $(cat "$script")"
perflog=$(find "$TMP/rfm/perflogs" -name '*.log' | head -n1)
[[ -n "$perflog" ]] || fail "no performance log under $TMP/rfm/perflogs"
cat "$perflog"
for var in images_per_s efficiency; do
  line=$(grep -o "|${var}=[^|]*" "$perflog" | tail -n1)
  [[ "$line" =~ ref=[0-9][0-9.e+-]*\ lower=(-[0-9.e+-]+)\ upper=None ]] || fail "no reference and lower bound for $var: $line"
  awk -v l="${BASH_REMATCH[1]}" 'BEGIN { exit !(l <= -0.1) }' || fail "$var's lower bound ${BASH_REMATCH[1]} is tighter than -10 %"
done
echo "PASS"
