#!/usr/bin/env bash
# tools/cluster/validate_projection.sh SCALEBENCH OUTDIR RATE... — the emulated-cluster validation of
# `scalebench project` (docs/projection.md). Per link RATE (e.g. 100mbit 400mbit): a 2-node cluster
# (one core per node on a 2-core host: up.sh's default), the measured N = 1 run with --trace on node 0
# (its core, its namespace, no traffic; run again after the N = 2 runs, the mean of the two is the
# reference images/s), commbench (ring, 2 ranks) to calibrate the network, the
# projection at N = 2 from that N = 1 trace, and measured N = 2 runs of ring and hierarchical (one rank
# per node), each at two bucket sizes: 4 MiB (the whole 1.9 MB gradient is one bucket, reduced after
# backward) and 0.25 MiB (several buckets, reduced during backward on the communication thread).
# Prints predicted vs measured weak-scaling efficiency per point (efficiency = images/s at N /
# (N x images/s at N = 1), from the run files' /summary). The prediction is made with
# --comm-cpu-shared (a node has one core, which backward and the overlapped exchange share);
# the column "no cpu" is the same projection without it, for comparison. Tears every cluster down (trap EXIT). It
# changes no threshold and keeps every point, misses included.
set -euo pipefail
sb=$(realpath "$1"); out=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
name=sbval
trap '"$here/down.sh" --name $name >/dev/null 2>&1 || true' EXIT
mkdir -p "$out"; cd "$out"
train=(train --data seg64.h5 --model unet:depth=3,base=16 --batch 8 --epochs 3 --max-steps 20 --threads 1)
ips() { h5dump -A -a /summary/images_per_s "$1"/*.h5 | awk '/\(0\)/ {print $2}'; }
# pick STRATEGY PROJECTION.h5 -> the weak-scaling efficiency at N = 2, by column name from project's
# study file (the efficiency project computed, docs/metrics.md; not a position in its printed table).
pick() {
  /usr/bin/python3 -c 'import sys, h5py
t = h5py.File(sys.argv[2], "r")["runs"][()]
print(*[r["efficiency"] for r in t if r["strategy"].decode() == sys.argv[1] and r["scaling"].decode() == "weak"
        and r["world_size"] == 2])' "$1" "$2"
}
[ -f seg64.h5 ] || "$sb" datagen --task segmentation --n 256 --size 64 --seed 3 -o seg64.h5 >/dev/null
printf '%-9s %-13s %6s %10s %10s %8s %8s\n' rate strategy bucket predicted measured error 'no cpu'
for rate in "$@"; do
  "$here/up.sh" --nodes 2 --rate "$rate" --name $name >/dev/null
  rm -rf "n1-$rate" "n1b-$rate"
  "$here/mpirun.sh" --name $name -np 1 -- "$sb" "${train[@]}" --trace "n1-$rate.json" -o "n1-$rate" >/dev/null
  "$here/mpirun.sh" --name $name -np 2 -- "$sb" commbench --transport mpi --algo ring --sizes 64K:4M \
    --warmup 2 --iters 8 --json "cb-$rate.json" > "cb-$rate.txt"
  n2=()  # (strategy bucket images/s) of the measured N = 2 runs, judged once the second N = 1 run is in
  for mb in 4 0.25; do
    "$sb" project --trace "n1-$rate.json" --batch 8 --bucket-mb $mb --commbench "cb-$rate.json" --max-devices 2 \
      --comm-cpu-shared -o "proj-$rate-$mb.h5" > "proj-$rate-$mb.txt"
    "$sb" project --trace "n1-$rate.json" --batch 8 --bucket-mb $mb --commbench "cb-$rate.json" --max-devices 2 \
      -o "proj-$rate-$mb-nocpu.h5" > "proj-$rate-$mb-nocpu.txt"
    for strategy in ring hierarchical; do
      run=n2-$rate-$strategy-$mb
      rm -rf "$run"
      "$here/mpirun.sh" --name $name -np 2 -- "$sb" "${train[@]}" --strategy "$strategy" --bucket-mb $mb \
        --trace "$run.json" -o "$run" >/dev/null
      n2+=("$strategy $mb $(ips "$run")")
    done
  done
  # The N = 1 reference again, after the N = 2 runs: one short run is one sample of a shared host's
  # speed, and the two bracket the N = 2 runs in time. Their mean is the reference; both are printed.
  "$here/mpirun.sh" --name $name -np 1 -- "$sb" "${train[@]}" -o "n1b-$rate" >/dev/null
  ipsa=$(ips "n1-$rate") ipsb=$(ips "n1b-$rate")
  ips1=$(python3 -c "print(($ipsa + $ipsb) / 2)")
  python3 -c "print(f'# $rate: N=1 on node 0: {$ipsa:.2f} images/s before the N=2 runs, {$ipsb:.2f} after'
               f' (mean {$ips1:.2f}; {abs($ipsa - $ipsb) / $ips1 * 100:.1f}% apart)')" >&2
  for row in "${n2[@]}"; do
    read -r strategy mb ips2 <<< "$row"
    measured=$(python3 -c "print($ips2 / (2 * $ips1))")
    predicted=$(pick "$strategy" "proj-$rate-$mb.h5") nocpu=$(pick "$strategy" "proj-$rate-$mb-nocpu.h5")
    printf '%-9s %-13s %6s %10.3f %10.3f %+8.3f %8.3f\n' "$rate" "$strategy" "$mb" "$predicted" "$measured" \
      "$(python3 -c "print($predicted - $measured)")" "$nocpu"
  done
  "$here/down.sh" --name $name >/dev/null
done
