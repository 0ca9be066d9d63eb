#!/usr/bin/env bash
# cli_test.sh — end-to-end checks of the `scalebench` command line: bad input gives exactly one
# error line naming the problem and a non-zero exit; small real runs succeed and print their
# results; SIGUSR1 preempts a run (preempt_single). Usage: cli_test.sh
# <scalebench-binary> <case>. Needs /usr/bin/python3 with h5py for the cases that craft broken
# HDF5 files or read run files.
set -uo pipefail
sb=$1
case_name=$2
root=$(cd "$(dirname "$0")/../.." && pwd)  # the source tree (studies/, plots/)
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
    expect_error "--reference-kernels and --cpu-kernels blas" "$sb" train --data "$tmp/seg.h5" --reference-kernels --cpu-kernels blas
    expect_error "--cpu-kernels" "$sb" train --data "$tmp/seg.h5" --cpu-kernels mkl
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
with h5py.File(f"{d}/ext.h5", "w") as f:  # its samples in another, valid file
    with h5py.File(f"{d}/seg.h5", "r") as g:
        f.attrs.update(g.attrs)
    f["images"] = h5py.ExternalLink(f"{d}/seg.h5", "/images")
    f["labels"] = h5py.ExternalLink(f"{d}/seg.h5", "/labels")
shutil.copy(f"{d}/seg.h5", f"{d}/nanheldout.h5")  # 48 images, the last 5 held out
with h5py.File(f"{d}/nanheldout.h5", "r+") as f:
    img = f["images"][46]; img[0, 2, 3] = np.nan; f["images"][46] = img
shutil.copy(f"{d}/seg.h5", f"{d}/badshape.h5")
with h5py.File(f"{d}/badshape.h5", "r+") as f:
    del f["labels"]; f.create_dataset("labels", data=np.zeros((48, 16, 16), np.uint8))
