#!/usr/bin/env bash
# tests/cluster/cluster_test.sh SCALEBENCH — ctest `cluster.busbw` (label cluster): starts a 2-node
# emulated cluster (tools/cluster/up.sh) at two link rates in turn, runs `scalebench commbench` over
# mpi with one rank per node (tools/cluster/mpirun.sh), and checks that
#   - the ranks ran on two different emulated hosts (commbench's host names), and
#   - the ring's busbw, 2 MiB and up, lies within [0.4, 1.1] x the configured rate at its best size,
#     and above 1.1 at none (native's is printed, not checked: Open MPI picks its own algorithm,
#     whose traffic busbw does not model). The best size, not every size: on a loaded host one TCP
#     retransmission timeout (200 ms and up) can ruin the mean of a size's 4 calls (seen once: 0.02 x
#     at 4 MiB while 2 MiB measured 0.63 x, with `make demo` running beside the test), and that says
#     nothing about the shaping; a missing or wrong shaper still fails (every size above 1.1, or the
#     best below 0.4).
# The factor is a measurement of the emulator, not of scalebench: at n = 2 each rank sends and
# receives the whole buffer once per allreduce, so busbw cannot exceed the tbf rate except by its
# 1 ms burst (1.1 allows that and rounding); TCP/IP headers count against the rate (~0.95), and on
# this 2-core host under a load average of 8 the ring measured 0.58-0.74 x (docs/cluster-emulation.md);
# 0.4 leaves room for that and still fails a cluster whose shaping is absent (GB/s) or wrong by 2.5x.
# Teardown is guaranteed (trap EXIT), and the test fails if anything named after its cluster is
# left (namespace, link, qdisc). Exit 77 = skipped, with the reason, where this host does not permit
# network namespaces or tc tbf (needs root with CAP_NET_ADMIN) or Open MPI is missing.
set -uo pipefail
sb=$1 subnet_base=10.232
. "$(dirname "$0")/lib.sh"

check_rate() {  # check_rate RATE BITS SIZES
  local rate=$1 bits=$2 sizes=$3
  "$cl/up.sh" --nodes 2 --rate "$rate" --name "$name" --subnet "$subnet" || fail "up.sh --rate $rate failed"
  timeout 300 "$cl/mpirun.sh" --name "$name" -np 2 -- "$sb" commbench --transport mpi --algo native,ring \
    --sizes "$sizes" --warmup 1 --iters 4 --timeout 60 --json "$tmp/cb-$rate.json" \
    || fail "commbench on the emulated cluster ($rate) failed"
  python3 - "$tmp/cb-$rate.json" "$bits" "$name" <<'PY' || fail "busbw at $rate does not follow the configured rate"
import json, sys
j = json.load(open(sys.argv[1])); bits = float(sys.argv[2]); name = sys.argv[3]
hosts = sorted(set(j["hostnames"]))
assert hosts == [f"{name}-n0", f"{name}-n1"] and j["nodes"] == 2, f"ranks not on two emulated hosts: {j['hostnames']}"
bad, best = 0, 0.0
for r in j["results"]:
    ratio = r["busbw_GBps"] * 8e9 / bits
    ring = r["algo"] == "ring"
    if ring:
        best = max(best, ratio)
        bad += ratio > 1.1
    print(f"  {r['algo']:>6} {r['bytes']:>9} B  busbw {r['busbw_GBps']*8:.3f} Gbit/s  = {ratio:.2f} x configured"
          + ("" if ring else "  (not checked)") + ("  ABOVE 1.1: not shaped" if ring and ratio > 1.1 else ""))
print(f"  ring best {best:.2f} x configured: " + ("within [0.4, 1.1]" if 0.4 <= best <= 1.1 else "OUTSIDE [0.4, 1.1]"))
sys.exit(1 if bad or not 0.4 <= best <= 1.1 else 0)
PY
  "$cl/down.sh" --name "$name" || fail "down.sh failed"
  [ -z "$(leftovers)" ] || fail "left behind after down.sh: $(leftovers)"
}

echo "cluster $name, subnet $subnet.0/24"
check_rate 400mbit 400000000 2M:8M
check_rate 100mbit 100000000 2M:4M
echo "PASS: the ring's best busbw followed 400 and 100 Mbit/s within [0.4, 1.1]; nothing left behind"
