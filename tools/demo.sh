#!/usr/bin/env bash
# demo.sh — the default CPU study behind `make demo`: generate the particle images (once), then
# train the default U-Net on the CPU, printing progress and the final held-out IoU.
# Usage: tools/demo.sh [build-dir]
set -euo pipefail
build=${1:-build}
sb="$build/scalebench"
data=data/particles-seg-128.h5
mkdir -p data results/demo
if [ ! -f "$data" ]; then
  "$sb" datagen --task segmentation --n 2000 --size 128 --seed 1 -o "$data"
fi
"$sb" train --model unet:depth=4,base=16 --data "$data" --strategy single --epochs 4 --batch 8 \
  --lr 0.05 --warmup-epochs 0.25 --seed 1 2>&1 | tee results/demo/train-single.log
