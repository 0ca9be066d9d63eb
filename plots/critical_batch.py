#!/usr/bin/python3
"""critical_batch.py — how far the global batch is worth growing: optimizer steps to the target
(--target-miou / --target-accuracy) vs global batch, log-log, one line per recipe, with the
perfect-scaling line (steps ∝ 1/batch, from the smallest batch's point: every doubling of the batch
halves the steps) and the measured gradient noise scale B_simple marked on the batch axis.

Values are collect's per-configuration summary of the study file (harness/study/analysis/tuning.h):
`steps_to_target_olympic` (the olympic mean over the configuration's seeds; a run that did not reach
the target counts as the highest), bars from `steps_to_target_lo` to `_hi` (the lowest and highest
seed). With a [select] in the spec only the selected candidates (`selected` = 1: the LR etc. that won
at that batch) are drawn, and the caption names what was tuned; configurations that did not reach
the target are drawn as open triangles at the top of the axes and counted in the caption. B_simple
is drawn (a vertical line at the median of the shown runs' `b_simple`, a band over their
interquartile range) when the study has the column; otherwise the caption says it was not
measured. Where it bends: McCandlish et al.'s S = S_min (1 + B_crit / B), fitted (least squares in
log steps, fit_bend) to a line's reached points when it has 3 or more, drawn dotted, its B_crit in
the legend with the range of the same fit to each seed's runs alone — so the bend and B_simple can
be compared on one axis. Drawn whenever a run of the study has a target; otherwise NoData
(make_all.py prints it as skipped).

It deliberately does not judge whether the bend and B_simple agree (docs/accuracy-cost.md does, from
the numbers), and does not draw quality at equal epochs (accuracy_cost.py).

Usage: /usr/bin/python3 plots/critical_batch.py STUDY_DIR_OR_FILE [-o OUT]
"""
from __future__ import annotations

import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sbload  # noqa: E402
import sbplot  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

# What tells one configuration of a critical-batch study from another without being its recipe:
# the batch itself (and what makes it), where it ran, its seed and the tuned values.
NOT_RECIPE = {"batch", "global_batch", "accumulate", "world_size", "devices", "seed", "strategy", "model",
              "scaling", "backend", "threads", "lr", "warmup_epochs"}


def shown_rows(study):
    """The ok rows with a target, only the selected candidates when the study has a selection."""
    rows = [r for r in study.ok_rows() if sbload.finite(r.get("target_value"))]
    if any("selected" in r for r in rows):
        rows = [r for r in rows if int(sbload.num(r.get("selected"), 1)) == 1]
    return rows


def recipe_fields(rows) -> list:
    fields = (rows[0].get("_point_fields") or ()) if rows else ()
    return [f for f in fields if f not in NOT_RECIPE and len({str(r.get(f)) for r in rows}) > 1]


def points(rows):
    """Per global batch: (batch, steps, lo, hi, not_reached) over its configurations (one row each)."""
    by_config = {}
    for r in rows:
        by_config.setdefault(r.get("config_id") or r.get("point_id"), r)
    by_batch = {}
    for r in by_config.values():
        by_batch.setdefault(int(r["global_batch"]), []).append(r)
    out = []
    for b in sorted(by_batch):
        rs = by_batch[b]
        ys = [sbload.num(r.get("steps_to_target_olympic")) for r in rs]
        finite = [y for y in ys if math.isfinite(y)]
        lo = min(sbload.num(r.get("steps_to_target_lo")) for r in rs)
        hi = max(sbload.num(r.get("steps_to_target_hi")) for r in rs)
        out.append((b, statistics.median(finite) if finite else math.inf, lo, hi,
                    sum(int(sbload.num(r.get("target_not_reached"), 0)) for r in rs)))
    return out


