#!/usr/bin/python3
"""breakdown.py — where a training step's time goes, per device count: stacked bars of the mean
per-step time of data loading, forward (+ loss), backward, exposed communication (waiting for the
gradient exchange after backward finished) and optimizer update, one panel per model × strategy
(× scaling mode), one bar per N, total on top.

Source: the /steps tables of the ok run files (<study>/runs/), over the measured epochs (the
warm-up epoch left out when there are two or more, as /summary does), mean over steps, then mean
over the repetitions of a point. A remainder of t_total not covered by the five phases (none when
the run file is consistent) would be drawn as "other".

It deliberately does not use the study file's exposed_comm_frac for the bars (it only has the
fraction, not the phases), does not draw per-rank imbalance (run files hold rank 0's timings), and
draws nothing for runs whose status is not ok (counted in the caption).

Usage: /usr/bin/python3 plots/breakdown.py STUDY_DIR_OR_FILE [-o OUT]
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

import sbload  # noqa: E402
import sbplot  # noqa: E402

PHASES = [("t_data", "data"), ("t_fwd", "forward"), ("t_bwd", "backward"),
          ("t_comm_exposed", "exposed communication"), ("t_update", "update")]
PHASE_COLORS = {"t_data": "#8c8c8c", "t_fwd": "#4c72b0", "t_bwd": "#55a868", "t_comm_exposed": "#c44e52",
                "t_update": "#dd8452", "other": "#d9d9d9"}


def run_phase_means(run) -> dict | None:
    """Mean seconds per step of each phase and t_total over the run's measured epochs."""
    st = run.steps
    if len(st["epoch"]) == 0:
        return None
    mask = run.measured_epoch_mask("steps")
    if not mask.any():
        mask = np.ones(len(st["epoch"]), dtype=bool)
    out = {p: float(np.nanmean(np.asarray(st[p], dtype=float)[mask])) for p, _ in PHASES}
    total = np.asarray(st["t_total"], dtype=float)[mask]
    out["t_total"] = float(np.nanmean(total)) if np.isfinite(total).any() else sum(out[p] for p, _ in PHASES)
    out = {k: (0.0 if not np.isfinite(v) else v) for k, v in out.items()}
    return out


def phase_means(study, rows) -> dict | None:
    """Mean over the rows' run files of run_phase_means (None when none has steps)."""
    per = [m for m in (run_phase_means(study.run(r)) for r in rows if study.run(r) is not None) if m]
    if not per:
        return None
    return {k: float(np.mean([m[k] for m in per])) for k in per[0]} | {"runs": len(per)}


def make(study_path_or_dir, out_dir) -> list:
    study = sbload.load_study(study_path_or_dir)
    if not study.has_run_files():
        raise sbload.NoData(f"no run files next to {study.path} (the step timings are in "
                            f"{os.path.join(study.dir, 'runs')}/)")
    ok = study.ok_rows()
    data = {}
    for r in ok:
        run = study.run(r)
        if run is not None and len(run.steps["epoch"]) > 0:
            data.setdefault((r.get("model", ""), r.get("scaling", ""), r.get("group_id", ""), r.get("strategy", "")),
                            []).append(r)
    if not data:
        raise sbload.NoData("no ok run file with /steps rows")
    shown = [r for rs in data.values() for r in rs]
    panels = sbplot.group_rows(shown, lambda r: (r.get("model", ""), r.get("scaling", ""), r.get("group_id", ""),
                                                 r.get("strategy", "")))
    # labels: strategy plus what tells groups of one model apart
    by_model = sbplot.group_rows(shown, lambda r: (r.get("model", ""), r.get("scaling", "")))
    labels = {}
    for mkey, mrows in by_model.items():
        lab = sbplot.series_labels(sbplot.group_rows(mrows, sbplot.series_key))
        for (gid, strat), text in lab.items():
            labels[mkey + (gid, strat)] = text
    # One y scale for every panel (ms per step compare across strategies at a glance); the model
    # goes into the figure title when there is one, so the panel titles stay one short line.
    fig, axes = sbplot.grid(len(panels), ncols_max=3, panel_w=4.4, panel_h=3.4, sharey=True)
    models = sbplot._distinct(k[0] for k in panels)
    ytop = 0.0
    any_other = False
    for ax, (pkey, prows) in zip(axes, panels.items()):
        model, scaling = pkey[0], pkey[1]
        ns = sorted({r["world_size"] for r in prows})
        x = np.arange(len(ns))
        bottoms = np.zeros(len(ns))
        means = [phase_means(study, [r for r in prows if r["world_size"] == n]) for n in ns]
        for p, _ in PHASES + [("other", "other")]:
            if p == "other":
                vals = np.array([max(0.0, m["t_total"] - sum(m[q] for q, _ in PHASES)) for m in means]) * 1e3
                if not (vals > 0.01 * np.array([m["t_total"] * 1e3 for m in means])).any():
                    continue
                any_other = True
            else:
                vals = np.array([m[p] for m in means]) * 1e3
            ax.bar(x, vals, bottom=bottoms, color=PHASE_COLORS[p], width=0.62, edgecolor="white", linewidth=0.5)
            bottoms += vals
        tops = np.array([m["t_total"] * 1e3 for m in means])
        for xi, t, m in zip(x, np.maximum(tops, bottoms), means):
            frac = m["t_comm_exposed"] / m["t_total"] if m["t_total"] > 0 else 0
            txt = f"{t:.3g} ms" + (f"\n{100 * frac:.0f}% comm" if frac >= 0.005 else "")
            ax.annotate(txt, (xi, t), xytext=(0, 2), textcoords="offset points", ha="center", va="bottom",
                        fontsize=7.5)
        ax.set_xticks(x, [str(n) for n in ns])
        ax.set_xlim(-0.7 - 0.4 * (len(ns) == 1), len(ns) - 0.3 + 0.4 * (len(ns) == 1))
        ytop = max(ytop, bottoms.max(), tops.max())
        ax.grid(axis="x", visible=False)
        ax.set_xlabel("devices N")
        ax.tick_params(axis="y", labelleft=True)  # sharey hides them off the first column
        ax.set_ylabel("time per step (ms, mean)")
        ax.set_title((f"{model}\n" if len(models) > 1 else "") + labels[pkey] +
                     (f" — {scaling} scaling" if scaling else ""))
    for ax in axes:
        ax.set_ylim(0, ytop * 1.25)
    handles = [Patch(color=PHASE_COLORS[p], label=name) for p, name in PHASES]
    if any_other:
        handles.append(Patch(color=PHASE_COLORS["other"], label="other (t_total − phases)"))
    extra = ["mean per step over the measured epochs (warm-up epoch excluded), mean over repetitions",
             "rank 0's timings"]
    missing = study.missing_run_files(ok)
    if missing:
        extra.append(f"{len(missing)} ok run{'s' if len(missing) != 1 else ''} without a run file not shown")
    extra.append("one y scale for all panels")
    cap = sbplot.caption(study, shown, [r for r in study.rows if r.get("status") != "ok"] + shown, extra)
    title = "Time per training step by phase" + (f" — {models[0]}" if len(models) == 1 else "")
    return sbplot.finish(fig, title, cap, out_dir, "breakdown",
                         legend_handles=handles, legend_ncol=len(handles))


if __name__ == "__main__":
    sbplot.main(make, __doc__.splitlines()[0])
