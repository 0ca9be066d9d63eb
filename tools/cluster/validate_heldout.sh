#!/usr/bin/env bash
# tools/cluster/validate_heldout.sh SCALEBENCH OUTDIR [--case plain|slow|noise] [--share 0.15] [--reps 3]
#     [--models "unet vgg"] [--strategies "ring hierarchical"] [--calib-ranks "2 3"] [--gap trace|0] [--fill on|off] [--table-only] RATE... — the
#     held-out validation of
# `scalebench project` at 4 and 8 emulated nodes (docs/projection.md). Every node is a share of a
# core (tools/cluster/up.sh --cpu-share), so 8 of them fit on a 2-core host. Per link RATE:
#   - cluster A: 8 nodes of SHARE each (ring, one rank per node); cluster B: 4 nodes of 2 x SHARE each
#     (hierarchical, 2 ranks per node: each rank has SHARE, as the reference's one rank has);
#   - calibration, and all a prediction sees: the N = 1 run with --trace on node 0 of A, and then,
#     per model, commbench (ring, K ranks) on nodes 0 .. K-1 of A, for each K of --calib-ranks
#     (default "2"; "2 3" projects from each and prints a table per calibration: a ring of 2 sends
#     and receives with one peer, a ring of 3 or more with two, docs/projection.md), its calls
#     spaced by the trace's mean step compute (--gap trace, the default: commbench --gap-ms, read
#     from project's header) or back to back (--gap 0, the rounds before the fourth);
#   - the projection at N = 4 and 8 (--ranks-per-node 2 for hierarchical), with and without the
#     straggler term; then the measured runs, --reps repetitions of every (strategy, N), interleaved;
#     then the N = 1 run again (the reference images/s is the mean of the two: one short run is one
#     sample of a shared host's speed, and the two bracket the measured runs in time).
# --fill on (the default since the fifth round): while a run, the N = 1 run or the calibration uses
#   some nodes of a cluster, every other node of that cluster trains the same model alone (a load,
#   within the node's quota), so the host is as busy in each measurement as in the N = 8 runs — on a
#   VM a lone node of a share of a core computed 7-15 % slower than one among busy nodes
#   (docs/projection.md, fourth round), which a real cluster's independent nodes do not do. off: the
#   other nodes idle, as in the first four rounds.
# One bucket holds the whole gradient (--bucket-mb 64 in train and project): nothing overlaps, so the
# exchange's CPU (--comm-cpu-shared, a fraction of a whole core) does not enter; under a quota it
# would be a fraction of the share, which project does not model.
# --case slow: node 1 of A gets 80 % of SHARE (up.sh --node-share), the others SHARE (cluster B is
#   left as it is, so give --strategies ring); the projection with the term is told so (--slow-node 0.8). --case noise: every node of A also runs a load that varies
#   (tools/cluster/noise.py, its own seed per node) inside its cgroup, also during the N = 1 run.
# Prints one row per (rate, model, strategy, N): predicted efficiency, its band, the prediction
# without the straggler term, the measured mean and spread (min..max over the repetitions), the
# error (predicted - measured mean) and whether the mean lies inside the band; and writes the
# measured images/s of every run to OUTDIR/measured.tsv and each (case, rate, model)'s runs as a study,
# OUTDIR/study-CASE-RATE-MODEL/ (its study.h5, from scalebench collect, holds the measured efficiency
# the table reads). It keeps every point, misses included,
# and fits nothing to the measured runs. Tears its clusters down on every way out (trap EXIT).
set -euo pipefail
sb=$(realpath "$1"); out=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"  # run_ips
case=plain share=0.15 reps=3 models="unet vgg" strategies="ring hierarchical" calibs=2 gap=trace fill=on table_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --case) case=$2; shift 2 ;;
    --share) share=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --strategies) strategies=$2; shift 2 ;;
    --calib-ranks) calibs=$2; shift 2 ;;
    --gap) gap=$2; shift 2 ;;
    --fill) fill=$2; shift 2 ;;
    --table-only) table_only=1; shift ;;
    -*) echo "validate_heldout.sh: unknown option '$1'" >&2; exit 1 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || [ "$table_only" = 1 ] || { echo "validate_heldout.sh: give at least one link RATE (e.g. 100mbit 400mbit)" >&2; exit 1; }
