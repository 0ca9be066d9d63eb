#!/usr/bin/env bash
# cuda_graph_test.sh SCALEBENCH — `train --cuda-graph` end to end on the cuda backend (docs/gpu.md,
# "The captured step"): a U-Net with batch norm trained with the step captured and replayed equals
# the same run with eager steps bit for bit (--deterministic): every step's loss (read one step late
# in the graph run), the epochs' losses and IoU, the final weights; the graph run's context says it
# replayed, and it printed no warning. Exit 77 (ctest's Skipped) without a GPU: never a pass.
# Not here: timing (tools/gpu-check.sh measures), the graph's fallbacks (sb_test_gpu_models).
set -uo pipefail
sb=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "SKIP: no GPU (nvidia-smi -L)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
timeout 60 "$sb" datagen --task segmentation --n 96 --size 32 --seed 3 -o "$tmp/data.h5" >"$tmp/datagen.log" 2>&1 ||
  { cat "$tmp/datagen.log"; fail "datagen"; }
common="--model unet:depth=2,base=4,bn=1 --data $tmp/data.h5 --backend cuda --deterministic --epochs 2 --batch 8
        --lr 0.05 --class-weights none --seed 7 --progress-seconds 1000"
for mode in off on; do
  timeout 120 "$sb" train $common --cuda-graph $mode -o "$tmp/$mode" --dump-weights "$tmp/$mode.w" >"$tmp/$mode.log" 2>&1 ||
    { cat "$tmp/$mode.log"; fail "train --cuda-graph $mode"; }
done
if grep -q "warning: --cuda-graph" "$tmp/on.log"; then cat "$tmp/on.log"; fail "--cuda-graph on fell back"; fi
cmp -s "$tmp/off.w.rank0" "$tmp/on.w.rank0" || fail "final weights differ between --cuda-graph off and on"
/usr/bin/python3 - "$tmp/off" "$tmp/on" <<'PY' || fail "the graph run's file differs from the eager run's"
import sys, glob, h5py, numpy as np
def load(d):
    (p,) = glob.glob(d + "/*.h5")
    return h5py.File(p, "r")
a, b = load(sys.argv[1]), load(sys.argv[2])
assert b.attrs["status"] == "ok", b.attrs["status"]
note = b["context"].attrs["cuda_graph"]
note = note.decode() if isinstance(note, bytes) else str(note)
assert note.startswith("replayed"), note
off = a["context"].attrs["cuda_graph"]
off = off.decode() if isinstance(off, bytes) else str(off)
assert off.startswith("eager: --cuda-graph off"), off
sa, sb_ = a["steps"][()], b["steps"][()]
assert len(sa) == len(sb_) > 4, (len(sa), len(sb_))
for k in ("epoch", "step", "loss"):
    assert np.array_equal(sa[k], sb_[k]), (k, sa[k], sb_[k])
ea, eb = a["epochs"][()], b["epochs"][()]
for k in ("train_loss", "val_loss", "val_miou"):
    assert np.array_equal(ea[k], eb[k]), (k, ea[k], eb[k])
print(f"ok: {len(sa)} steps equal the eager run's; context: {note}")
PY
