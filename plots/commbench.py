#!/usr/bin/python3
"""commbench.py — bus bandwidth vs message size from `scalebench commbench --json` output
(docs/comm.md): one panel for the allreduce algorithms (one line per transport × algorithm × rank
count) and one panel per collective of the --coll tables (one line per transport × rank count ×
type × out of place / in place), each line with its spread over the timed calls shaded (busbw at
the slowest and at the fastest call, time_min_us/time_max_us; absent in older files). x log2 in
bytes, y in GB/s (10^9 B/s, as nccl-tests).

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
TYPE_COLOR = {"float": "#1f77b4", "bfloat16": "#d62728", "half": "#2ca02c"}
PLACE_STYLE = {False: "-", True: "--"}


def spread(ax, rows, x, color):
    """Shade busbw between the slowest and the fastest timed call, where the rows carry them."""
    if not all(sbload.finite(r.get("time_min_us")) and sbload.finite(r.get("time_max_us"))
               and r["time_min_us"] > 0 and r["time_max_us"] > 0 and sbload.finite(r.get("time_us"))
               and r["time_us"] > 0 for r in rows):
        return False
    y = np.array([r["busbw_GBps"] for r in rows], dtype=float)
    lo = y * np.array([r["time_us"] / r["time_max_us"] for r in rows])
    hi = y * np.array([r["time_us"] / r["time_min_us"] for r in rows])
    ax.fill_between(x, lo, hi, color=color, alpha=0.18, linewidth=0)
    return True


def coll_rows(s):
    """The --coll table rows of a set (header "collectives"), numbers made floats."""
    out = []
    for r in s.header.get("collectives", None) or []:
        if not isinstance(r, dict) or any(k not in r for k in ("collective", "bytes", "busbw_GBps")):
            raise sbload.InputError(f"{s.path}: a \"collectives\" entry lacks collective, bytes or busbw_GBps")
        row = dict(r)
        for k in ("bytes", "time_us", "time_min_us", "time_max_us", "busbw_GBps"):
            row[k] = sbload.num(row.get(k))
        row["wrong"] = sbload.num(row.get("wrong"), 0)
        out.append(row)
    return out


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
    sets = [s for s in sets if s.ranks != 1 and (s.rows or s.header.get("collectives"))]
    if not sets:
        raise sbload.NoData("the commbench files hold only 1-rank results (busbw is 0 there)")

    multi_ranks = len({s.ranks for s in sets}) > 1
    algos = sorted({r["algo"] for s in sets for r in s.rows},
                   key=lambda a: (ALGO_ORDER.index(a) if a in ALGO_ORDER else 99, a))
    acolor = {a: sbplot.strategy_style(a)[0] for a in algos}  # ring, hierarchical: their strategies' colours
    keys = sorted({(s.transport, s.ranks, s.nodes) for s in sets})
    kstyle = {k: ["-", "--", ":", "-."][i % 4] for i, k in enumerate(keys)}
    kmarker = {k: sbplot.MARKERS[i % len(sbplot.MARKERS)] for i, k in enumerate(keys)}
    colls = []  # collective names in the files' order
    crows = {}
    for s in sets:
        for r in coll_rows(s):
            name = str(r["collective"])
            if name not in colls:
                colls.append(name)
            crows.setdefault(name, []).append((s, r))

    panels = (["algorithms"] if any(s.rows for s in sets) else []) + colls
    fig, axes = sbplot.grid(len(panels), ncols_max=2 if len(panels) > 1 else 1,
                            panel_w=5.2 if len(panels) > 1 else 8.4, panel_h=3.6 if len(panels) > 1 else 4.9)
    sizes = set()
    bad_err = []
    shaded = False
    handles = {}
    for ax, panel in zip(axes, panels):
        if panel == "algorithms":
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
                    (h,) = ax.plot(x, y, color=acolor[a], ls=kstyle[k], marker=kmarker[k], label=label)
                    handles.setdefault(label, h)
                    shaded |= spread(ax, rs, x, acolor[a])
            ax.set_title("allreduce algorithms (sum, float32, in place)"
                         + ("" if multi_ranks else f", {sets[0].ranks} ranks"), fontsize=9)
        else:
            series = {}
            for s, r in crows[panel]:
                key = (s.transport, s.ranks, s.nodes, str(r.get("type", "float")), bool(r.get("in_place")))
                series.setdefault(key, []).append(r)
            factor = next((str(r.get("busbw_factor")) for _, r in crows[panel] if r.get("busbw_factor")), "?")
            for (tr, nr, nn, ty, ip), rs in sorted(series.items()):
                rs = sorted(rs, key=lambda r: r["bytes"])
                x = np.array([r["bytes"] for r in rs], dtype=float)
                y = np.array([r["busbw_GBps"] for r in rs], dtype=float)
                sizes.update(v for v in x.tolist() if v > 0)
                if any(r["wrong"] for r in rs):
                    bad_err.append(f"{tr}/{panel}/{ty}")
                color = TYPE_COLOR.get(ty, "#555555")
                k = (tr, nr, nn)
                label = (f"{tr} · {nr} ranks" + (f" on {nn} nodes" if nn > 1 else "") + f" · {ty} · "
                         + ("in place" if ip else "out of place"))
                (h,) = ax.plot(x, y, color=color, ls=PLACE_STYLE[ip], marker=kmarker.get(k, "o"), ms=3.5, label=label)
                handles.setdefault(label, h)
                shaded |= spread(ax, rs, x, color)
            ax.set_title(f"{panel} (busbw = algbw × {factor})", fontsize=9)
    for ax in axes:
        sbplot.log2_axis(ax, sorted(sizes), "x", fmt=sbplot.bytes_label)
        ax.set_ylim(bottom=0)
        ax.set_xlabel("message size (bytes, log2; K/M/G = $2^{10}$/$2^{20}$/$2^{30}$ B)", fontsize=8)
        ax.set_ylabel("bus bandwidth (GB/s, 1 GB = $10^9$ B)", fontsize=8)

    hosts = sbplot._distinct(h for s in sets for h in s.hostnames)
    hdr = [s.header for s in sets if s.header]
    lines = ["busbw = algbw × the collective's factor (nccl-tests' definitions; allreduce 2(n−1)/n); time = max "
             "over ranks of the mean time per call"
             + ("; shaded: busbw at the slowest to the fastest timed call (each a max over ranks)" if shaded else "")]
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
    title = ("Collective benchmark: bus bandwidth vs message size" if colls
             else "Collective benchmark: allreduce bus bandwidth vs message size")
    return sbplot.finish(fig, title, "\n".join(lines), out_dir, "commbench",
                         legend_handles=list(handles.values()), legend_ncol=3)


if __name__ == "__main__":
    sbplot.main(make, __doc__.splitlines()[0])
