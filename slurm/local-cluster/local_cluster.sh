#!/usr/bin/env bash
# A throw-away one-node Slurm cluster on this host (munged + slurmctld + slurmd), for tests and developers.
#
#   local_cluster.sh start  <dir>   generate config in <dir> (new or empty), start the daemons, wait until the node is idle
#   local_cluster.sh stop   <dir>   stop exactly the daemons recorded in <dir> (idempotent)
#   local_cluster.sh status <dir>   show the daemons and the node; exit 0 only when all three are up
#
# Clients find the cluster through SLURM_CONF: `source <dir>/env.sh` (nothing global is changed).
# Everything (key, sockets, pids, logs, state, spool) lives in <dir>; ports are picked free at start,
# so several clusters (and a system Slurm) can coexist. Needs root (slurmd must be able to become the job's user).
#
# Tunables (environment, read by `start`):
#   LOCAL_SLURM_CPUS          CPUs the node advertises (default 8, oversubscribes small hosts on purpose)
#   LOCAL_SLURM_TASK_PLUGIN   TaskPlugin (default task/none: no binding; task/affinity binds each task to
#                             its CPUs, which needs LOCAL_SLURM_CPUS at most the host's CPUs)
#   LOCAL_SLURM_MIN_JOB_AGE   seconds a finished job stays visible to squeue/scontrol (default 300)
#   LOCAL_SLURM_START_TIMEOUT seconds to wait for each daemon / the idle node (default 60)
#   LOCAL_SLURM_PORT_RANGE    "lo-hi" range to pick the two ports from (default 20000-32000, below the kernel's ephemeral ports)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PARTITION=debug

log() { echo "local_cluster: $*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
  echo "usage: $(basename "$0") start|stop|status <dir>" >&2
  exit 2
}

# ---------------------------------------------------------------- process bookkeeping
# <dir>/pids/<name> holds "pid starttime"; starttime (field 22 of /proc/pid/stat) guards against pid reuse.
# A zombie counts as gone (an init that does not reap, as in some containers, leaves them behind).
proc_starttime() { # pid -> starttime; fails when the process does not exist or is a zombie
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  stat="${stat##*) }" # drop "pid (comm) " (comm may hold spaces)
  # shellcheck disable=SC2086
  set -- $stat
  [[ "$1" != Z && "$1" != X ]] || return 1
  echo "${20}"
}

record_pid() { # dir name pid
  local st
  st="$(proc_starttime "$3")" || st=0
  echo "$3 $st" >"$1/pids/$2"
}

recorded_pid_alive() { # dir name -> prints pid if the recorded process is still the one we started
  local f="$1/pids/$2" pid st now
  [[ -r "$f" ]] || return 1
  read -r pid st <"$f" || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  now="$(proc_starttime "$pid")" || return 1
  [[ "$now" == "$st" ]] || return 1
  echo "$pid"
}

# pids of slurmstepd processes of this cluster: slurmd passes SLURM_CONF=<dir>/slurm.conf into their environment
# (it drops other variables, so a private marker would not survive), and no other cluster uses that path.
cluster_stepd_pids() { # dir
  local p env
  for p in /proc/[0-9]*; do
    [[ "$(cat "$p/comm" 2>/dev/null)" == slurmstepd ]] || continue
    env="$(tr '\0' '\n' 2>/dev/null <"$p/environ")" || continue
    grep -qxF "SLURM_CONF=$1/slurm.conf" <<<"$env" && echo "${p#/proc/}"
  done
  return 0
}

wait_gone() { # deadline_s pid...
  local deadline=$((SECONDS + $1)) p alive
  shift
  while :; do
    alive=0
    for p in "$@"; do proc_starttime "$p" >/dev/null && alive=1; done
    ((alive == 0)) && return 0
    ((SECONDS >= deadline)) && return 1
    sleep 0.2
  done
}