def fit_bend(pairs):
    """(B_crit, S_min) of S = S_min (1 + B_crit / B) fitted to (batch, steps) pairs, least squares
    in log steps: for a given B_crit the best log S_min is the mean of log S - log(1 + B_crit/B), so
    only B_crit is searched (a log grid from 1/100 of the smallest batch to 100 times the largest, then
    refined around the best). None with fewer than 3 finite pairs."""
    pts = [(float(b), float(s)) for b, s in pairs if math.isfinite(s) and s > 0 and b > 0]
    if len({b for b, _ in pts}) < 3:
        return None

    def cost(bc):
        xs = [math.log(s) - math.log1p(bc / b) for b, s in pts]
        m = sum(xs) / len(xs)
        return sum((x - m) ** 2 for x in xs), math.exp(m)

    lo, hi = math.log(min(b for b, _ in pts) / 100), math.log(max(b for b, _ in pts) * 100)
    for _ in range(4):  # grid, then three refinements around the best
        grid = [lo + (hi - lo) * i / 400 for i in range(401)]
        best = min(grid, key=lambda g: cost(math.exp(g))[0])
        step = (hi - lo) / 400
        lo, hi = best - 2 * step, best + 2 * step
    bc = math.exp(best)
    return bc, cost(bc)[1]


def seed_fits(rows):
    """fit_bend of each seed's runs alone (the selected configuration at every batch): B_crit per seed.
    A seed that did not reach the target at some batch is left out at that batch."""
    by_seed = {}
    for r in rows:
        if "seed" in r and "steps_to_target" in r:
            by_seed.setdefault(str(r.get("seed")), []).append(
                (int(r["global_batch"]), sbload.num(r.get("steps_to_target"))))
    fits = [fit_bend(v) for v in by_seed.values()]
    return [f[0] for f in fits if f]


def b_simple_values(rows) -> list:
    return [sbload.num(r.get("b_simple")) for r in rows if sbload.finite(r.get("b_simple"))
            and sbload.num(r.get("b_simple")) > 0]


