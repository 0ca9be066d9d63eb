#!/usr/bin/python3
"""curves.py — training curves per model: loss (train solid, validation dashed) and validation
IoU (segmentation: mean over non-background classes) or accuracy (classification), against epoch
and against cumulative training wall time, one line per device count N (and strategy), from the
/epochs tables of the run files in <study>/runs/. One figure per model: curves-<model>.png/.pdf.

Repetitions of a point are drawn in the same colour (one legend entry). Runs that did not end ok
but kept finished epochs (a killed run is left `running`, then marked `failed`) are drawn faded
and marked with their status; their rows say so in the caption too.

It deliberately does not smooth, does not plot per-step losses, and puts validation time on no
axis: the wall-time axis is the sum of the epochs' `wall_s`, the training passes only.

Usage: /usr/bin/python3 plots/curves.py STUDY_DIR_OR_FILE [-o OUT]
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

import sbload  # noqa: E402
import sbplot  # noqa: E402


def _quality(runs):
    seg = any(np.isfinite(run.epochs["val_miou"]).any() for run in runs)
    if seg:
        return "val_miou", "validation mean IoU (0–1)", 1.0
    return "val_accuracy", "validation accuracy (%)", 100.0


def _series_curves(runs, metric, mscale):
    """Median over the runs of one series per epoch (epochs every run has), with min and max:
    {column: (median, lo, hi)} for epoch, cumulative wall time, train/validation loss and quality."""
    k = min(len(run.epochs["epoch"]) for run in runs)
    cols = {}
    for name, scale, cum in (("epoch", 1.0, False), ("wall_s", 1.0, True), ("train_loss", 1.0, False),
                             ("val_loss", 1.0, False), (metric, mscale, False)):
        m = np.array([np.asarray(run.epochs[name], dtype=float)[:k] for run in runs]) * scale
        if cum:
            m = np.cumsum(np.nan_to_num(m), axis=1)
        with np.errstate(all="ignore"):
            cols[name] = (np.nanmedian(m, axis=0), np.nanmin(m, axis=0), np.nanmax(m, axis=0))
    return cols


def _facets(series_keys):
    """The series split into facets of at most sbplot.MAX_SERIES: all in one when they fit, else one
    facet per N (the strategies of one N share an axes; one colour each)."""
    if len(series_keys) <= sbplot.MAX_SERIES:
        return [(None, list(series_keys))]
    by_n = {}
    for k in series_keys:
        by_n.setdefault(k[0], []).append(k)
    return sorted(by_n.items())


def _model_figure(study, model, items, out_dir):
    """items: [(row, RunFile)] of one model. One row of four panels (loss and quality against epoch
    and against cumulative training time) per facet; a line per strategy × N: the median of its ok
    repetitions with a min–max band; a run that did not end ok drawn on its own, faded."""
    metric, mlabel, mscale = _quality([run for _, run in items])
    qname = mlabel.split(" (")[0]
    rows = [row for row, _ in items]
    slabels = sbplot.series_labels(sbplot.group_rows(rows, sbplot.series_key))
    ns = sorted({row["world_size"] for row in rows})
    groups = {}  # (N, series key) → {"ok": [runs], "other": [(row, run)]}
    for row, run in items:
        if len(run.epochs["epoch"]) == 0:
            continue
        g = groups.setdefault((row["world_size"], sbplot.series_key(row)), {"ok": [], "other": []})
        if row.get("status") == "ok":
            g["ok"].append(run)
        else:
            g["other"].append((row, run))
    keys = sorted(groups, key=lambda k: (k[0], tuple(str(x) for x in k[1])))
    facets = _facets(keys)
    one_n = len(ns) == 1
    fig, axs = plt.subplots(len(facets), 4, figsize=(15.0, 2.9 * len(facets) + 0.5), squeeze=False,
                            sharex="col", sharey="col")
    handles = {}
    for f, (facet_n, fkeys) in enumerate(facets):
        for i, key in enumerate(fkeys):
            n, skey = key
            strategy = skey[1]
            color, marker = sbplot.strategy_style(strategy)
            # N by marker fill when one facet holds several N: filled at the smallest, open otherwise.
            mfc = color if (facet_n is not None or n == ns[0]) else "white"
            label = slabels[skey] + ("" if facet_n is not None or one_n else f" N={n}")
            g = groups[key]
            if g["ok"]:
                c = _series_curves(g["ok"], metric, mscale)
                me = max(1, len(c["epoch"][0]) // 12)
                kw = dict(color=color, marker=marker, markevery=me, markersize=4.5, mfc=mfc)
                for col, x in ((0, c["epoch"][0]), (1, c["epoch"][0]), (2, c["wall_s"][0]), (3, c["wall_s"][0])):
                    ys = (("train_loss", "-"), ("val_loss", "--")) if col in (0, 2) else ((metric, "-"),)
                    for j, (name, ls) in enumerate(ys):
                        med, lo, hi = c[name]
                        axs[f][col].plot(x, med, ls=ls, label=label if j == 0 else "_", **kw)
                        if len(g["ok"]) > 1:
                            axs[f][col].fill_between(x, lo, hi, color=color, alpha=0.15, lw=0)
                reps = f" ×{len(g['ok'])} runs" if len(g["ok"]) > 1 else ""
                handles.setdefault(label + reps, Line2D([], [], color=color, marker=marker, mfc=mfc,
                                                        label=label + reps))
            for row, run in g["other"]:
                ep = run.epochs
                x_ep = np.asarray(ep["epoch"], dtype=float)
                x_wall = np.cumsum(np.nan_to_num(np.asarray(ep["wall_s"], dtype=float)))
                kw = dict(color=color, marker=marker, alpha=0.5, markersize=4.5, mfc="white", lw=1.0)
                for col, x in ((0, x_ep), (1, x_ep), (2, x_wall), (3, x_wall)):
                    ys = (("train_loss", "-"), ("val_loss", "--")) if col in (0, 2) else ((metric, "-"),)
                    for j, (name, ls) in enumerate(ys):
                        axs[f][col].plot(x, np.asarray(ep[name], dtype=float) * (mscale if name == metric else 1),
                                         ls=ls, label=f"{label} [{row.get('status')}]" if j == 0 else "_", **kw)
                lb = f"{label} [{row.get('status')}]"
                handles.setdefault(lb, Line2D([], [], color=color, marker=marker, alpha=0.5, mfc="white", label=lb))
        where = "" if facet_n is None else f"N = {facet_n}: "
        for col, (what, xl) in enumerate((("loss", "epoch"), (qname, "epoch"), ("loss", "training time"),
                                          (qname, "training time"))):
            ax = axs[f][col]
            ax.set_title(f"{where}{what} vs {xl}", fontsize=9.5)
            ax.set_ylabel("loss (cross-entropy)" if what == "loss" else mlabel)
            if f == len(facets) - 1:
                ax.set_xlabel("epoch" if xl == "epoch" else "training time (s, cumulative)")
            if xl == "epoch":
                ax.xaxis.get_major_locator().set_params(integer=True)
    hs = list(handles.values())
    hs += [Line2D([], [], color="0.3", ls="-", label="train loss"),
           Line2D([], [], color="0.3", ls="--", label="validation loss")]
    extra = ["training time: the sum of the epochs' wall_s, validation excluded"]
    if any(len(g["ok"]) > 1 for g in groups.values()):
        extra.append("lines: median of a point's ok repetitions per epoch, band: their min–max")
    if len(facets) > 1:
        extra.append(f"one row per N ({len(keys)} series would not fit one axes); shared scales per column")
    elif not one_n:
        extra.append(f"filled markers: N={ns[0]}, open: larger N")
    faded = [r for r in rows if r.get("status") != "ok"]
    if faded:
        extra.append(f"faded: {len(faded)} run{'s' if len(faded) != 1 else ''} that did not end ok, "
                     "drawn with the epochs they finished")
    model_rows = [r for r in study.rows if r.get("model") == model]
    missing = study.missing_run_files(model_rows)
    if missing:
        extra.append(f"{len(missing)} run file{'s' if len(missing) != 1 else ''} missing, not drawn")
    not_drawn = [r for r in model_rows if r not in rows and r.get("status") != "ok"]
    shown_ok = [r for r in rows if r.get("status") == "ok"]
    cap = sbplot.caption(study, shown_ok or rows, [r for r in model_rows if r.get("status") == "ok"] + not_drawn,
                         extra)
    return sbplot.finish(fig, f"Training curves — {model}", cap, out_dir, f"curves-{sbplot.slug(model)}",
                         legend_handles=hs, legend_ncol=min(5, len(hs)))


def make(study_path_or_dir, out_dir) -> list:
    study = sbload.load_study(study_path_or_dir)
    if not study.has_run_files():
        raise sbload.NoData(f"no run files next to {study.path} (expected {os.path.join(study.dir, 'runs')}/)")
    items = []
    for row in study.rows:
        run = study.run(row)
        if run is not None and run.n_epochs() > 0:
            items.append((row, run))
    if not items:
        raise sbload.NoData("no run file with a finished epoch")
    paths = []
    for model, its in sbplot.group_rows(items, lambda it: (it[0].get("model", ""),)).items():
        paths += _model_figure(study, model[0], its, out_dir)
    return paths


if __name__ == "__main__":
    sbplot.main(make, __doc__.splitlines()[0])
