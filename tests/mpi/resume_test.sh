#!/usr/bin/env bash
# resume_test.sh — checkpoints and resume (label mpi), against an uninterrupted run of the same
# configuration: 2 epochs x 6 steps.
#   equivalence STRATEGY NP : a run SIGKILLed after optimizer step 8 (SCALEBENCH_KILL_AFTER_STEP,
#                             checkpoints every 3 steps) and rerun (resume auto) ends with the
#                             reference's weights on every worker, bit for bit, and a run file whose
#                             steps (each once) and epochs carry the reference's losses and IoU.
#                             (ps-async with 1 worker: its pushes have one order, so it is exact too)
#   resumes STRATEGY NP     : for ps-async with 2+ workers, whose pushes arrive in the network's
#                             order (no run equals another bit for bit): the killed run resumes from
#                             step 6 and ends ok with every step once, both epochs, and the same
#                             final weights on every worker.
#   minutes STRATEGY NP     : time-based checkpoints (--checkpoint-minutes 1e-6: due after every
#                             step, decided on one rank's clock — rank 0, or the server — and
#                             agreed in the step's exchange): killed after step 8, rerun, resumes
#                             from a checkpoint past step 0 and ends like the uninterrupted run
#                             (ps-async with 2+ workers: whole and consistent, as for `resumes`).
#   crash PHASE             : a crash in PHASE of the step-6 checkpoint (SCALEBENCH_CHECKPOINT_CRASH)
#                             resumes from the previous complete one (step 3), and ends the same.
#   corrupt STRATEGY NP     : a flipped byte in the last rank's file of the newest checkpoint: that
#                             rank names the file and the checksum, all fall back to the previous
#                             checkpoint and end bit for bit as the uninterrupted run; with the
#                             previous one damaged too, the run is refused naming the reason.
#   mismatch                : a checkpoint of other options (--epochs 3) is refused, naming them.
#   finished                : a run that finished ok with --checkpoint-dir, run again, trains
#                             again (before: it "resumed" at its last step and recorded the old
#                             figures as ok); its checkpoint folder is gone once it is ok.
#   shared                  : one --config file with checkpoint_dir, two configurations (--lr):
#                             each keeps its own <run_id>.ckpt there — the second runs while the
#                             first's checkpoint waits (before: refused, "other options"), and the
#                             first then resumes from its own step 6 and ends as its reference.
#   segments STRATEGY NP    : checkpoint time is its own phase and a resumed run says so: every
#                             checkpoint write made 2 s slower (SCALEBENCH_CHECKPOINT_SLEEP_S),
#                             killed after step 8, rerun: /segments holds both launches (the second
#                             resumed from step 6), each step and epoch names its launch, the steps
#                             after which a checkpoint was written carry its time (t_checkpoint, not
#                             in t_total) and the epochs their sum (checkpoint_s), outside wall_s.
#   regenerated             : the data file regenerated at the same path between the kill and the
#                             rerun (96 -> 48 images; then the same size with other content): the
#                             rerun is another run — no resume, a run file of its own whose
#                             data_identity names the new file — and resuming the old checkpoint by
#                             name is refused, naming data_identity (before: resumed silently).
#   cuda STRATEGY NP        : equivalence on --backend cuda (exit 77, ctest's Skipped, without a GPU).
# Usage: resume_test.sh <scalebench> <case> [args]
set -uo pipefail
sb=$1; what=$2; shift 2
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
fail() { echo "FAIL: $*"; exit 1; }
"$sb" datagen --task segmentation --n 96 --size 32 --seed 5 -o "$tmp/data.h5" >/dev/null || fail datagen

strategy=single; np=1
launch() {  # the command line of one run of the strategy
  case $strategy in
    single) echo "$sb train --strategy single" ;;
    mirrored) echo "$sb train --strategy mirrored --devices $np" ;;
    hierarchical) echo "mpirun --oversubscribe -np $np $sb train --strategy hierarchical --ranks-per-node 2" ;;
    *) echo "mpirun --oversubscribe -np $np $sb train --strategy $strategy" ;;
  esac
}
common="--model unet:depth=2,base=4 --data $tmp/data.h5 --epochs 2 --batch 2 --max-steps 6 --lr 0.05
        --class-weights none --threads 1 --seed 7 --progress-seconds 1000"

