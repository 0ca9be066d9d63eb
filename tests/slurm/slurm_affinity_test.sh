#!/usr/bin/env bash
# slurm_affinity_test.sh — each rank of a Slurm point gets the CPUs its job asked for (ctest label slurm).
# Since Slurm 22.05 a step does not inherit the job's --cpus-per-task: with --cpu-bind=cores an srun
# without -c binds each task to one core. This test starts a local one-node Slurm whose node declares
# exactly this host's CPUs and binds tasks (TaskPlugin=task/affinity), submits a small study with
# `scalebench sweep --launcher slurm` (mirrored N=2: one process with 2 x threads CPUs; ring N=2: two
# ranks with `threads` CPUs each) through the shipped local-test profile plus --cpu-bind=cores, and checks
#   1. every run file ends ok and its thread_budget context (rank 0's affinity mask, written by train)
#      names as many CPUs as the script's #SBATCH --cpus-per-task;
#   2. each rank's own mask: the point scripts' step command (the srun options it runs, shown in the
#      script) is run in a job with the script's own #SBATCH header and exports, launching a probe that
#      prints /proc/self/status Cpus_allowed_list per rank; every rank must hold --cpus-per-task CPUs,
#      and no two ranks the same CPU.
#   3. the threads each rank uses with the default --threads 0 (the run file's rank_threads): srun steps
#      in a job of 2 tasks per node — 2 tasks x CPUS/2 CPUs and 1 task x CPUS CPUs (which inherits the
#      job's SLURM_NTASKS_PER_NODE=2) — each rank uses as many threads as it has CPUs of its own.
# Not here: the full study flow, resubmission and preemption (slurm_study_test.sh).
# Usage: slurm_affinity_test.sh <scalebench binary>. Exit 0 pass, 1 fail, 77 skip (not root / no Slurm).
# Takes about 30-60 s (two tiny points, a dataset job, two probe jobs).
set -euo pipefail
SB=$1
# shellcheck source=tests/slurm/live_slurm.sh
source "$(dirname "${BASH_SOURCE[0]}")/live_slurm.sh"
live_slurm_setup sb-slurm-aff sbatch srun squeue scontrol
LIVE_SLURM_LOGS="$TMP/work/probe-*.out"
CPUS=$(nproc)
((CPUS >= 2)) || { echo "SKIP: one CPU: no rank can be given more than one"; exit 77; }
# count_cpus "0-1,4" -> 3
count_cpus() {
  local n=0 part
  IFS=, read -ra parts <<<"$1"
  for part in "${parts[@]}"; do
    if [[ $part == *-* ]]; then n=$((n + ${part#*-} - ${part%-*} + 1)); else n=$((n + 1)); fi
  done
  echo "$n"
}

step "starting a local Slurm with $CPUS CPUs and task/affinity in $TMP/cluster"
STARTED=1
LOCAL_SLURM_CPUS=$CPUS LOCAL_SLURM_TASK_PLUGIN=task/affinity bash "$LC" start "$TMP/cluster" ||
  fail "the local cluster did not start"
# shellcheck disable=SC1091
source "$TMP/cluster/env.sh"
mkdir -p "$TMP/work"
cd "$TMP/work"

# ring N=2: two ranks with THREADS CPUs each; mirrored N=2: one process with 2 x THREADS.
THREADS=$((CPUS / 2))
PROFILE="$TMP/local-test.toml"
sed -e "/^\[cluster\]/a scalebench = \"$SB\"\nplots = \"$ROOT/plots/make_all.py\"\nsrun_args = [\"--cpu-bind=cores\"]" \
  -e "s/^max_cpus_per_task = .*/max_cpus_per_task = $CPUS/" -e "s/^tasks_per_node = .*/tasks_per_node = 2/" \
  "$ROOT/slurm/profiles/local-test.toml" > "$PROFILE"
cat > aff.toml <<TOML
[study]
name = "slurm-aff"
[dataset]
task = "segmentation"
n = 16
size = 16
seed = 1
[sweep]
models = ["unet:depth=2,base=4"]
strategies = ["mirrored", "ring"]
devices = [2]
batch = 4
[train]
epochs = 1
threads = $THREADS
TOML

step "scalebench sweep aff.toml --launcher slurm (threads = $THREADS)"
"$SB" sweep aff.toml --launcher slurm --profile "$PROFILE" > submit.log || { cat submit.log; fail "sweep failed"; }
poll 300 no_jobs_left || { squeue; fail "jobs still queued after 300 s"; }
"$SB" status results/slurm-aff > status.log || true
grep -q 'status: results/slurm-aff: 2 points: 2 ok$' status.log || { cat status.log; fail "not every point is ok"; }

step "1. rank 0's CPUs in each run file (thread_budget)"
for script in results/slurm-aff/slurm/0*.sbatch; do
  asked=$(sed -n 's/^#SBATCH --cpus-per-task=//p' "$script")
  grep -q "^export SRUN_CPUS_PER_TASK=$asked\$" "$script" || fail "$script does not export SRUN_CPUS_PER_TASK=$asked"
  grep -q "^#   srun .* --cpus-per-task=$asked " "$script" || fail "$script: the step's srun lacks --cpus-per-task=$asked"
done
for f in results/slurm-aff/runs/*.h5; do
  budget=$(/usr/bin/python3 -c 'import h5py,sys
v=h5py.File(sys.argv[1],"r")["context"].attrs["thread_budget"]
print(v.decode() if isinstance(v,bytes) else v)' "$f")
  cfg=$(/usr/bin/python3 -c 'import h5py,sys
s=h5py.File(sys.argv[1],"r")["config"].attrs["strategy"]
print(s.decode() if isinstance(s,bytes) else s)' "$f")
  want=$THREADS
  [[ $cfg == mirrored ]] && want=$((2 * THREADS))
  echo "  $cfg: $budget"
  [[ $budget == *"may use $want CPU"* ]] || fail "$f ($cfg): expected $want CPUs for rank 0, thread_budget says: $budget"
done

step "2. each rank's Cpus_allowed_list, launched with the point scripts' own srun options"
cat > probe.sh <<'SH'
#!/bin/sh
echo "rank $SLURM_PROCID cpus $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)"
SH
chmod +x probe.sh
n=0
for script in results/slurm-aff/slurm/0*.sbatch; do
  n=$((n + 1))
  asked=$(sed -n 's/^#SBATCH --cpus-per-task=//p' "$script")
  ranks=$(sed -n 's/^#SBATCH --ntasks=//p' "$script")
  # The step's srun words up to the binary, as the script shows them (what slurm-point runs).
  srun_words=$(sed -n "s|^#   \(srun .*\) '\{0,1\}$SB'\{0,1\} train .*|\1|p" "$script")
  [[ -n "$srun_words" ]] || fail "$script: no srun step command found"
  # (#SBATCH lines count only before the first command: the probe's --output goes right after the #!.)
  { sed -n '1,/^# The point.s training step/p' "$script" | grep -v -e '^#SBATCH --output' -e '^#SBATCH --array' \
      -e '^#SBATCH --signal' -e '^#SBATCH --requeue' | sed "1a #SBATCH --output=$TMP/work/probe-$n.out"
    echo "$srun_words $TMP/work/probe.sh"
  } > "probe-$n.sbatch"
  sbatch --parsable "probe-$n.sbatch" >/dev/null || fail "probe-$n.sbatch was refused"
  poll 120 no_jobs_left || fail "probe job $n did not finish"
  echo "  $(basename "$script"): $srun_words"
  sed 's/^/    /' "probe-$n.out"
  [[ $(grep -c '^rank ' "probe-$n.out") == "$ranks" ]] || fail "probe $n: expected $ranks ranks"
  declare -A seen=()
  while read -r _ rank _ list; do
    got=$(count_cpus "$list")
    [[ $got == "$asked" ]] || fail "$script: rank $rank got CPUs $list ($got), the job asked for $asked per task"
    IFS=, read -ra parts <<<"$list"
    for part in "${parts[@]}"; do
      for ((c = ${part%-*}; c <= ${part#*-}; c++)); do
        [[ -z "${seen[$c]:-}" ]] || fail "$script: CPU $c is bound to rank ${seen[$c]} and rank $rank"
        seen[$c]=$rank
      done
    done
  done < <(grep '^rank ' "probe-$n.out")
  unset seen
done
((n == 2)) || fail "expected 2 point scripts, probed $n"

step "3. the threads each rank uses (--threads 0): srun steps of a job with 2 tasks per node"
# The budget comes from the ranks' masks (harness/train/thread_budget.h), not from a count of ranks
# on the node: a step of 2 tasks with $THREADS CPUs each gives each rank $THREADS threads; a step of 1
# task with $CPUS CPUs in the same job (whose SLURM_NTASKS_PER_NODE=2 the step inherits) gives $CPUS.
"$SB" datagen --task segmentation --n 16 --size 16 --seed 1 -o "$TMP/work/budget.h5" >/dev/null || fail "datagen"
for k in 2 1; do
  cpt=$((k == 2 ? THREADS : CPUS))
  cat > "budget-$k.sbatch" <<SH
#!/bin/bash
#SBATCH --output=$TMP/work/budget-$k.out
#SBATCH --nodes=1
#SBATCH --ntasks=2
#SBATCH --ntasks-per-node=2
#SBATCH --cpus-per-task=$THREADS
srun --mpi=pmix --ntasks=$k --cpus-per-task=$cpt --cpu-bind=cores "$SB" train --strategy ring \\
  --model unet:depth=2,base=4 --data "$TMP/work/budget.h5" --epochs 1 --batch 2 --max-steps 1 -o "$TMP/work/budget-$k"
SH
  sbatch --parsable "budget-$k.sbatch" >/dev/null || fail "budget-$k.sbatch was refused"
  poll 120 no_jobs_left || fail "budget job $k did not finish"
  got=$(/usr/bin/python3 -c 'import glob,sys,h5py
(p,)=glob.glob(sys.argv[1]+"/*.h5"); v=h5py.File(p,"r")["context"].attrs["rank_threads"]
print(v.decode() if isinstance(v,bytes) else v)' "$TMP/work/budget-$k") || { cat "budget-$k.out"; fail "no run file from budget job $k"; }
  echo "  $k task(s) x $cpt CPUs: $got"
  ranks=0
  declare -A seen=()
  while read -r entry; do
    [[ $entry =~ ^rank\ ([0-9]+)\ on\ [^:]+:\ ([0-9]+)\ threads?,\ CPUs\ ([0-9,-]+)$ ]] || fail "rank_threads entry '$entry'"
    ranks=$((ranks + 1))
    [[ $(count_cpus "${BASH_REMATCH[3]}") == "$cpt" ]] || fail "rank ${BASH_REMATCH[1]} has CPUs ${BASH_REMATCH[3]}, asked $cpt"
    [[ ${BASH_REMATCH[2]} == "$cpt" ]] || fail "rank ${BASH_REMATCH[1]} used ${BASH_REMATCH[2]} threads on its $cpt CPUs of its own"
    [[ -z "${seen[${BASH_REMATCH[3]}]:-}" ]] || fail "two ranks on CPUs ${BASH_REMATCH[3]}"
    seen[${BASH_REMATCH[3]}]=1
  done < <(sed 's/; /\n/g' <<<"$got")
  unset seen
  ((ranks == k)) || fail "budget job $k: $ranks ranks in rank_threads, expected $k"
done
step "PASS"
