#!/usr/bin/env bash
# demo_gate.sh — the demo's gate (tools/demo.sh): a new study against the baseline shipped in the
# repository and against one recorded on this machine type, so that a newcomer never sees a timing
# verdict that is the machine's and a regression on a known machine type is still caught:
#   quality  against the shipped baseline (compare gives timing verdicts only between runs of one
#            host fingerprint, record/host_fingerprint.h; across them it says so in one line);
#   timing   against <baselines>/<name>.<fingerprint>.h5, this machine type's baseline. The first
#            run on a machine type records its study there (and says so); later runs compare
#            their timing against it. When the shipped baseline has this fingerprint, it is that.
# It does not record a baseline from a study that regressed, that mixes fingerprints, or that has
# none. Writes <out>/compare.txt (and <out>/compare-machine.txt); prints compare's output.
# Usage: tools/demo_gate.sh <scalebench> <new study.h5> <shipped baseline.h5> <out folder> [<baselines folder>]
# Exit: compare's, the worse of the two: 0 nothing regressed, 3 only INCONCLUSIVE timing stands in
# the way, 1 a regression or no point matched.
set -uo pipefail
sb=$1 new=$2 shipped=$3 out=$4
baselines=${5:-$(dirname "$shipped")}
# The new study's host fingerprint(s), from report's provenance ("-" when none recorded).
fp=$("$sb" report "$new" | sed -n 's/^  fingerprint *//p' | head -1)
rc=0
rm -f "$out/compare-machine.txt"  # a rerun's is this run's or none
"$sb" compare "$shipped" "$new" | tee "$out/compare.txt" || rc=${PIPESTATUS[0]}
# compare says in one line when a point's sides are of different machine types; without it, and
# with one fingerprint here, the shipped baseline is of this machine type.
if ! grep -q '^compare: .* ran on another machine type' "$out/compare.txt" && [[ "$fp" =~ ^[0-9a-f]{8}$ ]]; then
  echo "demo: the shipped baseline is of this machine type (host fingerprint $fp): it gates timing too"
  exit "$rc"
fi
case $fp in
  -|*,*) echo "demo: no timing gate: the study has no single host fingerprint ($fp)"; exit "$rc" ;;
esac
local_base="$baselines/$(basename "$shipped" .h5).$fp.h5"
if [ -f "$local_base" ]; then
  echo "demo: timing against $local_base (this machine type's baseline, host fingerprint $fp)"
  rc2=0
  "$sb" compare "$local_base" "$new" | tee "$out/compare-machine.txt" || rc2=${PIPESTATUS[0]}
  if [ "$rc" = 1 ] || [ "$rc2" = 1 ]; then exit 1; fi
  if [ "$rc" = 3 ] || [ "$rc2" = 3 ]; then exit 3; fi
  exit 0
fi
if [ "$rc" = 1 ]; then
  echo "demo: no timing baseline for this machine type (host fingerprint $fp), and none recorded: this run regressed"
  exit 1
fi
mkdir -p "$baselines" && cp "$new" "$local_base"
echo "demo: first run on this machine type (host fingerprint $fp): timing not gated; its study is recorded as" \
  "$local_base, the timing baseline of later runs here (commit it to share it)"
exit "$rc"
