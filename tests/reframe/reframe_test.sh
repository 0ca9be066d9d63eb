#!/usr/bin/env bash
# reframe_test.sh — the shipped ReFrame tests (reframe/scalebench_check.py) against this build's
# scalebench, on a partition of reframe/config/local.py:
#   local  (ctest reframe.point)  partition default: ReFrame's local scheduler and launcher
#   slurm  (ctest reframe.slurm)  partition slurm: a throw-away one-node Slurm
#          (slurm/local-cluster/local_cluster.sh, stopped on every exit path), sbatch jobs, srun steps
# The points are studies/smoke.toml's model at N = 1 and 2, two repetitions each, bounds on; the
# baseline is results/baselines/cpu-demo.h5 relabelled to that model with mirrored N = 2 made 1000x
# faster and every other point 1000x slower (tests/reframe/scaled_baseline.py), so the verdicts are
# known whatever this host's speed: mirrored N = 2 must FAIL in the performance stage naming
# images_per_s, the others PASS. local: ring is skipped (no MPI launcher). slurm: ring runs as srun
# steps of 1 and 2 ranks (PMIx). Checked too: each repetition is a `scalebench train` line of the job
# script (launched by srun under Slurm, with the point's #SBATCH tasks and CPUs), and the perflog
# carries each variable's reference and a lower bound no tighter than metrics.def's -10 %.
# Usage: reframe_test.sh <scalebench binary> [local|slurm]. Exit 0 pass, 1 fail, 77 skip (reframe-hpc
# or h5py not installed: tools/install-deps.sh; slurm: not root, or no Slurm/munge).
set -euo pipefail
SB=$1 MODE=${2:-local}
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if command -v reframe >/dev/null; then
  RF=(reframe)
elif python3 -c 'import reframe' 2>/dev/null; then
  RF=(python3 -m reframe)
else
  echo "SKIP: reframe-hpc is not installed (tools/install-deps.sh: python3 -m pip install reframe-hpc)"
  exit 77
fi
/usr/bin/python3 -c 'import h5py' 2>/dev/null || { echo "SKIP: /usr/bin/python3 has no h5py (python3-h5py)"; exit 77; }
case "$MODE" in
  local) ;;
  slurm)
    [[ "$(id -u)" == 0 ]] || { echo "SKIP: needs root (the local cluster's slurmd runs jobs as their user)"; exit 77; }
    for tool in munged slurmctld slurmd sbatch srun squeue; do
      command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (tools/install-deps.sh)"; exit 77; }
    done
    # a test started inside a real Slurm job must not talk to that job's cluster
    while read -r v; do unset "$v"; done < <(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\)=.*/\1/p') ;;
  *) echo "reframe_test.sh: mode '$MODE': expected local or slurm" >&2; exit 2 ;;
