#!/usr/bin/env bash
# gpu-check.sh — the one device check: run it first whenever a GPU is lent (docs/gpu.md, "The device
# check"). Two halves:
#   tools/gpu-check.sh bundle [BUILD]   here (CUDA build, no GPU needed): packs the gpu test programs,
#                                       scalebench and Open MPI's runtime into .gpu (gpu-bundle.sh --mpi)
#   tools/gpu-check.sh run [STEPS]      there, from the repository root with .gpu carried: the steps
#                                       below (a comma list of new,label,layers,bench,gap,sweep; default all)
#                                       within SB_CHECK_BUDGET_S seconds (default 540, one device call),
#                                       logs and the study file under $OUT (or gpu-check-out/), a
#                                       summary printed last
# The run, in order (each step under its own time limit, and none past the budget, so a hang costs
# that step only; a step the budget leaves no time for is reported as cut, never as passed):
#   0. new (at most 150 s): the newest GPU code first, alone, so its verdict comes back even if a
#      later step hangs: the trainer's step without allocation, host wait or descriptor once warm
#      (sb_test_gpu_train '*TrainStepSyncFree*'); our own batch norm and max pooling against the CPU
#      reference and cuDNN, and cuDNN's fused convolution + bias + ReLU against the separate path
#      (sb_test_gpu_kernels 'OwnBatchNorm*:OwnMaxPool*:*CudnnConvBiasRelu*'); sb_test_gpu_models
#      'ModelOwnKernels*:*_own_*:*StepGraph*:*StepNoAlloc*' (the leading * also matches the
#      parameterised cases, named Unet/StepGraphReplay.*, UnetAndVgg/StepNoAlloc.*); commbench's
#      NCCL tables, every collective, type and place (sb_test_gpu_comm 'NcclCommbench.*'); then
#      tests/train/cuda_graph_test.sh (ctest's
#      gpu.cuda_graph_train: train with the step captured equals eager training bit for bit, and
#      says whether the capture held or why it fell back);
#   1. label (at most 200 s): the whole gpu label (tools/gpu-label.sh): kernels, layers, steps (the
#      allocation-free step's counters included), NCCL, and the shared-rank cases
#      strategy.shared_gpu.np2-4 and resume.cuda_* (kill -9 and resume at N = 2);
#   L. layers (at most 60 s): the per-layer table of the default U-Net (batch norm and pooling) at
#      batch 32, bf16, NHWC then NCHW, with cuDNN's kernels and ours side by side (sb_bench_gpu_model
#      --layers --gpu-kernels cudnn,own): each layer's time, GB/s and its ratio to the memory
#      roofline (the issue's target for batch norm and pooling: at most 2);
#   2. bench (at most 280 s): tools/gpu-benchmarks.sh: ours, PyTorch eager and torch.compile on the
#      31 M U-Net (256x256), the default U-Net (128x128) and VGG16 (224x224) at batch 32,
#      fp32/tf32/bf16 x NCHW/NHWC, medians of 3, one table (torch.compile rows as time allows);
#   3. gap (at most 30 s): single against mirrored --devices 1, alternating, up to 3 rounds each;
#   4. sweep (what is left, if at least 60 s): studies/gpu-shared-check.toml (gpu-unet's strategies
#      and ps-sync at N = 1-4 on the one GPU), collected and reported. A second call with
#      `run sweep` runs it alone when the first had no time for it.
# What it deliberately does not do: build (the machine has no compiler for our libraries), or time
# scaling (ranks that share a GPU measure contention; the benchmarks are tools/gpu-benchmarks.sh's).
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
case $mode in
  bundle)
    build=${2:-build}
    exec tools/gpu-bundle.sh --mpi "$build" .gpu tests/sb_test_gpu_comm tests/sb_test_gpu_kernels \
      tests/sb_test_gpu_models tests/sb_test_gpu_strategy tests/sb_test_gpu_train sb_bench_gpu_model scalebench
    ;;
  run) steps=${2:-new,label,layers,bench,gap,sweep} ;;
  *) echo "usage: $0 bundle [BUILD] | run [new,label,layers,bench,gap,sweep]" >&2; exit 2 ;;
