#!/usr/bin/env bash
# reframe_slurm_cgroup.sh — the ReFrame tests (reframe/scalebench_check.py) on a live one-node Slurm
# (slurm/local-cluster/local_cluster.sh; ReFrame partition scalebench-local:slurm, scheduler squeue,
# launcher srun): does a regression fail and a normal run pass?
#   1. record a baseline on the partition: the tests with -S bounds=off and the normal binary, then
#      `scalebench collect` of every test's run files is the baseline (docs/reframe.md);
#   2. the normal binary, bounds on (the default): expected PASSED;
#   3. a deliberately slowed binary — a wrapper that moves itself into a cgroup v1 CPU cgroup capped at
#      CAP of one core (cpu.cfs_quota_us = CAP x cpu.cfs_period_us, as tools/noise_lab.py make_cgroup)
#      and execs scalebench, so every launched rank and its threads run capped: expected FAILED in the
#      performance stage.
# A demonstration that measures this host, not a ctest: 2 and 3 compare timings, and a busy host can
# turn either verdict (tests never assert timing). Prints ReFrame's verdict lines and perflogs.
# On a busy host a process gets less than half a core anyway and CAP=0.5 does not bind: lower it
# (the cgroup's cpu.stat, printed at the end, shows whether it throttled).
# Usage: reframe_slurm_cgroup.sh <scalebench binary>. Environment: CAP (default 0.5), STRATEGIES
# (default mirrored,ring), REPS (default 6: the fewest with a 95 % interval), KEEP=1 keeps the folder.
# Exit 0 when both verdicts came out as expected, 1 otherwise, 77 skip (not root, no Slurm, no
# reframe, no cgroup v1 cpu controller).
set -euo pipefail
SB=$(readlink -f "$1")
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LC="$ROOT/slurm/local-cluster/local_cluster.sh"
CAP=${CAP:-0.5} STRATEGIES=${STRATEGIES:-mirrored,ring} REPS=${REPS:-6}
T0=$SECONDS
step() { printf '[%3ds] %s\n' $((SECONDS - T0)) "$*"; }
skip() { echo "SKIP: $*"; exit 77; }
[[ "$(id -u)" == 0 ]] || skip "needs root (the local cluster's slurmd; the cgroup)"
for tool in munged slurmctld slurmd sbatch srun squeue; do command -v "$tool" >/dev/null || skip "$tool is not installed"; done
command -v reframe >/dev/null || skip "reframe is not installed (tools/install-deps.sh)"
CG_ROOT=/sys/fs/cgroup/cpu
[[ -e "$CG_ROOT/cpu.cfs_quota_us" ]] || skip "no cgroup v1 cpu controller at $CG_ROOT"
while read -r v; do unset "$v"; done < <(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\)=.*/\1/p')

TMP="$(mktemp -d /tmp/sb-rfm-slurm.XXXXXX)"
chmod 0755 "$TMP"
CG="$CG_ROOT/sb-reframe-slow-$$"
STARTED=0
cleanup() {
  local rc=$?
  ((STARTED)) && bash "$LC" stop "$TMP/cluster" >/dev/null 2>&1
  if [[ -d "$CG" ]]; then  # empty once the cluster's jobs are gone
    for _ in $(seq 50); do rmdir "$CG" 2>/dev/null && break; sleep 0.2; done
  fi
  if [[ "${KEEP:-0}" == 1 ]]; then echo "kept $TMP"; else rm -rf "$TMP"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

step "starting a local Slurm in $TMP/cluster"
STARTED=1
bash "$LC" start "$TMP/cluster" >/dev/null
# shellcheck disable=SC1091
source "$TMP/cluster/env.sh"
step "$(sinfo -h -o 'partition %P: %D node(s), %c CPUs, %T')"

mkdir "$CG"
period=$(cat "$CG/cpu.cfs_period_us")
quota=$(awk -v c="$CAP" -v p="$period" 'BEGIN { printf "%d", c * p }')
echo "$quota" > "$CG/cpu.cfs_quota_us"
cat > "$TMP/scalebench-slow" <<EOF
#!/bin/bash
# scalebench capped at $CAP of one core: this process (and what it execs and starts) joins $CG
echo \$\$ > $CG/tasks
exec $SB "\$@"
EOF
chmod +x "$TMP/scalebench-slow"
step "slowed binary $TMP/scalebench-slow: cgroup $CG, cpu.cfs_quota_us=$quota of cpu.cfs_period_us=$period"

export RFM_CONFIG_FILES="$ROOT/reframe/config/local.py" HOME="$TMP" RFM_COLORIZE=n
cd "$TMP"
# rfm <name> <binary> [-S ...]: one ReFrame run on the Slurm partition; its output in <name>.log
rfm() {
  local name=$1 bin=$2
  shift 2
  set +e
  timeout 1200 reframe -c "$ROOT/reframe/scalebench_check.py" --system scalebench-local:slurm --prefix "$TMP/$name" \
    -P "strategy=$STRATEGIES" -P devices=1,2 -S "scalebench=$bin" -S "spec=$ROOT/studies/smoke.toml" \
    -S "repetitions=$REPS" -S sets=train.epochs=2 "$@" -r > "$name.log" 2>&1
  local rc=$?
  set -e
  grep -E '^\[ +(OK|FAIL|SKIP) +\]|^P: |^\[  (PASSED|FAILED)  \]|Reason:|failed to meet|images_per_s=|efficiency=' "$name.log" |
    sed 's/\x1b\[[0-9;]*m//g; s/^/    /'
  return $rc
}

step "1. record the baseline on scalebench-local:slurm (bounds off, normal binary)"
rfm record "$SB" -S bounds=off --keep-stage-files || { cat record.log; echo "FAIL: recording the baseline"; exit 1; }
first=${STRATEGIES%%,*}
script=$(find "$TMP/record/stage" -path '*ScalebenchPoint*' -name rfm_job.sh | xargs grep -l -- "--strategy $first .*--devices 2" | head -n1)
echo "    a job script ($first N=2):"
grep -E '^#SBATCH|^srun|scalebench (train|collect|report)' "$script" | cut -c1-160 | sed 's/^/      /'
# the baseline: every test's runs (a test's study/runs holds its own and its N = 1 dependency's) collected
mkdir -p "$TMP/baseline/runs"
find "$TMP/record/stage" -path '*/study/runs/*.h5' -exec cp {} "$TMP/baseline/runs/" \;
"$SB" collect "$TMP/baseline" >/dev/null
BASE="$TMP/baseline/study.h5"
"$SB" report "$BASE" | grep -E '^(study|==|N  |[0-9]+ )' | cut -c1-150 | sed 's/^/    /'

verdicts=0
step "2. normal binary, bounds on"
if rfm normal "$SB" -S "baseline=$BASE"; then step "   PASSED (expected)"; else step "   FAILED (expected PASSED)"; verdicts=1; fi
step "3. slowed binary (cgroup cap $CAP of a core), bounds on"
if rfm slow "$TMP/scalebench-slow" -S "baseline=$BASE"; then step "   PASSED (expected FAILED)"; verdicts=1; else step "   FAILED (expected)"; fi
# the cap was in force: the cgroup's throttling counters (zero would mean no task ever joined it)
step "   $CG/cpu.stat: $(tr '\n' ' ' < "$CG/cpu.stat")"
for n in normal slow; do
  echo "    perflog ($n):"
  find "$TMP/$n/perflogs" -name '*.log' -exec cat {} + | sed 's/^/      /'
done
exit $verdicts
