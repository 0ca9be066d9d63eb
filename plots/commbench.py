#!/usr/bin/python3
"""commbench.py — allreduce bus bandwidth vs message size from `scalebench commbench --json`
output (docs/comm.md), one line per transport × algorithm (× rank count when several files
differ in it); x log2 in bytes, y in GB/s (10^9 B/s, as nccl-tests).

Input: a commbench JSON file, or a study folder / study file next to which the JSON files lie as
commbench*.json or commbench/*.json (make_all.py also takes --commbench PATH). Both the
`scalebench commbench` object and a plain JSON list of rows {transport, algo, ranks, bytes,
time_us, algbw_GBps, busbw_GBps, max_error} are read (sbload.load_commbench).

It deliberately does not plot latency or algbw (busbw is the number comparable across rank counts),
does not draw 1-rank sets (busbw is 0 by definition there; the caption says they were left out),
and does not re-derive busbw from the times.

Usage: /usr/bin/python3 plots/commbench.py STUDY_DIR_OR_JSON [-o OUT]
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import sbload  # noqa: E402
import sbplot  # noqa: E402

ALGO_ORDER = ["native", "ring", "hierarchical"]


def make(study_path_or_dir, out_dir, commbench=None) -> list:
    """commbench: explicit JSON files or folders; default: the ones found next to the study."""
    files = []
    for p in (commbench or [study_path_or_dir]):
        if os.path.isdir(p) or p.endswith(".json"):
            if not os.path.exists(p):
                raise sbload.InputError(f"{p}: no such file")
            files += sbload.find_commbench(p)
        else:
            files += sbload.find_commbench(os.path.dirname(os.path.abspath(p)))
    files = sorted(dict.fromkeys(files))
    if not files:
        where = study_path_or_dir if os.path.isdir(study_path_or_dir) else os.path.dirname(
            os.path.abspath(study_path_or_dir))
        raise sbload.NoData(f"no commbench*.json or commbench/*.json in {where} (pass --commbench FILE)")
    sets = [s for f in files for s in sbload.load_commbench(f)]
    one_rank = [s for s in sets if s.ranks == 1]
    sets = [s for s in sets if s.ranks != 1 and s.rows]
    if not sets:
        raise sbload.NoData("the commbench files hold only 1-rank results (busbw is 0 there)")

    multi_ranks = len({s.ranks for s in sets}) > 1
    algos = sorted({r["algo"] for s in sets for r in s.rows},
                   key=lambda a: (ALGO_ORDER.index(a) if a in ALGO_ORDER else 99, a))
    acolor = {a: sbplot.strategy_style(a)[0] for a in algos}  # ring, hierarchical: their strategies' colours
    keys = sorted({(s.transport, s.ranks, s.nodes) for s in sets})
    kstyle = {k: ["-", "--", ":", "-."][i % 4] for i, k in enumerate(keys)}
    kmarker = {k: sbplot.MARKERS[i % len(sbplot.MARKERS)] for i, k in enumerate(keys)}

    fig, ax = plt.subplots(figsize=(8.4, 4.9))
    sizes = set()
    bad_err = []
    for s in sets:
        k = (s.transport, s.ranks, s.nodes)
        for a in algos:
            rs = sorted((r for r in s.rows if r["algo"] == a), key=lambda r: r["bytes"])
            if not rs:
                continue
            x = np.array([r["bytes"] for r in rs], dtype=float)
            y = np.array([r["busbw_GBps"] for r in rs], dtype=float)
            sizes.update(x.tolist())
            if any(sbload.finite(r["max_abs_err"]) and r["max_abs_err"] != 0 for r in rs):
                bad_err.append(f"{s.transport}/{a}")
            label = f"{s.transport} · {a} · {s.ranks} ranks" + (f" on {s.nodes} nodes" if s.nodes > 1 else "")
            ax.plot(x, y, color=acolor[a], ls=kstyle[k], marker=kmarker[k], label=label)
    sbplot.log2_axis(ax, sorted(sizes), "x", fmt=sbplot.bytes_label)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("message size (bytes, log2; K/M/G = $2^{10}$/$2^{20}$/$2^{30}$ B)")
    ax.set_ylabel("bus bandwidth (GB/s, 1 GB = $10^9$ B)")
    ax.set_title("allreduce (sum, float32, in place)" + ("" if multi_ranks else f", {sets[0].ranks} ranks"))

    hosts = sbplot._distinct(h for s in sets for h in s.hostnames)
    hdr = [s.header for s in sets if s.header]
    lines = ["busbw = algbw × 2(n−1)/n (nccl-tests' allreduce definition); time = max over ranks of the mean "
             "time per call"]
    second = []
    if hosts:
        second.append(f"{len(hosts)} host{'s' if len(hosts) != 1 else ''} (" + ", ".join(hosts[:4])
                      + (", …" if len(hosts) > 4 else "") + ")")
    for key, name, fmt in (("chunk_bytes", "chunk", sbplot.bytes_label), ("depth", "depth", str),
                           ("warmup", "warm-up calls", str), ("iters", "timed calls", str)):
        vals = sbplot._distinct(fmt(h[key]) if key in h else "" for h in hdr)
        if vals:
            second.append(f"{name} {'/'.join(vals)}")
    second.append("files: " + ", ".join(os.path.basename(f) for f in files))
    if one_rank:
        second.append(f"{len(one_rank)} one-rank set{'s' if len(one_rank) != 1 else ''} not shown (busbw 0)")
    if bad_err:
        second.append("NON-ZERO verification error in " + ", ".join(sorted(set(bad_err))))
    lines.append(" · ".join(second))
    return sbplot.finish(fig, "Collective benchmark: allreduce bus bandwidth vs message size", "\n".join(lines),
                         out_dir, "commbench", legend_handles=sbplot.legend_handles([ax]), legend_ncol=3)


if __name__ == "__main__":
    sbplot.main(make, __doc__.splitlines()[0])
