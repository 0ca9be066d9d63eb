#!/usr/bin/env bash
# strategy_test.sh — the distributed strategies against single-device training (label mpi).
#   equivalence N MODEL : after one step, k = N workers × batch b equal 1 worker × batch N·b for
#                         every synchronous strategy (and ps-sync) within 1e-5 of the update;
#                         after 3 steps every worker holds bit-identical weights.
#   accumulate N MODEL  : gradient accumulation: after one step, single with --accumulate 2 --batch N·b
#                         and every strategy at N workers with --accumulate 2 --batch b equal single
#                         with batch 2·N·b within 1e-5 of the update.
#   sync_bn N MODEL     : synchronised batch norm on a model WITH batch norm: after one step, every
#                         allreduce strategy at N workers × batch b with --sync-bn equals single with
#                         batch N·b within 1e-5 of the update, and its workers are bit-identical after
#                         3 steps; at N >= 2 the same run without --sync-bn must NOT match (so the
#                         comparison can fail); single --sync-bn is bit-identical to single (no-op);
#                         ps-sync --sync-bn is refused with one line.
#   ps_async            : ps-async trains (loss falls) and reports the staleness it saw, at most its
#                         bound, and the delay beside it.
#   mismatch            : a configuration that differs across ranks stops before the first collective.
#   errors_once         : an error every rank reaches alike (a configuration mismatch among 3 ranks, a
#                         bad option before MPI starts, a missing data file after) is printed once per
#                         job, not once per rank, and exits non-zero (~5 s).
#   dead_rank           : SIGKILL of one of 4 training ranks ends the job with an error naming it, < 60 s.
#   nonfinite_fail      : a diverging run (lr 1e30) under every strategy ends within 30 s (no hang:
#                         the parameter servers used to wait forever) with a line naming the rank,
#                         step and what was not finite, and a failed run file (not ok).
#   nonfinite_skip      : a dataset with one NaN image: --on-nonfinite skip --check-inputs skips the
#                         steps that hold it on every worker (no update anywhere) and the run ends ok
#                         with the same weights on every worker and finite batch-norm statistics
#                         (ring and single); the default (fail) stops the run.
#   cuda MODEL          : the training features on --backend cuda against the CPU reference, after one
#                         step within 1e-3 of the update (a GPU model step's tolerance): sgd, lars and
#                         lamb (in L2 norm) at batch 2b; --accumulate 2 at batch b against the same on
#                         the CPU; mirrored
#                         --devices 1 --sync-bn (statistics through the NCCL group's ReplicaSum)
#                         against the CPU's single. MODEL must have batch norm. Exit 77 (ctest's
#                         Skipped) without a GPU or without the CUDA backend.
#   target              : --target-miou 0.15 with --eval-every-steps 2 (U-Net, 2 workers x batch 2
#                         against single at batch 4; held-out mIoU 0.086 at step 8, 0.193 at 10): mirrored, multiworker, ring and hierarchical each end ok
#                         with every worker stopped after the same step (bit-identical final weights),
#                         no step recorded past the target, and the target reached at single's step;
#                         without a check reaching the target the weights are those of the same run
#                         without one (mirrored; a check never changes training); ps-sync and
#                         ps-async end ok at their target step too (the workers' end takes the
#                         next push's place), ps-sync's at single's step, with identical workers,
#                         and ps-sync with a stop signal agreed on that check's step too. ~18 s.
#   staged N MODEL      : --transport staged on the CPU (device buffers through host blocks, plain
#                         copies: harness/comm/staged.h) trains every strategy bit for bit as the
#                         host transport does (3 steps; ring with bf16 on the wire too), says so once,
#                         and records the transport in the run file; ps-async runs through it.
#   shared_gpu N MODEL  : gpu label. N ranks (mirrored: replicas) on ONE GPU, which NCCL refuses, so
#                         the staged transport (auto): mirrored, multiworker, ring, hierarchical and
#                         ps-sync after one step equal single with the global batch within 1e-3 of the
#                         update, ranks bit-identical after 3; the run file says gpu_shared. At N = 2
#                         also: overlap off = on bit for bit, many buckets, bf16 on the wire lowers
#                         the loss, --sync-bn (a bn=1 model), --accumulate 2, ps-async trains, one
#                         rank's NaN input stops every rank naming it. Exit 77 without a GPU.
#   slurm_ranks         : under a Slurm step (SCALEBENCH_LAUNCHER=srun) whose SLURM_PROCID / SLURM_NTASKS
#                         disagree with MPI, every rank stops with one line naming the variable.
#   thread_budget       : the default --threads 0 per rank from the ranks' affinity masks (taskset per
#                         rank): ranks on CPUs of their own keep them all, ranks on the same CPUs
#                         divide them, one rank alone takes all; the run file's rank_threads names
#                         each rank's threads and CPUs; 2 ranks pinned to one CPU warn once, and
#                         cpu_warnings keeps the line. ~15 s.
# Usage: strategy_test.sh <scalebench> <case> [args]
set -uo pipefail
sb=$1; what=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpi=(mpirun --oversubscribe)
fail() { echo "FAIL: $*"; exit 1; }
cmp_py() { /usr/bin/python3 "$here/compare_weights.py" "$@"; }
strategy_cmd() {  # strategy, workers → cmd: how a synchronous strategy (or ps-sync) runs N workers
  case $1 in
    mirrored) cmd=("$sb" train --strategy mirrored --devices "$2") ;;
    ps-sync) cmd=("${mpi[@]}" -np $(($2 + 1)) "$sb" train --strategy ps-sync) ;;
    hierarchical) cmd=("${mpi[@]}" -np "$2" "$sb" train --strategy hierarchical --ranks-per-node 2) ;;
    *) cmd=("${mpi[@]}" -np "$2" "$sb" train --strategy "$1") ;;
  esac
}

