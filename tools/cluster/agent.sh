#!/usr/bin/env bash
# tools/cluster/agent.sh — Open MPI's rsh agent for an emulated cluster, in place of ssh: mpirun
# calls `agent.sh [ssh options] HOST COMMAND...` to start its daemon on HOST; this runs COMMAND
# through /bin/sh inside HOST's network and UTS namespaces (HOST = NAME-n<i>, made by up.sh),
# confined to HOST's cores (up.sh's NAME-n<i>.cpus, with taskset; everything the daemon starts
# inherits them), and, where up.sh gave the node a CPU quota (--cpu-share), inside the node's cgroup
# (NAME-n<i>.cgroup: this process joins it before exec, so the daemon and every rank it starts count
# against the node's quota), with this process's environment, as ssh to an identical node would. It does not copy files, change
# users or fall back to the host's own namespaces: an unknown HOST is an error.
set -euo pipefail
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done   # ssh-style options, if any
[ $# -ge 2 ] || { echo "cluster agent: usage: agent.sh HOST COMMAND..." >&2; exit 1; }
host=$1; shift
name=${host%-n[0-9]*}
uts=${SBEMU_RUN_ROOT:-/run}/$name/$host.uts cpus=${SBEMU_RUN_ROOT:-/run}/$name/$host.cpus
[ -e "/run/netns/$host" ] && [ -e "$uts" ] && [ -s "$cpus" ] \
  || { echo "cluster agent: host '$host' is not a node of an emulated cluster that is up (no /run/netns/$host, $uts or $cpus)" >&2; exit 1; }
cgroup=${SBEMU_RUN_ROOT:-/run}/$name/$host.cgroup
[ ! -e "$cgroup" ] || echo $$ > "$(cat "$cgroup")/cgroup.procs" \
  || { echo "cluster agent: could not join node $host's cgroup $(cat "$cgroup")" >&2; exit 1; }
exec nsenter --net="/run/netns/$host" --uts="$uts" -- taskset -c "$(cat "$cpus")" /bin/sh -c "$*"
