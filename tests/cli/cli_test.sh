#!/usr/bin/env bash
# cli_test.sh — end-to-end checks of the `scalebench` command line: bad input gives exactly one
# error line naming the problem and a non-zero exit; small real runs succeed and print their
# results. Usage: cli_test.sh <scalebench-binary> <case>. Needs /usr/bin/python3 with h5py for
# the cases that craft broken HDF5 files.
set -uo pipefail
sb=$1
case_name=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*"; exit 1; }

# expect_error "<substring>" cmd... — non-zero exit, exactly one stderr line, containing substring.
expect_error() {
  local want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ $rc -ne 0 ] || fail "expected a non-zero exit from: $*"
  local lines
  lines=$(grep -c . "$tmp/err")
  [ "$lines" -eq 1 ] || { cat "$tmp/err"; fail "expected one error line, got $lines from: $*"; }
  grep -qF -- "$want" "$tmp/err" || { cat "$tmp/err"; fail "error line lacks '$want' for: $*"; }
  echo "ok: $(cat "$tmp/err")"
}

small_seg() { "$sb" datagen --task segmentation --n 48 --size 32 --seed 3 -o "$tmp/seg.h5" >/dev/null || fail datagen; }

case "$case_name" in
  bad_inputs)
    small_seg
    expect_error "$tmp/missing.h5" "$sb" train --data "$tmp/missing.h5"
    head -c $(( $(stat -c %s "$tmp/seg.h5") / 2 )) "$tmp/seg.h5" > "$tmp/truncated.h5"
    expect_error "truncated.h5" "$sb" train --data "$tmp/truncated.h5"
    head -c 100000 /dev/urandom > "$tmp/corrupt.h5"
    expect_error "corrupt.h5" "$sb" train --data "$tmp/corrupt.h5"
    /usr/bin/python3 - "$tmp" <<'PY' || fail "python3/h5py could not craft the bad files"
import sys, shutil, h5py, numpy as np
d = sys.argv[1]
shutil.copy(f"{d}/seg.h5", f"{d}/badlabel.h5")
with h5py.File(f"{d}/badlabel.h5", "r+") as f:
    lab = f["labels"][7]; lab[3, 4] = 9; f["labels"][7] = lab
shutil.copy(f"{d}/seg.h5", f"{d}/badshape.h5")
with h5py.File(f"{d}/badshape.h5", "r+") as f:
    del f["labels"]; f.create_dataset("labels", data=np.zeros((48, 16, 16), np.uint8))
PY
    expect_error "badlabel.h5" "$sb" train --data "$tmp/badlabel.h5"
    expect_error "labels" "$sb" train --data "$tmp/badshape.h5"
    expect_error "unknown model 'resnet50'" "$sb" train --data "$tmp/seg.h5" --model resnet50
    expect_error "unknown option 'depht'" "$sb" train --data "$tmp/seg.h5" --model unet:depht=2
    expect_error "--batch" "$sb" train --data "$tmp/seg.h5" --batch -4
    expect_error "--epochs" "$sb" train --data "$tmp/seg.h5" --epochs 0
    expect_error "--lr-scaling" "$sb" train --data "$tmp/seg.h5" --lr-scaling cubic
    expect_error "divisible by 64" "$sb" train --data "$tmp/seg.h5" --model unet:depth=6
    expect_error "--n" "$sb" datagen --n -5 -o "$tmp/x.h5"
    [ ! -e "$tmp/x.h5" ] || fail "a failed datagen left $tmp/x.h5 behind"
    ;;
  train_unet_small)
    small_seg
    "$sb" train --data "$tmp/seg.h5" --model unet:depth=2,base=4 --epochs 2 --batch 4 --lr 0.05 >"$tmp/out" 2>&1 \
      || { cat "$tmp/out"; fail "train exited non-zero"; }
    cat "$tmp/out"
    grep -q "^epoch 2/2 " "$tmp/out" || fail "no progress line for epoch 2"
    grep -q "^final: held-out mean non-background IoU " "$tmp/out" || fail "no final IoU line"
    # It must learn: the epoch-2 training loss is below epoch 1's.
    awk '/^epoch 1\/2 /{a=$4} /^epoch 2\/2 /{b=$4} END{exit !(a>0 && b<a)}' "$tmp/out" || fail "training loss did not fall"
    ;;
  train_vgg_small)
    "$sb" datagen --task classification --n 96 --size 32 --seed 4 -o "$tmp/cls.h5" >/dev/null || fail datagen
    "$sb" train --data "$tmp/cls.h5" --model vgg11:width=0.0625,hidden=16,bn=1 --epochs 2 --batch 8 \
      --optimizer adamw --lr 0.001 >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "train exited non-zero"; }
    cat "$tmp/out"
    grep -q "^final: held-out accuracy " "$tmp/out" || fail "no final accuracy line"
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo "PASS $case_name"
