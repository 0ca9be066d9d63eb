#!/usr/bin/python3
"""accuracy.py — the accuracy cost of scale: final validation IoU (segmentation; mean over the
non-background classes) or accuracy (classification) and the final loss (validation solid, train
dashed) vs number of devices, one column per model × scaling mode, one line per strategy; x log2.

Values are the study file's `final_val_miou` / `final_val_accuracy` / `final_val_loss` /
`final_train_loss` (the last epoch's); repetitions as median with min–max bars; runs whose status
is not ok are left out and counted in the caption.

It deliberately does not draw curves over epochs (curves.py) and does not judge convergence: with
weak scaling the global batch grows with N and the LR follows the study's lr_scaling rule, so a
drop here is the combined effect, as a user of that configuration would see it.

Usage: /usr/bin/python3 plots/accuracy.py STUDY_DIR_OR_FILE [-o OUT]
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

import sbload  # noqa: E402
import sbplot  # noqa: E402


def quality_metric(rows):
    """(column, axis label, scale) of the panel's quality metric."""
    seg = any(sbload.finite(r.get("final_val_miou")) for r in rows) and \
        not all(r.get("task") == "classification" for r in rows)
    if seg:
        return "final_val_miou", "final validation mean IoU\n(non-background classes, 0–1)", 1.0
    return "final_val_accuracy", "final validation accuracy (%)", 100.0


def make(study_path_or_dir, out_dir) -> list:
    study = sbload.load_study(study_path_or_dir)
    shown = [r for r in study.ok_rows()
             if any(sbload.finite(r.get(k)) for k in ("final_val_miou", "final_val_accuracy", "final_val_loss"))]
    if not shown:
        raise sbload.NoData(f"no ok run with final loss/IoU/accuracy in {study.path}")
    panels = sbplot.group_rows(shown, sbplot.panel_key)
    ncols = len(panels)
    fig, axs = plt.subplots(2, ncols, figsize=(4.6 * ncols + 0.6, 6.6), squeeze=False)
    for c, (pkey, prow) in enumerate(panels.items()):
        top, bot = axs[0][c], axs[1][c]
        metric, mlabel, mscale = quality_metric(prow)
        series = sbplot.group_rows(prow, sbplot.series_key)
        labels = sbplot.series_labels(series)
        ns = sorted({r["world_size"] for r in prow})
        for i, (skey, srows) in enumerate(series.items()):
            color, marker = sbplot.strategy_style(srows[0].get("strategy", ""))
            shift = (i, len(series))
            sbplot.plot_agg(top, sbplot.aggregate(srows, metric, mscale), labels[skey], color, marker, shift=shift)
            sbplot.plot_agg(bot, sbplot.aggregate(srows, "final_val_loss"), "_" + labels[skey], color, marker,
                            shift=shift)
            sbplot.plot_agg(bot, sbplot.aggregate(srows, "final_train_loss"), None, color, marker, ls="--",
                            mfc="white", shift=shift)
        for ax in (top, bot):
            sbplot.log2_axis(ax, ns + ([2] if len(ns) == 1 else []), "x")
            ax.set_xlabel("devices N (log2)")
        top.set_title(sbplot.panel_title(pkey))
        top.set_ylabel(mlabel)
        lo, hi = top.get_ylim()
        top.set_ylim(min(0, lo), hi + 0.1 * (hi - lo))
        bot.set_ylabel("final loss (cross-entropy)")
    style = [Line2D([], [], color="0.3", marker="o", label="validation loss"),
             Line2D([], [], color="0.3", marker="o", ls="--", mfc="white", label="train loss")]
    cap = sbplot.caption(study, shown, study.rows,
                         [sbplot.reps_note(shown), "values of the last epoch",
                          "points of one N drawn side by side (slightly offset) so that equal values stay visible"])
    return sbplot.finish(fig, "Accuracy cost of scale: final quality and loss vs devices", cap, out_dir, "accuracy",
                         legend_handles=sbplot.legend_handles(axs[0]) + style)


if __name__ == "__main__":
    sbplot.main(make, __doc__.splitlines()[0])