PY
    expect_error "badlabel.h5" "$sb" train --data "$tmp/badlabel.h5"
    # A NaN in a held-out image: the run fails naming the sample (it was recorded ok with mIoU 0), and
    # its run file says failed.
    expect_error "nanheldout.h5: held-out sample 46 has a non-finite image element (nan at element 67)" \
      "$sb" train --data "$tmp/nanheldout.h5" --model unet:depth=2,base=4 --batch 4 --epochs 1 -o "$tmp/nanruns"
    /usr/bin/python3 -c "import h5py,glob,sys; f=h5py.File(glob.glob(sys.argv[1]+'/*.h5')[0]); sys.exit(f.attrs['status']!='failed')" \
      "$tmp/nanruns" || fail "the NaN held-out run is not recorded failed"
    expect_error "ext.h5: /images is an external link to $tmp/seg.h5:/images" "$sb" train --data "$tmp/ext.h5"
    expect_error "labels" "$sb" train --data "$tmp/badshape.h5"
    expect_error "unknown model 'resnet50'" "$sb" train --data "$tmp/seg.h5" --model resnet50
    expect_error "unknown option 'depht'" "$sb" train --data "$tmp/seg.h5" --model unet:depht=2
    expect_error "--batch: -4 is out of range" "$sb" train --data "$tmp/seg.h5" --batch -4
    # A command-line value error is bad input like any other: status 1 (CLI11's own would be 105/114).
    "$sb" train --data "$tmp/seg.h5" --batch abc 2>/dev/null; [ $? -eq 1 ] || fail "--batch abc: not exit status 1"
    # Control characters in a value stay one escaped line.
    expect_error 'dataset /nowhere/a\nb\x1b.h5: file not found' "$sb" train --data $'/nowhere/a\nb\x1b.h5'
    expect_error "--epochs: 0 is out of range" "$sb" train --data "$tmp/seg.h5" --epochs 0
    expect_error "--lr-scaling: 'cubic' is not one of: none, linear, sqrt" "$sb" train --data "$tmp/seg.h5" --lr-scaling cubic
    expect_error "divisible by 64" "$sb" train --data "$tmp/seg.h5" --model unet:depth=6
    expect_error "--precision: 'fp8' is not one of: fp32, tf32, bf16" "$sb" train --data "$tmp/seg.h5" --precision fp8
    expect_error "--precision bf16: not on --backend cpu (the CPU backend trains in fp32 only)" "$sb" train --data "$tmp/seg.h5" --precision bf16
    expect_error "--layout: 'NWHC' is not one of: NCHW, NHWC" "$sb" train --data "$tmp/seg.h5" --layout NWHC
    expect_error "--layout NHWC: not on --backend cpu" "$sb" train --data "$tmp/seg.h5" --layout NHWC
    expect_error "--deterministic: not on --backend cpu" "$sb" train --data "$tmp/seg.h5" --deterministic
    expect_error "--checkpoint-minutes needs a checkpoint folder" "$sb" train --data "$tmp/seg.h5" --checkpoint-minutes 5
    expect_error "--checkpoint-minutes: -1 must be >= 0" "$sb" train --data "$tmp/seg.h5" --checkpoint-minutes -1 -o "$tmp/r"
    expect_error "--cudnn-workspace-mib: not on --backend cpu" "$sb" train --data "$tmp/seg.h5" --cudnn-workspace-mib 4096
    expect_error "--gpu-kernels own: not on --backend cpu" "$sb" train --data "$tmp/seg.h5" --gpu-kernels own
    expect_error "--gpu-kernels: 'mine' is not one of: cudnn, own" "$sb" train --data "$tmp/seg.h5" --gpu-kernels mine
    expect_error "--reference-kernels: not on --backend cuda" "$sb" train --data "$tmp/seg.h5" --backend cuda --reference-kernels
    # commbench --transport nccl where there is no GPU: refused with one line (with a GPU: tests/gpu/comm).
    if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
      echo "ok: commbench --transport nccl not checked for refusal: a GPU is present (tests/gpu/comm runs it)"
    else
      expect_error "--transport nccl" "$sb" commbench --transport nccl --sizes 4K:8K
      # train --backend cuda likewise: a CPU-only build says it has no CUDA backend, a CUDA build on a
      # machine without a GPU that no device is visible (not the CUDA runtime's "driver version is
      # insufficient" from deep inside the first CUDA call).
      if [[ $("$sb" train --backend cuda --data "$tmp/seg.h5" 2>&1) == *"no CUDA backend"* ]]; then
        expect_error "--backend cuda: this build has no CUDA backend" "$sb" train --data "$tmp/seg.h5" --backend cuda
      else
        expect_error "--backend cuda: no CUDA device is visible to this process" "$sb" train --data "$tmp/seg.h5" --backend cuda
      fi
    fi
    expect_error "--cudnn-workspace-mib: -2 is out of range [-1, 1048576]" "$sb" train --data "$tmp/seg.h5" --cudnn-workspace-mib -2
    # CPU-only builds: no CUDA backend; CUDA builds without a GPU: no device (ps-* run on cuda, staged).
    expect_error "--backend cuda" "$sb" train --data "$tmp/seg.h5" --backend cuda --strategy ps-sync
    expect_error "--transport nccl needs --backend cuda" "$sb" train --data "$tmp/seg.h5" --strategy ring --transport nccl
    expect_error "--transport nccl: ps-async exchanges tagged messages" "$sb" train --data "$tmp/seg.h5" --backend cuda --strategy ps-async --transport nccl
    expect_error "'shm' is not one of: auto, nccl, staged" "$sb" train --data "$tmp/seg.h5" --transport shm
    expect_error "--devices: 65536 is out of range" "$sb" train --data "$tmp/seg.h5" --strategy mirrored --devices 65536
    expect_error "--seed: '-1' is not a non-negative integer" "$sb" train --data "$tmp/seg.h5" --seed -1
    expect_error "--devices 2 needs a one-process strategy" "$sb" train --data "$tmp/seg.h5" --devices 2
    expect_error "--data is required" "$sb" train
    # Checked before a thread per device is started (it used to start them first).
    expect_error "fewer than one global batch (4000 x 8)" "$sb" train --data "$tmp/seg.h5" --strategy mirrored --devices 4000
    # Checked before anything is sized for the batch (issue 48 case 5: --batch 100000 allocated 24 GB
    # first): under a 3 GiB address-space limit the refusal still comes, one line, at once.
    # (Not under ASan, which reserves terabytes of address space for its shadow memory.)
    limit="ulimit -v 3145728;"; ldd "$sb" 2>/dev/null | grep -q libasan && limit=""
    expect_error "fewer than one global batch (1 x 100000)" bash -c "$limit exec \"\$0\" train --data \"\$1\" --batch 100000" "$sb" "$tmp/seg.h5"
    # --config: every error names the file, line and key; a bad value is an error even where a flag wins.
    expect_error "--config $tmp/none.toml: cannot read" "$sb" train --data "$tmp/seg.h5" --config "$tmp/none.toml"
    # A folder where a file belongs is refused (std::ifstream alone read it as empty: the defaults trained).
    mkdir -p "$tmp/folder.toml"
    expect_error "--config $tmp/folder.toml: cannot read the file: Is a directory" "$sb" train --data "$tmp/seg.h5" --config "$tmp/folder.toml"
    expect_error "$tmp/folder.toml: cannot read the sweep spec: Is a directory" "$sb" sweep "$tmp/folder.toml" --dry-run
    printf 'epochs = [1\n' > "$tmp/syntax.toml"
    expect_error "$tmp/syntax.toml:1:" "$sb" train --data "$tmp/seg.h5" --config "$tmp/syntax.toml"
    printf 'batch = 4\nepochz = 3\n' > "$tmp/unknown.toml"
    expect_error "$tmp/unknown.toml:2:1: train.epochz: unknown key" "$sb" train --data "$tmp/seg.h5" --config "$tmp/unknown.toml"
    printf '[train]\nepochs = "three"\n' > "$tmp/type.toml"
    expect_error "$tmp/type.toml:2:10: train.epochs: expected an integer, got string" "$sb" train --data "$tmp/seg.h5" --config "$tmp/type.toml"
    printf '[train]\nepochs = 0\n' > "$tmp/value.toml"
    expect_error "$tmp/value.toml:2:10: train.epochs: 0 is out of range" "$sb" train --data "$tmp/seg.h5" --epochs 2 --config "$tmp/value.toml"
    printf 'epochs = 2\n[train]\nbatch = 4\n' > "$tmp/mixed.toml"
    expect_error "$tmp/mixed.toml:1:1: epochs: with a [train] table" "$sb" train --data "$tmp/seg.h5" --config "$tmp/mixed.toml"
    expect_error "--n" "$sb" datagen --n -5 -o "$tmp/x.h5"
    # project: the exchange's CPU is known only from a commbench file (its cpu_us)
    expect_error "--comm-cpu-shared needs the exchange's CPU cost" "$sb" project --trace "$tmp/none.json" --batch 8 --network 1gbe --comm-cpu-shared
    printf '{\n  "ranks": 2,\n  "results": [\n    {"algo": "ring", "bytes": 4096, "count": 1024, "time_us": 10.0},\n    {"algo": "ring", "bytes": 8192, "count": 2048, "time_us": 20.0}\n  ]\n}\n' > "$tmp/old-cb.json"
    expect_error "$tmp/old-cb.json has none" "$sb" project --trace "$tmp/none.json" --batch 8 --commbench "$tmp/old-cb.json" --comm-cpu-shared
    # NaN passed CLI11's ranges (issue 48, case 7): every number must be finite.
    expect_error "--intra-gbps: must be a finite number, not nan" "$sb" project --trace "$tmp/none.json" --batch 8 --network 1gbe --intra-gbps nan
    expect_error "--alpha-us: must be a finite number, not inf" "$sb" project --trace "$tmp/none.json" --batch 8 --alpha-us inf --gbps 1
    expect_error "--bucket-mb: 'nan' is not a finite number" "$sb" project --trace "$tmp/none.json" --batch 8 --network 1gbe --bucket-mb nan
    [ ! -e "$tmp/x.h5" ] || fail "a failed datagen left $tmp/x.h5 behind"
    # sweep: every model is built for the sweep's data shape before a dry run (or a point) starts —
    # the file's shape, or the recipe's when the data set is still to be generated (none is written).
    sweep_spec() {  # sweep_spec FILE MODEL DATASET-LINES
      printf '[study]\nname = "m"\noutput = "%s/study"\n[dataset]\n%s\n[sweep]\nmodels = ["%s"]\nstrategies = ["single"]\ndevices = [1]\nbatch = 4\n' \
        "$tmp" "$3" "$2" > "$1"
    }
    sweep_spec "$tmp/sw1.toml" "unet:depht=3" "path = \"$tmp/seg.h5\""
    expect_error "$tmp/sw1.toml: sweep.models: model spec 'unet:depht=3': unknown option 'depht'" "$sb" sweep "$tmp/sw1.toml" --dry-run
    sweep_spec "$tmp/sw2.toml" "unet:depth=6" $'task = "segmentation"\nn = 64\nsize = 32\nseed = 1'
    expect_error "divisible by 64" "$sb" sweep "$tmp/sw2.toml" --dry-run
    [ ! -e "$tmp/study/data" ] || fail "a refused sweep generated its data set"
    sweep_spec "$tmp/sw3.toml" "unet:depth=2" "path = \"$tmp/seg.h5\""
    "$sb" sweep "$tmp/sw3.toml" --dry-run >"$tmp/dry3" 2>&1 || { cat "$tmp/dry3"; fail "a good model was refused"; }
    ;;
  config_file)
    # train --config: flat keys and a [train] table both configure the run; flags given on the
    # command line win. --parse-only prints the effective options; a real run then trains as configured.
    small_seg
    printf 'model = "unet:depth=2,base=4"\nepochs = 1\nbatch = 4\nmax_steps = 2\nlr_scaling = "sqrt"\n' > "$tmp/flat.toml"
    printf '[train]\nmodel = "unet:depth=2,base=4"\nepochs = 1\nbatch = 4\nmax_steps = 2\nlr_scaling = "sqrt"\n' > "$tmp/table.toml"
    for f in flat table; do
      "$sb" --parse-only train --data "$tmp/seg.h5" --config "$tmp/$f.toml" --batch 2 >"$tmp/eff" 2>&1 || { cat "$tmp/eff"; fail "$f.toml rejected"; }
      grep -qx "epochs = 1" "$tmp/eff" || { cat "$tmp/eff"; fail "$f.toml: epochs not taken"; }
      grep -qx "lr_scaling = sqrt" "$tmp/eff" || { cat "$tmp/eff"; fail "$f.toml: lr_scaling not taken"; }
      grep -qx "batch = 2" "$tmp/eff" || { cat "$tmp/eff"; fail "$f.toml: the --batch flag did not win"; }
    done
    "$sb" train --data "$tmp/seg.h5" --config "$tmp/table.toml" -o "$tmp/runs" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "train --config"; }
    grep -q "epoch 1/1" "$tmp/out" || { cat "$tmp/out"; fail "the configured epochs did not run"; }
    /usr/bin/python3 - "$tmp/runs" <<'PY' || fail "the run file does not record the configured options"