data_for() {  # model → dataset
  case $1 in
    unet*) "$sb" datagen --task segmentation --n 64 --size 32 --seed 5 -o "$tmp/data.h5" >/dev/null ;;
    vgg*) "$sb" datagen --task classification --n 64 --size 32 --seed 5 -o "$tmp/data.h5" >/dev/null ;;
  esac || fail "datagen"
}

case $what in
  equivalence)
    n=$1; model=$2; b=2
    data_for "$model"
    # lr 0.1 on few steps so the update is large against float rounding; class weights none: a
    # weighted mean normalises per replica (as in DDP), which is not the global-batch loss.
    common=(--model "$model" --data "$tmp/data.h5" --epochs 1 --lr 0.1 --class-weights none --threads 1
            --val-fraction 0.1 --seed 11 --progress-seconds 1000)
    "$sb" train "${common[@]}" --batch $((n * b)) --max-steps 1 --dump-weights "$tmp/single" >/dev/null \
      || fail "single"
    for s in mirrored multiworker ring hierarchical ps-sync; do
      strategy_cmd "$s" "$n"
      "${cmd[@]}" "${common[@]}" --batch $b --max-steps 1 --dump-weights "$tmp/$s-1" >"$tmp/log" 2>&1 \
        || { cat "$tmp/log"; fail "$s N=$n one step"; }
      cmp_py close "$tmp/single.init.rank0" "$tmp/single.rank0" "$tmp/$s-1.rank0" --rtol 1e-5 || fail "$s N=$n != single"
      "${cmd[@]}" "${common[@]}" --batch $b --max-steps 3 --dump-weights "$tmp/$s-3" >"$tmp/log" 2>&1 \
        || { cat "$tmp/log"; fail "$s N=$n three steps"; }
      ranks=()
      for ((r = 0; r < n; r++)); do ranks+=("$tmp/$s-3.rank$r"); done
      [ ${#ranks[@]} -le 1 ] || cmp_py identical "${ranks[@]}" || fail "$s N=$n ranks differ"
    done
    ;;
  target)
    model="unet:depth=2,base=4,bn=0"
    data_for "$model"
    common=(--model "$model" --data "$tmp/data.h5" --epochs 8 --lr 0.1 --threads 1
            --val-fraction 0.1 --seed 11 --progress-seconds 1000 --eval-every-steps 2)
    step_of() {  # run folder -> "steps_to_target rows_in_steps"
      /usr/bin/python3 -c "import glob,h5py,sys; f=h5py.File(glob.glob(sys.argv[1]+'/*.h5')[0],'r'); \
assert f.attrs['status']=='ok', f.attrs['status']; s=f['summary'].attrs; assert s['target_reached']==1, dict(s); \
assert s['target_metric']=='val_miou', dict(s); assert s['target_best_step']>=s['steps_to_target'], dict(s); \
print(int(s['steps_to_target']), len(f['steps']), int(s['target_best_step']))" "$1"
    }
    "$sb" train "${common[@]}" --batch 4 --target-miou 0.15 -o "$tmp/single" >"$tmp/log" 2>&1 \
      || { cat "$tmp/log"; fail "single to target"; }
    out=$(step_of "$tmp/single") || fail "single: no target step"
    read -r want rows _ <<<"$out"
    [ "$want" = "$rows" ] || fail "single: target at step $want but $rows steps recorded"
    echo "single: target at step $want"
    for st in mirrored multiworker ring hierarchical; do
      strategy_cmd "$st" 2
      "${cmd[@]}" "${common[@]}" --batch 2 --target-miou 0.15 --dump-weights "$tmp/$st" -o "$tmp/$st" >"$tmp/log" \
        2>&1 || { cat "$tmp/log"; fail "$st to target"; }
      out=$(step_of "$tmp/$st") || fail "$st: no target step"
      read -r got rows _ <<<"$out"
      [ "$got" = "$want" ] && [ "$rows" = "$want" ] || fail "$st: target at step $got ($rows recorded), single's at $want"
      cmp_py identical "$tmp/$st.rank0" "$tmp/$st.rank1" || fail "$st: the workers stopped at different steps"
      echo "ok: $st N=2 stopped with single at step $got, workers identical"
    done
    # The parameter servers stop at the check too: each worker's end takes its next push's place
    # (ps-sync: the target at single's step; ps-async: its own, its updates being stale). They used
    # to push once more to tell the server: a step recorded past the target, and a best step past it.
    for st in ps-sync ps-async; do
      cmd=("${mpi[@]}" -np 3 "$sb" train --strategy "$st")  # 2 workers and the server
      "${cmd[@]}" "${common[@]}" --batch 2 --target-miou 0.15 --dump-weights "$tmp/$st" -o "$tmp/$st" >"$tmp/log" \
        2>&1 || { cat "$tmp/log"; fail "$st to target"; }
      out=$(step_of "$tmp/$st") || fail "$st: no target step"
      read -r got rows best <<<"$out"
      [ "$rows" = "$got" ] && [ "$best" = "$got" ] \
        || fail "$st: target at step $got but $rows steps recorded, best at step $best (trained past it)"
      grep -q "^$st: .*(ended by the workers after $got of [0-9]*[a-z ]*: target reached)" "$tmp/log" \
        || { cat "$tmp/log"; fail "$st: the server did not say the workers ended it"; }
      [ "$st" = ps-async ] || [ "$got" = "$want" ] || fail "$st: target at step $got, single's at $want"
      cmp_py identical "$tmp/$st.rank0" "$tmp/$st.rank1" || fail "$st: the workers ended with different weights"
      echo "ok: $st N=2 reached it at step $got and stopped there, workers identical"
    done
    # A stop signal agreed on that same check's step (SIGTERM in step want - 1: ps-sync tells the
    # server with the next push, so every worker stops after step want): the check is taken, the
    # run ends ok there, and no worker sends the server an end it no longer waits for (a hang).
    "${mpi[@]}" -np 3 env SCALEBENCH_SIGNAL_IN_STEP=$((want - 1)) "$sb" train --strategy ps-sync "${common[@]}" \
      --batch 2 --target-miou 0.15 -o "$tmp/ps-sync-stop" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "ps-sync stopped on the check"; }
    grep -q "^ps-sync: .*(stopped after $want of [0-9]*: preempted)" "$tmp/log" || { cat "$tmp/log"; fail "no stop at $want"; }
    out=$(step_of "$tmp/ps-sync-stop") || fail "ps-sync stopped on the check: no target step"
    read -r got rows _ <<<"$out"
    [ "$got" = "$want" ] && [ "$rows" = "$want" ] || fail "ps-sync stopped on the check: target at step $got ($rows recorded)"
    echo "ok: ps-sync with a stop agreed on the check's step ended ok at step $got"
    strategy_cmd mirrored 2  # threads: no mpirun start-up twice more
    plain=(--model "$model" --data "$tmp/data.h5" --epochs 1 --lr 0.1 --class-weights none --threads 1 --seed 11
           --progress-seconds 1000 --batch 2)
    "${cmd[@]}" "${plain[@]}" --dump-weights "$tmp/plain" >/dev/null 2>&1 || fail "mirrored without a target"
    "${cmd[@]}" "${plain[@]}" --target-miou 0.99 --eval-every-steps 1 --dump-weights "$tmp/never" >/dev/null 2>&1 \
      || fail "mirrored with an unreachable target"
    cmp_py identical "$tmp/plain.rank0" "$tmp/never.rank0" || fail "the target checks changed training"
    echo "ok: mirrored with checks every step trains bit for bit as without"
    ;;
  accumulate)
    n=$1; model=$2; b=2; k=2
    data_for "$model"
    common=(--model "$model" --data "$tmp/data.h5" --epochs 1 --lr 0.1 --class-weights none --threads 1
            --val-fraction 0.1 --seed 11 --progress-seconds 1000 --max-steps 1)
    "$sb" train "${common[@]}" --batch $((k * n * b)) --dump-weights "$tmp/single" >/dev/null || fail "single"
    "$sb" train "${common[@]}" --batch $((n * b)) --accumulate $k --dump-weights "$tmp/single-acc" >"$tmp/log" 2>&1 \
      || { cat "$tmp/log"; fail "single --accumulate $k"; }
    cmp_py close "$tmp/single.init.rank0" "$tmp/single.rank0" "$tmp/single-acc.rank0" --rtol 1e-5 \
      || fail "single: $k micro-batches of $((n * b)) != one batch of $((k * n * b))"
    for s in mirrored multiworker ring hierarchical ps-sync; do
      strategy_cmd "$s" "$n"
      "${cmd[@]}" "${common[@]}" --batch $b --accumulate $k --dump-weights "$tmp/$s" >"$tmp/log" 2>&1 \
        || { cat "$tmp/log"; fail "$s N=$n --accumulate $k"; }
      cmp_py close "$tmp/single.init.rank0" "$tmp/single.rank0" "$tmp/$s.rank0" --rtol 1e-5 \
        || fail "$s N=$n --accumulate $k != single batch $((k * n * b))"
    done
    echo "accumulate N=$n $model: single and 5 strategies with $k micro-batches equal one batch of $((k * n * b))"
    ;;
  sync_bn)
    n=$1; model=$2; b=2
    data_for "$model"
    common=(--model "$model" --data "$tmp/data.h5" --epochs 1 --lr 0.1 --class-weights none --threads 1
            --val-fraction 0.1 --seed 11 --progress-seconds 1000)
    "$sb" train "${common[@]}" --batch $((n * b)) --max-steps 1 --dump-weights "$tmp/single" >/dev/null || fail "single"
    "$sb" train "${common[@]}" --batch $((n * b)) --max-steps 1 --sync-bn --dump-weights "$tmp/single-sync" \
      >/dev/null || fail "single --sync-bn"
    cmp_py identical "$tmp/single.rank0" "$tmp/single-sync.rank0" || fail "single --sync-bn is not a no-op"
    for s in mirrored multiworker ring hierarchical; do
      strategy_cmd "$s" "$n"
      "${cmd[@]}" "${common[@]}" --batch $b --max-steps 1 --sync-bn --dump-weights "$tmp/$s-1" >"$tmp/log" 2>&1 \
        || { cat "$tmp/log"; fail "$s N=$n --sync-bn one step"; }
      cmp_py close "$tmp/single.init.rank0" "$tmp/single.rank0" "$tmp/$s-1.rank0" --rtol 1e-5 \
        || fail "$s N=$n --sync-bn != single batch $((n * b))"
      if [ "$n" -ge 2 ]; then  # per-replica statistics: the same comparison must fail
        echo "expected to differ (no --sync-bn):"
        "${cmd[@]}" "${common[@]}" --batch $b --max-steps 1 --dump-weights "$tmp/$s-local" >"$tmp/log" 2>&1 \
          || { cat "$tmp/log"; fail "$s N=$n without --sync-bn"; }
        ! cmp_py close "$tmp/single.init.rank0" "$tmp/single.rank0" "$tmp/$s-local.rank0" --rtol 1e-5 \
          || fail "$s N=$n without --sync-bn equals single: this model's batch norm is not exercised"
      fi
      "${cmd[@]}" "${common[@]}" --batch $b --max-steps 3 --sync-bn --dump-weights "$tmp/$s-3" >"$tmp/log" 2>&1 \
        || { cat "$tmp/log"; fail "$s N=$n --sync-bn three steps"; }
      ranks=()
      for ((r = 0; r < n; r++)); do ranks+=("$tmp/$s-3.rank$r"); done
      [ ${#ranks[@]} -le 1 ] || cmp_py identical "${ranks[@]}" || fail "$s N=$n --sync-bn ranks differ"
    done
    strategy_cmd ps-sync "$n"
    "${cmd[@]}" "${common[@]}" --batch $b --max-steps 1 --sync-bn >"$tmp/log" 2>&1 && fail "ps-sync --sync-bn ran"
    grep -q -- "--sync-bn needs an allreduce strategy or single, not ps-sync" "$tmp/log" \
      || { cat "$tmp/log"; fail "ps-sync --sync-bn: no line naming the option"; }
    echo "sync_bn N=$n $model: 4 strategies with --sync-bn equal single with batch $((n * b))"
    ;;
  ps_async)
    data_for unet
    "${mpi[@]}" -np 3 "$sb" train --strategy ps-async --model unet:depth=2,base=4 --data "$tmp/data.h5" --epochs 3 \
      --batch 2 --lr 0.05 --threads 1 --staleness 2 -o "$tmp/runs" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "ps-async run"; }
    cat "$tmp/log"
    grep -q "^ps-async: .* staleness mean [0-9.]* max [0-2] (bound 2) pushes, delay mean [0-9.]* max [0-9]* updates" \
      "$tmp/log" || fail "no staleness report, or its max above the bound"
    # ... and the run file records it.
    /usr/bin/python3 -c 'import h5py,glob,sys; f=h5py.File(glob.glob(sys.argv[1]+"/*.h5")[0]); n=f["summary"].attrs["strategy_note"]; n=n.decode() if isinstance(n,bytes) else n; print("run file:", n); assert "staleness mean" in n and f.attrs["status"] in ("ok", b"ok")' "$tmp/runs" \
      || fail "the run file lacks the staleness note"
    awk '/^epoch 1\/3 /{a=$4} /^epoch 3\/3 /{b=$4} END{exit !(a>0 && b<a)}' "$tmp/log" || fail "ps-async loss did not fall"
    ;;
  compression)
    # bf16/fp16 on the wire, float32 sums: every worker bit-identical, the loss falls, and the
    # bytes recorded per step are half of float32's.
    data_for unet
    for c in bf16 fp16; do
      for s in ring hierarchical; do
        "${mpi[@]}" -np 3 "$sb" train --strategy $s --compression $c --ranks-per-node 2 --model unet:depth=2,base=4 \
          --data "$tmp/data.h5" --epochs 3 --batch 2 --lr 0.05 --threads 1 --dump-weights "$tmp/$s-$c" \
          >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "$s --compression $c"; }
        grep "^epoch" "$tmp/log"
        awk '/^epoch 1\/3 /{a=$4} /^epoch 3\/3 /{b=$4} END{exit !(a>0 && b<a)}' "$tmp/log" || fail "$s $c: loss did not fall"
        cmp_py identical "$tmp/$s-$c.rank0" "$tmp/$s-$c.rank1" "$tmp/$s-$c.rank2" || fail "$s $c: ranks differ"
      done
    done
    "$sb" train --strategy multiworker --compression bf16 --data "$tmp/data.h5" >"$tmp/log" 2>&1 \
      && fail "multiworker accepted --compression"
    grep -q "needs --strategy ring or hierarchical" "$tmp/log" || { cat "$tmp/log"; fail "unclear error"; }
    ;;
  nonfinite_fail)
    data_for unet
    common=(--model unet:depth=2,base=4 --data "$tmp/data.h5" --epochs 2 --batch 4 --lr 1e30 --threads 1
            --comm-timeout 20 --progress-seconds 1000)
    for s in single mirrored multiworker ring hierarchical ps-sync ps-async; do
      case $s in
        single) launch=("$sb") ;;
        mirrored) launch=("$sb") ; extra=(--devices 2) ;;
        ps-*) launch=("${mpi[@]}" -np 3 "$sb") ;;
        *) launch=("${mpi[@]}" -np 2 "$sb") ;;
      esac
      [ "$s" = mirrored ] || extra=()
      rm -rf "$tmp/runs"
      start=$(date +%s)
      timeout 60 "${launch[@]}" train --strategy "$s" "${common[@]}" "${extra[@]}" -o "$tmp/runs" >"$tmp/log" 2>&1
      rc=$?
      took=$(( $(date +%s) - start ))
      [ $rc -ne 0 ] || { cat "$tmp/log"; fail "$s: a diverged run exited 0"; }
      [ $rc -ne 124 ] || { cat "$tmp/log"; fail "$s: hung (killed by timeout after 60 s)"; }
      [ $took -le 30 ] || fail "$s: took $took s to end"
      grep -E "scalebench: error: .*non-finite training at (epoch [0-9]+ step|push) [0-9]+: rank [0-9]+" "$tmp/log" >/dev/null \
        || { cat "$tmp/log"; fail "$s: no line naming rank, step and where"; }
      /usr/bin/python3 - "$tmp/runs" "$s" <<'PY' || fail "$s: run file not marked failed"
