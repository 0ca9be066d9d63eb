#!/usr/bin/python3
"""projection.py — `scalebench project`'s predicted scaling efficiency vs N (lines, one per
strategy in its sbplot colour, one panel per model × scaling mode; x log2; lines with equal values
drawn side by side and named in the caption) with measured or published points overlaid (open
markers; the title says "measured points overlaid" only when there are some) from other study files — a user's own study, results/anchors/*.h5 — where their model,
scaling mode and strategy match a predicted line.

Predicted and measured efficiencies are the files' `efficiency` columns, as written (project's
step(1)/step(N), collect's speedup / N, an anchor's published figure); ok rows only.

It deliberately does not run `project`, does not recompute any efficiency, and draws a measured
point only beside a predicted line of the same model, scaling and strategy (nothing is matched
by guesswork: name the model alike in `project --model` and the study).

Usage: /usr/bin/python3 plots/projection.py PROJECTION.h5 [-o OUT] [--overlay STUDY ...]
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sbload  # noqa: E402
import sbplot  # noqa: E402


def _key(r):
    return (r.get("model", ""), r.get("scaling", ""))


def make(projection_path, out_dir, overlay=()) -> list:
    proj = sbload.load_study(projection_path)
    pred = [r for r in proj.ok_rows() if sbload.finite(r.get("efficiency"))]
    if not pred or not all(r.get("source") == "projection" for r in pred):
        raise sbload.NoData(f"{proj.path} is not a `scalebench project -o` file (no rows with source = projection)")
    points = []  # (study name, row)
    for p in overlay:
        st = sbload.load_study(p)
        points += [(st.name, r) for r in st.ok_rows() if sbload.finite(r.get("efficiency"))]
    panels = sbplot.group_rows(pred, _key)
    fig, axes = sbplot.grid(len(panels))
    shown = 0
    same = []  # notes on predicted lines that coincide
    for ax, (key, rows) in zip(axes, panels.items()):
        by_strategy = sbplot.group_rows(rows, lambda r: (r.get("strategy", ""), r.get("group_id", "")))
        strategies = []
        curves = {}  # the predicted values → labels of the lines that have them
        k = len(by_strategy)
        for i, ((strategy, group), rs) in enumerate(by_strategy.items()):
            rs = sorted(rs, key=lambda r: r["world_size"])
            c, marker = sbplot.strategy_style(strategy)
            variant = ("no overlap" if "nooverlap" in group else "") + (" bf16" if "bf16" in group else "")
            label = strategy + (f" ({variant.strip()})" if variant else "")
            ns = [r["world_size"] for r in rs]
            ys = [100 * r["efficiency"] for r in rs]
            curves.setdefault((tuple(ns), tuple(round(y, 6) for y in ys)), []).append(label)
            # Markers at the predicted N, slightly offset per line: equal predictions stay visible.
            ax.plot(sbplot.dodge(ns, i, k), ys, "-" if not variant else "--", color=c, marker=marker, ms=4.5,
                    label=f"{label}: predicted")
            strategies.append((strategy, c, marker))
        same += [f"{' = '.join(v)} ({sbplot.panel_title(key)})" for v in curves.values() if len(v) > 1]
        # A measured point: the median of its repetitions with their interval (the study file's 95 %
        # interval where it has one, else min–max), as in the efficiency plot.
        for i, (strategy, c, marker) in enumerate(strategies):
            for name in sbplot._distinct(n for n, _ in points):
                mine = [r for n, r in points if n == name and _key(r) == key and r.get("strategy") == strategy]
                agg = sbplot.aggregate(mine, "efficiency", 100.0)
                if not agg:
                    continue
                n, med, lo, hi = (list(x) for x in list(zip(*agg))[:4])
                ax.errorbar(sbplot.dodge(n, i, len(strategies)), med, yerr=[[m - l for m, l in zip(med, lo)], [h - m for m, h in zip(med, hi)]],
                            fmt=marker, color=c, mfc="none", ms=10, mew=1.6, capsize=3,
                            label=f"{strategy}: {name} (measured)")
                shown += len(agg)
        ax.axhline(100, color="#999999", ls="--", lw=0.8)
        sbplot.log2_axis(ax, [r["world_size"] for r in rows])
        ax.set_xlabel("devices N (log2)")
        ax.set_ylabel("scaling efficiency (%)")
        ax.set_title(sbplot.panel_title(key))
    cap = (f"lines: scalebench project ({proj.attrs.get('network', '?')}; from {proj.attrs.get('measured_trace', '?')}); "
           + (f"open markers: {shown} measured or published point(s) (median of the repetitions, bars: 95% interval "
              f"else min–max) from "
              f"{', '.join(os.path.basename(p) for p in overlay)}" if shown else
              "no measured point overlaid" + (f" (none in {', '.join(os.path.basename(p) for p in overlay)} matches a "
                                              "line's model, scaling and strategy)" if overlay else " (no --overlay file)"))
           + "; lines drawn slightly offset along N so that equal predictions stay visible"
           + (f"; identical predictions: {'; '.join(same)}" if same else ""))
    title = "Predicted scaling efficiency (scalebench project)" + (", measured points overlaid" if shown else "")
    return sbplot.finish(fig, title, cap, out_dir, "projection", legend_handles=sbplot.legend_handles(axes))


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("projection", help="a `scalebench project -o` file")
    ap.add_argument("-o", "--out", default=".", help="output folder (default: .)")
    ap.add_argument("--overlay", action="append", default=[], help="study file with measured or published points (repeatable)")
    a = ap.parse_args()
    try:
        for path in make(a.projection, a.out, a.overlay):
            print(path)
    except sbload.NoData as e:
        print(f"skipped: projection: {e}")
    except sbload.InputError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