stop_pids() { # label pid...  (TERM, wait up to 15 s, KILL, wait up to 5 s)
  local label="$1"
  shift
  (($# > 0)) || return 0
  kill -TERM "$@" 2>/dev/null || true
  if ! wait_gone 15 "$@"; then
    log "$label did not exit after TERM, sending KILL"
    kill -KILL "$@" 2>/dev/null || true
    wait_gone 5 "$@" || log "warning: $label still present after KILL: $*"
  fi
}

# ---------------------------------------------------------------- start helpers
port_free() { # port
  if command -v ss >/dev/null; then
    [[ -z "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]] || return 1
  fi
  # second opinion (and the only one without ss): nothing answers on loopback
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

pick_ports() { # -> "ctld_port slurmd_port", consecutive free ports from a random start in the range
  local range="${LOCAL_SLURM_PORT_RANGE:-20000-32000}" lo hi span p i
  lo="${range%-*}" hi="${range#*-}"
  span=$((hi - lo))
  ((span > 2)) || die "LOCAL_SLURM_PORT_RANGE too small: $range"
  for ((i = 0; i < 200; i++)); do
    p=$((lo + (RANDOM * 32768 + RANDOM) % (span - 1)))
    if port_free "$p" && port_free $((p + 1)); then
      echo "$p $((p + 1))"
      return 0
    fi
  done
  die "no two free consecutive ports found in $range"
}

node_real_memory() { # MB from slurmd -C, else /proc/meminfo
  local m
  m="$(slurmd -C 2>/dev/null | tr ' ' '\n' | sed -n 's/^RealMemory=//p' | head -n1)"
  [[ "$m" =~ ^[0-9]+$ ]] || m=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024))
  echo "$m"
}

START_DIR=""
start_failed() { # message logfile...
  local msg="$1" f
  shift
  log "error: $msg"
  for f in "$@"; do
    [[ -s "$f" ]] || continue
    echo "----- tail of $f" >&2
    tail -n 25 "$f" >&2
  done
  if [[ -n "$START_DIR" ]]; then do_stop "$START_DIR" >&2 || true; fi
  exit 1
}

launch() { # dir name logfile cmd... : run a daemon in the foreground of its own session, in the background of ours
  local dir="$1" name="$2" out="$3"
  shift 3
  # setsid: no terminal, own process group (Ctrl-C in the caller's shell does not reach it);
  # every fd redirected so a caller reading our stdout through a pipe is not held open by the daemon.
  env SLURM_CONF="$dir/slurm.conf" setsid "$@" </dev/null >>"$out" 2>&1 &
  record_pid "$dir" "$name" "$!"
}

munge_ok() { munge -n -S "$1/munge.socket" | unmunge -S "$1/munge.socket"; }
daemon_alive() { recorded_pid_alive "$1" "$2" >/dev/null; }
node_idle() { [[ "$(SLURM_CONF="$1/slurm.conf" sinfo -h -N -n "$2" -o '%T' 2>/dev/null)" == idle ]]; }

do_start() {
  local dir="$1" t0=$SECONDS timeout="${LOCAL_SLURM_START_TIMEOUT:-60}"
  [[ "$(id -u)" == 0 ]] || die "must run as root (slurmd has to start jobs as their user)"
  local tool
  for tool in munged mungekey munge unmunge slurmctld slurmd sinfo scontrol setsid; do
    command -v "$tool" >/dev/null || die "$tool not found (Debian: apt-get install munge slurmctld slurmd slurm-client)"
  done
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd -P)"
  [[ -z "$(ls -A "$dir")" ]] || die "$dir is not empty (start wants a new or empty folder)"
  # unix socket paths are limited to 108 bytes; keep ours well below
  ((${#dir} <= 80)) || die "$dir is too long a path for the munge socket (max 80 chars)"
  # munged insists that everyone may search every folder above its socket
  local up="$dir"
  while [[ "$up" != / ]]; do
    up="$(dirname "$up")"
    [[ "$(stat -c %A "$up")" == ?????????[xt] ]] ||
      die "munged needs every folder above its socket searchable by all: chmod o+x $up (or use another <dir>)"
  done
  START_DIR="$dir"
  # munged refuses key/socket/log folders writable by group or others
  chmod 0755 "$dir"
  mkdir -m 0755 "$dir/pids" "$dir/log" "$dir/state" "$dir/spool"
  mkdir -m 0700 "$dir/munge"
  mkdir -m 1777 "$dir/tmp"

  # ---- munge
  local key="$dir/munge/munge.key"
  if ! mungekey --create --keyfile="$key" 2>"$dir/log/mungekey.err"; then
    dd if=/dev/urandom of="$key" bs=1024 count=1 status=none
  fi
  chmod 0400 "$key"
  launch "$dir" munged "$dir/log/munged.out" munged --foreground \
    --socket="$dir/munge.socket" --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/munge/munged.seed" --key-file="$key"
  local deadline=$((SECONDS + 15))
  until munge_ok "$dir" >/dev/null 2>&1; do
    daemon_alive "$dir" munged || start_failed "munged exited" "$dir/log/munged.out" "$dir/log/munged.log"
    ((SECONDS < deadline)) || start_failed "munged did not answer within 15 s" "$dir/log/munged.out" "$dir/log/munged.log"
    sleep 0.2
  done

  # ---- slurm.conf
  local host cpus mem ports ctld_port slurmd_port
  host="$(hostname -s)"
  cpus="${LOCAL_SLURM_CPUS:-8}"
  mem="$(node_real_memory)"
  ports="$(pick_ports)"
  ctld_port="${ports% *}" slurmd_port="${ports#* }"
  : >"$dir/plugstack.conf" # an empty one, so /etc/slurm/plugstack.conf(.d) of the host is not loaded
  sed -e "s|@DIR@|$dir|g" -e "s|@HOST@|$host|g" -e "s|@CPUS@|$cpus|g" -e "s|@MEM@|$mem|g" \
    -e "s|@CTLD_PORT@|$ctld_port|g" -e "s|@SLURMD_PORT@|$slurmd_port|g" -e "s|@PARTITION@|$PARTITION|g" \
    -e "s|@TASK_PLUGIN@|${LOCAL_SLURM_TASK_PLUGIN:-task/none}|g" \
    -e "s|@FIRST_JOB_ID@|$((1000 + (RANDOM * 32768 + RANDOM) % 900000))|g" -e "s|@MIN_JOB_AGE@|${LOCAL_SLURM_MIN_JOB_AGE:-300}|g" -e "s|@USER@|$(id -un)|g" \
    "$HERE/slurm.conf.in" >"$dir/slurm.conf"
  sed -e "s|@DIR@|$dir|g" "$HERE/mpi.conf.in" >"$dir/mpi.conf"
  cat >"$dir/env.sh" <<EOF
# source me: points Slurm clients (sbatch, srun, squeue, scontrol, sinfo, scancel, sacct -c) at the local cluster in $dir
export SLURM_CONF=$dir/slurm.conf
EOF
  cat >"$dir/cluster.env" <<EOF
# machine-readable facts about this local cluster (KEY=VALUE)
SLURM_CONF=$dir/slurm.conf
PARTITION=$PARTITION
NODE=$host
CPUS=$cpus
REAL_MEMORY_MB=$mem
SLURMCTLD_PORT=$ctld_port
SLURMD_PORT=$slurmd_port
SRUN_MPI=pmix
JOBCOMP_LOG=$dir/log/jobcomp.log
EOF

  # ---- daemons
  launch "$dir" slurmctld "$dir/log/slurmctld.out" slurmctld -D -f "$dir/slurm.conf"
  deadline=$((SECONDS + timeout))
  until SLURM_CONF="$dir/slurm.conf" scontrol ping >/dev/null 2>&1; do
    daemon_alive "$dir" slurmctld || start_failed "slurmctld exited" "$dir/log/slurmctld.out" "$dir/log/slurmctld.log"
    ((SECONDS < deadline)) || start_failed "slurmctld did not answer within ${timeout} s" "$dir/log/slurmctld.out" "$dir/log/slurmctld.log"
    sleep 0.2
  done
  launch "$dir" slurmd "$dir/log/slurmd.out" slurmd -D -f "$dir/slurm.conf"
  deadline=$((SECONDS + timeout))
  until node_idle "$dir" "$host"; do
    daemon_alive "$dir" slurmd || start_failed "slurmd exited" "$dir/log/slurmd.out" "$dir/log/slurmd.log"
    daemon_alive "$dir" slurmctld || start_failed "slurmctld exited" "$dir/log/slurmctld.out" "$dir/log/slurmctld.log"
    ((SECONDS < deadline)) || start_failed "node $host not idle within ${timeout} s ($(SLURM_CONF="$dir/slurm.conf" sinfo -h -N -o '%T %E' 2>&1))" \
      "$dir/log/slurmd.out" "$dir/log/slurmd.log" "$dir/log/slurmctld.log"
    sleep 0.2
  done
  echo "START_SECONDS=$((SECONDS - t0))" >>"$dir/cluster.env"
  echo "local slurm up: SLURM_CONF=$dir/slurm.conf (node $host, $cpus cpus)"
}

# ---------------------------------------------------------------- stop / status
do_stop() {
  local dir="$1" pid stepds
  if [[ ! -d "$dir/pids" ]]; then
    log "nothing to stop in $dir"
    return 0
  fi
  dir="$(cd "$dir" && pwd -P)"
  # 1. cancel this cluster's jobs so their step daemons clean up their tasks (bounded)
  if daemon_alive "$dir" slurmctld && daemon_alive "$dir" slurmd; then
    local ids
    ids="$(SLURM_CONF="$dir/slurm.conf" timeout 10 squeue -h -o '%A' 2>/dev/null | tr '\n' ' ')" || ids=""
    if [[ -n "${ids// /}" ]]; then
      # shellcheck disable=SC2086
      SLURM_CONF="$dir/slurm.conf" timeout 10 scancel $ids 2>/dev/null || true
      local deadline=$((SECONDS + 15))
      while [[ -n "$(cluster_stepd_pids "$dir")" ]] && ((SECONDS < deadline)); do sleep 0.2; done
    fi
  fi
  # 2. daemons, in reverse start order
  local name
  for name in slurmd slurmctld; do
    if pid="$(recorded_pid_alive "$dir" "$name")"; then stop_pids "$name" "$pid"; fi
  done
  # 3. step daemons still around (their jobs outlived the cancel), found by this cluster's marker
  stepds="$(cluster_stepd_pids "$dir" | tr '\n' ' ')"
  # shellcheck disable=SC2086
  [[ -n "${stepds// /}" ]] && stop_pids slurmstepd $stepds
  if pid="$(recorded_pid_alive "$dir" munged)"; then stop_pids munged "$pid"; fi
  log "stopped cluster in $dir"
}

do_status() {
  local dir="$1" name pid rc=0
  [[ -d "$dir/pids" ]] || {
    echo "no local cluster in $dir"
    return 1
  }
  for name in munged slurmctld slurmd; do
    if pid="$(recorded_pid_alive "$dir" "$name")"; then
      echo "$name: running (pid $pid)"
    else
      echo "$name: not running"
      rc=1
    fi
  done
  if daemon_alive "$dir" slurmctld; then
    SLURM_CONF="$dir/slurm.conf" timeout 10 sinfo -N -o '%N %P %T %c %m' || rc=1
  fi
  return "$rc"
}

[[ $# == 2 ]] || usage
case "$1" in
start) do_start "$2" ;;
stop) do_stop "$2" ;;
status) do_status "$2" ;;
*) usage ;;
esac
