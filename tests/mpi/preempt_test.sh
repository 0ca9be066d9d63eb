#!/usr/bin/env bash
# preempt_test.sh — SIGUSR1 preemption of MPI runs (label mpi; harness/train/preemption.h).
#   all STRATEGY        : 3 ranks (ps-*: 2 workers + the server) of a run all get
#                         SIGUSR1, as under Slurm: the job exits 75, the run file says preempted
#                         with every step kept, the preempted line is printed, nothing hangs.
#   one STRATEGY RANK   : only rank RANK gets it (a rank that does not record; for ps-* possibly
#                         the server): the agreement must still stop every rank after the same
#                         step — the job ends (no collective left waiting) with the same checks, and
#                         every worker holds bit-identical final weights.
#   launcher SIGNAL     : SIGNAL (TERM or INT) to a hand-launched `mpirun -np 2 ... --strategy ring`
#                         itself, with steps longer than mpirun's kill timeout (the test hook
#                         SCALEBENCH_STEP_SLEEP_S; OMPI_MCA_odls_base_sigkill_timeout=5): the ranks
#                         cannot reach an agreed stop before mpirun SIGKILLs them, so only the
#                         stop mark (harness/record/stop_mark.h) can record it — the run file must
#                         say preempted, not running, and no rank may survive mpirun.
#   launcher_twice SIG  : SIG sent twice, 50 ms apart, to a hand-launched `mpirun -np 2 ... --strategy
#                         ring` (an impatient Ctrl-C): mpirun exits at once without signalling the
#                         ranks, and Open MPI ends them with _exit when their launcher is gone, so no
#                         handler of theirs runs; rank 0's guard process (harness/record/run_guard.h)
#                         must record the run as failed with the reason (or the ranks as preempted),
#                         never leave it running, and neither ranks nor guard may outlive mpirun.
# Exit codes: the recording rank (0) exits 75 and the others 0, so mpirun (which ends a job whose
# rank exits non-zero) cannot cut rank 0 short while it writes the run file; mpirun reports 75.
# Usage: preempt_test.sh <scalebench> <case> [args]
set -uo pipefail
sb=$1; what=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
job=""
cleanup() {
  [ -n "$job" ] && kill -0 "$job" 2>/dev/null && { pkill -9 -f -- "-o $tmp/runs"; kill -9 "$job"; }
  rm -rf "$tmp"
}
trap cleanup EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
fail() { echo "FAIL: $*"; exit 1; }
# await_line PATTERN TENTHS: until the job's log has a line matching PATTERN, the job ends, or TENTHS
# tenths of a second pass; true when the line is there.
await_line() {
  for _ in $(seq "$2"); do
    grep -q "$1" "$tmp/log" && return 0
    kill -0 $job 2>/dev/null || break
    sleep 0.1
  done
  grep -q "$1" "$tmp/log"
}
# await_exit TENTHS: until the job ends or TENTHS tenths of a second pass; true when it ended.
await_exit() {
  for _ in $(seq "$1"); do kill -0 $job 2>/dev/null || return 0; sleep 0.1; done
  ! kill -0 $job 2>/dev/null
}

if [ "$what" = launcher_twice ]; then
  sig=$1
  "$sb" datagen --task segmentation --n 64 --size 32 --seed 5 -o "$tmp/data.h5" >/dev/null || fail datagen
  mpirun --oversubscribe -np 2 "$sb" train --strategy ring --model unet:depth=2,base=4 --data "$tmp/data.h5" \
    --epochs 500 --batch 2 --threads 1 --progress-seconds 1000 --checkpoint-every 1 -o "$tmp/runs" >"$tmp/log" 2>&1 &
  job=$!
  await_line "^epoch 1/500 " 1200 || { cat "$tmp/log"; fail "no epoch 1 line within 120 s"; }
  # An impatient Ctrl-C: Open MPI's mpirun exits at the second signal without signalling its ranks,
  # which its library then ends with _exit (no handler of ours runs): only the guard can record.
  kill -"$sig" $job || fail "could not signal mpirun"
  sleep 0.05
  kill -"$sig" $job 2>/dev/null
  echo "SIG$sig sent twice to mpirun ($job), 50 ms apart"
  await_exit 600 || { cat "$tmp/log"; fail "mpirun still runs 60 s after two SIG$sig"; }
  wait $job; rc=$?
  job=""
  echo "mpirun exited $rc"
  for _ in $(seq 100); do pgrep -f -- "^$sb (train|run-guard) .*$tmp/runs" >/dev/null || break; sleep 0.1; done
  pgrep -af -- "^$sb (train|run-guard) .*$tmp/runs" && fail "a rank or its guard outlived mpirun by 10 s"
  /usr/bin/python3 - "$tmp/runs" <<'PY' || fail "the run file does not record the end"
import glob, sys, h5py
(path,) = glob.glob(sys.argv[1] + "/*.h5")
s = lambda v: v.decode() if isinstance(v, bytes) else str(v)
with h5py.File(path, "r") as f:
    status, error = s(f.attrs["status"]), s(f.attrs["error"])
    epochs = len(f["epochs"][()])
print(f"run file: status {status}, {epochs} epochs, error '{error}'")
assert status != "running", "the run file still says running"
assert (status == "preempted" and error.startswith("preempted by")) or \
       (status == "failed" and error.startswith("dead: ") and "mpirun interrupted twice" in error), (status, error)
assert epochs >= 1, "the finished epochs were lost"
PY
  echo "PASS launcher_twice SIG$sig"
  exit 0
fi

