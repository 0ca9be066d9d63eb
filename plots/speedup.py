#!/usr/bin/python3
"""speedup.py — speedup vs number of devices, one panel per model × scaling mode, one line per
strategy, with the ideal line (speedup = N); both axes log2.

Speedup is the study file's `speedup` column (docs/results-schema.md: throughput over the median
N = 1 throughput of the same group and strategy, else of the group's `single` runs); repetitions
of a point are drawn as their median with the point's 95 % interval from the study file (min–max
bars for older files); flagged points (collect's point statistics) get a red ring; the caption
quotes the metric's definition from the study file's /metrics table. Runs whose status is not ok, and ok runs
without an N = 1 baseline, are left out and counted in the caption. A panel whose points are all at
one N is not drawn (named in the caption; a study at one N only: skipped), and a panel with more
series than sbplot.MAX_SERIES (with the ideal line) is split into facets, one per value of a swept
field (sbplot.facets).

It deliberately does not recompute speedups or baselines (collect owns that definition), and does
not draw efficiency (efficiency.py) or absolute throughput (throughput.py).

Usage: /usr/bin/python3 plots/speedup.py STUDY_DIR_OR_FILE [-o OUT] [--paper one|two]
"""
from __future__ import annotations

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


import sbload  # noqa: E402
import sbplot  # noqa: E402


# The lines of one strategy in a panel (swept fields) share its colour: told apart by line style,
# then by open markers. Not dotted: the throughput's ideal lines are.
SAME_COLOUR_STYLES = ["-", "--", "-."]


def scaling_panels(rows, limit):
    """[(panel title, series)]: one panel per model × scaling mode in which N varies, its series
    (group × strategy) split into facets of at most `limit` (sbplot.facets); and the titles of the
    panels left out because all their points are at one N (no scaling to draw there)."""
    panels, one_n = [], []
    for pkey, prow in sbplot.group_rows(rows, sbplot.panel_key).items():
        ns = sorted({int(r["world_size"]) for r in prow})
        if len(ns) < 2:
            one_n.append(f"{pkey[0]} {pkey[1]} (N={ns[0]} only)")
            continue
        for suffix, series in sbplot.facets(sbplot.group_rows(prow, sbplot.series_key), limit):
            panels.append((sbplot.panel_title(pkey) + (f"\n{suffix}" if suffix else ""), series))
    return panels, one_n


def series_ideal(srows):
    """A series' ideal images/s at N: N × its N = 1 throughput — collect's baseline_images_per_s
    (the median of the N = 1 runs its speedup is measured against), else its own N = 1 median."""
    base = [v for r in srows if sbload.finite(v := sbload.num(r.get("baseline_images_per_s")))]
    if not base:
        base = [sbload.num(r.get("images_per_s")) for r in srows if int(r["world_size"]) == 1]
    return float(sbplot.np.median(base)) if base else math.nan