reference() {
  $(launch) $common -o "$tmp/ref" --dump-weights "$tmp/ref.w" >"$tmp/ref.log" 2>&1 || { cat "$tmp/ref.log"; fail "reference run"; }
}
# Same options, checkpoints every 3 steps (or as $ckpt says); extra environment in $@.
ckpt="--checkpoint-every 3"
interrupted() {
  env "$@" $(launch) $common -o "$tmp/run" $ckpt >"$tmp/crash.log" 2>&1
  local rc=$?
  [ $rc -ne 0 ] || { cat "$tmp/crash.log"; fail "the interrupted run was not interrupted"; }
}
resumed() {
  $(launch) $common -o "$tmp/run" $ckpt --dump-weights "$tmp/run.w" >"$tmp/resume.log" 2>&1 \
    || { cat "$tmp/resume.log"; fail "the resumed run failed"; }
  grep -q "^resume: continuing from .*/step-0000000$1 " "$tmp/resume.log" \
    || { cat "$tmp/resume.log"; fail "did not resume from step $1"; }
}
same_as_reference() {
  local workers=$np
  for ((r = 0; r < workers; r++)); do
    [ -e "$tmp/ref.w.rank$r" ] || continue
    cmp -s "$tmp/ref.w.rank$r" "$tmp/run.w.rank$r" || fail "rank $r: final weights differ from the uninterrupted run"
  done
  /usr/bin/python3 - "$tmp/ref" "$tmp/run" <<'PY' || fail "the resumed run file differs from the reference"
import sys, glob, h5py, numpy as np
def load(d):
    (p,) = [f for f in glob.glob(d + "/*.h5")]
    return h5py.File(p, "r")
a, b = load(sys.argv[1]), load(sys.argv[2])
assert b.attrs["status"] == "ok", b.attrs["status"]
sa, sb_ = a["steps"][()], b["steps"][()]
assert len(sa) == len(sb_) == 12, (len(sa), len(sb_))
for k in ("epoch", "step", "loss"):
    assert np.array_equal(sa[k], sb_[k]), (k, sa[k], sb_[k])
ea, eb = a["epochs"][()], b["epochs"][()]
assert len(ea) == len(eb) == 2
for k in ("epoch", "images", "train_loss", "val_loss", "val_miou", "lr"):
    assert np.array_equal(ea[k], eb[k]), (k, ea[k], eb[k])
# The gradient noise scale: the resumed epoch's sums came through the checkpoint (NaN where the
# run cannot measure it, e.g. one replica without --accumulate).
for k in ("grad_noise_trace", "grad_sq_norm", "b_simple"):
    assert np.array_equal(ea[k], eb[k], equal_nan=True), (k, ea[k], eb[k])
print("ok: 12 steps and 2 epochs equal the uninterrupted run's (losses, IoU, LR, noise scale)")
PY
}

whole_and_consistent() {  # ps-async with 2+ workers: no reference to equal bit for bit
  for ((r = 1; r < np - 1; r++)); do
    cmp -s "$tmp/run.w.rank0" "$tmp/run.w.rank$r" || fail "rank $r: final weights differ from rank 0's"
  done
  /usr/bin/python3 - "$tmp/run" <<'PY' || fail "the resumed run file is not whole"
import sys, glob, h5py, numpy as np
(p,) = glob.glob(sys.argv[1] + "/*.h5")
f = h5py.File(p, "r")
assert f.attrs["status"] == "ok", f.attrs["status"]
s, e = f["steps"][()], f["epochs"][()]
want = [(ep, st) for ep in (1, 2) for st in range(1, 7)]
assert [(int(a), int(b)) for a, b in zip(s["epoch"], s["step"])] == want, (s["epoch"], s["step"])
assert np.isfinite(s["loss"]).all(), s["loss"]
assert list(e["epoch"]) == [1, 2], e["epoch"]
print("ok: 12 steps once each and 2 epochs")
PY
}

