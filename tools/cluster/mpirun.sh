#!/usr/bin/env bash
# tools/cluster/mpirun.sh — run an MPI program on an emulated cluster (tools/cluster/up.sh):
# mpirun itself starts inside node 0's namespaces, and Open MPI's rsh launcher starts a daemon on
# every other node through tools/cluster/agent.sh, from a hostfile naming the nodes. Ranks fill the
# nodes in order, PPN per node (ranks 0..PPN-1 on node 0, …), so node boundaries are real host
# boundaries (distinct host names, distinct network stacks). MPI traffic is forced onto TCP over the
# nodes' shaped interfaces (pml ob1, btl self,tcp, both TCP components limited to the cluster's
# subnet): no shared memory, not even between ranks of one node. Ranks are not bound (--bind-to
# none): each runs on its node's cores, set by agent.sh. Open MPI 4.1's own binding reads the whole
# host's topology on every node, so each node's first rank went to host core 0 (measured: the two
# ranks of a 2-node run on one core, forward and backward twice as slow as at N = 1), and an
# oversubscribed node reset the mask to every core. It adds no option of its own to the program's
# command line.
#   mpirun.sh [--name sbemu] [--ppn 1] -np N [extra mpirun options] -- PROGRAM [ARGS...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
name=sbemu ppn=1 np= extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --name) name=$2; shift 2 ;;
    --ppn) ppn=$2; shift 2 ;;
    -np|-n) np=$2; shift 2 ;;
    --) shift; break ;;
    *) extra+=("$1"); shift ;;
  esac
done
check_name "$name"
[ $# -ge 1 ] || die "mpirun.sh: no program after --"
dir=$(state_dir "$name")
[ -f "$dir/cluster.env" ] || die "cluster '$name' is not up (no $dir/cluster.env); tools/cluster/up.sh --name $name ..."
. "$dir/cluster.env"
case "$ppn" in ''|*[!0-9]*|0) die "--ppn '$ppn': expected a positive whole number" ;; esac
case "$np" in ''|*[!0-9]*|0) die "-np '$np': expected a positive whole number" ;; esac
[ "$np" -le $((nodes * ppn)) ] || die "-np $np: the cluster has $nodes node(s) x --ppn $ppn = $((nodes * ppn)) slots"
hostfile=$dir/hostfile.ppn$ppn
for ((i = 0; i < nodes; i++)); do echo "$name-n$i slots=$ppn"; done > "$hostfile"
exec "$here/agent.sh" "$name-n0" "$(printf '%q ' mpirun --hostfile "$hostfile" -np "$np" --map-by slot --bind-to none \
  --mca plm_rsh_agent "$here/agent.sh" --mca plm_rsh_no_tree_spawn 1 \
  --mca pml ob1 --mca btl self,tcp \
  --mca btl_tcp_if_include "$subnet.0/24" --mca oob_tcp_if_include "$subnet.0/24" \
  "${extra[@]}" "$@")"
