#!/usr/bin/python3
"""speedup.py — speedup vs number of devices, one panel per model × scaling mode, one line per
strategy, with the ideal line (speedup = N); both axes log2.

Speedup is the study file's `speedup` column (docs/results-schema.md: throughput over the median
N = 1 throughput of the same group and strategy, else of the group's `single` runs); repetitions
of a point are drawn as their median with the point's 95 % interval from the study file (min–max
bars for older files); flagged points (collect's point statistics) get a red ring; the caption
quotes the metric's definition from the study file's /metrics table. Runs whose status is not ok, and ok runs
without an N = 1 baseline, are left out and counted in the caption.

It deliberately does not recompute speedups or baselines (collect owns that definition), and does
not draw efficiency (efficiency.py) or absolute throughput.

Usage: /usr/bin/python3 plots/speedup.py STUDY_DIR_OR_FILE [-o OUT]
"""
from __future__ import annotations

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


import sbload  # noqa: E402
import sbplot  # noqa: E402


def draw_scaling(study, out_dir, *, metric, stem, title, ylabel, ideal, scale=1.0, log_y=False):
    """Shared by speedup.py and efficiency.py: `metric` vs N per panel; `ideal(n)` the ideal value."""
    rows = study.rows
    shown = [r for r in study.ok_rows() if sbload.finite(r.get(metric))]
    no_base = [r for r in study.ok_rows() if not sbload.finite(r.get(metric))]
    if not shown:
        why = f"no ok run with a finite {metric} in {study.path}"
        notes = [f"{len(no_base)} ok without an N=1 baseline"] if no_base else []
        if study.not_ok_rows():
            notes.append(sbplot.not_shown_note(study.rows).replace(" not shown", ""))
        raise sbload.NoData(why + (f" ({'; '.join(notes)})" if notes else ""))
    panels = sbplot.group_rows(shown, sbplot.panel_key)
    fig, axes = sbplot.grid(len(panels))
    for ax, (pkey, prow) in zip(axes, panels.items()):
        series = sbplot.group_rows(prow, sbplot.series_key)
        labels = sbplot.series_labels(series)
        ns = sorted({r["world_size"] for r in prow})
        nmax = max(ns + [2])
        xs = [1] + [n for n in sbplot.np.geomspace(1, nmax, 64)]
        ax.plot(xs, [ideal(x) * scale for x in xs], ls="--", color="0.45", lw=1.2, label="ideal", zorder=1)
        for i, (skey, srows) in enumerate(series.items()):
            strategy = srows[0].get("strategy", "")
            bases = sbplot._distinct(r.get("baseline", "") for r in srows)
            label = labels[skey]
            if bases and bases != [f"{strategy} N=1"]:
                label += f" [vs {', '.join(bases)}]"
            color, marker = sbplot.strategy_style(strategy)
            sbplot.plot_agg(ax, sbplot.aggregate(srows, metric, scale, flagged=True), label, color, marker,
                            shift=(i, len(series)), zorder=3)
        sbplot.log2_axis(ax, ns + ([2] if len(ns) == 1 else []), "x")
        if log_y:
            vals = [sbload.num(r.get(metric)) * scale for r in prow]
            top, bottom = max([nmax] + vals), min([1.0] + vals)
            k0, k1 = int(sbplot.np.floor(sbplot.np.log2(bottom))), int(sbplot.np.ceil(sbplot.np.log2(top)))
            sbplot.log2_axis(ax, [2.0 ** k for k in range(k0, k1 + 1)], "y")
            ax.set_ylim(bottom / 1.35, top * 1.35)
        else:
            vals = [sbload.num(r.get(metric)) * scale for r in prow] + [ideal(1) * scale]
            vals += [v * scale for r in prow if math.isfinite(v := sbload.num(r.get(metric + "_ci_hi")))]
            ax.set_ylim(0, max(vals) * 1.15)
        ax.set_title(sbplot.panel_title(pkey))
        ax.set_xlabel("devices N (log2)")
        ax.set_ylabel(ylabel)
    extra = [sbplot.reps_note(shown, metric)]
    if metric in study.metrics:  # the definition as the study file states it (metrics.def)
        extra.append(f"{metric} = {study.metrics[metric].get('definition', '')}")
    if no_base:
        extra.append(f"{len(no_base)} ok point{'s' if len(no_base) != 1 else ''} without an N=1 baseline not shown")
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
