#!/usr/bin/env bash
# slurm_study_test.sh — the Slurm launcher end to end on a live one-node Slurm (ctest label slurm):
#   1. starts munged + slurmctld + slurmd from a generated config in a temp folder
#      (slurm/local-cluster/local_cluster.sh), and stops exactly those daemons, by pid, on every exit path;
#   2. `scalebench sweep --launcher slurm`: a small study, 2 strategies (mirrored: one process; ring: MPI
#      ranks through srun --mpi=pmix) x N = 1, 2, submitted as a dataset job, one job per point (each
#      afterok the dataset job) and a collect job;
#      waits with a deadline; every run file must say ok, study.h5 and the plots must exist;
#   3. a resubmission submits nothing new (every point ok) but a fresh collect job;
#   4. preemption: a longer point gets USR1 on its batch shell (what --signal=B:USR1@s does), the run
#      stops after a step with status preempted and exit 75, the job requeues itself, and the rerun
#      resumes mid-epoch from the checkpoint the preempted run wrote and ends ok with every epoch once.
# Usage: slurm_study_test.sh <scalebench binary>. Exit 0 pass, 1 fail, 77 skip (not root / no Slurm).
set -euo pipefail
SB=$1
# shellcheck source=tests/slurm/live_slurm.sh
source "$(dirname "${BASH_SOURCE[0]}")/live_slurm.sh"
live_slurm_setup sb-slurm-study sbatch srun squeue scontrol scancel
poll_fast() {
  local deadline=$((SECONDS + $1)); shift
  until "$@"; do ((SECONDS < deadline)) || return 1; sleep 0.1; done
}

step "starting a local Slurm in $TMP/cluster"
STARTED=1
bash "$LC" start "$TMP/cluster" || fail "the local cluster did not start"
# shellcheck disable=SC1091
source "$TMP/cluster/env.sh"

mkdir -p "$TMP/work"
cd "$TMP/work"
# The shipped local-test profile runs `scalebench` from PATH; this test runs the build's binary and
# this checkout's plots instead (the profile keys scalebench and plots).
PROFILE="$TMP/local-test.toml"
sed -e "/^\[cluster\]/a scalebench = \"$SB\"\nplots = \"$ROOT/plots/make_all.py\"" \
  "$ROOT/slurm/profiles/local-test.toml" > "$PROFILE"
cat > small.toml <<'TOML'
[study]
name = "slurm-small"
[dataset]
task = "segmentation"
n = 64
size = 32
seed = 1
[sweep]
models = ["unet:depth=2,base=4"]
strategies = ["mirrored", "ring"]
devices = [1, 2]
batch = 4
[train]
epochs = 2
threads = 1
TOML

step "scalebench sweep small.toml --launcher slurm --dry-run"
"$SB" sweep small.toml --launcher slurm --profile "$PROFILE" --dry-run > dry.log ||
  { cat dry.log; fail "dry run failed"; }
