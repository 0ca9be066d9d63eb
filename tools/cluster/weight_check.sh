#!/usr/bin/env bash
# tools/cluster/weight_check.sh SCALEBENCH OUTDIR [SHARE] — does the nodes' cgroup weight (up.sh
# --cpu-share) keep a node's speed when other work wants the host's cores? On a 1-node cluster of
# SHARE (default 0.2) of a core it runs the same N = 1 training (the U-Net of validate_heldout.sh)
# four times: alone; beside two busy loops at nice 10 (a stand-in for a `nice` compile, one per
# host core); beside two at nice 0; and beside two at nice 0 with the nodes' parent cgroup put back
# to the default weight (cpu.shares 1024 / cpu.weight 100). Prints images/s of each. One node of a
# fifth of a core is below its fair share of the host either way, so then it shows what other work
# costs a node beyond CPU time; what the weight buys shows where the nodes want more than a fair
# share: 8 nodes of SHARE, each running a busy loop for 5 s (demand 8 x SHARE cores), alone, beside
# the two nice-0 loops, and beside them at the default weight — printed as the CPU time the 8 loops
# got, as a fraction of their quotas'. The busy loops are its own processes, stopped by their ids. It asserts nothing:
# a measurement for docs/projection.md, not a test.
set -euo pipefail
sb=$(realpath "$1"); out=$2; share=${3:-0.2}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
loops=()
stop_loops() { for p in "${loops[@]}"; do kill "$p" 2>/dev/null || true; done; loops=(); }
trap 'stop_loops; "$here/down.sh" --name sbw >/dev/null 2>&1 || true; "$here/down.sh" --name sbw8 >/dev/null 2>&1 || true' EXIT
mkdir -p "$out"; cd "$out"
[ -f seg64x.h5 ] || "$sb" datagen --task segmentation --n 1200 --size 64 --seed 3 -o seg64x.h5 >/dev/null
"$here/up.sh" --nodes 1 --rate 1gbit --name sbw --subnet 10.236.1 --cpu-share "$share" >&2
read -r version root < <(cgroup_cpu; echo)
one() {  # one LABEL: an N = 1 run on the node, its images/s
  rm -rf "w-$1"
  "$here/mpirun.sh" --name sbw -np 1 -- "$sb" train --data seg64x.h5 --model unet:depth=3,base=16 --batch 8 \
    --epochs 2 --max-steps 12 --threads 1 -o "w-$1" >/dev/null
  printf '%-40s %8.2f images/s  (load average %s)\n' "$1" \
    "$(h5dump -A -a /summary/images_per_s "w-$1"/*.h5 | awk '/\(0\)/ {print $2}')" "$(cut -d' ' -f1 /proc/loadavg)"
}
busy() { for _ in 1 2; do nice -n "$1" /usr/bin/python3 -c 'while True: pass' & loops+=($!); done; }
one alone
busy 10; one "beside 2 busy loops at nice 10"; stop_loops
busy 0; one "beside 2 busy loops at nice 0"; stop_loops
if [ "$version" = v1 ]; then echo 1024 > "$root/sbw/cpu.shares"; else echo 100 > "$root/sbw/cpu.weight"; fi
busy 0; one "nice 0 loops, nodes at the default weight"; stop_loops
stop_loops; "$here/down.sh" --name sbw >/dev/null

"$here/up.sh" --nodes 8 --rate 1gbit --name sbw8 --subnet 10.236.2 --cpu-share "$share" >&2
eight() {  # eight LABEL: a 5 s busy loop on each of the 8 nodes; the CPU they got / their quotas'
  local i started=()
  for ((i = 0; i < 8; i++)); do   # one line: agent.sh runs its words through /bin/sh
    "$here/agent.sh" "sbw8-n$i" "$(printf '%q ' /usr/bin/python3 -c \
      'import time; t = time.monotonic(); any(time.monotonic() - t > 5 for _ in iter(int, 1)); print(time.process_time())')" \
      > "eight-$i.txt" & started+=($!)
  done
  wait "${started[@]}"
  printf '%-40s %5.2f of their quotas  (load average %s)\n' "$1" \
    "$(cat eight-*.txt | awk -v q="$share" '{ t += $1 } END { print t / (8 * q * 5) }')" "$(cut -d' ' -f1 /proc/loadavg)"
}
eight "8 busy nodes alone"
busy 0; eight "8 busy nodes beside 2 loops at nice 0"; stop_loops
if [ "$version" = v1 ]; then echo 1024 > "$root/sbw8/cpu.shares"; else echo 100 > "$root/sbw8/cpu.weight"; fi
busy 0; eight "same, nodes at the default weight"; stop_loops
