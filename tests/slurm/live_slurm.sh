# live_slurm.sh — the start every live Slurm test shares (sourced by tests/slurm/slurm_*_test.sh):
# the skip checks, a clean Slurm environment, the temp folder, and the exit path that stops exactly
# the daemons the test started and shows the logs when it failed. Not here: starting the cluster
# (each test starts slurm/local-cluster/local_cluster.sh with its own settings) or anything it tests.
#   live_slurm_setup PREFIX TOOL...   exit 77 unless root and munged, slurmctld, slurmd and every TOOL
#                                     are installed; unset SLURM_*; TMP = a new /tmp/PREFIX.XXXXXX
# Set STARTED=1 before starting the cluster; LIVE_SLURM_LOGS (globs under $TMP) adds logs to show.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LC="$ROOT/slurm/local-cluster/local_cluster.sh"
T0=$SECONDS
POLL_SLEEP=${POLL_SLEEP:-1}
LIVE_SLURM_LOGS=""
step() { printf '[%3ds] %s\n' $((SECONDS - T0)) "$*"; }
fail() { echo "FAIL: $*"; exit 1; }
# poll <seconds> cmd... — until cmd succeeds or the deadline passes (POLL_SLEEP seconds apart).
poll() {
  local deadline=$((SECONDS + $1)); shift
  until "$@"; do ((SECONDS < deadline)) || return 1; sleep "$POLL_SLEEP"; done
}
# no_jobs_left: the queue holds none of this test's jobs. A failed squeue (slurmctld busy: "Socket timed
# out") is not an empty queue: it answers no, and the poll asks again.
queued_ids() { squeue --noheader --format=%i 2>/dev/null; }
no_jobs_left() {
  local q
  q=$(queued_ids) || return 1
  [[ -z $q ]]
}
# job_gone JOB: the queue no longer holds JOB (the whole queue, not `squeue -j`, which fails for a job id
# Slurm has purged); a failed squeue answers no, as above.
job_gone() {
  local q
  q=$(queued_ids) || return 1
  ! grep -qx "$1" <<<"$q"
}

live_slurm_cleanup() {
  local rc=$?
  ((STARTED)) && bash "$LC" stop "$TMP/cluster" >/dev/null 2>&1
  if ((rc != 0)); then
    # shellcheck disable=SC2086  # LIVE_SLURM_LOGS holds globs
    for f in "$TMP"/work/results/*/slurm/logs/*.out $LIVE_SLURM_LOGS "$TMP"/cluster/log/slurmctld.log; do
      [[ -s "$f" ]] && { echo "----- tail of $f"; tail -n 20 "$f"; }
    done
  fi
  rm -rf "$TMP"
  exit "$rc"
}

live_slurm_setup() {
  local prefix=$1 tool; shift
  [[ "$(id -u)" == 0 ]] || { echo "SKIP: needs root (the local cluster's slurmd runs jobs as their user)"; exit 77; }
  for tool in munged slurmctld slurmd "$@"; do
    command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (tools/install-deps.sh installs slurm-wlm and munge)"; exit 77; }
  done
  # A test started inside a real Slurm job must not talk to that job's cluster.
  while read -r v; do unset "$v"; done < <(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\)=.*/\1/p')
  TMP="$(mktemp -d "/tmp/$prefix.XXXXXX")"
  chmod 0755 "$TMP"
  STARTED=0
  trap live_slurm_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}
