#!/usr/bin/env bash
# demo.sh — the default CPU scaling study behind `make demo` (studies/cpu-demo.toml): a U-Net on
# generated particle images under single, mirrored, multiworker, ring and ps-sync at N = 1, 2; then
# the study file, a collective benchmark, the plots, the report, and the gate (tools/demo_gate.sh):
# quality against the committed baseline (results/baselines/cpu-demo.h5), timing against a baseline
# of this machine type (results/baselines/cpu-demo.<host fingerprint>.h5, recorded by the first run
# here). Exit 1 when compare finds a REGRESSION, 0 when nothing regressed — also when some timing
# stays INCONCLUSIVE, which is said in the last lines.
# A rerun skips the points already ok. Usage: tools/demo.sh [build-dir]
set -euo pipefail
build=${1:-build}
sb="$(cd "$build" && pwd)/scalebench"
out=results/cpu-demo
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
start=$(date +%s)

spec=studies/cpu-demo.toml
echo "== demo: sweep $spec"
"$sb" sweep "$spec" || echo "demo: some points failed (see the report below)"

echo "== demo: collective benchmark (2 ranks, mpi, native vs ring)"
if [ ! -f "$out/commbench.json" ]; then
  mpirun -np 2 --oversubscribe "$sb" commbench --transport mpi --algo native,ring --sizes 4K:64M:4 \
    --iters 10 --json "$out/commbench.json"
fi

echo "== demo: collect"
"$sb" collect "$out/"

echo "== demo: plots"
/usr/bin/python3 plots/make_all.py "$out" -o "$out/plots"

echo "== demo: report"
"$sb" report "$out/study.h5"

# The demo's gate (tools/demo_gate.sh): compare's rule (docs/metrics.md) judges every metric. Quality
# and memory (seeded, deterministic) against the shipped baseline's, within their tolerances; timing,
# by the spec's repetitions a side (significance at alpha 0.01 after Benjamini-Hochberg and a change
# beyond the tolerance and the measured noise), only against a baseline of this machine type (host
# fingerprint): the first run on a new machine type records one, and says where.
base=results/baselines/cpu-demo.h5
k=$(sed -n 's/^repetitions = \([0-9]*\).*/\1/p' "$spec")
echo "== demo: compare against $base (quality; timing only on its machine type) and this machine type's baseline"
rc=0
tools/demo_gate.sh "$sb" "$out/study.h5" "$base" "$out" || rc=$?
summary=$(grep -h -m1 '^compare: .* matched' "$out/compare-machine.txt" "$out/compare.txt" 2>/dev/null | head -1 || true)
echo "demo: done in $(( $(date +%s) - start )) s — results in $out/ (study.h5, runs/, plots/, compare*.txt)"
case $rc in
  0) echo "demo: PASS — no regression against the baselines ($summary)" ;;
  3) echo "demo: PASS — no regression; some timing INCONCLUSIVE: the $k runs a side could not tell a change from the noise ($summary)" ;;
  *) echo "demo: FAIL — compare reports a regression or matched no point ($summary); see $out/compare*.txt"; exit 1 ;;
esac