esac
for s in ${steps//,/ }; do
  [[ $s =~ ^(new|label|layers|bench|gap|sweep)$ ]] ||
    { echo "gpu-check: step '$s' is unknown (new, label, layers, bench, gap, sweep)" >&2; exit 2; }
done
wants() { [[ ,$steps, == *,$1,* ]]; }
budget=${SB_CHECK_BUDGET_S:-540}
limit() {  # CAP -> seconds for the next step: CAP, or what is left of the budget if less
  local left=$((budget - SECONDS))
  echo $((left < $1 ? left : $1))
}

out=${OUT:-gpu-check-out}
mkdir -p "$out"
source .gpu/env.sh >"$out/env.log" 2>&1 || { cat "$out/env.log"; exit 1; }
cat "$out/env.log"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
sb=/tmp/sb/bin/scalebench

# 0. The newest GPU code: its gtest cases, then train with the step captured against eager.
new_line="not asked for"
tn=$SECONDS
if wants new; then
  new_end=$((SECONDS + $(limit 150)))
  # One gtest program of the step, in what is left of its time; a part with no time left is reported cut.
  new_part() {  # NAME LOG BINARY FILTER
    if ((new_end - SECONDS > 5)); then  # timeout 0 would mean no limit at all
      timeout $((new_end - SECONDS)) "/tmp/sb/bin/$3" --gtest_filter="$4" >"$out/$2" 2>&1
      new_line+="$1: gtest rc $? ($(grep -E '^\[  (PASSED|FAILED) ' "$out/$2" | tr '\n' ' ')); "
    else
      new_line+="$1: cut, no time left in the step; "
    fi
  }
  new_line=""
  new_part sync-free new-sync-free.log sb_test_gpu_train '*TrainStepSyncFree*'
  new_part "own kernels" new-kernels.log sb_test_gpu_kernels 'OwnBatchNorm*:OwnMaxPool*:*CudnnConvBiasRelu*'
  new_part models new.log sb_test_gpu_models 'ModelOwnKernels*:*_own_*:*StepGraph*:*StepNoAlloc*'
  new_part commbench new-commbench.log sb_test_gpu_comm 'NcclCommbench.*'
  if ((new_end - SECONDS > 20)); then
    timeout $((new_end - SECONDS)) tests/train/cuda_graph_test.sh $sb >"$out/new-train.log" 2>&1
    new_line+="gpu.cuda_graph_train rc $?: $(tail -1 "$out/new-train.log")"
  fi
fi
t0=$SECONDS

# 1. The gpu label: ctest's own lines, and its closing counts for the summary.
label_rc=-
: >"$out/label-not-passed.txt"
if wants label; then
  timeout "$(limit 200)" tools/gpu-label.sh -j 4 >"$out/label.log" 2>&1
  label_rc=$?
  label_line=$(grep -E "tests passed|tests failed" "$out/label.log" | tail -1)
  grep -E "^ *[0-9]+/[0-9]+ Test .*(Failed|Timeout|Not Run|Skipped)" "$out/label.log" >"$out/label-not-passed.txt"
fi
t1=$SECONDS

# L. The per-layer tables, cuDNN's batch norm and pooling against ours, in one process a layout.
if wants layers; then
  layers_end=$((SECONDS + $(limit 60)))
  for L in NHWC NCHW; do
    ((layers_end - SECONDS > 10)) || { echo "layers $L: not started (budget)" >>"$out/layers.log"; continue; }
    timeout $((layers_end - SECONDS)) /tmp/sb/bin/sb_bench_gpu_model --model unet:depth=4,base=8 --channels 1 \
      --size 128 --classes 3 --batch 32 --layout $L --precisions bf16 --gpu-kernels cudnn,own --warmup 3 --steps 5 \
      --layers --layer-reps 5 >>"$out/layers.log" 2>&1 || echo "layers $L: rc $?" >>"$out/layers.log"
  done
fi
tl=$SECONDS

# 2. The benchmark table: ours, eager and torch.compile side by side (its own budget inside).
if wants bench; then
  b=$(limit 280)
  ((b > 30)) && timeout $((b + 10)) tools/gpu-benchmarks.sh "$out/bench" $b >"$out/bench.log" 2>&1
fi
tb=$SECONDS

# 3. The N = 1 gap: single and mirrored --devices 1 on the same data, alternating; images/s per run.
data=/tmp/gpu-check-data.h5
touch "$out/ab.txt"
ab() {  # strategy extra... -> images/s of one run (its run file's summary)
  local d
  d=$(mktemp -d)
  timeout 20 $sb train --model unet:depth=4,base=16 --data $data --backend cuda --precision bf16 --layout NHWC \
    --batch 32 --epochs 3 --progress-seconds 1000 --strategy "$@" -o "$d" >>"$out/ab.log" 2>&1 &&
    /usr/bin/python3 -c "import glob,h5py,sys; print(h5py.File(glob.glob(sys.argv[1]+'/*.h5')[0],'r')['summary'].attrs['images_per_s'])" "$d"
  rm -rf "$d"
}
if wants gap && (($(limit 30) > 15)); then
  gap_end=$((SECONDS + $(limit 30)))
  $sb datagen --task segmentation --n 2048 --size 128 --seed 1 -o $data >"$out/ab.log" 2>&1
  for round in 1 2 3; do
    ((SECONDS < gap_end)) || break
    echo "single $(ab single)" >>"$out/ab.txt"
    echo "mirrored1 $(ab mirrored --devices 1)" >>"$out/ab.txt"
  done
fi
t2=$SECONDS

# 4. The shared-GPU sweep: every point's run file, the study file and its report.
sweep_rc="cut: $(limit 240) s of the budget left (run sweep alone)"
wants sweep || sweep_rc="not asked for"
: >"$out/report.md"
if wants sweep && (($(limit 240) >= 60)); then
  rm -rf results/gpu-shared-check
  timeout "$(limit 240)" $sb sweep studies/gpu-shared-check.toml >"$out/sweep.log" 2>&1
  sweep_rc=$?
  $sb collect results/gpu-shared-check/ >>"$out/sweep.log" 2>&1 && cp results/gpu-shared-check/study.h5 "$out/"
  $sb report results/gpu-shared-check/study.h5 --format markdown >"$out/report.md" 2>&1
fi
t3=$SECONDS

echo
echo "== gpu-check summary ($(cut -d, -f1,2 "$out/gpu.txt" | head -1); steps $steps; $SECONDS s of a $budget s budget)"
echo "0. new ($((t0 - tn)) s): $new_line (new.log, new-train.log)"
echo "1. gpu label (rc $label_rc, $((t1 - t0)) s): ${label_line:-not run, or no closing line (label.log)}"
sed 's/^/   /' "$out/label-not-passed.txt"
echo "L. layers ($((tl - t1)) s): batch norm and pooling rows, cuDNN's then ours (layers.log has the whole tables)"
if [[ -s $out/layers.log ]]; then
  grep -E "^### |^\| [^|]*(bn|pool)[^|]* \||^layers " "$out/layers.log" | cut -c1-200 | sed 's/^/   /'
else
  echo "   not run"
fi
echo "2. bench ($((tb - tl)) s): ours / PyTorch eager / torch.compile, batch 32 (bench/table.md; logs in bench/)"
[[ -s $out/bench/table.md ]] && sed 's/^/   /' "$out/bench/table.md" || echo "   not run or no table (bench.log)"
/usr/bin/python3 - "$out/ab.txt" "$((t2 - tb))" <<'PY'
import sys, statistics as st
rows = {}
for line in open(sys.argv[1]):
    k, *v = line.split()
    if v:
        rows.setdefault(k, []).append(float(v[0]))
s, m = rows.get("single", []), rows.get("mirrored1", [])
if s and m:
    ratio = st.median(m) / st.median(s)
    print(f"3. N = 1 gap ({sys.argv[2]} s): single {st.median(s):.0f} img/s [{min(s):.0f}, {max(s):.0f}], "
          f"mirrored --devices 1 {st.median(m):.0f} [{min(m):.0f}, {max(m):.0f}]: ratio {ratio:.3f} ({len(s)}+{len(m)} runs)")
else:
    print("3. N = 1 gap: not run or no runs finished (ab.log)")
PY
echo "4. shared-GPU sweep (rc $sweep_rc, $((t3 - t2)) s): $(grep -c '' "$out/report.md") report lines; points:"
grep -E "^\| *(single|mirrored|multiworker|ring|hierarchical|ps-sync) " "$out/report.md" | cut -c1-160 | sed 's/^/   /'
