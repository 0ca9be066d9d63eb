#!/usr/bin/env bash
# Smoke test of the local one-node Slurm (slurm/local-cluster/local_cluster.sh): starts a cluster in a temp
# folder, exercises what the Slurm launcher relies on (sbatch, srun --mpi=pmix with a real MPI program,
# dependencies, arrays, requeue, signals to the batch script and through srun), stops it and checks that
# every daemon it started is gone.
#   bash tests/slurm/local_cluster_smoke.sh        exit 0 pass, 1 fail, 77 skip (no root / Slurm / munge / mpicc)
#   LOCAL_SLURM_KEEP=1 keeps the temp folder (logs) after the run.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LC="$ROOT/slurm/local-cluster/local_cluster.sh"
T0=$SECONDS

step() { printf '[%3ds] %s\n' $((SECONDS - T0)) "$*"; }
skip() {
  echo "SKIP: $*"
  exit 77
}

[[ "$(id -u)" == 0 ]] || skip "needs root (slurmd starts jobs as their user)"
for tool in munged mungekey slurmctld slurmd sbatch srun squeue scontrol scancel sinfo sacct mpicc setsid; do
  command -v "$tool" >/dev/null || skip "$tool not installed"
done

# a test started inside a real Slurm job must not talk to that job's cluster
while read -r v; do unset "$v"; done < <(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\)=.*/\1/p')