case $what in
  equivalence)
    strategy=$1; np=$2
    reference
    interrupted SCALEBENCH_KILL_AFTER_STEP=8
    resumed 006
    same_as_reference
    echo "ok: $strategy x$np resumed bit for bit"
    ;;
  resumes)
    strategy=$1; np=$2
    interrupted SCALEBENCH_KILL_AFTER_STEP=8
    ls "$tmp"/run/*.ckpt/step-0000000006/rank-$((np - 1)).bin >/dev/null || fail "no server file in the step-6 checkpoint"
    resumed 006
    whole_and_consistent
    echo "ok: $strategy x$np resumed from step 6 and finished"
    ;;
  minutes)
    strategy=$1; np=$2; ckpt="--checkpoint-minutes 1e-6"
    exact=1; [ "$strategy" = ps-async ] && [ "$np" -gt 2 ] && exact=0
    [ $exact = 1 ] && reference
    interrupted SCALEBENCH_KILL_AFTER_STEP=8
    resumed '00[1-9]'
    if [ $exact = 1 ]; then same_as_reference; else whole_and_consistent; fi
    echo "ok: $strategy x$np: $(grep -o 'continuing from .*/step-[0-9]*' "$tmp/resume.log" | sed 's|.*/||'), time-based"
    ;;
  cuda)
    strategy=$1; np=$2
    command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "SKIP: no GPU (nvidia-smi -L)"; exit 77; }
    common="$common --backend cuda --deterministic"
    reference
    interrupted SCALEBENCH_KILL_AFTER_STEP=8
    resumed 006
    same_as_reference
    echo "ok: $strategy x$np on cuda resumed bit for bit"
    ;;
  crash)
    phase=$1
    reference
    interrupted SCALEBENCH_CHECKPOINT_CRASH="$phase" SCALEBENCH_CHECKPOINT_CRASH_STEP=6
    resumed 003
    same_as_reference
    echo "ok: a crash in $phase of a checkpoint write resumed from the previous one"
    ;;
  corrupt)
    # A flipped byte in one rank's file of the newest checkpoint (step 6): that rank names the file and
    # the checksum, every rank falls back to the previous one (step 3) and the run ends as the
    # uninterrupted one did. With the previous one damaged too, the run is refused with the reason.
    strategy=$1; np=$2; bad=$((np - 1))
    reference
    interrupted SCALEBENCH_KILL_AFTER_STEP=8
    flip() { /usr/bin/python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[len(b)//2]^=0x10; open(p,'wb').write(b)" "$1"; }
    cp -r "$tmp/run" "$tmp/run.kept"
    f=$(ls "$tmp"/run/*.ckpt/step-0000000006/rank-$bad.bin) || fail "no checkpoint written"
    flip "$f"
    resumed 003
    grep -q "scalebench: resume: rank $bad: checkpoint .*step-0000000006/rank-$bad.bin: checksum mismatch" "$tmp/resume.log" \
      || { cat "$tmp/resume.log"; fail "the damaged file's reason was not printed"; }
    grep -q "^resume: .*step-0000000006 is not usable (rank $bad's file is damaged or missing" "$tmp/resume.log" \
      || { cat "$tmp/resume.log"; fail "the fall-back was not said"; }
    same_as_reference
    rm -rf "$tmp/run" && mv "$tmp/run.kept" "$tmp/run"
    flip "$(ls "$tmp"/run/*.ckpt/step-0000000006/rank-$bad.bin)"
    flip "$(ls "$tmp"/run/*.ckpt/step-0000000003/rank-$bad.bin)"
    $(launch) $common -o "$tmp/run" $ckpt >"$tmp/log" 2>&1 && { cat "$tmp/log"; fail "a damaged checkpoint was used"; }
    grep -q "scalebench: error: .*\(checksum mismatch\|no checkpoint every rank can read (2 tried\)" "$tmp/log" \
      || { cat "$tmp/log"; fail "unclear error"; }
    echo "ok: $strategy x$np: rank $bad's damaged file of step 6 named, resumed from step 3 bit for bit; both damaged: refused"
    ;;
  mismatch)
    interrupted SCALEBENCH_KILL_AFTER_STEP=8
    d=$(ls -d "$tmp"/run/*.ckpt) || fail "no checkpoint written"
    $(launch) ${common/--epochs 2/--epochs 3} -o "$tmp/other" --resume "$d" >"$tmp/log" 2>&1 && { cat "$tmp/log"; fail "other options resumed"; }
    grep -q "written by a run with other options: epochs 3 (checkpoint: 2)" "$tmp/log" || { cat "$tmp/log"; fail "unclear error"; }
    echo "ok: $(grep 'other options' "$tmp/log")"
    ;;
  segments)
    strategy=$1; np=$2
    export SCALEBENCH_CHECKPOINT_SLEEP_S=2
    interrupted SCALEBENCH_KILL_AFTER_STEP=8
    resumed 006
    unset SCALEBENCH_CHECKPOINT_SLEEP_S
    /usr/bin/python3 - "$tmp/run" <<'PY' || fail "the run file does not keep checkpoint time apart or its launches"
import sys, glob, h5py, numpy as np
(p,) = glob.glob(sys.argv[1] + "/*.h5")
f = h5py.File(p, "r")
s = lambda v: v.decode() if isinstance(v, bytes) else str(v)
assert s(f.attrs["status"]) == "ok", f.attrs["status"]
g = f["segments"][()]
assert list(g["segment"]) == [1, 2], g
assert s(g["resumed_from"][0]) == "" and s(g["resumed_from"][1]).endswith("/step-0000000006"), g["resumed_from"]
assert (int(g["first_epoch"][1]), int(g["first_step"][1]), int(g["first_global_step"][1])) == (1, 6, 6), g
st = f["steps"][()]
assert len(st) == 12, len(st)
assert list(st["segment"]) == [1] * 6 + [2] * 6, st["segment"]
# Launch 1 wrote after steps 3 and 6 (killed after 8), launch 2 after 9 and 12. The write a run
# resumed from (step 6) was being timed when its process died: 0.
written = [3, 9, 12]
for i, t in enumerate(st["t_checkpoint"]):
    assert (t >= 2.0) if i + 1 in written else (t == 0.0), (i + 1, st["t_checkpoint"])
total = st["t_data"] + st["t_fwd"] + st["t_bwd"] + st["t_comm_exposed"] + st["t_update"]
assert np.allclose(st["t_total"], total), "t_checkpoint is not a part of t_total"
e = f["epochs"][()]
assert list(e["segment"]) == [1, 2], e["segment"]
for k, ep in enumerate((1, 2)):
    mine = st["t_checkpoint"][st["epoch"] == ep]
    assert np.isclose(e["checkpoint_s"][k], mine.sum()), (ep, e["checkpoint_s"][k], mine)
    # 6 tiny steps against >= 2 s of checkpoint writes: a wall time holding the writes is above them.
    assert e["wall_s"][k] < e["checkpoint_s"][k], ("checkpoint time in wall_s", ep, e["wall_s"][k], e["checkpoint_s"][k])
    assert np.isclose(e["images_per_s"][k], e["images"][k] / e["wall_s"][k])
print("ok: 2 launches;", "t_checkpoint", [round(x, 2) for x in st["t_checkpoint"]], "epochs wall_s",
      [round(x, 3) for x in e["wall_s"]], "checkpoint_s", [round(x, 2) for x in e["checkpoint_s"]])
PY
    echo "ok: $strategy x$np: checkpoint time apart from training time, both launches recorded"
    ;;
  regenerated)
    interrupted SCALEBENCH_KILL_AFTER_STEP=8
    old=$(ls -d "$tmp"/run/*.ckpt) || fail "no checkpoint written"
    rerun() {  # the same command again, after the file was regenerated with: datagen $@
      "$sb" datagen --task segmentation --size 32 "$@" -o "$tmp/data.h5" >/dev/null || fail datagen
      $(launch) $common -o "$tmp/run" $ckpt >"$tmp/resume.log" 2>&1 || { cat "$tmp/resume.log"; fail "the rerun failed"; }
      grep -q "^resume:" "$tmp/resume.log" && { cat "$tmp/resume.log"; fail "resumed a checkpoint of another file ($*)"; }
    }
    rerun --n 48 --seed 5
    rerun --n 48 --seed 6
    /usr/bin/python3 - "$tmp/run" <<'PY' || fail "the reruns are not runs of their own"
import sys, glob, h5py
s = lambda v: v.decode() if isinstance(v, bytes) else str(v)
files = [h5py.File(p, "r") for p in glob.glob(sys.argv[1] + "/*.h5")]
ids = sorted(s(f["config"].attrs["data_identity"]) for f in files)
print("run files:", [(s(f.attrs["status"]), s(f["config"].attrs["data_identity"])) for f in files])
assert len(files) == 3 and len(set(ids)) == 3, ids  # the killed one and one per regenerated file
assert sum(i.startswith("96 x 1x32x32 segmentation, 3 classes, content ") for i in ids) == 1, ids
assert sum(i.startswith("48 x 1x32x32 segmentation, 3 classes, content ") for i in ids) == 2, ids
for f in files:
    if s(f.attrs["status"]) == "ok":
        assert len(f["steps"]) == 12 and list(f["segments"]["segment"]) == [1], s(f["config"].attrs["data_identity"])
PY
    $(launch) $common -o "$tmp/other" $ckpt --resume "$old" >"$tmp/log" 2>&1 && { cat "$tmp/log"; fail "another file's checkpoint resumed"; }
    grep -q "written by a run with other options: data_identity 48 x .* (checkpoint: 96 x " "$tmp/log" \
      || { cat "$tmp/log"; fail "unclear refusal"; }
    echo "ok: a regenerated file is another run; $(grep -o 'other options: data_identity.*' "$tmp/log" | cut -c1-60)..."
    ;;
  finished)
    ck="--checkpoint-dir $tmp/ck --checkpoint-every 3"
    $(launch) $common -o "$tmp/run" $ck >"$tmp/log1" 2>&1 || { cat "$tmp/log1"; fail "the first run"; }
    $(launch) $common -o "$tmp/run" $ck >"$tmp/log2" 2>&1 || { cat "$tmp/log2"; fail "the rerun"; }
    grep -q "^resume:" "$tmp/log2" && { cat "$tmp/log2"; fail "a finished run was resumed"; }
    [ "$(grep -c '^epoch [12]/2 ' "$tmp/log2")" = 2 ] || { cat "$tmp/log2"; fail "the rerun did not train both epochs"; }
    [ -z "$(ls -A "$tmp/ck" 2>/dev/null)" ] || { ls -R "$tmp/ck"; fail "a finished run left its checkpoint folder"; }
    echo "ok: a finished run's rerun trained again ($(grep -c '^epoch' "$tmp/log2") epoch lines, no resume)"
    ;;
  shared)
    printf 'checkpoint_dir = "%s"\ncheckpoint_every = 3\n' "$tmp/ck" >"$tmp/run.toml"
    $(launch) $common -o "$tmp/ref" --dump-weights "$tmp/ref.w" >"$tmp/ref.log" 2>&1 || { cat "$tmp/ref.log"; fail "reference run"; }
    env SCALEBENCH_KILL_AFTER_STEP=8 $(launch) $common --config "$tmp/run.toml" -o "$tmp/run" >"$tmp/crash.log" 2>&1 \
      && { cat "$tmp/crash.log"; fail "the interrupted run was not interrupted"; }
    $(launch) ${common/--lr 0.05/--lr 0.02} --config "$tmp/run.toml" -o "$tmp/other" >"$tmp/other.log" 2>&1 \
      || { cat "$tmp/other.log"; fail "another configuration sharing the checkpoint_dir did not run"; }
    grep -q "^resume:" "$tmp/other.log" && { cat "$tmp/other.log"; fail "another configuration resumed"; }
    $(launch) $common --config "$tmp/run.toml" -o "$tmp/run" --dump-weights "$tmp/run.w" >"$tmp/resume.log" 2>&1 \
      || { cat "$tmp/resume.log"; fail "the resumed run failed"; }
    grep -q "^resume: continuing from $tmp/ck/[0-9a-f]*\.ckpt/step-0000000006 " "$tmp/resume.log" \
      || { cat "$tmp/resume.log"; fail "did not resume from its own step 6 under $tmp/ck"; }
    same_as_reference
    echo "ok: two configurations shared one checkpoint_dir; the interrupted one resumed from its own folder"
    ;;
  *) fail "unknown case $what" ;;
esac
