#!/usr/bin/env bash
# make_samples.sh — regenerates the committed sample files from real (tiny) runs of the binary.
# Usage, from the repository root: results/samples/make_samples.sh build/scalebench
# Produces results/samples/runs/*.h5 and results/samples/study.h5; the generated datasets are
# deleted afterwards (they are inputs, not samples).
set -euo pipefail
sb=$(realpath "${1:?usage: make_samples.sh <scalebench binary>}")
cd "$(dirname "$0")/../.."
out=results/samples
rm -rf "$out/runs" "$out/study.h5" "$out/data"

# 1. The sweep: unet single N=1 (ok, two repetitions) and mirrored N=1, 2 (failed today).
"$sb" sweep "$out/samples.toml" || true

# 2. A classification run (VGG) recorded into the same study.
"$sb" datagen --task classification --n 96 --size 32 --seed 4 -o "$out/data/cls.h5"
"$sb" train --data "$out/data/cls.h5" --model vgg11:width=0.0625,hidden=16,bn=1 --epochs 3 --batch 8 \
  --optimizer adamw --lr 0.001 --threads 1 --study samples -o "$out/runs"

# 3. A run killed with SIGKILL after two epochs: status running, its finished epochs kept.
seg=$(ls "$out"/data/segmentation-*.h5)
"$sb" train --data "$seg" --model unet:depth=2,base=4 --epochs 100 --batch 4 --threads 1 --seed 7 \
  --study samples -o "$out/runs" > /dev/null &
pid=$!
until /usr/bin/python3 - "$out/runs" <<'PY'
import glob, sys, h5py
for p in glob.glob(sys.argv[1] + "/*.h5"):
    with h5py.File(p, "r") as f:
        if f["config"].attrs["seed"] == 7 and len(f["epochs"]) >= 2:
            sys.exit(0)
sys.exit(1)
PY
do sleep 0.2; done
kill -9 $pid
wait $pid || true

"$sb" collect "$out"
rm -f "$out/study.toml"  # the sweep's copy of samples.toml
rm -rf "$out/data"
ls -l "$out/runs" "$out/study.h5"