TMP="$(mktemp -d /tmp/sb-slurm.XXXXXX)"
chmod 0755 "$TMP" # munged wants every folder above its socket searchable by all
CL="$TMP/cluster"
STARTED=0
PASSED=0
cleanup() {
  local rc=$?
  if ((STARTED)); then bash "$LC" stop "$CL" >/dev/null 2>&1 || true; fi
  if ((PASSED == 0)); then
    local f
    for f in "$CL"/log/slurmctld.log "$CL"/log/slurmd.log; do
      [[ -s "$f" ]] && { echo "----- tail of $f"; tail -n 20 "$f"; }
    done
  fi
  if [[ "${LOCAL_SLURM_KEEP:-0}" == 1 ]]; then echo "kept $TMP"; else rm -rf "$TMP"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail() {
  echo "FAIL: $*"
  exit 1
}

# run cmd until it succeeds, at most $1 seconds
poll() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

# JobState of every job (array tasks included) behind an id, one per line
job_states() { timeout 20 scontrol show job -o "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2; }
job_field() { timeout 20 scontrol show job -o "$1" 2>/dev/null | head -n1 | tr ' ' '\n' | sed -n "s/^$2=//p"; }
is_terminal() { [[ "$1" =~ ^(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|PREEMPTED|BOOT_FAIL|DEADLINE)$ ]]; }
all_done() {
  local s n=0
  for s in $(job_states "$1"); do
    is_terminal "$s" || return 1
    n=$((n + 1))
  done
  ((n > 0))
}
state_is() { [[ "$(job_states "$1" | tr '\n' ' ')" == "$2 " ]]; }
wait_done() { poll "${2:-60}" all_done "$1" || fail "job $1 not finished within ${2:-60} s (states: $(job_states "$1" | tr '\n' ' '))"; }
expect_completed() {
  local s
  for s in $(job_states "$1"); do [[ "$s" == COMPLETED ]] || fail "job $1 ended $s, expected COMPLETED"; done
}
submit() { timeout 30 sbatch --parsable --chdir="$TMP" "$@"; }

# ------------------------------------------------------------------ start
step "start cluster in $CL"
STARTED=1
t=$SECONDS
bash "$LC" start "$CL"
step "cluster up in $((SECONDS - t)) s"
# shellcheck disable=SC1091
source "$CL/env.sh"
[[ "$SLURM_CONF" == "$CL/slurm.conf" ]] || fail "env.sh does not set SLURM_CONF"
part="$(sinfo -h -o '%P %a %T')"
[[ "$part" == "debug* up idle" ]] || fail "unexpected sinfo: $part"
step "sinfo: $part; status:"
bash "$LC" status "$CL" | sed 's/^/    /'

step "compile a tiny MPI program"
cat >"$TMP/mpi_check.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
/* rank/size must agree with Slurm's view of the step, and a collective must work */
int main(int argc, char **argv) {
  int rank, size, one = 1, sum = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  const char *p = getenv("SLURM_PROCID"), *n = getenv("SLURM_NTASKS");
  int ok = p && n && atoi(p) == rank && atoi(n) == size && sum == size;
  printf("mpi rank %d size %d SLURM_PROCID=%s SLURM_NTASKS=%s allreduce=%d %s\n", rank, size, p ? p : "unset",
         n ? n : "unset", sum, ok ? "ok" : "MISMATCH");
  MPI_Finalize();
  return ok ? 0 : 1;
}
EOF
mpicc -O1 -o "$TMP/mpi_check" "$TMP/mpi_check.c"

# ------------------------------------------------------------------ batch jobs
step "sbatch --wrap hostname"
j_host="$(submit -o "$TMP/host-%j.out" --wrap 'hostname')"
step "  job $j_host; dependent job (afterany:$j_host)"
j_dep="$(submit --dependency="afterany:$j_host" -o "$TMP/dep-%j.out" \
  --wrap "test -s $TMP/host-$j_host.out && echo dep-ran-after-$j_host")"
step "  job $j_dep; 2-element array"
# shellcheck disable=SC2016 # expanded by the job
j_arr="$(submit --array=1-2 -o "$TMP/arr-%A_%a.out" --wrap 'echo array-task-$SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_JOB_ID')"
step "  job $j_arr; 5-task batch job (oversubscribed host) running srun --mpi=pmix and an env check"
export SB_SMOKE_PROBE="passed-through-$$"
j_mpi5="$(submit --ntasks=5 -o "$TMP/mpi5-%j.out" \
  --wrap "srun --mpi=pmix $TMP/mpi_check && srun -n1 printenv SB_SMOKE_PROBE")"
step "  job $j_mpi5"

step "srun --mpi=pmix -n 2 mpi_check (interactive step)"
out="$(cd "$TMP" && timeout 120 srun --mpi=pmix -n 2 ./mpi_check 2>&1)" || fail "srun --mpi=pmix failed: $out"
printf '    %s\n' "${out//$'\n'/$'\n'    }"
[[ "$(grep -c ' ok$' <<<"$out")" == 2 ]] || fail "expected 2 ranks reporting ok"

step "wait for the batch jobs (deadline 90 s)"
for j in "$j_host" "$j_dep" "$j_arr" "$j_mpi5"; do wait_done "$j" 90; done
for j in "$j_host" "$j_dep" "$j_arr" "$j_mpi5"; do expect_completed "$j"; done
[[ "$(cat "$TMP/host-$j_host.out")" == "$(hostname)" ]] || fail "hostname job output: $(cat "$TMP/host-$j_host.out")"
grep -qx "dep-ran-after-$j_host" "$TMP/dep-$j_dep.out" || fail "dependent job output: $(cat "$TMP/dep-$j_dep.out")"
for a in 1 2; do
  grep -qx "array-task-$a of $j_arr" "$TMP/arr-${j_arr}_$a.out" || fail "array task $a output missing"
done
[[ "$(grep -c ' ok$' "$TMP/mpi5-$j_mpi5.out")" == 5 ]] || fail "5-rank job: $(cat "$TMP/mpi5-$j_mpi5.out")"
grep -qx "$SB_SMOKE_PROBE" "$TMP/mpi5-$j_mpi5.out" || fail "environment not passed through sbatch/srun"
dep_start="$(job_field "$j_dep" StartTime)" host_end="$(job_field "$j_host" EndTime)"
[[ ! "$dep_start" < "$host_end" ]] || fail "dependent job started $dep_start before $j_host ended $host_end"
step "  all COMPLETED; outputs right (array: 2 tasks, mpi: 5 ranks ok, env passed through)"
comp="$(timeout 20 sacct -c -n -j "$j_host" -o jobid,state,exitcode | awk '{print $2, $3}')"
[[ "$comp" == "COMPLETED 0:0" ]] || fail "sacct -c for $j_host: '$comp'"
step "  sacct -c (job completion log): $j_host $comp"

# ------------------------------------------------------------------ requeue
step "requeue a running job"
# shellcheck disable=SC2016 # expanded by the job
j_rq="$(submit -o "$TMP/rq-%j.out" --open-mode=append --wrap 'echo run restart=${SLURM_RESTART_COUNT:-0}; sleep 30')"
poll 30 state_is "$j_rq" RUNNING || fail "job $j_rq not running (state $(job_states "$j_rq"))"
poll 10 grep -q 'restart=0' "$TMP/rq-$j_rq.out" || fail "first run of $j_rq wrote nothing"
timeout 20 scontrol requeue "$j_rq"
requeued() { [[ "$(job_field "$1" Restarts)" == 1 ]] && state_is "$1" PENDING; }
poll 30 requeued "$j_rq" ||
  fail "job $j_rq not pending with Restarts=1 after requeue"
step "  job $j_rq PENDING (Reason=$(job_field "$j_rq" Reason)) Restarts=1; release it with StartTime=now"
timeout 20 scontrol update jobid="$j_rq" StartTime=now
poll 30 grep -q 'restart=1' "$TMP/rq-$j_rq.out" || fail "job $j_rq did not run again (state $(job_states "$j_rq"))"
step "  running again with SLURM_RESTART_COUNT=1; scancel"
timeout 20 scancel "$j_rq"
wait_done "$j_rq" 30
state_is "$j_rq" CANCELLED || fail "job $j_rq ended $(job_states "$j_rq"), expected CANCELLED"

# ------------------------------------------------------------------ signals
step "scancel --signal=USR1 --batch reaches the batch script"
# --batch signals the batch shell only (not its children), so waiting on a background sleep is safe here
cat >"$TMP/usr1.sh" <<EOF
#!/bin/bash
trap 'echo got-usr1 > $TMP/usr1.marker; kill \$! 2>/dev/null; exit 0' USR1
touch $TMP/usr1.ready
sleep 60 & wait \$!
echo "no signal" > $TMP/usr1.marker
exit 3
EOF
j_sig="$(submit -o "$TMP/usr1-%j.out" "$TMP/usr1.sh")"
poll 30 test -e "$TMP/usr1.ready" || fail "job $j_sig did not start"
timeout 20 scancel --signal=USR1 --batch "$j_sig"
poll 20 grep -qx got-usr1 "$TMP/usr1.marker" 2>/dev/null || fail "batch script did not get USR1"
wait_done "$j_sig" 30
expect_completed "$j_sig"
step "  marker written, job COMPLETED"

step "kill -USR1 <srun pid> inside a batch job is forwarded to every task"
cat >"$TMP/fwd.sh" <<EOF
#!/bin/bash
# the step's processes are all signalled, so the task polls in short sleeps instead of waiting on a child
# that the same USR1 would kill first (bash runs the trap once the running sleep returns)
srun -n 2 bash -c 'trap "echo got-usr1 > $TMP/fwd.marker.\\\$SLURM_PROCID; exit 0" USR1
  touch $TMP/fwd.ready.\$SLURM_PROCID; for i in \$(seq 600); do sleep 0.1; done; exit 3' &
srun_pid=\$!
for i in \$(seq 600); do [[ -e $TMP/fwd.ready.0 && -e $TMP/fwd.ready.1 ]] && break; sleep 0.1; done
kill -USR1 \$srun_pid
wait \$srun_pid
echo "srun exit \$?"
EOF
j_fwd="$(submit -n 2 -o "$TMP/fwd-%j.out" "$TMP/fwd.sh")"
wait_done "$j_fwd" 90
for r in 0 1; do grep -qx got-usr1 "$TMP/fwd.marker.$r" 2>/dev/null || fail "task $r did not get USR1: $(cat "$TMP/fwd-$j_fwd.out")"; done
grep -qx 'srun exit 0' "$TMP/fwd-$j_fwd.out" || fail "srun: $(cat "$TMP/fwd-$j_fwd.out")"
expect_completed "$j_fwd"
step "  both tasks got USR1, srun exit 0"

# ------------------------------------------------------------------ stop
step "stop cluster"
declare -A pids
for d in munged slurmctld slurmd; do read -r pids[$d] _ <"$CL/pids/$d"; done
bash "$LC" stop "$CL"
STARTED=0
alive() { [[ -r /proc/$1/stat ]] && ! grep -q '^[0-9]* ([^)]*) [ZX]' "/proc/$1/stat"; }
for d in munged slurmctld slurmd; do
  ! alive "${pids[$d]}" || fail "$d (pid ${pids[$d]}) still running after stop"
done
# step daemons and job processes of this cluster carry its SLURM_CONF (this shell has it too, but no SLURM_JOB_ID)
for p in /proc/[0-9]*; do
  alive "${p#/proc/}" || continue
  env_p="$(tr '\0' '\n' 2>/dev/null <"$p/environ")" || continue
  grep -qxF "SLURM_CONF=$CL/slurm.conf" <<<"$env_p" || continue
  comm="$(cat "$p/comm" 2>/dev/null)" || continue
  [[ "$comm" != slurmstepd ]] || fail "slurmstepd ${p#/proc/} survived"
  ! grep -q '^SLURM_JOB_ID=' <<<"$env_p" || fail "job process ${p#/proc/} ($comm) survived the cluster"
done
if bash "$LC" status "$CL" >/dev/null; then fail "status says running after stop"; fi
bash "$LC" stop "$CL" 2>/dev/null || fail "second stop not idempotent"
step "  daemons gone (munged ${pids[munged]}, slurmctld ${pids[slurmctld]}, slurmd ${pids[slurmd]}); second stop ok"
PASSED=1
step "PASS"
