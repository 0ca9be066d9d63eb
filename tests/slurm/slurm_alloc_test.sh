#!/usr/bin/env bash
# slurm_alloc_test.sh — `scalebench sweep --launcher slurm-alloc` on a live one-node Slurm (ctest label
# slurm): the whole sweep in one allocation, every point an srun step of it, cancelled mid-sweep and
# resumed by running the same command again.
#   1. starts munged + slurmctld + slurmd from a generated config in a temp folder
#      (slurm/local-cluster/local_cluster.sh), and stops exactly those daemons, by pid, on every exit path;
#   2. submits a small study (4 points: single N=1, ring N=2, two repetitions, one epoch each) as one
#      allocation job plus its collect job; while it runs, squeue shows the job and its current step;
#   3. once two points are ok, scancel ends the allocation mid-sweep: the job ends CANCELLED (sacct -c),
#      status shows the points it never reached as `not run`;
#   4. the same sweep command again submits a new allocation that skips the ok points and runs the rest:
#      every point ok at the end, each ok exactly once over both allocations, the run files that were
#      ok before the cancel untouched, the repetitions interleaved (repetition 1 of every point first).
# Prints the squeue/sacct lines it saw. Usage: slurm_alloc_test.sh <scalebench binary>.
# Exit 0 pass, 1 fail, 77 skip (not root / no Slurm).
set -euo pipefail
SB=$1
POLL_SLEEP=0.2
# shellcheck source=tests/slurm/live_slurm.sh
source "$(dirname "${BASH_SOURCE[0]}")/live_slurm.sh"
live_slurm_setup sb-slurm-alloc sbatch srun squeue scontrol scancel sacct

step "starting a local Slurm in $TMP/cluster"
STARTED=1
bash "$LC" start "$TMP/cluster" || fail "the local cluster did not start"
# shellcheck disable=SC1091
source "$TMP/cluster/env.sh"

mkdir -p "$TMP/work"
cd "$TMP/work"
# The build's binary instead of what PATH has (the profile key scalebench); the collect jobs run
# collect and report but no plots (python = "true": slurm_study_test.sh checks the plots; they
# would add tens of seconds here).
PROFILE="$TMP/local-test.toml"
sed -e "/^\[cluster\]/a scalebench = \"$SB\"" -e 's|^python = .*|python = "true"|' \
  "$ROOT/slurm/profiles/local-test.toml" > "$PROFILE"
cat > alloc.toml <<'TOML'
[study]
name = "slurm-alloc"
repetitions = 2
[dataset]
task = "segmentation"
n = 64
size = 32
seed = 1
[sweep]
models = ["unet:depth=2,base=4"]
strategies = ["single", "ring"]
devices = [1, 2]
strategy_devices = { ring = [2] }
batch = 4
[train]
epochs = 1
threads = 1
TOML
SWEEP=("$SB" sweep alloc.toml --launcher slurm-alloc --profile "$PROFILE")
S=results/slurm-alloc

step "scalebench sweep alloc.toml --launcher slurm-alloc"
"${SWEEP[@]}" | tee submit.log
job=$(sed -n 's/^sweep: allocation job \([0-9]*\) .*/\1/p' submit.log)
[[ -n "$job" ]] || fail "no allocation job submitted"
grep -q 'runs the 4 point(s) not ok yet (0 ok before)' submit.log || fail "expected all 4 points in the allocation"
grep -q 'submitted 1 allocation job and the collect job [0-9]' submit.log || fail "no collect job after the allocation"
[[ $(grep -c '^#SBATCH --nodes=1$' $S/slurm/sweep.sbatch) == 1 ]] || fail "sweep.sbatch: expected one node"
log=$S/slurm/logs/sweep-$job.out

