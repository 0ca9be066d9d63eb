#!/usr/bin/python3
"""sweep_axes.py — one figure per swept run option (docs/sweep-spec.md, "Sweep axes"): throughput
(images/s) and final held-out quality (mean IoU, or accuracy) against the option's values, one
column per model × scaling × N, one line per strategy (× the other swept options' values).
Files: axis-<field>.png/.pdf.

The swept options are the study file's `point_fields` (collect's list of the columns that tell
points apart; older files: sbplot's fixed list) that take more than one value among the ok runs of
one model × scaling — model, strategy and N are the scaling plots' axes and are left out, as is the
batch that follows from the other (global batch in weak scaling, per-device batch in strong).
Numeric options get a numeric x axis (log2 when all values are positive and span a factor of 4 or
more), others (compression none/bf16/fp16, true/false) one category each. A strategy that does not
use the option (one value of it among its rows, e.g. single along bucket_mb) is not drawn along
its axis; the caption names it. Repetitions: median with min–max bars; runs whose status is not ok are left out and counted in the caption. A study that
varies nothing else: NoData (make_all.py prints it as skipped).

It deliberately does not recompute throughput or quality (the study file's `images_per_s`,
`final_val_miou`, `final_val_accuracy`), and draws no speedup (speedup.py: each value combination
is its own speedup group there).

Usage: /usr/bin/python3 plots/sweep_axes.py STUDY_DIR_OR_FILE [-o OUT]
"""
from __future__ import annotations

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator  # noqa: E402

import accuracy  # noqa: E402
import sbload  # noqa: E402
import sbplot  # noqa: E402

NOT_AXES = ("model", "strategy", "world_size", "devices", "scaling")  # the scaling plots' own axes
_OFF = ("none", "off", "false", "0", "no")  # categories drawn first
LINESTYLES = ["-", "--", ":", "-."]  # one per N within a panel


def _candidates(rows) -> list:
    pf = rows[0].get("_point_fields") if rows else None
    return [f for f in (pf or sbplot._DIFF_FIELDS) if f not in NOT_AXES]


def swept_fields(rows) -> list:
    """The options that take more than one value among the rows of one model × scaling, in
    point_fields order."""
    out = []
    for panel in sbplot.group_rows(rows, sbplot.panel_key).values():
        derived = "global_batch" if panel[0].get("scaling") != "strong" else "batch"
        for f in _candidates(panel):
            if f != derived and f not in out and len({str(r.get(f)) for r in panel if r.get(f) is not None}) > 1:
                out.append(f)
    return [f for f in _candidates(rows) if f in out]


def is_numeric(values) -> bool:
    """Every value a number, and not a two-valued on/off flag."""
    if {str(v).lower() for v in values} <= {"0", "1", "true", "false"}:
        return False
    return all(math.isfinite(sbload.num(v)) for v in values)


def category_order(values) -> list:
    """Distinct values as text, the 'off' value (none, false, 0) first, then as sorted text."""
    vs = sorted({sbplot._fmt(v) for v in values})
    return sorted(vs, key=lambda v: (v.lower() not in _OFF, v))


def _x_of(field, values):
    """(value → x position, ticks, tick labels, log2?) for the axis of `field`."""
    if is_numeric(values):
        xs = sorted({sbload.num(v) for v in values})
        log = xs[0] > 0 and xs[-1] / xs[0] >= 4
        return (lambda v: sbload.num(v)), xs, [f"{x:g}" for x in xs], log
    cats = category_order(values)
    return (lambda v: float(cats.index(sbplot._fmt(v)))), [float(i) for i in range(len(cats))], cats, False


def _set_axis(ax, ticks, labels, log):
    if log:
        ax.set_xscale("log", base=2)
        ax.set_xlim(ticks[0] / 2 ** 0.35, ticks[-1] * 2 ** 0.35)
    else:
        pad = 0.35 if len(ticks) < 2 else 0.08 * (ticks[-1] - ticks[0])
        ax.set_xlim(ticks[0] - pad, ticks[-1] + pad)
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: labels[ticks.index(v)] if v in ticks else ""))


def _agg(rows, xof, field, metric, scale):
    """[(x, median, min, max, count)] over rows with a finite metric, by x."""
    byx = {}
    for r in rows:
        v = sbload.num(r.get(metric))
        if math.isfinite(v):
            byx.setdefault(xof(r.get(field)), []).append(v * scale)
    return [(x, float(np.median(vs)), min(vs), max(vs), len(vs)) for x, vs in sorted(byx.items())]


def _line_label(r, others) -> str:
    extra = ", ".join(f"{f}={sbplot._fmt(r.get(f))}" for f in others)
    return f"{r.get('strategy', '')}" + (f" ({extra})" if extra else "")  # N: the panel's