esac
TMP="$(mktemp -d /tmp/sb-reframe.XXXXXX)"
chmod 0755 "$TMP"  # munged wants every folder above its socket searchable by all
STARTED=0
cleanup() {
  local rc=$?
  ((STARTED)) && bash "$ROOT/slurm/local-cluster/local_cluster.sh" stop "$TMP/cluster" >/dev/null 2>&1
  rm -rf "$TMP"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cd "$TMP"
fail() { echo "FAIL: $*"; exit 1; }
MODEL=$(sed -n 's/^models = \["\(.*\)"\]/\1/p' "$ROOT/studies/smoke.toml")
[[ -n "$MODEL" ]] || fail "no model in studies/smoke.toml"
/usr/bin/python3 "$ROOT/tests/reframe/scaled_baseline.py" "$ROOT/results/baselines/cpu-demo.h5" scaled.h5 \
  --model "$MODEL" --scale mirrored:1:0.001 --scale mirrored:2:1000 --scale ring:1:0.001 --scale ring:2:0.001
if [[ "$MODE" == slurm ]]; then
  STARTED=1
  bash "$ROOT/slurm/local-cluster/local_cluster.sh" start "$TMP/cluster" >/dev/null || fail "the local cluster did not start"
  # shellcheck disable=SC1091
  source "$TMP/cluster/env.sh"
  PART=slurm
else
  PART=default
fi
# ReFrame reads no site or user configuration but ours; everything it writes stays under $TMP.
# TMPDIR too: ReFrame writes its start-up log to a temporary file before it reads the configuration.
export RFM_CONFIG_FILES="$ROOT/reframe/config/local.py" HOME="$TMP" RFM_COLORIZE=n TMPDIR="$TMP"
set +e
timeout 600 "${RF[@]}" -c "$ROOT/reframe/scalebench_check.py" --system "scalebench-local:$PART" --prefix "$TMP/rfm" \
  -S "scalebench=$SB" -S "spec=$ROOT/studies/smoke.toml" -S repetitions=2 -S sets=train.epochs=2 \
  -S baseline="$TMP/scaled.h5" -r > rfm.log 2>&1
rc=$?
set -e
cat rfm.log
((rc != 0)) || fail "reframe exited 0, but mirrored N = 2 is 1000x below its reference"
verdict() { grep -Eq "^\[ +$1 +\] .*ScalebenchPoint %strategy=$2 %devices=$3 " rfm.log || fail "$2 N=$3: not $1"; }
verdict OK mirrored 1
verdict FAIL mirrored 2
if [[ "$MODE" == slurm ]]; then
  grep -q '\[  FAILED  \] Ran 4/4 test case(s) from 4 check(s) (1 failure(s), 0 expected failure(s), 0 skipped' rfm.log ||
    fail "expected 4 test cases run, 1 failure"
  verdict OK ring 1
  verdict OK ring 2
else
  grep -q '\[  FAILED  \] Ran 2/4 test case(s) from 4 check(s) (1 failure(s), 0 expected failure(s), 2 skipped' rfm.log ||
    fail "expected 2 test cases run, 1 failure, 2 skipped (ring)"
  grep -q 'ring starts 1 MPI ranks; partition scalebench-local:default has the local launcher' rfm.log ||
    fail "ring was not skipped for want of an MPI launcher"
fi
grep -q 'Failing phase: performance' rfm.log || fail "the failure is not in the performance stage"
grep -A3 'Reason: performance error' rfm.log | grep -Eq '(reference\(s\): | +)images_per_s=[0-9]' ||
  fail "the failure does not name images_per_s"
# Each repetition is a train line of the point's job script (the first in prerun, the last the
# executable); under Slurm each is an srun step and the script asks for the point's tasks and CPUs.
# job_script <strategy> <N>: that test's job script (stage folder if it failed, output folder if it passed),
# found by the hash ReFrame prints after the test's name
job_script() {
  local hash s
  hash=$(grep -o "ScalebenchPoint %strategy=$1 %devices=$2 /[0-9a-f]*" rfm.log | head -n1 | sed 's|.*/||')
  s=$(find "$TMP/rfm" -path "*/ScalebenchPoint_$hash/rfm_job.sh" | head -n1)
  [[ -n "$hash" && -n "$s" ]] || fail "no job script for $1 N=$2"
  echo "$s"
}
trains() { grep -c "${1}$(basename "$SB") train --model $MODEL " "$2" || true; }
if [[ "$MODE" == slurm ]]; then
  m2=$(job_script mirrored 2) r2=$(job_script ring 2)
  for want in '#SBATCH --ntasks=1' '#SBATCH --ntasks-per-node=1' '#SBATCH --cpus-per-task=2' '#SBATCH --partition=debug'; do
    grep -qx -- "$want" "$m2" || fail "mirrored N=2's job script lacks '$want': $(cat "$m2")"
  done
  for want in '#SBATCH --ntasks=2' '#SBATCH --cpus-per-task=1' 'export SCALEBENCH_LAUNCHER=srun'; do
    grep -qx -- "$want" "$r2" || fail "ring N=2's job script lacks '$want': $(cat "$r2")"
  done
  [[ $(trains 'srun --cpus-per-task=2 .*' "$m2") == 2 ]] || fail "mirrored N=2: not 2 srun train steps: $(cat "$m2")"
  [[ $(trains 'srun --cpus-per-task=1 .*' "$r2") == 2 ]] || fail "ring N=2: not 2 srun train steps: $(cat "$r2")"
else
  m2=$(job_script mirrored 2)
  [[ $(trains '^.*' "$m2") == 2 ]] || fail "mirrored N=2: not 2 train lines: $(cat "$m2")"
fi
perflog=$(find "$TMP/rfm/perflogs" -name '*.log' | head -n1)
[[ -n "$perflog" ]] || fail "no performance log under $TMP/rfm/perflogs"
cat "$perflog"
for var in images_per_s efficiency; do
  line=$(grep -o "|${var}=[^|]*" "$perflog" | tail -n1)
  [[ "$line" =~ ref=[0-9][0-9.e+-]*\ lower=(-[0-9.e+-]+)\ upper=None ]] || fail "no reference and lower bound for $var: $line"
  awk -v l="${BASH_REMATCH[1]}" 'BEGIN { exit !(l <= -0.1) }' || fail "$var's lower bound ${BASH_REMATCH[1]} is tighter than -10 %"
done
echo "PASS"
