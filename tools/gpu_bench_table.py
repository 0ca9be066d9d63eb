#!/usr/bin/env python3
"""gpu_bench_table.py — the side-by-side table of a tools/gpu-benchmarks.sh run: for every model,
precision and layout, our images/s (sb_bench_gpu_model's median of its repetitions), PyTorch eager's,
torch.compile's (default, max-autotune) and our ratio to each, as markdown. Reads OUTDIR/ours-*.log
and OUTDIR/torch.jsonl; a row a side did not produce shows "-" (the logs say why: budget, out of
memory, no torch.compile), never a guess.
  tools/gpu_bench_table.py gpu-bench-out
Not here: running anything, or judging the targets (the reader compares the ratios with the issue's).
"""
import glob
import json
import os
import re
import sys

OURS = re.compile(r"^(\S+) (fp32|tf32|bf16) (NCHW|NHWC) batch (\d+) (\d+)x\d+, .*?: ([0-9.]+) images/s .*"
                  r"params (\d+), reps ([0-9.,]+)")


def main():
    out = sys.argv[1]
    ours, params = {}, {}
    for path in sorted(glob.glob(os.path.join(out, "ours-*.log"))):
        for line in open(path, errors="replace"):
            m = OURS.match(line)
            if m:
                spec, prec, layout = m.group(1), m.group(2), m.group(3)
                ours[spec, prec, layout] = float(m.group(6)), m.group(8)
                params[spec] = int(m.group(7))
    torch = {}
    meta = {}
    js = os.path.join(out, "torch.jsonl")
    for line in open(js) if os.path.exists(js) else []:
        r = json.loads(line)
        # Our spec names the row: the one of the same family with the same parameter count
        # (torch_reference checked them equal); the torch spec when ours did not run.
        spec = next((s for s in params if s.split(":")[0] == r["model"] and params[s] == r["params"]), r["spec"])
        torch[spec, r["precision"], r["layout"], r["compile"]] = r["images_per_s"]
        meta = r
    modes = ["none", "default", "max-autotune"]
    keys = sorted({k[:3] for k in torch} | set(ours), key=lambda k: (k[0], ["fp32", "tf32", "bf16"].index(k[1]), k[2]))
    print("| model | params | precision | layout | ours img/s (reps) | eager | compile | max-autotune | "
          "ours/eager | ours/compile | ours/max-autotune |")
    print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for spec, prec, layout in keys:
        o = ours.get((spec, prec, layout))
        t = [torch.get((spec, prec, layout, m)) for m in modes]
        cell = lambda v: f"{v:.1f}" if v else "-"
        ratio = lambda v: f"{o[0] / v:.2f}" if o and v else "-"
        print(f"| {spec} | {params.get(spec, '-')} | {prec} | {layout} | "
              f"{f'{o[0]:.1f} ({o[1]})' if o else '-'} | {' | '.join(cell(v) for v in t)} | "
              f"{' | '.join(ratio(v) for v in t)} |")
    if meta:
        print(f"\nPyTorch {meta['torch']}, cuDNN {meta['cudnn']}, {meta['device']}; batch {meta['batch']}, medians of "
              f"{meta['reps']} repetitions a row.")


if __name__ == "__main__":
    main()
