#!/usr/bin/env bash
# tests/cluster/lib.sh — sourced by the cluster-label tests (tests/cluster/*_test.sh) after
# `set -uo pipefail`: skip/fail helpers, the checks that decide "skipped, with the reason" (exit 77:
# not root, no mpirun/ip/tc, or namespaces + veth + tc tbf refused by this host), a cluster name and
# subnet unique to the test process, where the cpu controller's cgroups are (cg_version, cg_root;
# empty without one), and a teardown on EXIT that removes that cluster. It starts no
# cluster itself. Expects: sb (the scalebench binary) and subnet_base (e.g. 10.232) set by the caller.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cl=$root/tools/cluster
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, veths, tc)"
command -v mpirun >/dev/null || skip "mpirun (Open MPI) not found"
command -v tc >/dev/null && command -v ip >/dev/null || skip "ip/tc (iproute2) not found"
unshare -n sh -c 'ip link add sbq0 type veth peer name sbq1 && tc qdisc add dev sbq0 root tbf rate 1gbit burst 32k limit 1m' \
  >/dev/null 2>&1 || skip "this host does not permit network namespaces, veths or tc tbf (unshare -n + tc failed)"

name=sbt$(( $$ % 100000 ))
subnet=$subnet_base.$(( $$ % 250 ))
tmp=$(mktemp -d)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
. "$cl/common.sh"   # cgroup_cpu: where the nodes' CPU cgroups (up.sh --cpu-share) live
read -r cg_version cg_root < <(cgroup_cpu; echo)
# leftovers: anything named after this test's cluster (namespace, link, qdisc, CPU cgroup), one per line
leftovers() {
  { ip netns list | grep -E "^$name-"; ip -o link show | grep -E ": $name-"; tc qdisc show | grep -E "dev $name-"
    [ -z "$cg_root" ] || [ ! -d "$cg_root/$name" ] || echo "cgroup $cg_root/$name"; } 2>/dev/null
}
teardown() { "$cl/down.sh" --name "$name" >/dev/null 2>&1; rm -rf "$tmp"; }
trap teardown EXIT