import sys, glob, h5py
(path,) = glob.glob(sys.argv[1] + "/*.h5")
with h5py.File(path) as f:
    c = f["config"].attrs
    assert (c["epochs"], c["batch"], c["max_steps"], c["lr_scaling"]) == (1, 4, 2, "sqrt"), dict(c)
    assert f.attrs["status"] == "ok", f.attrs["status"]
print("ok: run file records epochs=1 batch=4 max_steps=2 lr_scaling=sqrt")
PY
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
  train_to_target)
    # --target-miou: the run stops after the step whose held-out check first reaches the target
    # (status ok; steps, epochs, images to target in /summary, and nothing trained past it); killed
    # after step 15 and resumed from its step-15 checkpoint it reaches it at the same step, with the
    # earlier launch's checks kept (they travel in the checkpoint); an unreachable target runs the
    # budget and records the best value and where; bad target options are one line each. ~4 s.
    small_seg
    args=(--data "$tmp/seg.h5" --model unet:depth=2,base=4 --epochs 6 --batch 4 --threads 1 --target-miou 0.2
          --eval-every-steps 3 --progress-seconds 1000 --checkpoint-every 5)
    "$sb" train "${args[@]}" -o "$tmp/whole" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "train to target"; }
    cat "$tmp/out"
    grep -qE "^  check at step [0-9]+ .*target reached, every worker stops here" "$tmp/out" || fail "no target line"
    SCALEBENCH_KILL_AFTER_STEP=15 "$sb" train "${args[@]}" -o "$tmp/resumed" >/dev/null 2>&1
    "$sb" train "${args[@]}" -o "$tmp/resumed" >"$tmp/out2" 2>&1 || { cat "$tmp/out2"; fail "resumed train to target"; }
    grep -q "^resume: continuing from .* (optimizer step 15)" "$tmp/out2" || { cat "$tmp/out2"; fail "did not resume"; }
    # A preemption landing on a check step (SIGTERM during it: SCALEBENCH_SIGNAL_IN_STEP) does not
    # lose that check: on step 3 (below the target) the run stops preempted with the check kept and
    # its rerun reaches the target at the uninterrupted step with the same checks; on the target's
    # own step the run ends ok there, not preempted. (Skipped, the check on step 3 was missing and
    # the target's step moved to a later check.)
    n=$(/usr/bin/python3 -c "import glob,h5py,sys; f=h5py.File(glob.glob(sys.argv[1]+'/*.h5')[0],'r'); \
print(int(f['summary'].attrs['steps_to_target']))" "$tmp/whole") || fail "no steps_to_target"
    (( n > 3 && n % 3 == 0 && n % 10 != 0 )) || fail "the target's step $n is not a mid-epoch check after step 3"
    rc=0; SCALEBENCH_SIGNAL_IN_STEP=3 "$sb" train "${args[@]}" -o "$tmp/on3" >"$tmp/out4" 2>&1 || rc=$?
    [ "$rc" = 75 ] || { cat "$tmp/out4"; fail "SIGTERM in step 3: exit $rc, not 75 (preempted)"; }
    grep -q "^  check at step 3 " "$tmp/out4" || { cat "$tmp/out4"; fail "the check of step 3 was skipped"; }
    "$sb" train "${args[@]}" -o "$tmp/on3" >"$tmp/out5" 2>&1 || { cat "$tmp/out5"; fail "rerun after step 3's preemption"; }
    rc=0; SCALEBENCH_SIGNAL_IN_STEP=$n "$sb" train "${args[@]}" -o "$tmp/onn" >"$tmp/out6" 2>&1 || rc=$?
    [ "$rc" = 0 ] || { cat "$tmp/out6"; fail "SIGTERM in the target's step $n: exit $rc, not 0 (target reached)"; }
    "$sb" train --data "$tmp/seg.h5" --model unet:depth=2,base=4 --epochs 2 --batch 4 --threads 1 --target-miou 0.99 \
      --eval-every-steps 3 --progress-seconds 1000 -o "$tmp/never" >"$tmp/out3" 2>&1 \
      || { cat "$tmp/out3"; fail "train to an unreachable target"; }
    /usr/bin/python3 - "$tmp" <<'PY' || fail "run files of the target runs"
