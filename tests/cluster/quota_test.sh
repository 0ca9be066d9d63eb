#!/usr/bin/env bash
# tests/cluster/quota_test.sh SCALEBENCH — ctest `cluster.quota` (label cluster): nodes that are a
# share of a core (tools/cluster/up.sh --cpu-share, --node-share). On a 4-node cluster of 0.25 core
# each, node 3 at 0.2, it checks that
#   - mpirun.sh --ppn 2 -np 8 puts two ranks on each node (hierarchical's placement), and every rank is
#     in its node's cgroup (agent.sh joins it), whose quota is the node's share of the CFS period —
#     read from the cgroup the rank reports, not from what up.sh says it made;
#   - the nodes' parent cgroup has the largest weight (other work of the host yields to the nodes);
#   - the quota is enforced: 100 ms of CPU on node 3 (quota 2 ms per 10 ms) is throttled (cpu.stat
#     nr_throttled > 0; counted by the kernel, not timed by the test);
#   - a share below 0.1, a node that does not exist and --node-share without --cpu-share are refused
#     with one line each, making nothing;
# and that nothing named after its cluster, cgroups included, is left afterwards. Skipped (77) like
# cluster.busbw, and where this host has no cpu cgroup controller. 3-5 s here.
set -uo pipefail
sb=$1 subnet_base=10.235
. "$(dirname "$0")/lib.sh"
[ -n "$cg_root" ] || skip "no cgroup cpu controller mounted (cgroup v1 cpu or v2 with cpu)"

"$cl/up.sh" --nodes 4 --rate 1gbit --name "$name" --subnet "$subnet" --cpu-share 0.25 --node-share 3=0.2 \
  || fail "up.sh --cpu-share failed"
placed=$(timeout 120 "$cl/mpirun.sh" --name "$name" --ppn 2 -np 8 -- \
  sh -c 'echo "$OMPI_COMM_WORLD_RANK $(hostname) $(tr "\n" ";" < /proc/self/cgroup)"' \
  | sort -n) || fail "mpirun.sh --ppn 2 -np 8 failed"
# busy for 100 ms of this process's CPU time on node 3, whatever the host's load
# (one line: agent.sh runs its words through /bin/sh, as ssh does; iter(int, 1) never ends, any() stops it)
"$cl/agent.sh" "$name-n3" "$(printf '%q ' /usr/bin/python3 -c \
  'import time; any(time.process_time() >= 0.1 for _ in iter(int, 1))')" || fail "the busy loop on node 3 failed"
python3 - "$name" "$cg_version" "$cg_root" "$placed" <<'PY' || fail "ranks not in their nodes' cgroups with the quota asked for"
import sys
name, version, root, placed = sys.argv[1:5]
share = {0: 0.25, 1: 0.25, 2: 0.25, 3: 0.2}
def read(path): return open(path).read().split()
def quota(cg):  # -> (quota_us, period_us) of the cgroup at path cg
    if version == "v1": return int(read(f"{cg}/cpu.cfs_quota_us")[0]), int(read(f"{cg}/cpu.cfs_period_us")[0])
    q, p = read(f"{cg}/cpu.max"); return (-1 if q == "max" else int(q)), int(p)
ok = True
def cpu_cgroup(lines):  # the cpu controller's path in a /proc/PID/cgroup, its lines joined by ';'
    for line in lines.strip(";").split(";"):
        _, ctrls, path = line.split(":", 2)
        if (version == "v1" and "cpu" in ctrls.split(",")) or (version == "v2" and ctrls == ""): return path
rows = [(r, h, cpu_cgroup(c)) for r, h, c in (line.split(" ", 2) for line in placed.splitlines())]
print("\n".join("  rank " + " ".join(r) for r in rows))
if len(rows) != 8: print(f"  {len(rows)} ranks, expected 8"); ok = False
for rank, host, cg in rows:
    node = int(rank) // 2
    if host != f"{name}-n{node}" or cg != f"/{name}/{name}-n{node}":
        print(f"  rank {rank}: on {host} in cgroup {cg}, expected {name}-n{node} in /{name}/{name}-n{node}"); ok = False
        continue
    q, p = quota(root + cg)
    if q != round(share[node] * p):
        print(f"  rank {rank}: its cgroup's quota is {q} us per {p} us, expected {share[node]} of a core"); ok = False
w = read(f"{root}/{name}/" + ("cpu.shares" if version == "v1" else "cpu.weight"))[0]
if w != ("262144" if version == "v1" else "10000"):
    print(f"  the nodes' parent cgroup has weight {w}, not the largest"); ok = False
stat = dict(l.split() for l in open(f"{root}/{name}/{name}-n3/cpu.stat"))
print(f"  node 3 after 100 ms of CPU: nr_periods {stat['nr_periods']} nr_throttled {stat['nr_throttled']}")
if int(stat["nr_throttled"]) == 0: print("  node 3's quota was never applied"); ok = False
sys.exit(0 if ok else 1)
PY
"$cl/down.sh" --name "$name" >/dev/null || fail "down.sh failed"
[ -z "$(leftovers)" ] || fail "left behind after down.sh: $(leftovers)"

refused() {  # refused OPTION-IN-MESSAGE UP.SH-ARGS...: up.sh must fail with one line naming the option
  local want=$1 msg; shift
  msg=$("$cl/up.sh" --nodes 4 --rate 1gbit --name "$name" --subnet "$subnet" "$@" 2>&1) && fail "up.sh took $*"
  [ "$(printf '%s\n' "$msg" | wc -l)" = 1 ] && [[ $msg == *"$want"* ]] || fail "expected one line naming $want, got: $msg"
  echo "refused: $msg"
}
refused "--cpu-share '0.05'" --cpu-share 0.05
refused "node 9 does not exist" --cpu-share 0.25 --node-share 9=0.2
refused "--node-share needs --cpu-share" --node-share 1=0.2
[ -z "$(leftovers)" ] || fail "left behind: $(leftovers)"
echo "PASS: ranks in their nodes' cgroups with the quotas asked for (node 3 throttled), parent at the largest weight; bad shares refused; nothing left behind"