def make(study_path_or_dir, out_dir) -> list:
    study = sbload.load_study(study_path_or_dir)
    rows = shown_rows(study)
    if not rows:
        raise sbload.NoData(f"no ok run of {study.path} has a target (--target-miou or --target-accuracy)")
    fields = recipe_fields(rows)
    series = sbplot.group_rows(rows, lambda r: (r.get("strategy", ""),) + tuple(str(r.get(f)) for f in fields))
    fig, axs = sbplot.grid(1, panel_w=6.4, panel_h=4.6)
    ax = axs[0]
    batches, finite_steps, unreached = set(), [], []
    for i, (key, srows) in enumerate(series.items()):
        color, marker = sbplot.strategy_style(key[0])
        if len(series) > 1 and fields:
            color = sbplot.COLORS[i % len(sbplot.COLORS)]
        pts = points(srows)
        batches.update(p[0] for p in pts)
        reached = [p for p in pts if math.isfinite(p[1])]
        finite_steps += [v for p in reached for v in (p[1], p[2]) if math.isfinite(v)]
        finite_steps += [p[3] for p in reached if math.isfinite(p[3])]
        unreached += [(p[0], color) for p in pts if not math.isfinite(p[1])]
        label = str(key[0]) + ("" if not fields else " (" + ", ".join(f"{f}={v}" for f, v in zip(fields, key[1:])) + ")")
        if reached:
            sbplot.plot_agg(ax, [(b, y, lo, hi if math.isfinite(hi) else y) for b, y, lo, hi, _ in reached],
                            label, color, marker)
            # An upper bar that runs off to "not reached" (a seed never got there): an arrow up.
            for b, y, lo, hi, _ in reached:
                if not math.isfinite(hi):
                    ax.annotate("", xy=(b, y * 1.6), xytext=(b, y), arrowprops=dict(arrowstyle="->", color=color))
            bend = fit_bend([(b, y) for b, y, *_ in reached])
            if bend:
                bc, smin = bend
                per_seed = seed_fits(srows)
                spread = f" (seeds {min(per_seed):.3g}–{max(per_seed):.3g})" if len(per_seed) > 1 else ""
                fx = [reached[0][0] * (reached[-1][0] / reached[0][0]) ** (i / 60) for i in range(61)]
                ax.plot(fx, [smin * (1 + bc / x) for x in fx], ls=":", color=color, lw=1.4,
                        label=f"fit S_min(1 + B_crit/B): B_crit {bc:.3g}{spread}")
            b0, y0 = reached[0][0], reached[0][1]
            xs = sorted(batches)
            ideal = [y0 * b0 / x for x in xs]
            finite_steps.append(ideal[-1])  # the line stays in view to the largest batch
            ax.plot(xs, ideal, ls="--", color="0.45", lw=1.2,
                    label="perfect scaling (steps ∝ 1/batch)" if i == 0 else "_")
    if not finite_steps:
        finite_steps = [1.0]
    ymin, ymax = min(finite_steps), max(finite_steps)
    ax.set_yscale("log")
    ax.set_ylim(ymin / 1.6, ymax * 2.2)
    # Plain step counts at 1, 2 and 5 of each decade: a reader reads "120 steps", not 10^2.
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    for b, color in unreached:
        ax.plot([b], [ymax * 1.7], marker="^", mfc="none", mec=color, ms=9, ls="none",
                label="not reached (olympic mean)")
    sbplot.log2_axis(ax, sorted(batches) + ([2 * max(batches)] if len(batches) == 1 else []), "x")
    bs = b_simple_values(rows)
    if bs:
        med = statistics.median(bs)
        q1, q3 = (statistics.quantiles(bs, n=4, method="inclusive")[i] for i in (0, 2)) if len(bs) > 1 else (med, med)
        lo_x, hi_x = ax.get_xlim()
        if q1 < q3:
            ax.axvspan(q1, q3, color="#CC79A7", alpha=0.15, zorder=0)
        ax.axvline(med, color="#CC79A7", lw=1.6,
                   label=f"B_simple (measured): {med:.3g}" + (f", IQR {q1:.3g}–{q3:.3g}" if q1 < q3 else ""))
        ax.set_xlim(min(lo_x, med / 1.3), max(hi_x, med * 1.3))
    ax.set_xlabel("global batch (log2)")
    ax.set_ylabel("optimizer steps to target (log)")
    target = f"{rows[0].get('target_metric') or 'target'} ≥ {sbload.num(rows[0].get('target_value')):g}"
    ax.set_title(f"{rows[0].get('model', '')}: {target}", fontsize=9.5)
    seeds = max(int(sbload.num(r.get("config_seeds"), 1)) for r in rows)
    not_reached = sum(p[4] for s in series.values() for p in points(s))
    configs = {r.get("config_id") or r.get("point_id"): int(sbload.num(r.get("config_runs"), 1)) for r in rows}
    runs = sum(configs.values())
    tuned = str(study.attrs.get("select_tuned", "") or "")
    extra = [f"markers: olympic mean of up to {seeds} seed{'s' if seeds != 1 else ''} (lowest and highest dropped from 3 on), "
             "bars: lowest to highest seed (an arrow up: a seed that never reached it)",
             f"{not_reached} of {runs} runs shown did not reach the target (counted as the highest)",
             (f"tuned per batch over {tuned} by {study.attrs.get('select_objective', '')}: the selected value drawn "
              "(scalebench report lists every candidate)") if tuned else "no [select]: every configuration drawn",
             "dashed: perfect scaling from the smallest batch; dotted: S = S_min(1 + B_crit/B) fitted to the markers",
             f"B_simple (measured): median of the {len(bs)} runs' gradient noise scale at their end, band: interquartile "
             f"range (all: {min(bs):.3g}–{max(bs):.3g})" if bs
             else "B_simple: not measured in this study (no b_simple column)"]
    cap = sbplot.caption(study, rows, [r for r in study.rows if sbload.finite(r.get("target_value"))
                                       or r.get("status") != "ok"], extra)
    return sbplot.finish(fig, "Steps to target vs global batch", cap, out_dir, "critical-batch",
                         legend_handles=sbplot.legend_handles(axs), legend_ncol=2)


if __name__ == "__main__":
    sbplot.main(make, __doc__.splitlines()[0])
