#!/usr/bin/env bash
# tools/cluster/validate_projection.sh SCALEBENCH OUTDIR RATE... — the emulated-cluster validation of
# `scalebench project` (docs/projection.md): a measured N = 1 run with --trace on this host; then, per
# link RATE (e.g. 100mbit 400mbit), a 2-node cluster, commbench (ring, 2 ranks) to calibrate the
# network, the projection at N = 2 from that N = 1 trace, and measured N = 2 runs of ring and
# hierarchical (one rank per node). Prints predicted vs measured weak-scaling efficiency per point
# (efficiency = images/s at N / (N x images/s at N = 1), from the run files' /summary). Tears every
# cluster down (trap EXIT). It changes no threshold and keeps every point, misses included.
set -euo pipefail
sb=$(realpath "$1"); out=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
name=sbval
trap '"$here/down.sh" --name $name >/dev/null 2>&1 || true' EXIT
mkdir -p "$out"; cd "$out"
train=(train --data seg64.h5 --model unet:depth=3,base=16 --batch 8 --epochs 3 --max-steps 10 --threads 1)
ips() { h5dump -A -a /summary/images_per_s "$1"/*.h5 | awk '/\(0\)/ {print $2}'; }
[ -f seg64.h5 ] || "$sb" datagen --task segmentation --n 256 --size 64 --seed 3 -o seg64.h5 >/dev/null
# The emulated nodes share this host's cores, so the N = 1 reference runs as a node of the N = 2 run
# does: beside a second, identical N = 1 run (same data, no network). Only this reference's trace
# and images/s enter the projection and the efficiencies.
rm -rf n1 n1b
"$sb" "${train[@]}" -o n1b >/dev/null & other=$!
"$sb" "${train[@]}" --trace n1.json -o n1 >/dev/null
wait $other
ips1=$(ips n1)
echo "N=1 (1 thread, beside a second N=1 run): $ips1 images/s (the second: $(ips n1b))"
printf '%-9s %-13s %10s %10s %8s\n' rate strategy predicted measured error
for rate in "$@"; do
  "$here/up.sh" --nodes 2 --rate "$rate" --name $name >/dev/null
  "$here/mpirun.sh" --name $name -np 2 -- "$sb" commbench --transport mpi --algo ring --sizes 64K:4M \
    --warmup 2 --iters 8 --json "cb-$rate.json" > "cb-$rate.txt"
  "$sb" project --trace n1.json --batch 8 --commbench "cb-$rate.json" --max-devices 2 -o "proj-$rate.h5" > "proj-$rate.txt"
  for strategy in ring hierarchical; do
    rm -rf "n2-$rate-$strategy"
    "$here/mpirun.sh" --name $name -np 2 -- "$sb" "${train[@]}" --strategy "$strategy" -o "n2-$rate-$strategy" >/dev/null
    measured=$(python3 -c "print($(ips "n2-$rate-$strategy") / (2 * $ips1))")
    predicted=$(awk -v s="$strategy" '$1 == s && $2 == "weak" && $3 == 2 {print $8}' "proj-$rate.txt")
    printf '%-9s %-13s %10.3f %10.3f %+8.3f\n' "$rate" "$strategy" "$predicted" "$measured" "$(python3 -c "print($predicted - $measured)")"
  done
  "$here/down.sh" --name $name >/dev/null
done
