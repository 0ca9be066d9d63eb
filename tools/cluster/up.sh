#!/usr/bin/env bash
# tools/cluster/up.sh — start an emulated cluster of K nodes on this host (docs/cluster-emulation.md).
# Each node is a network namespace NAME-n<i> plus a persistent UTS namespace whose host name is
# NAME-n<i>, joined to a bridge NAME-br by a veth pair; both ends of each veth are shaped with tc
# (tbf for the rate, netem for the latency) so every byte between two nodes crosses two shaped links.
# Each node also owns a set of this host's cores (--cpus-per-node, default: the cores this process
# may use divided evenly, at least 1), written to /run/NAME/NAME-n<i>.cpus; tools/cluster/agent.sh
# confines everything started on the node to them, so compute on one node does not slow another.
# With --cpu-share F each node is also a cgroup of the cpu controller (NAME/NAME-n<i>, v1 or v2) with a
# quota of F of one core (--node-share I=F for node I alone, e.g. one slower node), and by default
# may use every allowed core (the quota, not a core, is then its size); the nodes' parent cgroup has
# the largest weight, so other work on the host yields to the nodes. agent.sh puts every process
# started on a node into its cgroup.
# It starts no process and launches nothing (tools/cluster/mpirun.sh does); tools/cluster/down.sh
# removes everything it made, and so does this script if it fails half-way.
#   up.sh --nodes K (--preset NAME | --rate 1gbit [--latency 50us])   NAME: harness/study/project/networks.def
#         [--cpus-per-node C] [--cpu-share F [--node-share I=F]...] [--name sbemu] [--subnet 10.231.0]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

name=sbemu nodes= preset= rate= latency=0us subnet=10.231.0 cpn= share= node_share=()
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes=$2; shift 2 ;;
    --preset) preset=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --latency) latency=$2; shift 2 ;;
    --cpus-per-node) cpn=$2; shift 2 ;;
    --cpu-share) share=$2; shift 2 ;;
    --node-share) node_share+=("$2"); shift 2 ;;
    --name) name=$2; shift 2 ;;
    --subnet) subnet=$2; shift 2 ;;
    *) die "up.sh: unknown argument '$1' (see the header of tools/cluster/up.sh)" ;;
  esac
done
check_name "$name"
case "$nodes" in ''|*[!0-9]*) die "--nodes '$nodes': expected a whole number from 1 to 64" ;; esac
[ "$nodes" -ge 1 ] && [ "$nodes" -le 64 ] || die "--nodes $nodes: expected 1 to 64"
if [ -n "$preset" ]; then
  [ -z "$rate" ] || die "give --preset or --rate, not both"
  values=$(preset_values "$preset") || exit 1   # it said why
  read -r rate latency <<< "$values"
fi
[ -n "$rate" ] || die "give --preset NAME or --rate RATE (e.g. --rate 1gbit --latency 50us)"
bits=$(rate_bits "$rate"); lat=$(latency_us "$latency")
# netem is a kernel option (CONFIG_NET_SCH_NETEM); some kernels, this project's VM's among them,
# lack it. A preset then runs without its added latency, said on stderr and in cluster.env (the
# latency actually applied); an explicit --latency above 0 is refused.
if [ "$lat" -gt 0 ] && ! netem_available; then
  [ -n "$preset" ] || die "--latency $latency needs tc netem, which this kernel lacks (CONFIG_NET_SCH_NETEM); use --latency 0us"
  echo "cluster: this kernel has no tc netem (CONFIG_NET_SCH_NETEM): preset $preset runs without its ${lat} us latency" >&2
  lat=0