import glob, math, sys, h5py
d = sys.argv[1]
def one(folder):
    (p,) = glob.glob(f"{d}/{folder}/*.h5")
    f = h5py.File(p, "r")
    return f.attrs["status"], dict(f["summary"].attrs), f["steps"][()], f["epochs"][()]
status, s, steps, epochs = one("whole")
assert status == "ok", status
assert s["target_reached"] == 1 and s["target_metric"] == "val_miou" and s["target_value"] == 0.2, s
n = int(s["steps_to_target"])
assert len(steps) == n, f"{len(steps)} steps recorded, target at step {n}: trained past it"
assert len(epochs) < 6, "ran the whole budget"
assert s["images_to_target"] == 4 * n and s["target_best_step"] >= n, s
assert abs(s["epochs_to_target"] - n / 10) < 1e-9, s  # 43 training samples: 10 steps per epoch
# One check every 3 steps but at an epoch's last step, where the epoch's close checks; the check
# that reached the target is one of them.
want = {g for g in range(3, n + 1, 3) if g % 10} | {10 * k for k in range(1, n // 10 + 1)} | {n}
assert s["target_checks"] == len(want), (s, sorted(want))
rstatus, r, rsteps, _ = one("resumed")
assert rstatus == "ok" and r["steps_to_target"] == n and r["target_checks"] == s["target_checks"], (r, s)
assert r["target_best"] == s["target_best"], (r, s)
for folder in ("on3", "onn"):  # preempted on a check step: the same checks and step to target
    pstatus, p, psteps, _ = one(folder)
    assert pstatus == "ok" and p["steps_to_target"] == n and len(psteps) == n, (folder, pstatus, p)
    assert p["target_checks"] == s["target_checks"] and p["target_best"] == s["target_best"], (folder, p, s)
nstatus, never, _, nep = one("never")
assert nstatus == "ok" and never["target_reached"] == 0 and len(nep) == 2, never
assert math.isnan(never["steps_to_target"]) and 0 < never["target_best"] < 0.99, never
assert never["target_best_step"] >= 1, never
print(f"ok: target at step {n} (whole and resumed), {int(s['target_checks'])} checks; unreachable: best",
      f"{never['target_best']:.3f} at step {int(never['target_best_step'])}")
PY
    expect_error "--eval-every-steps 5 needs --target-miou or --target-accuracy" "$sb" train --data "$tmp/seg.h5" \
      --eval-every-steps 5
    expect_error "--target-miou: 1.5 must be in [0, 1]" "$sb" train --data "$tmp/seg.h5" --target-miou 1.5
    expect_error "--target-accuracy 0.5: $tmp/seg.h5 holds segmentation data, whose target is its mIoU; use --target-miou" \
      "$sb" train --data "$tmp/seg.h5" --model unet:depth=2,base=4 --target-accuracy 0.5
    ;;
  train_vgg_small)
    "$sb" datagen --task classification --n 96 --size 32 --seed 4 -o "$tmp/cls.h5" >/dev/null || fail datagen
    "$sb" train --data "$tmp/cls.h5" --model vgg11:width=0.0625,hidden=16,bn=1 --epochs 2 --batch 8 \
      --optimizer adamw --lr 0.001 >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "train exited non-zero"; }
    cat "$tmp/out"
    grep -q "^final: held-out accuracy " "$tmp/out" || fail "no final accuracy line"
    ;;
  preempt_single)
    # SIGUSR1 to a run after its first epoch: it stops after its current step, marks
    # its run file preempted (finished epochs kept, the unfinished epoch's steps in /steps) and
    # exits 75. Bounded waits only; nothing depends on how fast the machine is.
    "$sb" datagen --task segmentation --n 200 --size 32 --seed 3 -o "$tmp/seg.h5" >/dev/null || fail datagen
    "$sb" train --data "$tmp/seg.h5" --model unet:depth=2,base=8 --epochs 500 --batch 4 --threads 1 \
      --progress-seconds 1000 -o "$tmp/runs" >"$tmp/out" 2>&1 &
    pid=$!
    for _ in $(seq 1200); do grep -q "^epoch 1/500 " "$tmp/out" && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    grep -q "^epoch 1/500 " "$tmp/out" || { kill -9 $pid; cat "$tmp/out"; fail "no epoch 1 line within 120 s"; }
    kill -USR1 $pid
    for _ in $(seq 600); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    kill -0 $pid 2>/dev/null && { kill -9 $pid; cat "$tmp/out"; fail "still running 60 s after SIGUSR1"; }
    wait $pid; rc=$?
    cat "$tmp/out"
    [ $rc -eq 75 ] || fail "exit $rc after SIGUSR1, expected 75"
    grep -qE "^preempted: SIGUSR1 at epoch [0-9]+ step [0-9]+ of 45(;| \(epoch complete\);) run file marked preempted" \
      "$tmp/out" || fail "no preempted line"
    grep -q "^final:" "$tmp/out" && fail "a preempted run printed final results"
    /usr/bin/python3 - "$tmp/runs" <<'PY' || fail "the run file does not record the preemption"
