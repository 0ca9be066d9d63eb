#!/usr/bin/env bash
# tools/cluster/up.sh — start an emulated cluster of K nodes on this host (docs/cluster-emulation.md).
# Each node is a network namespace NAME-n<i> plus a persistent UTS namespace whose host name is
# NAME-n<i>, joined to a bridge NAME-br by a veth pair; both ends of each veth are shaped with tc
# (tbf for the rate, netem for the latency) so every byte between two nodes crosses two shaped links.
# Each node also owns a set of this host's cores (--cpus-per-node, default: the cores this process
# may use divided evenly, at least 1), written to /run/NAME/NAME-n<i>.cpus; tools/cluster/agent.sh
# confines everything started on the node to them, so compute on one node does not slow another.
# It starts no process and launches nothing (tools/cluster/mpirun.sh does); tools/cluster/down.sh
# removes everything it made, and so does this script if it fails half-way.
#   up.sh --nodes K (--preset NAME | --rate 1gbit [--latency 50us])   NAME: harness/study/project/networks.def
#         [--cpus-per-node C] [--name sbemu] [--subnet 10.231.0]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

name=sbemu nodes= preset= rate= latency=0us subnet=10.231.0 cpn=
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes=$2; shift 2 ;;
    --preset) preset=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --latency) latency=$2; shift 2 ;;
    --cpus-per-node) cpn=$2; shift 2 ;;
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
if [ -z "$cpn" ]; then cpn=$(( ncpu / nodes )); [ "$cpn" -ge 1 ] || cpn=1; fi
case "$cpn" in ''|*[!0-9]*|0) die "--cpus-per-node '$cpn': expected a positive whole number" ;; esac
[ "$cpn" -le "$ncpu" ] || die "--cpus-per-node $cpn: this process may use only $ncpu core(s) (${host_cpus[*]})"
if [ $(( nodes * cpn )) -gt "$ncpu" ]; then
  echo "cluster: $nodes node(s) x $cpn core(s) > the $ncpu core(s) here: nodes share cores, so compute on one slows another" >&2
fi
[[ "$subnet" =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || die "--subnet '$subnet': expected three octets, e.g. 10.231.0"
[ "$(id -u)" = 0 ] || die "needs root (network namespaces, veths, tc)"
dir=$(state_dir "$name")
[ ! -e "$dir" ] || die "cluster '$name' is already up ($dir exists); tools/cluster/down.sh --name $name"
ip link show "$name-br" >/dev/null 2>&1 && die "a bridge $name-br exists; tools/cluster/down.sh --name $name"

done_ok=0
cleanup() { [ "$done_ok" = 1 ] || { "$here/down.sh" --name "$name" >/dev/null 2>&1 || true
                                    echo "cluster: up.sh failed; removed what it made" >&2; }; }
trap cleanup EXIT

mkdir -p "$dir"
mount --bind "$dir" "$dir"          # a private mount, so UTS namespaces can be bound to files in it
mount --make-private "$dir"
printf 'nodes=%s\nrate=%s\nrate_bits=%s\nlatency_us=%s\nsubnet=%s\npreset=%s\ncpus_per_node=%s\n' \
  "$nodes" "$rate" "$bits" "$lat" "$subnet" "${preset:-none}" "$cpn" > "$dir/cluster.env"

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
  echo "$ns slots=1" >> "$dir/hosts"
done
done_ok=1
echo "cluster $name: $nodes node(s) $name-n0..$name-n$((nodes - 1)), $subnet.1..$subnet.$nodes/24," \
     "link $rate ($bits bit/s) each way, one-way latency ${lat} us, $cpn core(s) per node"