for k in $calibs; do [[ $k =~ ^[2-4]$ ]] || { echo "validate_heldout.sh: --calib-ranks '$calibs': ranks of 2 to 4 (below the predicted N), e.g. \"2 3\"" >&2; exit 1; }; done
case "$case" in plain|slow|noise) ;; *) echo "validate_heldout.sh: --case '$case': plain, slow or noise" >&2; exit 1 ;; esac
case "$fill" in on|off) ;; *) echo "validate_heldout.sh: --fill '$fill': on or off" >&2; exit 1 ;; esac
case "$gap" in trace|0) ;; *) echo "validate_heldout.sh: --gap '$gap': trace (the N = 1 trace's mean step compute) or 0" >&2; exit 1 ;; esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
noise_pids=() fill_pids=()
fill_stop() {
  for p in "${fill_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${fill_pids[@]}"; do wait "$p" 2>/dev/null || true; done
  fill_pids=(); rm -rf fill-sbv*
}
teardown() {
  fill_stop
  for p in "${noise_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  "$here/down.sh" --name sbva >/dev/null 2>&1 || true; "$here/down.sh" --name sbvb >/dev/null 2>&1 || true
}
table() {  # the table: measured efficiency of a repetition, as collect defines it (images/s at N / (N x the
# median of the two N = 1 runs, i.e. their mean), docs/metrics.md), from measured.tsv: so a folder of
# an earlier round, whose runs had no --repetition, is scored the same (`--table-only OUTDIR`)
  /usr/bin/python3 - measured.tsv "$calibs" <<'PY'
import sys, statistics, h5py
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
calibs = sys.argv[2].split()
ref, runs = {}, {}
for case, rate, m, strategy, n, rep, ips in rows:
    if n == "1": ref.setdefault((case, rate, m), []).append(float(ips))
    else: runs.setdefault((case, rate, m, strategy, int(n)), []).append(rep)
ips = {(case, rate, m, strategy, n, rep): float(v) for case, rate, m, strategy, n, rep, v in rows}
def efficiency(case, rate, m, strategy, n, rep):
    return ips[(case, rate, m, strategy, str(n), rep)] / (n * statistics.median(ref[(case, rate, m)]))
def pick(path, strategy, n):
    t = h5py.File(path, "r")["runs"][()]
    r = [r for r in t if r["strategy"].decode() == strategy and r["scaling"].decode() == "weak" and r["world_size"] == n][0]
    return r["efficiency"], r["efficiency_band_lo"], r["efficiency_band_hi"]
for k in calibs:
    print(f"# calibration: commbench ring of {k} ranks on {k} nodes")
    print(f"{'case':6} {'rate':8} {'model':5} {'strategy':12} {'N':>2} {'predicted':>9} {'band':>15} {'no-strag':>8}"
          f" {'measured':>8} {'spread':>13} {'error':>7} {'no-strag error':>14} inside")
    within = inside = total = 0
    for (case, rate, m, strategy, n), reps in sorted(runs.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2], kv[0][3], kv[0][4])):
        eff = [efficiency(case, rate, m, strategy, n, rep) for rep in reps]
        p, lo, hi = pick(f"proj-{case}-{rate}-{m}-{strategy}-c{k}.h5", strategy, n)
        ns, _, _ = pick(f"proj-{case}-{rate}-{m}-{strategy}-c{k}-ns.h5", strategy, n)
        mean = statistics.mean(eff)
        total += 1; within += abs(p - mean) <= 0.05; inside += lo <= mean <= hi
        print(f"{case:6} {rate:8} {m:5} {strategy:12} {n:2} {p:9.3f} [{lo:.3f}, {hi:.3f}] {ns:8.3f} {mean:8.3f}"
              f" {min(eff):.3f}..{max(eff):.3f} {p - mean:+7.3f} {ns - mean:+14.3f} {'yes' if lo <= mean <= hi else 'NO'}")
    print(f"# calibration {k}: {within} of {total} within +-0.05, {inside} of {total} inside their band")
