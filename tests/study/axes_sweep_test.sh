#!/usr/bin/env bash
# axes_sweep_test.sh — the strategy study of studies/strategy-axes.toml (compression × bucket size ×
# batch) end to end on this machine: it expands to the expected points, every point runs (mpirun,
# oversubscribed), collect derives a speedup for each from its own N = 1 point, the report shows one
# row per point (--full: a table per swept value), and the plots label one series per combination.
# Usage: axes_sweep_test.sh <scalebench-binary> <source-dir>. Needs mpirun and /usr/bin/python3 with h5py.
set -uo pipefail
sb=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# The shipped spec's axes at a test's size: 48 images, 2 epochs, one repetition (its timing is not
# what this test checks).
sed -e "s|^name = \"strategy-axes\"|name = \"strategy-axes\"\noutput = \"$tmp/study\"|" -e "s|^repetitions = .*|repetitions = 1|" \
    -e "s|^n = .*|n = 48|" -e "s|^epochs = .*|epochs = 2|" "$src/studies/strategy-axes.toml" > "$tmp/spec.toml"
grep -q "^n = 48$" "$tmp/spec.toml" && grep -q "^epochs = 2$" "$tmp/spec.toml" && grep -q "^repetitions = 1$" "$tmp/spec.toml" ||
  { cat "$tmp/spec.toml"; fail "the spec's size lines moved"; }
"$sb" sweep "$tmp/spec.toml" --dry-run > "$tmp/dry" || fail "dry run"
grep -qF "18 points = 1 model x 2 batches x (single at N=1 + ring at N=1,2 x 2 bucket_mb x 2 compression) x 1 repetition" "$tmp/dry" ||
  { cat "$tmp/dry"; fail "expected 18 points"; }
"$sb" sweep "$tmp/spec.toml" > "$tmp/sweep" 2>&1 || { tail -30 "$tmp/sweep"; fail "sweep"; }
grep -q "ring N=2 b=4 bucket_mb=0.25 compression=bf16" "$tmp/sweep" || { cat "$tmp/sweep"; fail "no axis values in the progress prefix"; }
"$sb" collect "$tmp/study/" > "$tmp/collect" || fail collect
grep -q "collect: 18 runs (18 ok, 0 not ok)" "$tmp/collect" || { cat "$tmp/collect"; fail "not 18 ok runs"; }
"$sb" report "$tmp/study/study.h5" > "$tmp/compact" || fail report
cat "$tmp/compact"
# by default one table, one row per point, the swept fields as columns
[ "$(grep -c '^== ' "$tmp/compact")" -eq 1 ] || fail "expected one compact table"
grep -q '^strategy  *N  *batch  *bucket_mb  *compression  *global batch  *images/s' "$tmp/compact" || fail "compact header"
[ "$(grep -cE '^(ring|single) ' "$tmp/compact")" -eq 18 ] || fail "expected 18 rows, one per point"
"$sb" report "$tmp/study/study.h5" --full > "$tmp/report" || fail "report --full"
# --full: one table per batch × compression × bucket for ring (8), one per batch for single (2)
[ "$(grep -c '^== unet:depth=2,base=4 - ring - batch=. bucket_mb=.* compression=' "$tmp/report")" -eq 8 ] || fail "expected 8 ring tables"
[ "$(grep -c '^== unet:depth=2,base=4 - single' "$tmp/report")" -eq 2 ] || fail "expected 2 single tables"
/usr/bin/python3 - "$tmp/study/study.h5" <<'PY' || fail "speedups"
import sys, h5py, math
t = h5py.File(sys.argv[1], "r")["runs"][()]
names = t.dtype.names
rows = [dict(zip(names, r)) for r in t]
dec = lambda v: v.decode() if isinstance(v, bytes) else v
ring2 = [r for r in rows if dec(r["strategy"]) == "ring" and r["world_size"] == 2]
assert len(ring2) == 8, len(ring2)
for r in ring2:  # each measured against its own combination's ring N=1 point
    assert dec(r["baseline"]) == "ring N=1", r["baseline"]
    assert math.isfinite(r["speedup"]) and r["speedup"] > 0, r["speedup"]
print("ok: 8 ring N=2 points, each with a speedup against ring N=1 of its own combination")
PY
/usr/bin/python3 "$src/plots/make_all.py" "$tmp/study" -o "$tmp/plots" --only speedup > "$tmp/plots.log" 2>&1 ||
  { cat "$tmp/plots.log"; fail plots; }
[ -s "$tmp/plots/speedup.png" ] || { ls "$tmp/plots"; cat "$tmp/plots.log"; fail "no speedup.png"; }
grep -q "^skipped" "$tmp/plots.log" && { cat "$tmp/plots.log"; fail "speedup skipped"; }
echo "ok: swept, collected, reported and plotted"
