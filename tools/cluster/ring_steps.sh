#!/usr/bin/env bash
# tools/cluster/ring_steps.sh SCALEBENCH RATE [--share 0.2] [--reps 3] [--ranks "2 3 4 8"] [--step-kb 256]
# — how long one step of the ring allreduce takes at each ring size on an emulated cluster of 8 nodes
# of SHARE of a core (tools/cluster/up.sh): commbench --algo ring over N nodes with a message of
# N x STEP_KB, so every ring size sends the same STEP_KB per step, 2(N - 1) steps. Prints each size's
# time per step (repetitions interleaved) and its ratio to the 2-node ring's: the factor by which a
# projection calibrated at 2 nodes (netmodel.cpp: per-step time = 2-rank time / 2) misses a ring of
# N on this link. It measures; it fits nothing and changes no projection (docs/projection.md,
# "A ring of 2 is not a ring of N").
set -euo pipefail
sb=$(realpath "$1"); rate=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
share=0.2 reps=3 ranks="2 3 4 8" step_kb=256
while [ $# -gt 0 ]; do
  case "$1" in
    --share) share=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --step-kb) step_kb=$2; shift 2 ;;
    *) echo "ring_steps.sh: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
for n in $ranks; do [[ $n =~ ^[2-8]$ ]] || { echo "ring_steps.sh: --ranks '$ranks': sizes of 2 to 8" >&2; exit 1; }; done
[[ $ranks == 2\ * || $ranks == 2 ]] || { echo "ring_steps.sh: --ranks '$ranks' must start with 2 (the reference)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
trap '"$here/down.sh" --name sbrs >/dev/null 2>&1 || true' EXIT
"$here/up.sh" --nodes 8 --rate "$rate" --name sbrs --subnet 10.236.1 --cpu-share "$share" >&2
out=$(mktemp)
for ((r = 1; r <= reps; r++)); do
  for n in $ranks; do
    t=$("$here/mpirun.sh" --name sbrs -np "$n" -- "$sb" commbench --transport mpi --algo ring \
        --sizes "$((n * step_kb))K" --warmup 2 --iters 6 2>/dev/null | awk '$1 ~ /^[0-9]+$/ {print $3}')
    echo "$n $t" >> "$out"
  done
done
awk -v kb="$step_kb" -v rate="$rate" -v share="$share" '
  { n = $1; t = $2 / (2 * (n - 1)) / 1e3; sum[n] += t; cnt[n]++; all[n] = all[n] sprintf(" %.1f", t) }
  END {
    printf "# ring step of %d KB per rank on %s links, nodes of %s core: ms per step (each repetition), ratio to 2 nodes\n", kb, rate, share
    ref = sum[2] / cnt[2]
    for (n = 2; n <= 8; n++) if (cnt[n]) printf "N=%d  %.1f ms  (%s )  x%.3f\n", n, sum[n] / cnt[n], all[n], sum[n] / cnt[n] / ref
  }' "$out"
rm -f "$out"