[[ $(ls results/slurm-small/slurm/*.sbatch | wc -l) == 6 ]] || fail "dry run: expected 4 point scripts, datagen.sbatch, collect.sbatch"
[[ ! -e results/slurm-small/data ]] || fail "dry run: the dataset was generated on the submit host"
[[ ! -e results/slurm-small/slurm/jobs.tsv ]] || fail "dry run submitted jobs"
[[ -z "$(squeue --noheader)" ]] || fail "dry run: the queue is not empty"

step "scalebench sweep small.toml --launcher slurm"
"$SB" sweep small.toml --launcher slurm --profile "$PROFILE" | tee submit.log
[[ $(grep -c '^\[./4\] .*: job [0-9]' submit.log) == 4 ]] || fail "expected 4 point jobs submitted"
grep -q 'and the collect job [0-9]' submit.log || fail "no collect job submitted"
grep -q '^sweep: dataset job [0-9]* .* the points wait for it (afterok)' submit.log || fail "no dataset job submitted"
step "waiting for the jobs (deadline 600 s)"
poll 600 no_jobs_left || { squeue; fail "jobs still queued after 600 s"; }
"$SB" status results/slurm-small | tee status.log
grep -q 'status: results/slurm-small: 4 points: 4 ok$' status.log || fail "not every point is ok"
for f in results/slurm-small/runs/*.h5; do
  /usr/bin/python3 -c 'import h5py,sys; s=h5py.File(sys.argv[1],"r").attrs["status"]; s=s.decode() if isinstance(s,bytes) else s; sys.exit(s!="ok")' "$f" ||
    fail "$f does not say ok"
done
[[ $(ls results/slurm-small/runs/*.h5 | wc -l) == 4 ]] || fail "expected 4 run files"
[[ -s results/slurm-small/study.h5 ]] || fail "the collect job wrote no study.h5"
for p in speedup efficiency; do [[ -s results/slurm-small/plots/$p.png ]] || fail "no plots/$p.png"; done
grep -q 'ring (weak scaling)' results/slurm-small/slurm/logs/collect-*.out || fail "the collect job printed no report"
# The ring points ran as 2 MPI ranks under srun (not 2 singletons): the trainer says so.
grep -q 'strategy ring with 2 worker(s) of 2 rank(s)' results/slurm-small/slurm/logs/*ring-n2*.out 2>/dev/null ||
  grep -q 'strategy ring with 2 worker(s) of 2 rank(s)' results/slurm-small/slurm/logs/04-*.out || fail "ring N=2 did not run 2 ranks"

step "resubmitting: every point is ok, only a collect job goes in"
"$SB" sweep small.toml --launcher slurm --profile "$PROFILE" | tee resubmit.log
[[ $(grep -c 'ok already, not submitted' resubmit.log) == 4 ]] || fail "resubmission did not skip the ok points"
grep -q 'submitted 0 point jobs (4 repetitions ok before' resubmit.log || fail "resubmission submitted point jobs"
poll 300 no_jobs_left || fail "the second collect job did not finish"

step "preemption: USR1 to a running point's batch shell"
cat > long.toml <<'TOML'
[study]
name = "slurm-preempt"
[dataset]
task = "segmentation"
n = 512
size = 32
seed = 2
[sweep]
models = ["unet:depth=2,base=4"]
strategies = ["ring"]
devices = [2]
batch = 4
[train]
epochs = 60        # long enough (tens of seconds) that USR1 after epoch 1 lands mid-run
threads = 1
TOML
"$SB" sweep long.toml --launcher slurm --profile "$PROFILE" | tee long.log
job=$(sed -n 's/^\[1\/1\] .*: job \([0-9]*\) .*/\1/p' long.log)
[[ -n "$job" ]] || fail "no job id for the preemption point"
log=results/slurm-preempt/slurm/logs/01-$job.out
first_epoch() { grep -q 'epoch 1/60 ' "$log" 2>/dev/null; }
poll_fast 300 first_epoch || fail "the point never finished its first epoch"
scancel --signal=USR1 --batch "$job"
requeued() { grep -q 'preempted; requeueing job' "$log"; }
poll 120 requeued || fail "the point did not report preemption and requeue"
grep -q 'preempted: SIGUSR1 at epoch' "$log" || fail "the run did not say where it stopped"
grep -q 'ring N=2 preempted: ' "$log" || fail "slurm-point did not report the point preempted"
# Slurm holds a requeued job for a while (BeginTime about 2 min ahead): its policy, not ours, so the
# test lifts the hold once the job is pending again rather than wait it out.
# Settled: pending again, or already past it (its rerun running, or the job gone).
state() { squeue -h -j "$job" -o %T 2>/dev/null; }
settled() {  # a failed squeue settles nothing (see no_jobs_left)
  local s; s=$(state) || return 1
  [[ $s == PENDING || -z $s ]] || { [[ $s == RUNNING ]] && scontrol show job "$job" | grep -q 'Restarts=[1-9]'; }
}
poll_fast 60 settled || fail "the requeued job neither went back to pending nor ran again"
if [[ $(state) == PENDING ]]; then
  echo "requeued job $job: $(squeue -h -j "$job" -o 'pending, reason %r, start %S')"
  scontrol update JobId="$job" StartTime=now || echo "(could not move its start time; waiting it out)"
fi
step "requeued; waiting for the rerun"
poll 600 no_jobs_left || { squeue; fail "the requeued job did not finish"; }
"$SB" status results/slurm-preempt | tee pstatus.log
grep -q '1 points: 1 ok$' pstatus.log || fail "the requeued point did not end ok"
[[ $(grep -c 'final: held-out' "$log") == 1 ]] || fail "expected one finished attempt in the log"
# The requeued job continued from the checkpoint the preempted run wrote (mid-epoch), not from step 0,
# and its run file holds every epoch once.
grep -q 'resume: continuing from .*\.ckpt/step-[0-9]* at epoch [0-9]* step [1-9]' "$log" \
  || fail "the requeued point did not resume mid-epoch from its checkpoint"
grep -m1 'resume: continuing' "$log"
/usr/bin/python3 - results/slurm-preempt/runs <<'PY' || fail "the resumed run file does not hold every epoch once"
import sys, glob, h5py
(path,) = glob.glob(sys.argv[1] + "/*.h5")
with h5py.File(path) as f:
    assert f.attrs["status"] == "ok", f.attrs["status"]
    epochs = list(f["epochs"]["epoch"])
    assert epochs == list(range(1, 61)), epochs
    steps = f["steps"][()]
    keys = list(zip(steps["epoch"], steps["step"]))
    assert len(keys) == len(set(keys)), "a step recorded twice"
print(f"ok: run file ok with epochs 1..60 once each, {len(keys)} steps once each")
PY
step "PASS"