import sys, glob, h5py
files = glob.glob(sys.argv[1] + "/*.h5")
assert len(files) == 1, files
with h5py.File(files[0]) as f:
    st, err = f.attrs["status"], f.attrs["error"]
    assert st == "failed" and "non-finite" in err, (st, err)
print(f"ok: {sys.argv[2]}: run file failed: {err}")
PY
      echo "ok: $s ended in ${took}s: $(grep -m1 'non-finite' "$tmp/log")"
    done
    ;;
  nonfinite_skip)
    data_for unet
    /usr/bin/python3 - "$tmp/data.h5" <<'PY' || fail "could not poison the dataset"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    img = f["images"][5]; img[0, 3, 3] = np.nan; f["images"][5] = img
PY
    common=(--model unet:depth=2,base=4 --data "$tmp/data.h5" --epochs 2 --batch 4 --lr 0.05 --threads 1
            --class-weights none --progress-seconds 1000 --check-inputs)
    "${mpi[@]}" -np 2 "$sb" train --strategy ring "${common[@]}" --on-nonfinite skip --dump-weights "$tmp/skip" \
      >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "ring --on-nonfinite skip failed"; }
    n=$(grep -c "skipped: non-finite training at epoch [12] step [0-9]*: rank [01]: input batch" "$tmp/log")
    [ "$n" -eq 2 ] || { cat "$tmp/log"; fail "expected the NaN image's step skipped once per epoch, saw $n"; }
    grep -q "^final:" "$tmp/log" || { cat "$tmp/log"; fail "the run did not finish"; }
    cmp_py identical "$tmp/skip.rank0" "$tmp/skip.rank1" || fail "workers disagree after skipped steps"
    # A skipped step leaves the batch-norm running statistics as they were (the NaN image's forward had
    # turned them NaN, and the run was recorded ok with a wrong validation loss): every worker's are finite.
    for r in 0 1; do
      /usr/bin/python3 -c "import sys, numpy as np; b = np.fromfile(sys.argv[1], np.float32); sys.exit(not (b.size and np.isfinite(b).all()))" \
        "$tmp/skip.buffers.rank$r" || fail "rank $r: batch-norm statistics not finite after a skipped step"
    done
    "$sb" train --strategy single "${common[@]}" --on-nonfinite skip --dump-weights "$tmp/single" >"$tmp/log" 2>&1 \
      || { cat "$tmp/log"; fail "single --on-nonfinite skip failed"; }
    /usr/bin/python3 -c "import sys, numpy as np; b = np.fromfile(sys.argv[1], np.float32); sys.exit(not (b.size and np.isfinite(b).all()))" \
      "$tmp/single.buffers.rank0" || fail "single: batch-norm statistics not finite after a skipped step"
    "${mpi[@]}" -np 2 "$sb" train --strategy ring "${common[@]}" >"$tmp/log" 2>&1 \
      && { cat "$tmp/log"; fail "a NaN input trained on under --on-nonfinite fail"; }
    grep -q "input batch element" "$tmp/log" || { cat "$tmp/log"; fail "the failure does not say where"; }
    echo "ok: skipped $n steps, workers agree; fail policy stops on the NaN input"
    ;;
  mismatch)
    data_for unet
    args=(train --strategy multiworker --model unet:depth=2,base=4 --data "$tmp/data.h5" --epochs 1 --batch 2)
    "${mpi[@]}" -np 1 "$sb" "${args[@]}" --seed 1 : -np 1 "$sb" "${args[@]}" --seed 2 >"$tmp/log" 2>&1 \
      && { cat "$tmp/log"; fail "a seed mismatch was not caught"; }
    cat "$tmp/log"
    grep -q "seed" "$tmp/log" || fail "the error does not name the differing field"
    grep -q "^epoch" "$tmp/log" && fail "training started despite the mismatch"
    ;;
  errors_once)
    data_for unet
    args=(train --strategy ring --model unet:depth=2,base=4 --data "$tmp/data.h5" --batch 2)
    "${mpi[@]}" -np 2 "$sb" "${args[@]}" --epochs 1 --seed 1 : -np 1 "$sb" "${args[@]}" --epochs 1 --seed 2 \
      >"$tmp/log" 2>&1 && { cat "$tmp/log"; fail "a seed mismatch was not caught"; }
    n=$(grep -c "scalebench: error" "$tmp/log")
    [ "$n" = 1 ] || { cat "$tmp/log"; fail "configuration mismatch: $n error lines from 3 ranks (want 1)"; }
    grep -q "configuration differs across ranks: rank(s) 2 disagree with rank 0" "$tmp/log" || { cat "$tmp/log"; fail "the line does not name the rank"; }
    # Before the world is joined (a bad option: every rank parses the same line) rank 0 alone prints;
    # after it, an input every rank checks alone (a missing data file) is one line for the job.
    for bad in "--batch 0" "--no-such-option" "--data $tmp/missing.h5"; do
      # shellcheck disable=SC2086  # $bad is two words on purpose
      "${mpi[@]}" -np 3 "$sb" "${args[@]}" --epochs 1 $bad >"$tmp/log" 2>&1 && { cat "$tmp/log"; fail "$bad was accepted"; }
      n=$(grep -c "scalebench: error" "$tmp/log")
      [ "$n" = 1 ] || { cat "$tmp/log"; fail "$bad: $n error lines from 3 ranks (want 1)"; }
    done
    ;;
  cuda)
    model=$1; b=2
    command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "SKIP: no GPU (nvidia-smi -L)"; exit 77; }
    if "$sb" train --backend cuda --data "$tmp/none.h5" 2>&1 | grep -q "no CUDA backend"; then
      echo "SKIP: this scalebench has no CUDA backend"; exit 77
    fi
    data_for "$model"
    common=(--model "$model" --data "$tmp/data.h5" --epochs 1 --lr 0.1 --class-weights none --threads 1
            --val-fraction 0.1 --seed 11 --progress-seconds 1000 --max-steps 1)
    run() {  # name, args...: one step, weights dumped to $tmp/<name>
      local name=$1; shift
      "$sb" train "${common[@]}" "$@" --dump-weights "$tmp/$name" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "$name"; }
    }
    # LAMB's first step divides each element by its own gradient scale (about sign(g)), so an element
    # whose gradient is rounding noise (a near-cancelling sum: cuDNN and the CPU sum in other orders)
    # may move differently; its update is compared in L2 norm. Same gradients give the CPU's LAMB to
    # 1e-6 (DeviceOptimizers.LarsAndLambOnTheGpuEqualTheCpu).
    for opt in sgd lars lamb; do
      norm=(); [ $opt = lamb ] && norm=(--l2)
      run "cpu-$opt" --batch $((2 * b)) --optimizer $opt
      run "cuda-$opt" --batch $((2 * b)) --optimizer $opt --backend cuda
      cmp_py close "$tmp/cpu-$opt.init.rank0" "$tmp/cpu-$opt.rank0" "$tmp/cuda-$opt.rank0" --rtol 1e-3 "${norm[@]}" \
        || fail "--optimizer $opt on cuda != cpu"
    done
    # Accumulation against the CPU's accumulation: with batch norm, two micro-batches of b normalise
    # over b images each, which a batch of 2b does not (so 2b is no reference here).
    run cpu-acc --batch $b --accumulate 2
    run cuda-acc --batch $b --accumulate 2 --backend cuda
    cmp_py close "$tmp/cpu-acc.init.rank0" "$tmp/cpu-acc.rank0" "$tmp/cuda-acc.rank0" --rtol 1e-3 \
      || fail "cuda --accumulate 2 != cpu --accumulate 2"
    run cuda-sync --batch $((2 * b)) --backend cuda --strategy mirrored --devices 1 --sync-bn
    cmp_py close "$tmp/cpu-sgd.init.rank0" "$tmp/cpu-sgd.rank0" "$tmp/cuda-sync.rank0" --rtol 1e-3 \
      || fail "cuda mirrored --sync-bn != cpu single"
    echo "cuda $model: sgd, lars, lamb (L2), --accumulate 2 and --sync-bn equal the CPU within 1e-3 of the update"
    ;;
  staged)
    n=$1; model=$2; b=2
    data_for "$model"
    common=(--model "$model" --data "$tmp/data.h5" --epochs 1 --lr 0.1 --class-weights none --threads 1
            --val-fraction 0.1 --seed 11 --progress-seconds 1000 --batch $b --max-steps 3)
    for s in mirrored multiworker ring ring-bf16 hierarchical ps-sync; do
      extra=(); st=$s
      [ $s = ring-bf16 ] && { st=ring; extra=(--compression bf16); }
      strategy_cmd "$st" "$n"
      "${cmd[@]}" "${common[@]}" "${extra[@]}" --dump-weights "$tmp/$s-host" >"$tmp/log" 2>&1 \
        || { cat "$tmp/log"; fail "$s N=$n host transport"; }
      "${cmd[@]}" "${common[@]}" "${extra[@]}" --transport staged --dump-weights "$tmp/$s-staged" -o "$tmp/$s-runs" \
        >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "$s N=$n --transport staged"; }
      [ "$(grep -c "the staged transport" "$tmp/log")" = 1 ] || { cat "$tmp/log"; fail "$s: the choice not said once"; }
      for ((r = 0; r < n; r++)); do
        cmp -s "$tmp/$s-host.rank$r" "$tmp/$s-staged.rank$r" || fail "$s N=$n rank $r: staged != host transport"
      done
      /usr/bin/python3 -c "import glob,h5py,sys; f=h5py.File(glob.glob(sys.argv[1]+'/*.h5')[0],'r'); \
t=f['context'].attrs['transport_used']; t=t.decode() if isinstance(t,bytes) else t; \
assert t.startswith('staged over'), t; assert int(f['context'].attrs['gpu_shared'])==0" "$tmp/$s-runs" \
        || fail "$s: the run file does not record the staged transport"
      echo "ok: $s N=$n staged = host transport bit for bit"
    done
    "${mpi[@]}" -np 3 "$sb" train --strategy ps-async --transport staged --model "$model" --data "$tmp/data.h5" \
      --epochs 2 --batch 2 --lr 0.05 --threads 1 --staleness 2 >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "ps-async staged"; }
    grep -q "staleness mean [0-9.]* max [0-9]* (bound 2)" "$tmp/log" || { cat "$tmp/log"; fail "ps-async staged: no staleness"; }
    echo "ok: ps-async ran through the staged transport"
    ;;
  shared_gpu)
    n=$1; model=$2; b=2
    command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "SKIP: no GPU (nvidia-smi -L)"; exit 77; }
    if "$sb" train --backend cuda --data "$tmp/none.h5" 2>&1 | grep -q "no CUDA backend"; then
      echo "SKIP: this scalebench has no CUDA backend"; exit 77
    fi
    export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
    export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES%%,*}  # one GPU, however many the machine has
    data_for "$model"
    base=(--model "$model" --data "$tmp/data.h5" --epochs 1 --lr 0.1 --class-weights none --threads 1
          --val-fraction 0.1 --seed 11 --progress-seconds 1000 --backend cuda --deterministic)
    common=("${base[@]}" --batch $b)
    "$sb" train "${base[@]}" --batch $((n * b)) --max-steps 1 --dump-weights "$tmp/single" >"$tmp/log" 2>&1 \
      || { cat "$tmp/log"; fail "single on cuda"; }
    for s in mirrored multiworker ring hierarchical ps-sync; do
      strategy_cmd "$s" "$n"
      "${cmd[@]}" "${common[@]}" --max-steps 1 --dump-weights "$tmp/$s-1" -o "$tmp/$s-runs" >"$tmp/log" 2>&1 \
        || { cat "$tmp/log"; fail "$s N=$n on one GPU, one step"; }
      [ "$n" -lt 2 ] || grep -q "share 1 GPU" "$tmp/log" || { cat "$tmp/log"; fail "$s N=$n: sharing not said"; }
      cmp_py close "$tmp/single.init.rank0" "$tmp/single.rank0" "$tmp/$s-1.rank0" --rtol 1e-3 \
        || fail "$s N=$n on one GPU != single with batch $((n * b))"
      [ "$n" -lt 2 ] || /usr/bin/python3 -c "import glob,h5py,sys; f=h5py.File(glob.glob(sys.argv[1]+'/*.h5')[0],'r'); \
assert int(f['context'].attrs['gpu_shared'])==1" "$tmp/$s-runs" || fail "$s N=$n: gpu_shared not recorded"
      "${cmd[@]}" "${common[@]}" --max-steps 3 --dump-weights "$tmp/$s-3" >"$tmp/log" 2>&1 \
        || { cat "$tmp/log"; fail "$s N=$n on one GPU, three steps"; }
      ranks=()
      for ((r = 0; r < n; r++)); do ranks+=("$tmp/$s-3.rank$r"); done
      [ ${#ranks[@]} -le 1 ] || cmp_py identical "${ranks[@]}" || fail "$s N=$n on one GPU: ranks differ"
      echo "ok: $s N=$n on one GPU: one step = single, ranks identical after 3"
    done
    [ "$n" = 2 ] || exit 0
    strategy_cmd ring 2
    "${cmd[@]}" "${common[@]}" --max-steps 3 --no-overlap --dump-weights "$tmp/ring-seq" >"$tmp/log" 2>&1 \
      || { cat "$tmp/log"; fail "ring --no-overlap"; }
    cmp -s "$tmp/ring-3.rank0" "$tmp/ring-seq.rank0" || fail "ring: overlap on and off differ"
    "${cmd[@]}" "${common[@]}" --max-steps 1 --bucket-mb 0.002 --dump-weights "$tmp/ring-buckets" >"$tmp/log" 2>&1 \
      || { cat "$tmp/log"; fail "ring with many buckets"; }
    cmp_py close "$tmp/single.init.rank0" "$tmp/single.rank0" "$tmp/ring-buckets.rank0" --rtol 1e-3 \
      || fail "ring with many buckets != single"
    "${cmd[@]}" "${base[@]}" --batch $b --epochs 3 --compression bf16 -o "$tmp/bf16" >"$tmp/log" 2>&1 \
      || { cat "$tmp/log"; fail "ring --compression bf16"; }
    /usr/bin/python3 -c "import glob,h5py,sys; f=h5py.File(glob.glob(sys.argv[1]+'/*.h5')[0],'r'); \
l=f['steps']['loss']; k=max(1,len(l)//4); assert l[-k:].mean()<l[:k].mean(), (l[:k],l[-k:])" "$tmp/bf16" \
      || fail "ring bf16 on one GPU: the loss did not fall"
    for s in mirrored ring; do
      strategy_cmd "$s" 2
      "${cmd[@]}" "${common[@]}" --max-steps 1 --accumulate 2 --dump-weights "$tmp/$s-acc" >"$tmp/log" 2>&1 \
        || { cat "$tmp/log"; fail "$s --accumulate 2"; }
      [ -e "$tmp/single-acc.rank0" ] || "$sb" train "${base[@]}" --batch $((4 * b)) --max-steps 1 \
        --dump-weights "$tmp/single-acc" >/dev/null 2>&1 || fail "single batch $((4 * b))"
      cmp_py close "$tmp/single-acc.init.rank0" "$tmp/single-acc.rank0" "$tmp/$s-acc.rank0" --rtol 1e-3 \
        || fail "$s --accumulate 2 on one GPU != single with batch $((4 * b))"
    done
    bn_model="${model/bn=0/bn=1}"; [[ $bn_model == *bn=1* ]] || bn_model="$bn_model,bn=1"
    bn=(--model "$bn_model" "${base[@]:2}")
    "$sb" train "${bn[@]}" --batch $((2 * b)) --max-steps 1 --dump-weights "$tmp/single-bn" >/dev/null 2>&1 \
      || fail "single bn"
    for s in mirrored ring; do
      strategy_cmd "$s" 2
      "${cmd[@]}" "${bn[@]}" --batch $b --max-steps 1 --sync-bn --dump-weights "$tmp/$s-sbn" >"$tmp/log" 2>&1 \
        || { cat "$tmp/log"; fail "$s --sync-bn"; }
      cmp_py close "$tmp/single-bn.init.rank0" "$tmp/single-bn.rank0" "$tmp/$s-sbn.rank0" --rtol 1e-3 \
        || fail "$s --sync-bn on one GPU != single with batch $((2 * b))"
    done
    "${mpi[@]}" -np 3 "$sb" train --strategy ps-async "${base[@]}" --batch $b --epochs 3 --lr 0.05 --staleness 2 \
      -o "$tmp/psa" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "ps-async on one GPU"; }
    /usr/bin/python3 -c "import glob,h5py,sys; f=h5py.File(glob.glob(sys.argv[1]+'/*.h5')[0],'r'); \
e=f['epochs']['train_loss']; assert f.attrs['status'] in ('ok', b'ok') and e[-1] < e[0], list(e)" "$tmp/psa" \
      || fail "ps-async on one GPU did not train"
    /usr/bin/python3 - "$tmp/data.h5" <<'PY' || fail "could not poison the dataset"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    img = f["images"][5]; img[0, 3, 3] = np.nan; f["images"][5] = img
PY
    timeout 120 "${mpi[@]}" -np 2 "$sb" train --strategy ring "${base[@]}" --batch $b --epochs 1 --check-inputs \
      --comm-timeout 30 >"$tmp/log" 2>&1 && { cat "$tmp/log"; fail "a NaN input trained on"; }
    grep -q "non-finite training at epoch [0-9]* step [0-9]*: rank [01]" "$tmp/log" \
      || { cat "$tmp/log"; fail "the NaN input's stop does not name the rank"; }
    echo "ok: N=2 on one GPU: overlap on = off, many buckets, bf16 trains, --accumulate, --sync-bn, ps-async, NaN stop"
    ;;
  slurm_ranks)
    data_for unet
    args=(train --strategy ring --model unet:depth=2,base=4 --data "$tmp/data.h5" --epochs 1 --batch 2)
    # What srun --mpi=none would do: every rank sees one Slurm task id, here 1 for both.
    SCALEBENCH_LAUNCHER=srun SLURM_PROCID=1 SLURM_NTASKS=2 SLURM_LOCALID=1 "${mpi[@]}" -np 2 "$sb" "${args[@]}" \
      >"$tmp/log" 2>&1 && { cat "$tmp/log"; fail "a Slurm/MPI rank mismatch was not caught"; }
    cat "$tmp/log"
    grep -q "Slurm and MPI disagree: SLURM_PROCID=1 but MPI rank 0" "$tmp/log" || fail "the error does not name SLURM_PROCID"
    grep -q "^epoch" "$tmp/log" && fail "training started despite the mismatch"
    SCALEBENCH_LAUNCHER=srun SLURM_PROCID=0 SLURM_NTASKS=3 SLURM_LOCALID=0 "${mpi[@]}" -np 1 "$sb" "${args[@]}" \
      >"$tmp/log" 2>&1 && { cat "$tmp/log"; fail "a Slurm/MPI world size mismatch was not caught"; }
    grep -q "SLURM_NTASKS=3 but MPI world size 1" "$tmp/log" || { cat "$tmp/log"; fail "the error does not name SLURM_NTASKS"; }
    # The same environment without SCALEBENCH_LAUNCHER (e.g. mpirun inside an allocation): not checked.
    SLURM_PROCID=1 SLURM_NTASKS=2 "${mpi[@]}" -np 2 "$sb" "${args[@]}" --max-steps 1 >"$tmp/log" 2>&1 \
      || { cat "$tmp/log"; fail "SLURM_* without SCALEBENCH_LAUNCHER=srun stopped the run"; }
    ;;
  thread_budget)
    # Each rank's threads with the default --threads 0 (harness/train/thread_budget.h), as the run
    # file's rank_threads records them; each rank pinned by taskset (mpirun --bind-to none).
    data_for unet
    n=$(nproc)
    ((n >= 2)) || { echo "SKIP: one CPU"; exit 77; }
    half=$((n / 2))
    printf '#!/bin/sh\neval cpus=\\$PIN$OMPI_COMM_WORLD_RANK\nexec taskset -c "$cpus" "$@"\n' >"$tmp/pin.sh"
    chmod +x "$tmp/pin.sh"
    host=$(hostname)
    run_budget() {  # run_budget <np> <expected rank_threads> [train options]: the run, its one warning line (or none)
      local np=$1 want=$2; shift 2
      rm -rf "$tmp/runs"
      "${mpi[@]}" -np "$np" --bind-to none "$tmp/pin.sh" "$sb" train --strategy ring --model unet:depth=2,base=4 \
        --data "$tmp/data.h5" --epochs 1 --batch 2 --max-steps 1 -o "$tmp/runs" "$@" >"$tmp/log" 2>&1 \
        || { cat "$tmp/log"; fail "train exited non-zero (PIN0=$PIN0 PIN1=${PIN1:-})"; }
      got=$(/usr/bin/python3 -c 'import glob,sys,h5py
(p,)=glob.glob(sys.argv[1]+"/*.h5"); a=h5py.File(p,"r")["context"].attrs
print(*[(lambda v: v.decode() if isinstance(v,bytes) else v)(a[k]) for k in ("rank_threads","cpu_warnings")],sep="\n")' "$tmp/runs")
      echo "ok: PIN0=$PIN0 PIN1=${PIN1:-}: $(head -1 <<<"$got")"
      [ "$(head -1 <<<"$got")" = "$want" ] || fail "rank_threads: expected '$want', got '$(head -1 <<<"$got")'"
      warning=$(grep '^train: warning' "$tmp/log" || true)
      [ "$(tail -n +2 <<<"$got")" = "${warning#train: warning: }" ] || fail "cpu_warnings differs from the warning printed"
    }
    range() { if (($1 == $2)); then echo "$1"; else echo "$1-$2"; fi; }
    # CPUs of their own (srun --cpus-per-task --cpu-bind=cores, mpirun --map-by slot:PE=k): each rank
    # keeps all of its CPUs (a count of ranks on the host gave each half of them).
    export PIN0=$(range 0 $((half - 1))) PIN1=$(range "$half" $((2 * half - 1)))
    s=$([ $half = 1 ] || echo s)
    run_budget 2 "rank 0 on $host: $half thread$s, CPUs $PIN0; rank 1 on $host: $half thread$s, CPUs $PIN1"
    [ -z "$warning" ] || fail "a warning for ranks on CPUs of their own: $warning"
    # Every rank on every CPU: they divide them.
    export PIN0=$(range 0 $((n - 1))) PIN1=$(range 0 $((n - 1)))
    run_budget 2 "rank 0 on $host: $half thread$s, CPUs $PIN0; rank 1 on $host: $half thread$s, CPUs $PIN1"
    run_budget 1 "rank 0 on $host: $n threads, CPUs $PIN0"
    # Two ranks on one CPU: one warning line, kept in the run file (the host's CPU count is not the
    # ranks' CPUs).
    export PIN0=0 PIN1=0
    run_budget 2 "rank 0 on $host: 1 thread, CPUs 0; rank 1 on $host: 1 thread, CPUs 0" --threads 1
    [[ "$warning" == "train: warning: 2 ranks x 1 thread on 1 CPU of $host: ranks outnumber the cores"* ]] \
      || { cat "$tmp/log"; fail "no oversubscription warning for 2 ranks on CPU 0"; }
    ;;
  dead_rank)
    "$sb" datagen --task segmentation --n 400 --size 32 --seed 5 -o "$tmp/data.h5" >/dev/null || fail datagen
    start=$(date +%s)
    "${mpi[@]}" -np 4 "$sb" train --strategy ring --model unet:depth=2,base=8 --data "$tmp/data.h5" --epochs 50 \
      --batch 2 --threads 1 --comm-timeout 20 >"$tmp/log" 2>&1 &
    job=$!
    victim=""
    for _ in $(seq 100); do  # find rank 2 once it is training
      for p in $(pgrep -f "scalebench train --strategy ring" || true); do
        grep -qz '^OMPI_COMM_WORLD_RANK=2$' "/proc/$p/environ" 2>/dev/null && victim=$p
      done
      [ -n "$victim" ] && grep -q "^train: strategy" "$tmp/log" && break
      sleep 0.2
    done
    [ -n "$victim" ] || { kill $job; fail "rank 2 never started"; }
    sleep 2
    kill -9 "$victim"
    killed=$(date +%s)
    for _ in $(seq 600); do kill -0 $job 2>/dev/null || break; sleep 0.1; done
    if kill -0 $job 2>/dev/null; then pkill -9 -f "scalebench train --strategy ring"; fail "job still running 60 s after the kill"; fi
    wait $job; rc=$?
    took=$(( $(date +%s) - killed ))
    cat "$tmp/log" | tail -15
    echo "job ended with exit $rc, ${took} s after rank 2 was killed (started $((killed - start)) s in)"
    [ $rc -ne 0 ] || fail "the job exited 0 after a rank died"
    [ $took -le 60 ] || fail "took ${took} s"
    grep -qiE "rank 2|process rank 2" "$tmp/log" || fail "the output does not name rank 2"
    ;;
  *) fail "unknown case $what" ;;
esac
echo "PASS $what $*"
