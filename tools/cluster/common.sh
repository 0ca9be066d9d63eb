# tools/cluster/common.sh — names, state, presets and helpers shared by the cluster-emulation scripts
# (sourced, not run). One emulated cluster is identified by its NAME (default sbemu); everything it
# creates carries that name: namespaces NAME-n<i>, bridge NAME-br, veths NAME-h<i> (bridge side) and
# NAME-v<i> (node side), state under /run/NAME/. This file creates nothing itself.

SBEMU_RUN_ROOT=${SBEMU_RUN_ROOT:-/run}

die() { echo "cluster: $*" >&2; exit 1; }

# check_name NAME: the name becomes interface names (15 characters at most: NAME-h<i>).
check_name() {
  case "$1" in
    ''|*[!a-z0-9]*) die "--name '$1': use lower-case letters and digits only" ;;
  esac
  [ "${#1}" -le 8 ] || die "--name '$1': at most 8 characters (it prefixes interface names)"
}

state_dir() { echo "$SBEMU_RUN_ROOT/$1"; }

# Presets: the named networks of harness/study/project/networks.def (the one list; `scalebench project
# --network` takes the same names), as "RATE LATENCY": the per-node link rate (each direction, tc tbf)
# and the one-way node-to-node latency, added by tc netem split evenly over the sender's and the
# receiver's link. The latencies are stated choices, not measurements; the host's TCP stack adds its own.
SBEMU_NETWORKS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../harness/study/project" && pwd)/networks.def
# network_rows -> "name mbit latency_us" per network of networks.def (the nameplate; the delivered
# ranges after them are the projection's, not the emulation's)
network_rows() {
  [ -r "$SBEMU_NETWORKS" ] || die "cannot read the named networks ($SBEMU_NETWORKS)"
  sed -n 's/^SB_NETWORK(\([a-z0-9]*\), *\([0-9]*\), *\([0-9]*\),.*)$/\1 \2 \3/p' "$SBEMU_NETWORKS"
}
preset_values() {
  local n mbit lat known=()
  while read -r n mbit lat; do
    [ "$n" = "$1" ] && { echo "${mbit}mbit ${lat}us"; return 0; }
    known+=("$n")
  done < <(network_rows)
  die "--preset '$1': unknown (known: $(printf '%s, ' "${known[@]}" | sed 's/, $//'))"
}

# allowed_cpus -> the cores this process may run on, space-separated (its affinity mask, so a
# cgroup or taskset around the caller is respected).
allowed_cpus() {
  local part out=()
  for part in $(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status | tr ',' ' '); do
    if [[ $part == *-* ]]; then out+=($(seq "${part%-*}" "${part#*-}")); else out+=("$part"); fi
  done
  echo "${out[*]}"
}

# rate_bits TEXT -> bits per second (tc's units: bit, kbit, mbit, gbit; decimal).
rate_bits() {
  local v=${1%[kmg]bit} u
  case "$1" in
    *kbit) u=1000 ;; *mbit) u=1000000 ;; *gbit) u=1000000000 ;; *bit) v=${1%bit}; u=1 ;;
    *) die "rate '$1': expected a number followed by bit, kbit, mbit or gbit (e.g. 10gbit)" ;;
  esac
  case "$v" in ''|*[!0-9]*) die "rate '$1': expected a whole number followed by its unit" ;; esac
  [ "$v" -gt 0 ] || die "rate '$1': must be positive"
  echo $((v * u))
}

# latency_us TEXT -> microseconds (us or ms).
latency_us() {
  local v
  case "$1" in
    *us) v=${1%us}; m=1 ;; *ms) v=${1%ms}; m=1000 ;;
    *) die "latency '$1': expected a whole number followed by us or ms (e.g. 50us)" ;;
  esac
  case "$v" in ''|*[!0-9]*) die "latency '$1': expected a whole number followed by us or ms" ;; esac
  echo $((v * m))
}

# netem_available: whether this kernel can attach a netem qdisc (tried on a throw-away veth pair
# inside a throw-away network namespace, so nothing of the host is touched).
netem_available() {
  unshare -n sh -c 'ip link add sbq0 type veth peer name sbq1 && tc qdisc add dev sbq0 root netem delay 1us' \
    >/dev/null 2>&1
}

# CPU quotas (up.sh --cpu-share): each node a cgroup NAME-n<i> under a cgroup NAME of the cpu
# controller, on cgroup v1 (cpu.cfs_quota_us / cpu.cfs_period_us, cpu.shares) or v2 (cpu.max,
# cpu.weight), whichever this host mounts the cpu controller on.
# cgroup_cpu -> "v1 DIR" or "v2 DIR" (the mount of the cpu controller), or nothing where there is none.
cgroup_cpu() {
  local dev dir type opts rest
  while read -r dev dir type opts rest; do
    if [ "$type" = cgroup ] && [[ ",$opts," == *,cpu,* ]]; then echo "v1 $dir"; return 0; fi
  done < /proc/mounts
  while read -r dev dir type opts rest; do
    if [ "$type" = cgroup2 ] && grep -qw cpu "$dir/cgroup.controllers" 2>/dev/null; then echo "v2 $dir"; return 0; fi
  done < /proc/mounts
  return 0
}
# The CFS period of a node's quota: 10 ms, so that a node of a quarter core runs 2.5 ms of every 10
# rather than 25 of every 100 (a rank waiting on a message then waits at most ~7.5 ms for its turn,
# not ~75). The kernel's smallest quota is 1 ms, hence the smallest share, 0.1 of a core.
SBEMU_CFS_PERIOD_US=10000
# The nodes' parent cgroup's weight, the largest each version accepts: where nodes and other work of
# the host (a compile) want the same core, the other work yields first.
SBEMU_WEIGHT_V1=262144 SBEMU_WEIGHT_V2=10000

# run_ips RUNDIR -> the images/s the run file in RUNDIR records (/summary/images_per_s; a `train -o
# RUNDIR` writes one file there). For the validation scripts' measured runs; it computes nothing.
run_ips() { h5dump -A -a /summary/images_per_s "$1"/*.h5 | awk '/\(0\)/ {print $2}'; }
