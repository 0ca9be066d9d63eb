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


def _model_figure(study, model, items, out_dir):
    """items: [(row, RunFile)] of one model."""
    metric, mlabel, mscale = _quality([run for _, run in items])
    ns = sorted({row["world_size"] for row, _ in items})
    cmap = plt.get_cmap("viridis")
    ncol = {n: cmap(0.05 + 0.8 * (i / max(1, len(ns) - 1))) for i, n in enumerate(ns)}
    if len(ns) <= 10:
        ncol = {n: sbplot.COLORS[i % len(sbplot.COLORS)] for i, n in enumerate(ns)}
    series = sbplot.group_rows([row for row, _ in items], sbplot.series_key)
    slabels = sbplot.series_labels(series)
    smarker = {k: sbplot.MARKERS[i % len(sbplot.MARKERS)] for i, k in enumerate(series)}
    fig, axs = plt.subplots(2, 2, figsize=(10.6, 7.0), squeeze=False)
    handles, seen = [], set()
    lines_by_key = {}
    for row, run in sorted(items, key=lambda it: (it[0]["world_size"], sbplot.series_key(it[0]),
                                                  it[0].get("repetition", 0))):
        ep = run.epochs
        if len(ep["epoch"]) == 0:
            continue
        skey = sbplot.series_key(row)
        n = row["world_size"]
        color, marker = ncol[n], smarker[skey]
        ok = row.get("status") == "ok"
        alpha = 1.0 if ok else 0.55
        x_ep = np.asarray(ep["epoch"], dtype=float)
        x_wall = np.cumsum(np.nan_to_num(np.asarray(ep["wall_s"], dtype=float)))
        me = max(1, len(x_ep) // 12)
        kw = dict(color=color, marker=marker, markevery=me, alpha=alpha, markersize=4.5)
        for col, x in ((0, x_ep), (1, x_wall)):
            axs[0][col].plot(x, ep["train_loss"], ls="-", **kw)
            axs[0][col].plot(x, ep["val_loss"], ls="--", **kw)
            axs[1][col].plot(x, np.asarray(ep[metric], dtype=float) * mscale, ls="-", **kw)
        key = (n, skey, row.get("status"))
        lines_by_key[key] = lines_by_key.get(key, 0) + 1
        if key not in seen:
            seen.add(key)
            label = f"N={n} · {slabels[skey]}" + ("" if ok else f" [{row.get('status')}]")
            handles.append((key, Line2D([], [], color=color, marker=marker, alpha=alpha, label=label)))
    for key, h in handles:
        if lines_by_key[key] > 1:
            h.set_label(h.get_label() + f" ×{lines_by_key[key]} runs")
    hs = [h for _, h in handles]
    hs += [Line2D([], [], color="0.3", ls="-", label="train loss"),
           Line2D([], [], color="0.3", ls="--", label="validation loss")]
    for col, xl in ((0, "epoch"), (1, "cumulative training wall time (s, validation excluded)")):
        axs[0][col].set_ylabel("loss (cross-entropy)")
        axs[1][col].set_ylabel(mlabel)
        for r in (0, 1):
            axs[r][col].set_xlabel(xl)
        if col == 0:
            for r in (0, 1):
                axs[r][col].xaxis.get_major_locator().set_params(integer=True)
    axs[0][0].set_title("loss vs epoch")
    axs[0][1].set_title("loss vs wall time")
    axs[1][0].set_title(f"{mlabel.split(' (')[0]} vs epoch")
    axs[1][1].set_title(f"{mlabel.split(' (')[0]} vs wall time")
    rows = [row for row, _ in items]
    shown_ok = [r for r in rows if r.get("status") == "ok"]
    extra = []
    faded = [r for r in rows if r.get("status") != "ok"]
    if faded:
        extra.append(f"faded: {len(faded)} run{'s' if len(faded) != 1 else ''} that did not end ok, "
                     "drawn with the epochs they finished")
    model_rows = [r for r in study.rows if r.get("model") == model]
    missing = study.missing_run_files(model_rows)
    if missing:
        extra.append(f"{len(missing)} run file{'s' if len(missing) != 1 else ''} missing, not drawn")
    not_drawn = [r for r in model_rows if r not in rows and r.get("status") != "ok"]
    cap = sbplot.caption(study, shown_ok or rows, [r for r in model_rows if r.get("status") == "ok"] + not_drawn,
                         extra)
    return sbplot.finish(fig, f"Training curves — {model}", cap, out_dir, f"curves-{sbplot.slug(model)}",
                         legend_handles=hs, legend_ncol=min(4, len(hs)))


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
