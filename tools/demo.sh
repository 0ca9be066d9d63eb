#!/usr/bin/env bash
# demo.sh — the default CPU scaling study behind `make demo` (studies/cpu-demo.toml): a U-Net on
# generated particle images under single, mirrored, multiworker, ring and ps-sync at N = 1, 2; then
# the study file, a collective benchmark, the plots, the report, and a comparison against the
# baseline committed from this machine type (results/baselines/cpu-demo.h5).
# A rerun skips the points already ok. Usage: tools/demo.sh [build-dir]
set -euo pipefail
build=${1:-build}
sb="$(cd "$build" && pwd)/scalebench"
out=results/cpu-demo
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
start=$(date +%s)

echo "== demo: sweep studies/cpu-demo.toml"
"$sb" sweep studies/cpu-demo.toml || echo "demo: some points failed (see the report below)"

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

# The demo's gate compares only what a shared machine cannot move: the trained model's validation
# loss and mIoU (the runs are seeded and deterministic) and peak memory. Every timing metric
# (images/s, epoch time, TFLOP/s, efficiency, exposed communication) and MFU (divided by an sgemm peak
# measured at start-up, itself timing) swings by tens of percent when other jobs share the cores, so
# here they are left to the report above, not judged; a timing gate needs a quiet machine and repetitions
# (docs/sweep-spec.md, "Collect, report, compare").
echo "== demo: compare against results/baselines/cpu-demo.h5 (recorded on a 2-core cpp-kernels machine; timings are in the report above, not gated)"
timing_off=()
for m in images_per_s epoch_time_s efficiency tflops mfu exposed_comm_frac; do timing_off+=(--threshold "$m=off"); done
if "$sb" compare results/baselines/cpu-demo.h5 "$out/study.h5" "${timing_off[@]}"; then
  echo "demo: no regression against the baseline in validation loss, mIoU or memory"
else
  echo "demo: the comparison flags regressions or matched no point (see above)"
fi
echo "demo: done in $(( $(date +%s) - start )) s — results in $out/ (study.h5, runs/, plots/)"
