#!/usr/bin/env bash
# tests/cluster/nodes_test.sh SCALEBENCH — ctest `cluster.nodes` (label cluster): what an emulated
# node is, apart from its network (which cluster.busbw checks). On a 2-node cluster it checks that
#   - the ranks of tools/cluster/mpirun.sh run on two hosts, with the node's host name;
#   - each rank runs on exactly its node's cores (up.sh's NAME-n<i>.cpus, confined by agent.sh; ranks
#     not re-bound by Open MPI), and, where this host has 2+ cores, the two nodes' cores are disjoint
#     — a regression here (both nodes on host core 0, Open MPI's default binding) once halved every
#     rank's compute speed in the projection's validation (docs/projection.md);
#   - --ppn 2 puts two ranks on each node, on that node's cores;
#   - a preset is a named network of harness/study/project/networks.def (the cluster runs at its rate),
#     and up.sh refuses an unknown preset and a bad --cpus-per-node with one line each, making nothing;
# and that nothing named after its cluster is left afterwards. Skipped (77) like cluster.busbw.
set -uo pipefail
sb=$1 subnet_base=10.233
. "$(dirname "$0")/lib.sh"

"$cl/up.sh" --nodes 2 --preset 1gbe --name "$name" --subnet "$subnet" || fail "up.sh failed"
# networks.def: SB_NETWORK(1gbe, 1000, 50, ...)
grep -qx "rate_bits=1000000000" "/run/$name/cluster.env" || fail "preset 1gbe did not give 1 Gbit/s: $(cat "/run/$name/cluster.env")"
ncpu=$(nproc)
want0=$(cat "/run/$name/$name-n0.cpus") want1=$(cat "/run/$name/$name-n1.cpus")
echo "host cores: $ncpu; node cores: n0=$want0 n1=$want1"
where() {  # where PPN NP: "rank host cores" per rank, sorted by rank
  timeout 120 "$cl/mpirun.sh" --name "$name" --ppn "$1" -np "$2" -- \
    sh -c 'echo "$OMPI_COMM_WORLD_RANK $(hostname) $(awk "/^Cpus_allowed_list:/ {print \$2}" /proc/self/status)"' | sort -n
}
python3 - "$name" "$want0" "$want1" "$ncpu" "$(where 1 2)" "$(where 2 4)" <<'PY' || fail "ranks not on their nodes' cores"
import sys
name, want0, want1, ncpu, one, two = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6]
def cores(text):  # "0-1,3" -> {0, 1, 3}
    out = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out |= set(range(int(lo), int(hi or lo) + 1))
    return out
want = {f"{name}-n0": cores(want0), f"{name}-n1": cores(want1)}
ok = True
for label, text, ppn in (("-np 2", one, 1), ("--ppn 2 -np 4", two, 2)):
    rows = [line.split() for line in text.splitlines()]
    print(label); [print("  rank", *r) for r in rows]
    for rank, host, got in rows:
        node = f"{name}-n{int(rank) // ppn}"
        if host != node:
            print(f"  rank {rank}: on {host}, expected {node}"); ok = False
        elif cores(got) != want[node]:
            print(f"  rank {rank}: cores {got}, expected its node's {sorted(want[node])}"); ok = False
if ncpu >= 2 and want[f"{name}-n0"] & want[f"{name}-n1"]:
    print(f"  the two nodes share cores on a {ncpu}-core host"); ok = False
sys.exit(0 if ok else 1)
PY
"$cl/down.sh" --name "$name" >/dev/null || fail "down.sh failed"

msg=$("$cl/up.sh" --nodes 2 --rate 1gbit --name "$name" --subnet "$subnet" --cpus-per-node 0 2>&1) && fail "up.sh took --cpus-per-node 0"
[ "$(printf '%s\n' "$msg" | wc -l)" = 1 ] && [[ $msg == *--cpus-per-node* ]] || fail "expected one line naming --cpus-per-node, got: $msg"
echo "refused: $msg"
msg=$("$cl/up.sh" --nodes 2 --preset 5gbe --name "$name" --subnet "$subnet" 2>&1) && fail "up.sh took --preset 5gbe"
[ "$(printf '%s\n' "$msg" | wc -l)" = 1 ] && [[ $msg == *"'5gbe': unknown (known: 100mbe, 1gbe, 10gbe"* ]] \
  || fail "expected one line naming the known presets, got: $msg"
echo "refused: $msg"
[ -z "$(leftovers)" ] || fail "left behind: $(leftovers)"
echo "PASS: ranks on their own nodes and cores; preset from networks.def; unknown preset and bad --cpus-per-node refused; nothing left behind"
