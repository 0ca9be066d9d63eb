#!/usr/bin/env bash
# gpu-benchmarks.sh — the docs/gpu.md benchmark run, on a GPU machine from the repository root after a
# bundle was carried there (tools/gpu-bundle.sh ... sb_bench_gpu_model; tools/gpu-check.sh run calls
# it): our training step (sb_bench_gpu_model) and PyTorch's (tools/torch_reference.py: eager, then
# torch.compile) on the same architectures (parameter counts checked equal), batch 32, fp32/tf32/bf16
# x NCHW/NHWC, three repetitions a row and their medians, one after the other in one session, so the
# ratios compare like with like. Then one markdown table (tools/gpu_bench_table.py).
#   tools/gpu-benchmarks.sh [OUTDIR] [SECONDS]     (default gpu-bench-out, 300)
# SECONDS bounds the whole run: ours and eager for every row first (the comparison the issue's
# targets are about), then torch.compile's bf16 rows (default mode, then max-autotune) while time is
# left; a row not started in time is listed as such, never left out silently. Estimated on one H100
# (not yet measured): ours about 120 s (cuDNN's Find included), eager about 130 s, each torch.compile
# row 30-60 s of compilation (max-autotune more), so a 280 s budget gets few compiled rows: give the
# step more (tools/gpu-benchmarks.sh OUT 500 alone) for the whole compiled set.
# Per-layer tables: sb_bench_gpu_model --layers (not here: they double the time).
# Not here: multi-GPU runs (commbench, sweeps), building anything, installing torch (the machine's own).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-gpu-bench-out}
budget=${2:-300}
mkdir -p "$out"
[[ -n ${LD_LIBRARY_PATH:-} && -x /tmp/sb/bin/sb_bench_gpu_model ]] || source .gpu/env.sh >/dev/null
B=/tmp/sb/bin
start=$SECONDS
left() { echo $((budget - (SECONDS - start))); }
# The rows: name, our model spec, channels, side, classes, timed steps a repetition. Written once here.
ROWS=(
  "unet-31M unet:depth=4,base=64 1 256 3 4"
  "unet-default unet:depth=4,base=8 1 128 3 15"
  "vgg16 vgg16 3 224 1000 4"
)
torch_row() {  # name spec channels side classes steps compile-list precisions layouts deadline
  local name=$1 spec=$2 ch=$3 side=$4 cls=$5 steps=$6 params
  params=$(grep -ohE "params [0-9]+" "$out/ours-$name-"*.log 2>/dev/null | head -1 | cut -d' ' -f2)
  timeout "${10}" python3 tools/torch_reference.py --model "${spec%%:*}" --spec "$spec" --batch 32 --height "$side" \
    --width "$side" --channels "$ch" --classes "$cls" --precision "$8" --layout "$9" --compile "$7" \
    --steps "$steps" --warmup 3 --reps 3 ${params:+--expect-params $params} --deadline-s "$(( ${10} - 20 ))" \
    --json "$out/torch.jsonl" >>"$out/torch-$name.log" 2>&1 || echo "torch $7 $name: rc $? (see torch-$name.log)" >>"$out/torch-$name.log"
}
# 1. Ours, every row: both layouts, three precisions a process.
for r in "${ROWS[@]}"; do
  read -r name spec ch side cls steps <<<"$r"
  for L in NCHW NHWC; do
    t=$(left); (( t > 10 )) || { echo "ours $name $L: not started (budget)" >>"$out/ours-$name-$L.log"; continue; }
    timeout $(( t < 75 ? t : 75 )) $B/sb_bench_gpu_model --model "$spec" --channels "$ch" --size "$side" \
      --classes "$cls" --batch 32 --layout $L --precisions fp32,tf32,bf16 --warmup 3 --steps "$steps" --reps 3 \
      >"$out/ours-$name-$L.log" 2>&1 || echo "ours $name $L: rc $?" >>"$out/ours-$name-$L.log"
  done
done
# 2. PyTorch eager, every row; 3. torch.compile on the bf16 rows, default then max-autotune.
for r in "${ROWS[@]}"; do
  read -r name spec ch side cls steps <<<"$r"
  t=$(left); (( t > 10 )) && torch_row $name $spec $ch $side $cls $steps none fp32,tf32,bf16 NCHW,NHWC $(( t < 90 ? t : 90 ))
done
for mode in default max-autotune; do
  for r in "${ROWS[@]}"; do
    read -r name spec ch side cls steps <<<"$r"
    t=$(left)
    if (( t > 30 )); then torch_row $name $spec $ch $side $cls $steps $mode bf16 NHWC,NCHW $t
    else echo "torch $mode $name bf16: not started (budget)" >>"$out/torch-$name.log"; fi
  done
done
python3 tools/gpu_bench_table.py "$out" | tee "$out/table.md"