if [ "$what" = launcher ]; then
  sig=$1
  "$sb" datagen --task segmentation --n 64 --size 32 --seed 5 -o "$tmp/data.h5" >/dev/null || fail datagen
  # Open MPI passes the signal on to the ranks and SIGKILLs them this many seconds later. Each
  # step sleeps far longer, so no rank reaches the step they would agree to stop after.
  OMPI_MCA_odls_base_sigkill_timeout=5 SCALEBENCH_STEP_SLEEP_S=60 \
    mpirun --oversubscribe -np 2 "$sb" train --strategy ring --model unet:depth=2,base=4 --data "$tmp/data.h5" \
    --epochs 5 --batch 2 --threads 1 --progress-seconds 1000 --checkpoint-every 1 -o "$tmp/runs" >"$tmp/log" 2>&1 &
  job=$!
  # The set-up line is printed after the ranks' own handlers are installed (after MPI_Init).
  await_line "^train: strategy ring" 1200 || { cat "$tmp/log"; fail "no set-up line within 120 s"; }
  sleep 1
  kill -"$sig" $job || fail "could not signal mpirun"
  echo "SIG$sig sent to mpirun ($job)"
  await_exit 600 || { cat "$tmp/log"; fail "mpirun still runs 60 s after SIG$sig"; }
  wait $job; rc=$?
  job=""
  cat "$tmp/log"
  echo "mpirun exited $rc"
  pgrep -f -- "^$sb train .*-o $tmp/runs" && fail "a rank outlived mpirun"
  /usr/bin/python3 - "$tmp/runs" <<'PY' || fail "the run file does not record the stop"
import glob, sys, h5py
(path,) = glob.glob(sys.argv[1] + "/*.h5")
s = lambda v: v.decode() if isinstance(v, bytes) else str(v)
with h5py.File(path, "r") as f:
    status, error = s(f.attrs["status"]), s(f.attrs["error"])
print(f"run file: status {status}, error '{error}'")
assert status == "preempted", status
assert error.startswith("preempted by a stop signal"), error
PY
  echo "PASS launcher SIG$sig"
  exit 0
fi

strategy=$1
target=${2:-all}
case $what in
  all) target=all ;;
  one) [ -n "${2:-}" ] || fail "one needs a rank" ;;
  *) fail "unknown case $what" ;;
esac

"$sb" datagen --task segmentation --n 200 --size 32 --seed 5 -o "$tmp/data.h5" >/dev/null || fail datagen
# Many epochs: the run is stopped long before its end; a run that ignored the signal fails the
# bounded wait below instead of passing by finishing.
mpirun --oversubscribe -np 3 "$sb" train --strategy "$strategy" --model unet:depth=2,base=8 --data "$tmp/data.h5" \
  --epochs 500 --batch 4 --threads 1 --progress-seconds 1000 --dump-weights "$tmp/w" \
  -o "$tmp/runs" >"$tmp/log" 2>&1 &
job=$!
await_line "^epoch 1/500 " 1200 || { cat "$tmp/log"; fail "no epoch 1 line within 120 s"; }

# The rank processes (not mpirun: its command line does not start with the binary).
pids=$(pgrep -f -- "^$sb train --strategy $strategy .*-o $tmp/runs")
[ "$(echo "$pids" | wc -w)" -eq 3 ] || fail "expected 3 rank processes, found: $pids"
sent=0
for p in $pids; do
  r=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')
  if [ "$target" = all ] || [ "$r" = "$target" ]; then kill -USR1 "$p" && sent=$((sent + 1)); fi
done
[ $sent -ge 1 ] || fail "SIGUSR1 reached no rank"
echo "SIGUSR1 sent to $sent rank(s) ($target)"

await_exit 900 || { cat "$tmp/log"; fail "the job still runs 90 s after SIGUSR1 (a rank left waiting?)"; }
wait $job; rc=$?
job=""
cat "$tmp/log"
[ $rc -eq 75 ] || fail "mpirun exited $rc, expected 75"
grep -qE "^preempted: SIGUSR1 at epoch [0-9]+ step [0-9]+ of [0-9]+.*; run file marked preempted" "$tmp/log" \
  || fail "no preempted line"
grep -q "^final:" "$tmp/log" && fail "a preempted run printed final results"
/usr/bin/python3 - "$tmp/runs" <<'PY' || fail "the run file does not record the preemption"
import glob, sys, h5py
(path,) = glob.glob(sys.argv[1] + "/*.h5")
s = lambda v: v.decode() if isinstance(v, bytes) else str(v)
with h5py.File(path, "r") as f:
    status, error = s(f.attrs["status"]), s(f.attrs["error"])
    per = int(f["config"].attrs["steps_per_epoch"])
    epochs, steps = f["epochs"][()], f["steps"][()]
print(f"run file: status {status}, error '{error}', {len(epochs)} epochs, {len(steps)} steps of {per} per epoch")
assert status == "preempted", status
assert error.startswith("preempted by SIGUSR1 at epoch "), error
at_epoch = int(error.split("at epoch ")[1].split()[0])
at_step = int(error.split(" step ")[1].split()[0])
complete = at_step == per
assert len(epochs) == at_epoch - (0 if complete else 1), (len(epochs), at_epoch)
assert len(steps) == per * len(epochs) + (0 if complete else at_step), "steps lost"
assert steps["epoch"][-1] == at_epoch and steps["step"][-1] == at_step, (steps[-1], at_epoch, at_step)
PY
# Every worker ended with the same weights: they stopped after the same step (ps-*: the server
# sent its final weights to all of them).
workers=3
case $strategy in ps-*) workers=2 ;; esac
files=()
for ((r = 0; r < workers; r++)); do files+=("$tmp/w.rank$r"); done
/usr/bin/python3 "$here/compare_weights.py" identical "${files[@]}" || fail "workers' final weights differ"
echo "PASS $what $strategy $target"
