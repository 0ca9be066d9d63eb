#!/usr/bin/env bash
# gpu-check.sh — the one device check: run it first whenever a GPU is lent (docs/gpu.md, "The device
# check"). Two halves:
#   tools/gpu-check.sh bundle [BUILD]   here (CUDA build, no GPU needed): packs the gpu test programs,
#                                       scalebench and Open MPI's runtime into .gpu (gpu-bundle.sh --mpi)
#   tools/gpu-check.sh run              there, from the repository root with .gpu carried, in about
#                                       8 minutes on one H100: every step below, logs and the study file
#                                       under $OUT (or gpu-check-out/), a summary table printed last
# The run, in order (each step under its own time limit, so a hang costs that step only):
#   1. the whole gpu label (tools/gpu-label.sh): kernels, layers, steps, NCCL, and the shared-rank
#      cases strategy.shared_gpu.np2-4 (every strategy at N = 2, 3, 4 on the one GPU through the
#      staged transport) and resume.cuda_* (kill -9 and resume at N = 2);
#   2. single against mirrored --devices 1, alternating, 5 rounds each (the N = 1 gap, issue 44);
#   3. a sweep of studies/gpu-shared-check.toml (gpu-unet's strategies and ps-sync at N = 1-4 on the
#      one GPU), collected and reported.
# What it deliberately does not do: build (the machine has no compiler for our libraries), or time
# scaling (ranks that share a GPU measure contention; the benchmarks are tools/gpu-benchmarks.sh's).
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
case $mode in
  bundle)
    build=${2:-build}
    exec tools/gpu-bundle.sh --mpi "$build" .gpu tests/sb_test_gpu_comm tests/sb_test_gpu_kernels \
      tests/sb_test_gpu_models tests/sb_test_gpu_strategy sb_bench_gpu_model scalebench
    ;;
  run) ;;
  *) echo "usage: $0 bundle [BUILD] | run" >&2; exit 2 ;;
esac

out=${OUT:-gpu-check-out}
mkdir -p "$out"
source .gpu/env.sh >"$out/env.log" 2>&1 || { cat "$out/env.log"; exit 1; }
cat "$out/env.log"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
sb=/tmp/sb/bin/scalebench
t0=$SECONDS

# 1. The gpu label: ctest's own lines, and its closing counts for the summary.
timeout 330 tools/gpu-label.sh -j 4 >"$out/label.log" 2>&1
label_rc=$?
label_line=$(grep -E "tests passed|tests failed" "$out/label.log" | tail -1)
grep -E "^ *[0-9]+/[0-9]+ Test .*(Failed|Timeout|Not Run|Skipped)" "$out/label.log" >"$out/label-not-passed.txt"
t1=$SECONDS

# 2. The N = 1 gap: single and mirrored --devices 1 on the same data, alternating; images/s per run.
data=/tmp/gpu-check-data.h5
$sb datagen --task segmentation --n 2048 --size 128 --seed 1 -o $data >"$out/ab.log" 2>&1
ab() {  # strategy extra... -> images/s of one run (its run file's summary)
  local d
  d=$(mktemp -d)
  timeout 60 $sb train --model unet:depth=4,base=16 --data $data --backend cuda --precision bf16 --layout NHWC \
    --batch 32 --epochs 3 --progress-seconds 1000 --strategy "$@" -o "$d" >>"$out/ab.log" 2>&1 &&
    /usr/bin/python3 -c "import glob,h5py,sys; print(h5py.File(glob.glob(sys.argv[1]+'/*.h5')[0],'r')['summary'].attrs['images_per_s'])" "$d"
  rm -rf "$d"
}
for round in 1 2 3 4 5; do
  echo "single $(ab single)" >>"$out/ab.txt"
  echo "mirrored1 $(ab mirrored --devices 1)" >>"$out/ab.txt"
done
t2=$SECONDS

# 3. The shared-GPU sweep: every point's run file, the study file and its report.
rm -rf results/gpu-shared-check
timeout 240 $sb sweep studies/gpu-shared-check.toml >"$out/sweep.log" 2>&1
sweep_rc=$?
$sb collect results/gpu-shared-check/ >>"$out/sweep.log" 2>&1 && cp results/gpu-shared-check/study.h5 "$out/"
$sb report results/gpu-shared-check/study.h5 --format markdown >"$out/report.md" 2>&1
t3=$SECONDS

echo
echo "== gpu-check summary ($(cut -d, -f1,2 "$out/gpu.txt" | head -1))"
echo "1. gpu label (rc $label_rc, $((t1 - t0)) s): ${label_line:-no closing line, see label.log}"
sed 's/^/   /' "$out/label-not-passed.txt"
/usr/bin/python3 - "$out/ab.txt" "$((t2 - t1))" <<'PY'
import sys, statistics as st
rows = {}
for line in open(sys.argv[1]):
    k, *v = line.split()
    if v:
        rows.setdefault(k, []).append(float(v[0]))
s, m = rows.get("single", []), rows.get("mirrored1", [])
if s and m:
    ratio = st.median(m) / st.median(s)
    print(f"2. N = 1 gap ({sys.argv[2]} s): single {st.median(s):.0f} img/s [{min(s):.0f}, {max(s):.0f}], "
          f"mirrored --devices 1 {st.median(m):.0f} [{min(m):.0f}, {max(m):.0f}]: ratio {ratio:.3f} ({len(s)}+{len(m)} runs)")
else:
    print("2. N = 1 gap: no runs finished, see ab.log")
PY
echo "3. shared-GPU sweep (rc $sweep_rc, $((t3 - t2)) s): $(grep -c '' "$out/report.md") report lines; points:"
grep -E "^\| *(single|mirrored|multiworker|ring|hierarchical|ps-sync) " "$out/report.md" | cut -c1-160 | sed 's/^/   /'
