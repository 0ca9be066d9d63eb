#!/usr/bin/python3
"""accuracy_cost.py — which training recipe keeps quality as the global batch grows: final held-out
quality (mean IoU over the non-background classes, or accuracy) vs devices N, one line per recipe
(the combination of LR rule, warm-up, optimizer, sync-bn, … the study varies), one panel per model ×
scaling × optimizer, with the N = 1 band: the min–max of every N = 1 run of the panel (at N = 1 the
LR rules and sync-bn change nothing, so their spread is the run-to-run noise of the recipe family)
and a dotted line one IoU point (0.01; accuracy: one percentage point) below the N = 1 median.

Values are the study file's `final_val_miou` / `final_val_accuracy` (the last epoch's, so points
compare at equal epochs); repetitions as median with min–max bars; runs whose status is not ok are
left out and counted in the caption. Drawn only when the study varies a recipe field
(RECIPE_FIELDS) within one model × scaling; otherwise NoData (make_all.py prints it as skipped).

It deliberately does not pick the best recipe or judge the 1-point criterion (docs/accuracy-cost.md
does, from the numbers), and does not draw loss or curves over epochs (accuracy.py, curves.py).

Usage: /usr/bin/python3 plots/accuracy_cost.py STUDY_DIR_OR_FILE [-o OUT]
"""
from __future__ import annotations

import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import matplotlib.pyplot as plt  # noqa: E402

import accuracy  # noqa: E402
import sbload  # noqa: E402
import sbplot  # noqa: E402

# Options that make a training recipe (how the model is trained, not where or how fast).
RECIPE_FIELDS = ("lr_scaling", "warmup_epochs", "optimizer", "sync_bn", "accumulate", "lr", "lr_decay",
                 "momentum", "weight_decay")


def varied_recipe_fields(rows) -> list:
    """The recipe fields that take more than one value within one model × scaling (in RECIPE_FIELDS
    order): two models trained with their own LRs are not a recipe comparison."""
    groups = sbplot.group_rows(rows, sbplot.panel_key).values()
    return [f for f in RECIPE_FIELDS
            if any(len({str(r.get(f)) for r in g if r.get(f) is not None}) > 1 for g in groups)]


def recipe_label(r, fields) -> str:
    return ", ".join(f"{f}={sbplot._fmt(r.get(f))}" for f in fields) or "—"


def n1_band(rows, metric, scale):
    """(min, median, max) of the metric over the N = 1 rows, or None when there are none."""
    vals = [float(r[metric]) * scale for r in rows if r.get("world_size") == 1 and sbload.finite(r.get(metric))]
    return (min(vals), statistics.median(vals), max(vals)) if vals else None


def make(study_path_or_dir, out_dir) -> list:
    study = sbload.load_study(study_path_or_dir)
    shown = [r for r in study.ok_rows()
             if any(sbload.finite(r.get(k)) for k in ("final_val_miou", "final_val_accuracy"))]
    varied = varied_recipe_fields(shown)
    if not varied:
        raise sbload.NoData(f"the study varies no recipe field ({', '.join(RECIPE_FIELDS)}) in {study.path}")
    by_opt = "optimizer" in varied
    line_fields = [f for f in varied if f != "optimizer"]
    panels = sbplot.group_rows(shown, lambda r: sbplot.panel_key(r) + ((r.get("optimizer", ""),) if by_opt else ()))
    fig, axs = sbplot.grid(len(panels), ncols_max=3, panel_w=5.2, panel_h=4.2)
    for ax, (pkey, prow) in zip(axs, panels.items()):
        metric, mlabel, mscale = accuracy.quality_metric(prow)
        ns = sorted({r["world_size"] for r in prow})
        band = n1_band(prow, metric, mscale)
        if band:
            lo, med, hi = band
            ax.axhspan(lo, hi, color="0.85", zorder=0, label="N = 1 band (min–max)")
            point = 0.01 * (100.0 if mscale == 100.0 else 1.0)
            ax.axhline(med - point, color="0.4", ls=":", lw=1, label="N = 1 median − 1 point")
        series = sbplot.group_rows(prow, lambda r: tuple(str(r.get(f)) for f in line_fields))
        for i, (skey, srows) in enumerate(series.items()):
            color, marker = sbplot.COLORS[i % len(sbplot.COLORS)], sbplot.MARKERS[i % len(sbplot.MARKERS)]
            ls = "--" if str(srows[0].get("sync_bn")) in ("1", "True", "true") else "-"
            sbplot.plot_agg(ax, sbplot.aggregate(srows, metric, mscale), recipe_label(srows[0], line_fields),
                            color, marker, ls=ls)
        sbplot.log2_axis(ax, ns + ([2] if len(ns) == 1 else []), "x")
        ax.set_xlabel("devices N (log2); global batch grows with N" if prow[0].get("scaling") == "weak"
                      else "devices N (log2)")
        title = sbplot.panel_title(pkey[:2]) + (f"\noptimizer {pkey[2]}" if by_opt else "")
        ax.set_title(title, fontsize=9.5)
        ax.set_ylabel(mlabel)
    cap = sbplot.caption(study, shown, study.rows,
                         [sbplot.reps_note(shown), "values of the last epoch (equal epochs at every N)",
                          "lines: one per recipe" + (" (dashed: sync_bn)" if "sync_bn" in line_fields else "")])
    return sbplot.finish(fig, "Accuracy cost per training recipe", cap, out_dir,
                         "accuracy-cost", legend_handles=sbplot.legend_handles(axs), legend_ncol=3)


if __name__ == "__main__":
    sbplot.main(make, __doc__.splitlines()[0])