# Two points ok, then the allocation is cancelled in the middle of the sweep.
OK_LINE='^\[[0-9]/4\] unet [a-z]* N=[0-9] rep [12]/2 ok$'
oks() { grep -c "$OK_LINE" "$log" 2>/dev/null || true; }
two_ok() { (($(oks) >= 2)); }
step_running() { squeue --noheader --steps -j "$job" -o '%i %j' 2>/dev/null | grep -q "^$job\.[0-9]"; }
poll 180 step_running || fail "no srun step of job $job ran"
step "squeue (job):  $(squeue --noheader -j "$job" -o '%i %j %T %D %C' 2>/dev/null)"
step "squeue --steps: $(squeue --noheader --steps -j "$job" -o '%i %j' 2>/dev/null | grep "^$job\.[0-9]" | head -1)"
poll 180 two_ok || fail "fewer than two points ended ok in job $job"
scancel "$job"
step "scancel $job after $(oks) ok point(s)"
poll 60 job_gone "$job" || fail "job $job still queued after scancel"
acct=$(sacct -c -n -j "$job" -o jobid,jobname,state,nnodes 2>/dev/null | head -1)
step "sacct -c: $acct"
[[ "$acct" == *CANCELLED* ]] || fail "sacct -c does not say job $job was cancelled: '$acct'"
"$SB" status $S | tee status1.log
before=$(grep -c ' ok  *ok ' status1.log || true)
((before >= 2 && before < 4)) || fail "expected 2..3 ok points after the cancel, got $before"
grep -Eq ' (not run|failed) ' status1.log || fail "status shows no point cut off by the cancel"
# The run files that say ok now, with their modification times: the resumed sweep must not touch them.
ok_files() {  # "<file> <mtime ns>" of every run file that says ok
  /usr/bin/python3 - "$S/runs" <<'PY'
import glob, os, sys, h5py
for f in sorted(glob.glob(sys.argv[1] + "/*.h5")):
    s = h5py.File(f, "r").attrs["status"]
    if (s.decode() if isinstance(s, bytes) else s) == "ok":
        print(f, os.stat(f).st_mtime_ns)
PY
}
ok_files > ok-before.txt
[[ $(wc -l < ok-before.txt) == "$before" ]] || fail "status and the run files disagree on the ok points"

step "the same command again: a new allocation for the $((4 - before)) point(s) not ok yet"
"${SWEEP[@]}" | tee resubmit.log
job2=$(sed -n 's/^sweep: allocation job \([0-9]*\) .*/\1/p' resubmit.log)
[[ -n "$job2" && "$job2" != "$job" ]] || fail "no new allocation job"
grep -q "runs the $((4 - before)) point(s) not ok yet ($before ok before)" resubmit.log || fail "the resubmission counts wrong"
poll 300 no_jobs_left || { squeue; fail "jobs still queued after 300 s"; }
step "sacct -c: $(sacct -c -n -j "$job2" -o jobid,jobname,state,nnodes 2>/dev/null | head -1)"
"$SB" status $S | tee status2.log
grep -q "status: $S: 4 points: 4 ok$" status2.log || fail "not every point is ok after the resumption"
log2=$S/slurm/logs/sweep-$job2.out
[[ $(grep -c ' ok already (.*), skipped$' "$log2") == "$before" ]] || fail "the second allocation did not skip the $before ok points"
# Each point ended ok exactly once over both allocations, and the files ok before are untouched.
[[ $(cat "$log" "$log2" | grep -c "$OK_LINE") == 4 ]] || fail "expected 4 ' ok' lines over both allocations"
for label in 'single N=1 rep 1/2' 'single N=1 rep 2/2' 'ring N=2 rep 1/2' 'ring N=2 rep 2/2'; do
  [[ $(cat "$log" "$log2" | grep -c "\] unet ${label} ok$") == 1 ]] || fail "point '$label' was not ok exactly once"
done
ok_files | grep -Fxf ok-before.txt | cmp -s - ok-before.txt || fail "a run file that was ok before the cancel changed"
# Repetitions interleaved as the local launcher runs them: repetition 1 of every point first.
cat "$log" "$log2" | grep -o '^\[[0-9]/4\] unet [a-z]* N=[0-9] rep [12]/2 run ' | sed 's/.*rep \([12]\).*/\1/' | tr -d '\n' |
  grep -Eq '^1+2+$' || fail "the repetitions did not run interleaved"
[[ -s $S/study.h5 ]] || fail "the collect job wrote no study.h5"
step "PASS"