def unused_by(rows, field) -> list:
    """Strategies whose rows (of one model × scaling) take one value of `field` while the panel
    takes several: the strategy does not use the option (single and bucket_mb, say: the sweep ran
    it once, at the [train] value, docs/sweep-spec.md), so it has no line along that axis."""
    out = []
    for strat, rs in sbplot.group_rows(rows, lambda r: (r.get("strategy", ""),)).items():
        if len({str(r.get(field)) for r in rs}) <= 1:
            out.append(strat[0])
    return out


def make_one(study, shown, field, out_dir) -> list:
    rows = [r for r in shown if r.get(field) is not None]
    panels = [(k, p) for k, p in sbplot.group_rows(rows, sbplot.panel_key).items()
              if len({str(r.get(field)) for r in p}) > 1]
    left_out = set()
    for i, (k, p) in enumerate(panels):
        gone = unused_by(p, field)
        left_out.update(gone)
        panels[i] = (k, [r for r in p if r.get("strategy", "") not in gone])
    rows = [r for _, p in panels for r in p]
    # One column per model × scaling × N: strategies × the other options' values share an axes
    # (at most a few lines, told apart by colour and line style), N by column.
    panels = [(k + (n,), [r for r in p if r["world_size"] == n])
              for k, p in panels for n in sorted({r["world_size"] for r in p})]
    others = [f for f in swept_fields(shown) if f != field]
    xof, ticks, labels, log = _x_of(field, [r.get(field) for _, p in panels for r in p])
    fig, axs = plt.subplots(2, len(panels), figsize=(4.2 * len(panels) + 0.6, 7.4), squeeze=False, sharey="row")
    handles = {}
    for col, (pkey, prow) in enumerate(panels):
        qmetric, qlabel, qscale = accuracy.quality_metric(prow)
        series = sbplot.group_rows(prow, lambda r: (r.get("strategy", ""), r["world_size"])
                                   + tuple(str(r.get(f)) for f in others))
        combos = sorted({tuple(str(r.get(f)) for f in others) for r in prow})
        for i, (skey, srows) in enumerate(series.items()):
            # colour: the strategy's; line style and marker fill: the other swept options' values
            color, marker = sbplot.strategy_style(srows[0].get("strategy", ""))
            ci = combos.index(tuple(str(srows[0].get(f)) for f in others))
            ls = LINESTYLES[ci % len(LINESTYLES)]
            mfc = color if (ci // len(LINESTYLES)) % 2 == 0 else "white"
            label = _line_label(srows[0], others)
            for row, (metric, scale) in enumerate((("images_per_s", 1.0), (qmetric, qscale))):
                sbplot.plot_agg(axs[row][col], _agg(srows, xof, field, metric, scale), label, color, marker,
                                ls=ls, mfc=mfc)
            for hd, lb in zip(*axs[0][col].get_legend_handles_labels()):
                handles.setdefault(lb, hd)
        for row, ylabel in enumerate(("throughput (images/s)", qlabel)):
            ax = axs[row][col]
            _set_axis(ax, ticks, labels, log)
            ax.set_ylabel(ylabel)
            ax.set_xlabel(field + (" (log2)" if log else ""))
            if not ax.lines:
                ax.text(0.5, 0.5, "not recorded", transform=ax.transAxes, ha="center", color="0.4")
        axs[0][col].set_title(sbplot.panel_title(pkey[:2]) + f"\nN = {pkey[2]}", fontsize=9.5)
    cap = sbplot.caption(study, rows, study.rows,
                         [sbplot.reps_note(rows), "quality: values of the last epoch",
                          "one column per N, shared scales per row"
                          + (f"; lines: strategy (colour) × {', '.join(others)} (line style, marker fill)" if others
                             else "; lines: one per strategy (colour)"),
                          (f"not drawn: {', '.join(sorted(left_out))} (one {field} value: "
                           "the strategy does not use it)") if left_out else ""])
    return sbplot.finish(fig, f"Throughput and quality vs {field}", cap, out_dir, "axis-" + sbplot.slug(field),
                         legend_handles=list(handles.values()), legend_ncol=4)


def make(study_path_or_dir, out_dir) -> list:
    study = sbload.load_study(study_path_or_dir)
    shown = study.ok_rows()
    fields = swept_fields(shown)
    if not fields:
        raise sbload.NoData(f"the study varies no run option besides model, strategy and N in {study.path}")
    paths = []
    for f in fields:
        paths += make_one(study, shown, f, out_dir)
    return paths


if __name__ == "__main__":
    sbplot.main(make, __doc__.splitlines()[0])