for (case, rate, m), v in sorted(ref.items()):
    print(f"# {case} {rate} {m}: N = 1 on node 0: {v[0]:.2f} images/s before, {v[1]:.2f} after ({abs(v[0] - v[1]) / statistics.mean(v) * 100:.1f}% apart)")
PY
}
if [ "$table_only" = 1 ]; then  # an earlier round's folder scored again: no cluster, no runs
  cd "$out" && table; exit
fi
trap teardown EXIT
mkdir -p "$out"; cd "$out"
# the models: data file, model, per-device batch. Enough images that every rank of N = 8 still runs
# --max-steps steps per epoch (the training split is 80 %).
declare -A data=([unet]=seg64x.h5 [vgg]=cls32x.h5)
declare -A model=([unet]=unet:depth=3,base=16 [vgg]=vgg11:width=0.25,hidden=256)
declare -A batch=([unet]=8 [vgg]=32)
[ -f seg64x.h5 ] || "$sb" datagen --task segmentation --n 1200 --size 64 --seed 3 -o seg64x.h5 >/dev/null
[ -f cls32x.h5 ] || "$sb" datagen --task classification --n 4000 --size 32 --seed 3 -o cls32x.h5 >/dev/null
step=(--max-steps 12 --threads 1 --bucket-mb 64)  # the measured runs' and the loads' (--fill) steps
common=(--epochs 2 "${step[@]}")
declare -A nodes=([sbva]=8 [sbvb]=4)  # cluster A and B
fill_start() {  # fill_start CLUSTER USED MODEL: MODEL trains alone on every node of CLUSTER from node USED on
  [ "$fill" = on ] || return 0
  local cl=$1 used=$2 m=$3 total=${nodes[$1]} i
  for ((i = used; i < total; i++)); do
    "$here/agent.sh" "$cl-n$i" "exec $sb train --data ${data[$m]} --model ${model[$m]} --batch ${batch[$m]} --epochs 100000 \
      ${step[*]} -o fill-$cl-n$i >/dev/null 2>&1" & fill_pids+=($!)
  done
  [ "$used" -ge "$total" ] || sleep 2  # the loads past their start-up
}
train() {  # train CLUSTER PPN NP MODEL RUNDIR [more train options]
  local cl=$1 ppn=$2 np=$3 m=$4 run=$5; shift 5
  rm -rf "$run"
  fill_start "$cl" $(( (np + ppn - 1) / ppn )) "$m"
  "$here/mpirun.sh" --name "$cl" --ppn "$ppn" -np "$np" -- "$sb" train --data "${data[$m]}" --model "${model[$m]}" \
    --batch "${batch[$m]}" "${common[@]}" -o "$run" "$@" >/dev/null
  fill_stop
}
slower=$(awk -v s="$share" 'BEGIN { print s * 0.8 }') double=$(awk -v s="$share" 'BEGIN { print s * 2 }')
: > measured.tsv
for rate in "$@"; do
  slow=(); [ "$case" != slow ] || slow=(--node-share "1=$slower")
  "$here/up.sh" --nodes "${nodes[sbva]}" --rate "$rate" --name sbva --subnet 10.234.1 --cpu-share "$share" "${slow[@]}" >&2
  "$here/up.sh" --nodes "${nodes[sbvb]}" --rate "$rate" --name sbvb --subnet 10.234.2 --cpu-share "$double" >&2
  if [ "$case" = noise ]; then
    for ((i = 0; i < ${nodes[sbva]}; i++)); do
      "$here/agent.sh" "sbva-n$i" /usr/bin/python3 "$here/noise.py" --seed "$i" & noise_pids+=($!)
    done
  fi
  for m in $models; do
    tag=$case-$rate-$m
    train sbva 1 1 "$m" "n1-$tag" --trace "n1-$tag.json" --repetition 1
    gap_ms=0  # the trace's mean step compute, as project reads it (its stragglers line)
    [ "$gap" = 0 ] || gap_ms=$("$sb" project --trace "n1-$tag.json" --network 1gbe --max-devices 2 \
      | sed -n 's/.*(compute \([0-9.]*\) ms mean).*/\1/p')
    [ -n "$gap_ms" ] || { echo "validate_heldout.sh: no mean step compute in project's header for n1-$tag.json" >&2; exit 1; }
    for k in $calibs; do  # the calibration: a ring of k ranks over nodes 0 .. k-1 of A
      fill_start sbva "$k" "$m"
      "$here/mpirun.sh" --name sbva -np "$k" -- "$sb" commbench --transport mpi --algo ring --sizes 64K:8M \
        --warmup 2 --iters 20 --gap-ms "$gap_ms" --json "cb$k-$tag.json" > "cb$k-$tag.txt"
      fill_stop
    done
    for strategy in $strategies; do
      rpn=1; [ "$strategy" = ring ] || rpn=2
      # with the straggler term (told of the slow node: no N = 1 trace on node 0 can show it), and without
      term=(); [ "$case" != slow ] || term=(--slow-node 0.8)
      for k in $calibs; do
        "$sb" project --trace "n1-$tag.json" --commbench "cb$k-$tag.json" --bucket-mb 64 --max-devices 8 \
          --ranks-per-node $rpn "${term[@]}" -o "proj-$tag-$strategy-c$k.h5" > "proj-$tag-$strategy-c$k.txt"
        "$sb" project --trace "n1-$tag.json" --commbench "cb$k-$tag.json" --bucket-mb 64 --max-devices 8 \
          --ranks-per-node $rpn --no-stragglers -o "proj-$tag-$strategy-c$k-ns.h5" > "proj-$tag-$strategy-c$k-ns.txt"
      done
    done
    measured_runs=()
    for ((r = 1; r <= reps; r++)); do
      for n in 4 8; do
        for strategy in $strategies; do
          run=n$n-$tag-$strategy-r$r
          # --repetition: runs of one configuration are separate runs (their own run ids), which
          # collect would otherwise take for copies of one run and count once
          if [ "$strategy" = ring ]; then train sbva 1 "$n" "$m" "$run" --strategy ring --repetition "$r"
          else train sbvb 2 "$n" "$m" "$run" --strategy "$strategy" --repetition "$r"; fi
          measured_runs+=("$run")
          printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$case" "$rate" "$m" "$strategy" "$n" "$r" "$(run_ips "$run")" >> measured.tsv
          echo "# $(date -u +%H:%M:%S) $run: $(run_ips "$run") images/s" >&2
        done
      done
    done
    train sbva 1 1 "$m" "n1b-$tag" --repetition 2
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$case" "$rate" "$m" - 1 a "$(run_ips "n1-$tag")" >> measured.tsv
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$case" "$rate" "$m" - 1 b "$(run_ips "n1b-$tag")" >> measured.tsv
    # The measured runs as one study (a file per run named by its folder) for report and the plots;
    # the table below computes the same efficiency from measured.tsv.
    rm -rf "study-$tag"; mkdir -p "study-$tag/runs"
    for d in "n1-$tag" "n1b-$tag" "${measured_runs[@]}"; do cp "$d"/*.h5 "study-$tag/runs/$d.h5"; done
    "$sb" collect "study-$tag" >/dev/null
  done
  teardown; noise_pids=() fill_pids=()
done
table