import glob, sys, h5py
(path,) = glob.glob(sys.argv[1] + "/*.h5")
s = lambda v: v.decode() if isinstance(v, bytes) else str(v)
with h5py.File(path, "r") as f:
    status, error = s(f.attrs["status"]), s(f.attrs["error"])
    epochs, steps = f["epochs"][()], f["steps"][()]
print(f"run file: status {status}, error '{error}', {len(epochs)} epochs, {len(steps)} steps")
assert status == "preempted", status
assert error.startswith("preempted by SIGUSR1 at epoch "), error
assert len(epochs) >= 1 and len(steps) == 45 * len(epochs) + int(error.split(" step ")[1].split()[0]) % 45, "steps lost"
last = int(error.split("at epoch ")[1].split()[0])
assert steps["epoch"][-1] == last, (steps["epoch"][-1], last)
PY
    # The readers treat it as a run that did not end ok, and say why.
    "$sb" collect "$tmp" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "collect"; }
    grep -q "(0 ok, 1 not ok)" "$tmp/log" || { cat "$tmp/log"; fail "collect counted a preempted run as ok"; }
    "$sb" report "$tmp/study.h5" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "report"; }
    grep -q " 0/1 *- *preempted ([0-9]*/500 epochs): preempted by SIGUSR1 at epoch " "$tmp/log" \
      || { cat "$tmp/log"; fail "report does not show the point as preempted"; }
    ;;
  shipped_studies)
    # Every study shipped in studies/ parses and expands into points (GPU studies too: a dry run
    # needs no device), locally and, for the GPU study, as Slurm scripts for the generic GPU profile.
    cd "$tmp" || fail "cd $tmp"
    for spec in "$root"/studies/*.toml; do
      "$sb" sweep "$spec" --dry-run > "$tmp/dry.out" 2>&1 || { cat "$tmp/dry.out"; fail "dry run of $spec"; }
      grep -q "points" "$tmp/dry.out" || fail "no points listed for $spec"
      echo "ok: $(basename "$spec"): $(head -1 "$tmp/dry.out")"
    done
    "$sb" sweep "$root/studies/gpu-unet.toml" --dry-run --launcher slurm \
      --profile "$root/slurm/profiles/generic-gpu.toml" > "$tmp/dry.out" 2>&1 || { cat "$tmp/dry.out"; fail "slurm dry run"; }
    grep -q "#SBATCH --gpus-per-node=4" "$tmp"/results/gpu-unet/slurm/07-*.sbatch || fail "GPU script lacks --gpus-per-node"
    echo "ok: gpu-unet Slurm scripts"
    ;;
  project_end_to_end)
    # A real N = 1 run's trace -> `project` -> a study file that report, compare and the projection
    # plot read (docs/projection.md). Every strategy, weak and strong, N = 1, 2, 4. The batch and
    # model come from the trace (a contradicting --batch is refused), and so do the report's hosts
    # and commit.
    small_seg
    "$sb" train --data "$tmp/seg.h5" --model unet:depth=2,base=4 --batch 4 --epochs 1 --max-steps 4 \
      --trace "$tmp/n1.json" -o "$tmp/runs" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "train --trace"; }
    "$sb" project --trace "$tmp/n1.json" --network 1gbe --max-devices 4 \
      -o "$tmp/p.h5" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "project"; }
    grep -q "project: 24 predictions -> $tmp/p.h5" "$tmp/out" || { cat "$tmp/out"; fail "project did not write 24 rows"; }
    for s in ring hierarchical multiworker ps-sync; do  # multiworker: the library's own allreduce ("native")
      grep -Eq "^ *$s +weak +4 " "$tmp/out" || { cat "$tmp/out"; fail "no $s weak N = 4 row"; }
    done
    # Weak and strong rows make it a swept study: one compact table by default, the tables with --full.
    "$sb" report "$tmp/p.h5" >"$tmp/rep" 2>&1 || { cat "$tmp/rep"; fail "report of a projection"; }
    grep -Eq "^== unet:depth=2,base=4: points \(weak, strong scaling\)" "$tmp/rep" || { cat "$tmp/rep"; fail "report of a projection is not compact"; }
    "$sb" report --full "$tmp/p.h5" >"$tmp/repfull" 2>&1 || { cat "$tmp/repfull"; fail "report --full of a projection"; }
    grep -Eq "^== unet:depth=2,base=4 - ring - .*\(weak scaling\)$" "$tmp/repfull" || { cat "$tmp/repfull"; fail "report --full lacks the ring weak table"; }
    grep -Eq "^  hosts +$(hostname)$" "$tmp/rep" || { cat "$tmp/rep"; fail "report of a projection lacks the traced run's host"; }
    grep -Eq "^  commit +[0-9a-f]{40}|^  commit +unknown" "$tmp/rep" || { cat "$tmp/rep"; fail "report of a projection lacks the commit"; }
    # The same predictions on both sides: every value equal, so "ok" (exit 0) though one row a point.
    "$sb" compare "$tmp/p.h5" "$tmp/p.h5" >"$tmp/cmp" 2>&1 || { cat "$tmp/cmp"; fail "compare of a projection with itself"; }
    grep -q "24 points matched: 0 regressions" "$tmp/cmp" || { cat "$tmp/cmp"; fail "compare did not match 24 points"; }
    /usr/bin/python3 "$root/plots/projection.py" "$tmp/p.h5" -o "$tmp/figs" >"$tmp/plot" 2>&1 \
      || { cat "$tmp/plot"; fail "plots/projection.py"; }
    [ -s "$tmp/figs/projection.png" ] || fail "no projection.png"
    expect_error "--network: 5gbe not in" "$sb" project --trace "$tmp/n1.json" --batch 4 --network 5gbe
    expect_error "--batch 8 contradicts --trace $tmp/n1.json, whose run trained 4 images" "$sb" project --trace "$tmp/n1.json" --batch 8 --network 1gbe
    echo "ok: train --trace -> project -> report, compare, projection.png"
    ;;
  cpu_runtime)
    # The CPU libraries' set-up (kernels/cpu/runtime_env.h, blas_core.h, blas_threads.h): the run
    # file's context says which OpenBLAS core type ran and why (a core type the user set wins; a
    # parent's choice is re-checked against this CPU), the thread pools' idle waits, and the thread budget
    # taken from the affinity mask; a costly choice (OPENBLAS_CORETYPE=Prescott on a CPU with AVX, --threads
    # 2 on one CPU) runs with one warning line, kept in the context's cpu_warnings.
    small_seg
    context_of() {  # context_of <runs dir> <attribute>: a context attribute of its one run file
      /usr/bin/python3 - "$1" "$2" <<'PY' || fail "could not read $2 from $1"
import glob, sys, h5py
files = glob.glob(sys.argv[1] + "/*.h5")
assert len(files) == 1, files
with h5py.File(files[0], "r") as f:
    v = f["context"].attrs[sys.argv[2]]
print(v.decode() if isinstance(v, bytes) else v)
PY
    }
    core_of() { context_of "$1" blas_core; }
    run_small() {  # run_small <runs dir> [env assignments...]
      local out=$1; shift
      env "$@" "$sb" train --data "$tmp/seg.h5" --model unet:depth=2,base=4 --epochs 1 --batch 4 --max-steps 2 \
        -o "$out" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "train exited non-zero ($*)"; }
    }
    flags=$(grep -m1 '^flags' /proc/cpuinfo)
    has() { for f in "$@"; do [[ " $flags " == *" $f "* ]] || return 1; done; }
    run_small "$tmp/r1" -u OPENBLAS_CORETYPE
    got=$(core_of "$tmp/r1"); echo "ok: default: $got"
    if has avx512f avx512cd avx512bw avx512dq avx512vl; then
      [[ "$got" =~ ^(SkylakeX|Cooperlake|SapphireRapids)\  ]] || fail "an AVX-512 CPU ran '$got'"
    elif has avx2 fma; then
      [[ "$got" =~ ^(Haswell|Zen|SkylakeX|Cooperlake|SapphireRapids)\  ]] || fail "an AVX2 CPU ran '$got'"
    fi
    grep -q "^train: warning" "$tmp/out" && fail "a warning for the default set-up: $(grep '^train: warning' "$tmp/out")"
    [ -z "$(context_of "$tmp/r1" cpu_warnings)" ] || fail "cpu_warnings not empty for the default set-up"
    run_small "$tmp/r2" OPENBLAS_CORETYPE=Prescott
    got=$(core_of "$tmp/r2"); echo "ok: user's choice: $got"
    [ "$got" = "Prescott (OPENBLAS_CORETYPE=Prescott set by the user)" ] || fail "the user's core type was not kept: '$got'"
    # A legitimate but costly choice: kept, with one warning line and the same words in the context.
    if has avx; then
      [ "$(grep -c '^train: warning' "$tmp/out")" = 1 ] || { cat "$tmp/out"; fail "expected one warning line for Prescott"; }
      line=$(grep '^train: warning' "$tmp/out"); echo "ok: $line"
      [[ "$line" == "train: warning: OpenBLAS runs its SSE kernels, Prescott (OPENBLAS_CORETYPE=Prescott set by the user), on a CPU with "* ]] \
        || fail "the Prescott warning: '$line'"
      [ "$(context_of "$tmp/r2" cpu_warnings)" = "${line#train: warning: }" ] || fail "cpu_warnings does not keep the warning"
    fi
    # As if a parent on an SSE-only CPU had chosen Prescott: this CPU decides again.
    run_small "$tmp/r3" OPENBLAS_CORETYPE=Prescott SCALEBENCH_BLAS_CORE=Prescott
    got=$(core_of "$tmp/r3"); echo "ok: inherited choice: $got"
    if has avx512f avx512cd avx512bw avx512dq avx512vl; then
      [[ "$got" == "SkylakeX (chosen by scalebench from the CPU flags)" ]] || fail "an inherited choice was not re-checked: '$got'"
    fi
    got=$(context_of "$tmp/r1" thread_budget); echo "ok: $got"
    [[ "$got" == *"; OpenMP OMP_WAIT_POLICY=ACTIVE GOMP_SPINCOUNT=10000 (set by scalebench); OpenBLAS OPENBLAS_THREAD_TIMEOUT=4 (set by scalebench)" ]] \
      || fail "the waits were not set: '$got'"
    run_small "$tmp/r4" OMP_WAIT_POLICY=active
    got=$(context_of "$tmp/r4" thread_budget); echo "ok: $got"
    [[ "$got" == *"; OpenMP OMP_WAIT_POLICY=active (set by the user); OpenBLAS OPENBLAS_THREAD_TIMEOUT=4 (set by scalebench)" ]] \
      || fail "the user's policy: '$got'"
    # One CPU in the affinity mask: one thread, whatever the machine's core count.
    taskset -c 0 "$sb" train --data "$tmp/seg.h5" --model unet:depth=2,base=4 --epochs 1 \
      --batch 4 --max-steps 2 -o "$tmp/r6" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "train under taskset"; }
    got=$(context_of "$tmp/r6" thread_budget); echo "ok: taskset -c 0: $got"
    [[ "$got" == "1 thread per rank for OpenBLAS, oneDNN and the memory-bound layers; this process may use 1 CPU (0);"* ]] \
      || fail "the budget ignored the affinity mask: '$got'"
    grep -q "^train: warning" "$tmp/out" && fail "a warning for 1 thread on 1 CPU"
    # --threads 2 on a mask of one CPU: runs, with one warning line kept in the context.
    taskset -c 0 "$sb" train --data "$tmp/seg.h5" --model unet:depth=2,base=4 --epochs 1 --threads 2 \
      --batch 4 --max-steps 2 -o "$tmp/r7" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "train --threads 2 under taskset"; }
    [ "$(grep -c '^train: warning' "$tmp/out")" = 1 ] || { cat "$tmp/out"; fail "expected one oversubscription warning"; }
    line=$(grep '^train: warning' "$tmp/out"); echo "ok: $line"
    [[ "$line" == "train: warning: 1 rank x 2 threads on 1 CPU of "*": the threads outnumber the cores"* ]] \
      || fail "the oversubscription warning: '$line'"
    [ "$(context_of "$tmp/r7" cpu_warnings)" = "${line#train: warning: }" ] || fail "cpu_warnings does not keep the warning"
    ;;
  demo_gate)
    # Issue 47: the demo's gate (tools/demo_gate.sh) on a machine type its shipped baseline was not
    # recorded on. One small real run, copied six times with known images/s (h5py): "here" as run;
    # "shipped" the same six with another host fingerprint; "fast" this machine type at twice the
    # speed. First gate: quality compared, no timing verdict and one line why, and this machine
    # type's baseline recorded (one line where). Next gate, with that baseline made twice as fast:
    # timing against it, and the slowdown on a known machine type is a REGRESSION, exit 1. ~10 s.
    small_seg
    "$sb" train --data "$tmp/seg.h5" --model unet:depth=2,base=4 --epochs 1 --batch 4 --threads 1 --max-steps 2 \
      -o "$tmp/one" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "train"; }
    /usr/bin/python3 - "$tmp" <<'PY' || fail "python3/h5py could not make the studies"
import sys, glob, os, shutil, h5py
d = sys.argv[1]
src = glob.glob(f"{d}/one/*.h5")[0]
for name, scale, fp in (("here", 1, None), ("shipped", 1, "0badf00d"), ("fast", 2, None)):
    os.makedirs(f"{d}/{name}/runs")
    for i in range(6):
        dst = f"{d}/{name}/runs/r{i}.h5"
        shutil.copy(src, dst)
        with h5py.File(dst, "r+") as f:
            f["config"].attrs["run_id"] = f"{name}{i:014d}"  # six runs, not six copies of one (collect counts a copy once)
            f["config"].attrs["repetition"] = i + 1
            f["summary"].attrs["images_per_s"] = scale * (100.0 + i)
            f["summary"].attrs["epoch_time_s"] = 1000.0 / (scale * (100.0 + i))
            if fp:
                f["context"].attrs["host_fingerprint"] = fp
PY
    for s in here shipped fast; do "$sb" collect "$tmp/$s" >/dev/null || fail "collect $s"; done
    fp=$(/usr/bin/python3 -c 'import h5py, sys; print(h5py.File(sys.argv[1])["context"].attrs["host_fingerprint"])' \
           "$tmp/here/runs/r0.h5")
    [[ "$fp" =~ ^[0-9a-f]{8}$ ]] || fail "no host fingerprint in the run file: '$fp'"
    mkdir -p "$tmp/bl" && cp "$tmp/shipped/study.h5" "$tmp/bl/cpu-demo.h5"
    local_base="$tmp/bl/cpu-demo.$fp.h5"
    gate() { "$root/tools/demo_gate.sh" "$sb" "$tmp/here/study.h5" "$tmp/bl/cpu-demo.h5" "$tmp/here" "$tmp/bl" \
               >"$tmp/gate.out" 2>&1; echo $?; }
    rc=$(gate); cat "$tmp/gate.out"
    [ "$rc" = 0 ] || fail "first gate on a new machine type: exit $rc, want 0"
    [ "$(grep -c "^compare: 1 point ran on another machine type (host fingerprint 0badf00d -> $fp;.*timing not compared" \
        "$tmp/gate.out")" = 1 ] || fail "not one line saying why timing was not compared"
    grep -q "final_val_loss" "$tmp/here/compare.txt" || fail "quality was not compared against the shipped baseline"
    ! grep -qE "images_per_s|epoch_time_s" "$tmp/here/compare.txt" || fail "a timing verdict across machine types"
    [ "$(grep -c "recorded as $local_base" "$tmp/gate.out")" = 1 ] || fail "no one line saying where the baseline went"
    [ -f "$local_base" ] || fail "no baseline recorded at $local_base"
    cp "$tmp/fast/study.h5" "$local_base"
    rc=$(gate); cat "$tmp/gate.out"
    grep -q "^demo: timing against $local_base" "$tmp/gate.out" || fail "the next gate did not use $local_base"
    [ "$rc" = 1 ] || fail "a slowdown on a known machine type: exit $rc, want 1"
    grep -qE "images_per_s .*REGRESSION" "$tmp/here/compare-machine.txt" || fail "the slowdown was not a REGRESSION"
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo "PASS $case_name"
