#!/usr/bin/env bash
# reframe_test.sh — the shipped ReFrame test (reframe/scalebench_check.py) through ReFrame's local
# scheduler (reframe/config/local.py) against this build's scalebench (ctest reframe.point).
# Passes when ReFrame reports the test passed and logged both performance variables with their
# references from the baseline study file; references carry no bounds here, so the host's speed is
# no pass/fail criterion. Takes about 15-30 s (a dataset, two two-epoch points, collect, report).
# Usage: reframe_test.sh <scalebench binary>. Exit 0 pass, 1 fail, 77 skip (reframe-hpc not installed:
# tools/install-deps.sh installs it with pip for the python3 first on PATH).
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
TMP="$(mktemp -d /tmp/sb-reframe.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
# ReFrame reads no site or user configuration but ours; everything it writes stays under $TMP.
# TMPDIR too: ReFrame writes its start-up log to a temporary file before it reads the configuration.
export RFM_CONFIG_FILES="$ROOT/reframe/config/local.py" HOME="$TMP" RFM_COLORIZE=n TMPDIR="$TMP"
set +e
"${RF[@]}" -c "$ROOT/reframe/scalebench_check.py" --prefix "$TMP/rfm" -S "scalebench=$SB" -r > rfm.log 2>&1
rc=$?
set -e
cat rfm.log
fail() { echo "FAIL: $*"; exit 1; }
((rc == 0)) || fail "reframe exited $rc"
grep -q '\[  PASSED  \] Ran 1/1 test case' rfm.log || fail "ReFrame did not report 1/1 test case passed"
# The performance log: both variables, each with a reference from the baseline (not 0).
perflog=$(find "$TMP/rfm/perflogs" -name '*.log' | head -n1)
[[ -n "$perflog" ]] || fail "no performance log under $TMP/rfm/perflogs"
cat "$perflog"
for var in images_per_s efficiency; do
  grep -Eq "\|${var}=[0-9][0-9.e+-]* [a-z/]+ ref=[0-9][0-9.e+-]* " "$perflog" ||
    fail "the performance log has no value and reference for $var"
done
echo "PASS"
