#!/usr/bin/env bash
# tools/cluster/down.sh — remove an emulated cluster (tools/cluster/up.sh): stop the processes still
# inside its namespaces, delete the namespaces (their veths and qdiscs go with them), the bridge, the
# UTS namespace files, the nodes' CPU cgroups (up.sh --cpu-share) and the state folder. Idempotent: removes whatever part of NAME exists, so it
# is safe after a half-finished up.sh or a failed test. It touches nothing not named NAME-*.
#   down.sh [--name sbemu]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
name=sbemu
while [ $# -gt 0 ]; do
  case "$1" in
    --name) name=$2; shift 2 ;;
    *) die "down.sh: unknown argument '$1' (down.sh [--name NAME])" ;;
  esac
done
check_name "$name"
dir=$(state_dir "$name")
for ns in $(ip netns list | awk '{print $1}' | grep -E "^$name-n[0-9]+$"); do
  pids=$(ip netns pids "$ns" 2>/dev/null || true)
  [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
  ip netns del "$ns"
done
ip link del "$name-br" 2>/dev/null || true
# the nodes' cgroups: their processes are stopped (a process may have joined a node's cgroup before
# entering its namespace), then each node's cgroup and the parent are removed once empty — a killed
# process leaves its cgroup only when it has exited, so wait for that (at most ~5 s).
read -r cg_version cg_root < <(cgroup_cpu; echo)
if [ -n "$cg_root" ] && [ -d "$cg_root/$name" ]; then
  for cg in "$cg_root/$name"/$name-n*/ "$cg_root/$name/"; do
    [ -d "$cg" ] || continue
    pids=$(cat "$cg/cgroup.procs" 2>/dev/null)
    [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
    for ((t = 0; t < 50; t++)); do [ -z "$(cat "$cg/cgroup.procs" 2>/dev/null)" ] && break; sleep 0.1; done
    rmdir "$cg" 2>/dev/null || true
  done
fi
# host-side veths whose peer namespace was already gone
for dev in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -E "^$name-h[0-9]+$"); do
  ip link del "$dev" 2>/dev/null || true
done
if [ -d "$dir" ]; then
  for f in "$dir"/*.uts; do [ -e "$f" ] && umount "$f" 2>/dev/null; done
  mountpoint -q "$dir" && umount "$dir"
  rm -rf "$dir"
fi
left=$( { ip netns list | grep -E "^$name-n[0-9]+"; ip -o link show | grep -E ": $name-(br|h[0-9]+)[:@]"
          [ -z "$cg_root" ] || [ ! -d "$cg_root/$name" ] || echo "cgroup $cg_root/$name"; } || true)
[ -z "$left" ] || die "down.sh: could not remove: $left"
echo "cluster $name: down"
