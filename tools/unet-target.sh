#!/usr/bin/env bash
# unet-target.sh — the default U-Net (unet:depth=4,base=8) trained on the CPU to the accuracy
# target of docs/results-cpu.md: 8000 generated 128×128 particle images (7200 train / 800 held
# out), 2 epochs, SGD lr 0.05 with a 0.1-epoch warm-up and cosine decay. Prints one line per epoch
# and the final held-out IoU; records the run under results/unet-target/runs/.
# Usage: tools/unet-target.sh [build-dir]
set -euo pipefail
build=${1:-build}
sb="$build/scalebench"
data=data/particles-seg-128-n8000.h5
mkdir -p data results/unet-target/runs
if [ ! -f "$data" ]; then
  "$sb" datagen --task segmentation --n 8000 --size 128 --seed 1 -o "$data"
fi
start=$(date +%s)
"$sb" train --model unet:depth=4,base=8 --data "$data" --strategy single --epochs 2 --batch 8 \
  --lr 0.05 --warmup-epochs 0.1 --seed 1 --progress-seconds 60 -o results/unet-target/runs 2>&1 \
  | tee results/unet-target/train.log
echo "unet-target: trained in $(( $(date +%s) - start )) s; log in results/unet-target/train.log"
