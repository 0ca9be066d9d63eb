#!/usr/bin/env bash
# gpu-benchmarks.sh — the docs/gpu.md benchmark run, on a GPU machine from the repository root after a
# bundle was carried there (tools/gpu-bundle.sh ... sb_bench_gpu_model): our training step and
# PyTorch's (tools/torch_reference.py), same architectures and batch, one after the other in one
# session, so the ratios compare like with like. Prints markdown (per-layer tables included).
# Not here: multi-GPU runs (commbench, sweeps).
set -uo pipefail
source "$(dirname "$0")/../.gpu/env.sh"
B=/tmp/sb/bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for L in NCHW NHWC; do
  timeout 120 $B/sb_bench_gpu_model --model unet:depth=4,base=8 --channels 1 --size 128 --classes 3 --batch 32 --layout $L --layers
  timeout 150 $B/sb_bench_gpu_model --model vgg16 --channels 3 --size 224 --classes 1000 --batch 32 --layout $L --layers --steps 10
  for p in fp32 tf32 bf16; do
    timeout 60 python3 tools/torch_reference.py --model unet --spec unet:depth=4,base=8 --batch 32 --height 128 --width 128 \
      --channels 1 --classes 3 --precision $p --layout $L --steps 20
    timeout 90 python3 tools/torch_reference.py --model vgg16 --batch 32 --height 224 --width 224 --channels 3 --classes 1000 \
      --precision $p --layout $L --steps 10
  done
done