def draw_scaling(study, out_dir, *, metric, stem, title, ylabel, ideal, scale=1.0, log_y=False):
    """Shared by speedup.py, efficiency.py and throughput.py: `metric` vs N per panel, where N
    varies; `ideal(n)` the ideal value, or ideal=None: N × each series' N = 1 throughput, dotted
    in its colour (throughput.py, y log10)."""
    rows = study.rows
    shown = [r for r in study.ok_rows() if sbload.finite(r.get(metric))]
    no_base = [r for r in study.ok_rows() if not sbload.finite(r.get(metric))]
    if not shown:
        why = f"no ok run with a finite {metric} in {study.path}"
        notes = [f"{len(no_base)} ok without an N=1 baseline"] if no_base else []
        if study.not_ok_rows():
            notes.append(sbplot.not_shown_note(study.rows).replace(" not shown", ""))
        raise sbload.NoData(why + (f" ({'; '.join(notes)})" if notes else ""))
    # The ideal line (or its legend entry) is one series of the axes: the data get one fewer.
    panels, one_n = scaling_panels(shown, sbplot.MAX_SERIES - 1)
    if not panels:
        raise sbload.NoData(f"N does not vary in {study.path}: {'; '.join(one_n)}")
    fig, axes = sbplot.grid(len(panels))
    for ax, (ptitle, series) in zip(axes, panels):
        prow = [r for rs in series.values() for r in rs]
        labels = sbplot.series_labels(series)
        ns = sorted({r["world_size"] for r in prow})
        nmax = max(ns + [2])
        xs = [1] + [n for n in sbplot.np.geomspace(1, nmax, 64)]
        if ideal is not None:
            ax.plot(xs, [ideal(x) * scale for x in xs], ls="--", color="0.45", lw=1.2, label="ideal", zorder=1)
        else:
            ax.plot([], [], ls=":", color="0.45", lw=1.2, label="ideal: N × the line's N = 1 images/s")
        ideal_vals, nth = [], {}
        for i, (skey, srows) in enumerate(series.items()):
            strategy = srows[0].get("strategy", "")
            bases = sbplot._distinct(r.get("baseline", "") for r in srows)
            label = labels[skey]
            if bases and bases != [f"{strategy} N=1"]:
                label += f" [vs {', '.join(bases)}]"
            color, marker = sbplot.strategy_style(strategy)
            k = nth[strategy] = nth.get(strategy, -1) + 1  # lines of one strategy (one colour): by style
            sbplot.plot_agg(ax, sbplot.aggregate(srows, metric, scale, flagged=True), label, color, marker,
                            shift=(i, len(series)), zorder=3, ls=SAME_COLOUR_STYLES[k % 3], mfc=color if k < 3 else "white")
            if ideal is None and sbload.finite(b := series_ideal(srows)):
                sn = sorted({int(r["world_size"]) for r in srows})
                ax.plot([1, max(sn + [2])], [b, b * max(sn + [2])], ls=":", color=color, lw=1.0, zorder=2,
                        label="_ideal")
                ideal_vals += [b, b * max(sn + [2])]
        sbplot.log2_axis(ax, ns + ([2] if len(ns) == 1 else []), "x")
        if ideal is None:
            ax.set_yscale("log")
            vals = [sbload.num(r.get(metric)) * scale for r in prow] + ideal_vals
            ax.set_ylim(min(vals) / 1.35, max(vals) * 1.35)
        elif log_y:
            vals = [sbload.num(r.get(metric)) * scale for r in prow]
            top, bottom = max([nmax] + vals), min([1.0] + vals)
            k0, k1 = int(sbplot.np.floor(sbplot.np.log2(bottom))), int(sbplot.np.ceil(sbplot.np.log2(top)))
            sbplot.log2_axis(ax, [2.0 ** k for k in range(k0, k1 + 1)], "y")
            ax.set_ylim(bottom / 1.35, top * 1.35)
        else:
            vals = [sbload.num(r.get(metric)) * scale for r in prow] + [ideal(1) * scale]
            vals += [v * scale for r in prow if math.isfinite(v := sbload.num(r.get(metric + "_ci_hi")))]
            ax.set_ylim(0, max(vals) * 1.15)
        ax.set_title(ptitle)
        ax.set_xlabel("devices N (log2)")
        ax.set_ylabel(ylabel)
    extra = [sbplot.reps_note(shown, metric)]
    if metric in study.metrics:  # the definition as the study file states it (metrics.def)
        extra.append(f"{metric} = {study.metrics[metric].get('definition', '')}")
    if no_base:
        extra.append(f"{len(no_base)} ok point{'s' if len(no_base) != 1 else ''} without an N=1 baseline not shown")
    if one_n:
        extra.append(f"not drawn, N does not vary: {'; '.join(one_n)}")
    extra.append("points of one N drawn side by side (slightly offset) so that equal values stay visible")
    cap = sbplot.caption(study, shown, rows, extra)
    return sbplot.finish(fig, title, cap, out_dir, stem, legend_handles=sbplot.legend_handles(axes))


def make(study_path_or_dir, out_dir) -> list:
    study = sbload.load_study(study_path_or_dir)
    return draw_scaling(study, out_dir, metric="speedup", stem="speedup",
                        title="Speedup vs devices (throughput relative to N = 1)",
                        ylabel="speedup over N = 1 (log2)", ideal=lambda n: n, log_y=True)


if __name__ == "__main__":
    sbplot.main(make, __doc__.splitlines()[0])
