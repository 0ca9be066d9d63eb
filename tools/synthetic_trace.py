#!/usr/bin/python3
"""synthetic_trace.py — a step *described*, not measured, in the `train --trace` format, so that
`scalebench project --trace` can project a workload scalebench cannot run here (a published model
on published hardware: docs/projection.md, "Against published figures").

    /usr/bin/python3 tools/synthetic_trace.py --step-ms T --params P [--layers L] [--bwd-frac F] \
        [--batch B] [--model NAME] -o t.json

The step is T ms of compute (forward (1 - F) T, backward F T; F = 2/3 by default, from backward
≈ 2 x forward FLOPs, docs/design.md section 5) and no data or optimizer time (they are inside T);
backward is L equal layers, each producing P / L gradient elements (the last takes the remainder).
L = 1 means every gradient is ready only when backward ends (no overlap possible); L > 1 spreads
them evenly over backward, which is an assumption about the model, not knowledge of it. Three
identical steps are written (project averages the steps after the first), so the trace has no
spread: project's straggler term and band see none. --batch and --model, when given, are written
where a real trace records its run's options (otherData.config, docs/trace.md), so project checks
its own --batch and --model against them; the trace has no context (host, commit): nothing ran.

It deliberately does not guess T or P: both are inputs, and their sources are the caller's to state.
"""
from __future__ import annotations

import argparse
import json
import os
import sys


def events(step_ms: float, params: int, layers: int, bwd_frac: float, steps: int = 3) -> list:
    us = step_ms * 1000.0
    fwd, bwd = us * (1.0 - bwd_frac), us * bwd_frac
    out, t = [], 1000.0
    for k in range(steps):
        out.append(dict(name=f"step {k + 1}", cat="step", ts=t, dur=us, args={}))
        out.append(dict(name="data", cat="phase", ts=t, dur=0.0, args={}))
        out.append(dict(name="forward", cat="phase", ts=t, dur=fwd, args={}))
        out.append(dict(name="backward", cat="phase", ts=t + fwd, dur=bwd, args={}))
        per, begin = params // layers, 0
        for i in range(layers):
            end = params if i == layers - 1 else begin + per
            out.append(dict(name=f"backward layer{layers - i}", cat="layer", ts=t + fwd + i * bwd / layers,
                            dur=bwd / layers, args={"begin": begin, "end": end}))
            begin = end
        out.append(dict(name="optimizer", cat="phase", ts=t + us, dur=0.0, args={}))
        t += us + 10.0
    return out


def write(path: str, evs: list, config: dict):
    trace_events = [{"name": e["name"], "cat": e["cat"], "ph": "X", "ts": round(e["ts"], 3), "dur": round(e["dur"], 3),
                     "pid": 0, "tid": 0, "args": e["args"]} for e in evs]
    other = {"rank": 0, "synthetic": True}
    if config:
        other.update(config=config, context={})
    with open(path + ".tmp", "w") as f:
        json.dump({"traceEvents": trace_events, "displayTimeUnit": "ms", "otherData": other}, f)
        f.write("\n")
    os.replace(path + ".tmp", path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="synthetic_trace.py", description=__doc__.splitlines()[0])
    ap.add_argument("--step-ms", type=float, required=True, help="compute per step at N = 1 (ms)")
    ap.add_argument("--params", type=int, required=True, help="gradient elements (the model's parameter count)")
    ap.add_argument("--layers", type=int, default=1, help="equal backward layers (1: no overlap possible)")
    ap.add_argument("--bwd-frac", type=float, default=2.0 / 3.0, help="backward share of the step")
    ap.add_argument("--batch", type=int, help="per-device batch the step time is for (recorded for project to check)")
    ap.add_argument("--model", help="model name (recorded; project's rows take it)")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args(argv)
    if a.step_ms <= 0 or a.params < 1 or a.layers < 1 or not 0 < a.bwd_frac <= 1 or a.layers > a.params:
        ap.error("need --step-ms > 0, --params >= 1, 1 <= --layers <= --params, 0 < --bwd-frac <= 1")
    if a.batch is not None and a.batch < 1:
        ap.error("--batch must be >= 1")
    config = {k: v for k, v in (("model", a.model), ("batch", a.batch)) if v is not None}
    write(a.output, events(a.step_ms, a.params, a.layers, a.bwd_frac), config)
    return 0


if __name__ == "__main__":
    sys.exit(main())