fi
read -r -a host_cpus < <(allowed_cpus)
ncpu=${#host_cpus[@]}
# check_share OPTION VALUE: a fraction of one core, from 0.1 (a 1 ms quota per 10 ms period, the
# kernel's least) to this process's cores.
check_share() {
  [[ $2 =~ ^[0-9]*\.?[0-9]+$ ]] && awk -v f="$2" -v n="$ncpu" 'BEGIN { exit !(f >= 0.1 && f <= n) }' \
    || die "$1 '$2': expected a fraction of one core from 0.1 to $ncpu (e.g. 0.25)"
}
shares=()   # node i's share of a core, or empty without --cpu-share
if [ -n "$share" ]; then
  check_share --cpu-share "$share"
  for ((i = 0; i < nodes; i++)); do shares+=("$share"); done
  for ov in "${node_share[@]}"; do
    [[ $ov =~ ^([0-9]+)=(.*)$ ]] || die "--node-share '$ov': expected NODE=SHARE, e.g. 3=0.2"
    node=${BASH_REMATCH[1]} value=${BASH_REMATCH[2]}
    [ "$node" -lt "$nodes" ] || die "--node-share '$ov': node $node does not exist (nodes 0 to $((nodes - 1)))"
    check_share --node-share "$value"
    shares[node]=$value
  done
  read -r cg_version cg_root < <(cgroup_cpu; echo)
  [ -n "$cg_root" ] || die "--cpu-share needs the cpu controller of cgroup v1 or v2, and /proc/mounts has neither"
  [ -n "$cpn" ] || cpn=$ncpu   # the quota sizes the node; any core may serve it
  total=$(printf '%s\n' "${shares[@]}" | awk '{ t += $1 } END { print t }')
  if awk -v t="$total" -v n="$ncpu" 'BEGIN { exit !(t > n) }'; then
    echo "cluster: the nodes' shares add up to $total core(s) > the $ncpu here: nodes wait for each other's quota" >&2
  fi
else
  [ ${#node_share[@]} = 0 ] || die "--node-share needs --cpu-share (the other nodes' share)"
fi
if [ -z "$cpn" ]; then cpn=$(( ncpu / nodes )); [ "$cpn" -ge 1 ] || cpn=1; fi
case "$cpn" in ''|*[!0-9]*|0) die "--cpus-per-node '$cpn': expected a positive whole number" ;; esac
[ "$cpn" -le "$ncpu" ] || die "--cpus-per-node $cpn: this process may use only $ncpu core(s) (${host_cpus[*]})"
if [ -z "$share" ] && [ $(( nodes * cpn )) -gt "$ncpu" ]; then
  echo "cluster: $nodes node(s) x $cpn core(s) > the $ncpu core(s) here: nodes share cores, so compute on one slows another" >&2
fi
[[ "$subnet" =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || die "--subnet '$subnet': expected three octets, e.g. 10.231.0"
[ "$(id -u)" = 0 ] || die "needs root (network namespaces, veths, tc)"
dir=$(state_dir "$name")
[ ! -e "$dir" ] || die "cluster '$name' is already up ($dir exists); tools/cluster/down.sh --name $name"
ip link show "$name-br" >/dev/null 2>&1 && die "a bridge $name-br exists; tools/cluster/down.sh --name $name"
[ -z "$share" ] || [ ! -e "$cg_root/$name" ] || die "a cgroup $cg_root/$name exists; tools/cluster/down.sh --name $name"

done_ok=0
cleanup() { [ "$done_ok" = 1 ] || { "$here/down.sh" --name "$name" >/dev/null 2>&1 || true
                                    echo "cluster: up.sh failed; removed what it made" >&2; }; }
trap cleanup EXIT

mkdir -p "$dir"
mount --bind "$dir" "$dir"          # a private mount, so UTS namespaces can be bound to files in it
mount --make-private "$dir"
printf 'nodes=%s\nrate=%s\nrate_bits=%s\nlatency_us=%s\nsubnet=%s\npreset=%s\ncpus_per_node=%s\nnode_shares=%s\n' \
  "$nodes" "$rate" "$bits" "$lat" "$subnet" "${preset:-none}" "$cpn" "$(IFS=,; echo "${shares[*]:-none}")" > "$dir/cluster.env"

# quotas: the parent NAME with the largest weight (other work of the host yields to the nodes), and
# under it one cgroup per node with its quota; the nodes' equal weights only matter among themselves.
if [ -n "$share" ]; then
  mkdir "$cg_root/$name"
  if [ "$cg_version" = v1 ]; then
    echo "$SBEMU_WEIGHT_V1" > "$cg_root/$name/cpu.shares"
  else
    grep -qw cpu "$cg_root/cgroup.subtree_control" || echo +cpu > "$cg_root/cgroup.subtree_control"
    echo "$SBEMU_WEIGHT_V2" > "$cg_root/$name/cpu.weight"
    echo +cpu > "$cg_root/$name/cgroup.subtree_control"
  fi
fi
# node_cgroup I: node I's cgroup with its quota, its path written to /run/NAME/NAME-n<I>.cgroup
node_cgroup() {
  local cg=$cg_root/$name/$name-n$1 quota
  quota=$(awk -v f="${shares[$1]}" -v p="$SBEMU_CFS_PERIOD_US" 'BEGIN { printf "%d", f * p + 0.5 }')
  mkdir "$cg"
  if [ "$cg_version" = v1 ]; then
    echo "$SBEMU_CFS_PERIOD_US" > "$cg/cpu.cfs_period_us"
    echo "$quota" > "$cg/cpu.cfs_quota_us"
  else
    echo "$quota $SBEMU_CFS_PERIOD_US" > "$cg/cpu.max"
  fi
  echo "$cg" > "$dir/$name-n$1.cgroup"
}

# tbf: burst of 1 ms at the rate (at least 32 KiB, which also bounds a GSO segment); netem: half the
# one-way latency on each side, with a queue long enough never to drop at these rates.
burst=$(( bits / 8 / 1000 )); [ "$burst" -ge 32768 ] || burst=32768
limit=$(( bits / 8 / 50 )); [ "$limit" -ge 1048576 ] || limit=1048576
half=$(( lat / 2 ))
shape() {  # shape DEV [NETNS]
  local tcx=(tc); [ -z "${2:-}" ] || tcx=(tc -n "$2")
  "${tcx[@]}" qdisc add dev "$1" root handle 1: tbf rate "${bits}bit" burst "$burst" limit "$limit"
  if [ "$half" -gt 0 ]; then
    "${tcx[@]}" qdisc add dev "$1" parent 1:1 handle 10: netem delay "${half}us" limit 100000
  fi
}

ip link add "$name-br" type bridge
ip link set "$name-br" up
for ((i = 0; i < nodes; i++)); do
  ns=$name-n$i
  ip netns add "$ns"
  ip link add "$name-h$i" type veth peer name "$name-v$i" netns "$ns"
  ip link set "$name-h$i" master "$name-br" up
  ip -n "$ns" link set lo up
  # TCP small queues: at most 64 KiB of a socket's data waits in the node's shaper. The host's
  # default (4 MiB here) lets one bulk flow queue 80 ms at 400 Mbit/s, and every ACK and MPI
  # rendezvous message of the reverse direction waits behind it (measured: busbw fell to a third).
  ip netns exec "$ns" sysctl -q -w net.ipv4.tcp_limit_output_bytes=65536
  ip -n "$ns" addr add "$subnet.$((i + 1))/24" dev "$name-v$i"
  ip -n "$ns" link set "$name-v$i" up
  shape "$name-h$i"           # bridge -> node: the node's download
  shape "$name-v$i" "$ns"     # node -> bridge: the node's upload
  touch "$dir/$ns.uts"
  unshare --uts="$dir/$ns.uts" hostname "$ns"
  # node i's cores: the next cpn of the allowed cores, wrapping round when nodes share them
  cpus=(); for ((j = 0; j < cpn; j++)); do cpus+=("${host_cpus[$(( (i * cpn + j) % ncpu ))]}"); done
  (IFS=,; echo "${cpus[*]}") > "$dir/$ns.cpus"
  [ -z "$share" ] || node_cgroup "$i"
  echo "$ns slots=1" >> "$dir/hosts"
done
done_ok=1
echo "cluster $name: $nodes node(s) $name-n0..$name-n$((nodes - 1)), $subnet.1..$subnet.$nodes/24," \
     "link $rate ($bits bit/s) each way, one-way latency ${lat} us, $cpn core(s) per node${share:+, a CPU quota of $(IFS=/; echo "${shares[*]}") core(s) ($cg_version cgroup $cg_root/$name)}"
