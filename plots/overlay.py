#!/usr/bin/python3
"""overlay.py — two or more studies in one figure (the same sweep on two systems, say): top row
throughput (images/s, log-log, the ideal N × each line's N = 1 images/s dotted), bottom row scaling
efficiency (%, ideal 100 %), against N; one column per model × scaling mode that some study runs at
more than one N. A strategy keeps its colour and marker (sbplot.STRATEGY_STYLE); the study is told
apart by line style (solid, dashed, dash-dot, dotted, in the order given) and named in each label
(`ring (batch=8) — a100-cluster`). A column with more series than sbplot.MAX_SERIES is split by
strategy (or another field: sbplot.facets). The caption gives each study's hardware and versions.

Each study's numbers are its own file's (collect's images/s, efficiency and baselines): nothing is
recomputed, and an efficiency is always against the N = 1 of its own study.

It deliberately does not match points across studies (no ratio of one system over the other: two
studies need not have the same points) and does not draw speedup (its log axis hides what the
efficiency row shows).

Usage: /usr/bin/python3 plots/overlay.py STUDY_A STUDY_B [STUDY ...] [-o OUT] [--label NAME ...] [--paper one|two]
(also: make_all.py STUDY_A --with STUDY_B ...). STUDY: a study folder or study file.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sbload  # noqa: E402
import sbplot  # noqa: E402
from speedup import series_ideal  # noqa: E402

LINESTYLES = ["-", "--", "-.", ":"]


def _label_names(studies, labels):
    names = list(labels or [])
    for s in studies[len(names):]:
        names.append(s.name)
    if len(set(names)) < len(names):  # two runs of one spec: tell them apart by file
        names = [f"{n} ({os.path.basename(os.path.dirname(os.path.abspath(s.path))) or s.path})"
                 for n, s in zip(names, studies)]
    return names


def make(study_paths, out_dir, labels=None) -> list:
    if len(study_paths) < 2:
        raise sbload.InputError(f"overlay: needs two or more studies, got {len(study_paths)}")
    studies = [sbload.load_study(p) for p in study_paths]
    names = _label_names(studies, labels)
    rows = []
    for i, (s, name) in enumerate(zip(studies, names)):
        for r in s.ok_rows():
            if sbload.finite(r.get("images_per_s")):
                rows.append(dict(r, _study=name, _study_index=i))
    columns = []
    for pkey, prow in sbplot.group_rows(rows, sbplot.panel_key).items():
        if len({int(r["world_size"]) for r in prow}) < 2:
            continue
        series = sbplot.group_rows(prow, lambda r: (r["_study_index"], *sbplot.series_key(r)))
        fields = ["strategy"] + [f for f in sbplot.varying_fields(series) if f != "_study"]
        for suffix, part in sbplot.facets(series, sbplot.MAX_SERIES - 1, fields):
            columns.append((sbplot.panel_title(pkey) + (f"\n{suffix}" if suffix else ""), part))
    if not columns:
        raise sbload.NoData("N does not vary in any model × scaling mode of " + ", ".join(study_paths))
    fig, axes = sbplot.grid(2 * len(columns), ncols_max=len(columns), panel_w=4.2, panel_h=3.2)
    top, bottom = axes[:len(columns)], axes[len(columns):]
    for ax_t, ax_e, (ptitle, series) in zip(top, bottom, columns):
        prow = [r for rs in series.values() for r in rs]
        ns = sorted({int(r["world_size"]) for r in prow})
        per_study = {}
        for skey, srows in series.items():
            per_study.setdefault(skey[0], {})[skey] = srows
        labels_of = {}
        for part in per_study.values():  # the fields that tell one study's lines apart
            labels_of.update(sbplot.series_labels(part))
        ax_t.plot([], [], ls=":", color="0.45", lw=1.2, label="ideal: N × the line's N = 1 images/s")
        ax_e.axhline(100, ls="--", color="0.45", lw=1.2, label="ideal efficiency (100 %)", zorder=1)
        yt = []
        for i, (skey, srows) in enumerate(series.items()):
            color, marker = sbplot.strategy_style(srows[0].get("strategy", ""))
            ls = LINESTYLES[skey[0] % len(LINESTYLES)]
            label = f"{labels_of[skey]} — {srows[0]['_study']}"
            kw = dict(shift=(i, len(series)), zorder=3, ls=ls, mfc="white" if skey[0] % 2 else color)
            sbplot.plot_agg(ax_t, sbplot.aggregate(srows, "images_per_s", flagged=True), label, color, marker, **kw)
            eff = [r for r in srows if sbload.finite(r.get("efficiency"))]
            sbplot.plot_agg(ax_e, sbplot.aggregate(eff, "efficiency", 100.0, flagged=True), label, color, marker, **kw)
            yt += [sbload.num(r.get("images_per_s")) for r in srows]
            if sbload.finite(b := series_ideal(srows)):
                top_n = max([int(r["world_size"]) for r in srows] + [2])
                ax_t.plot([1, top_n], [b, b * top_n], ls=":", color=color, lw=1.0, zorder=2, label="_ideal")
                yt += [b, b * top_n]
        for ax in (ax_t, ax_e):
            sbplot.log2_axis(ax, ns, "x")
            ax.set_xlabel("devices N (log2)")
        ax_t.set_yscale("log")
        ax_t.set_ylim(min(yt) / 1.35, max(yt) * 1.35)
        ev = [sbload.num(r.get("efficiency")) * 100 for r in prow if sbload.finite(r.get("efficiency"))]
        ax_e.set_ylim(0, max(ev + [100.0]) * 1.15)
        ax_t.set_title(ptitle)
        ax_t.set_ylabel("images/s (log)")
        ax_e.set_ylabel("scaling efficiency (%)")
    caps = []
    for s, name in zip(studies, names):
        caps.append(f"{name}: " + sbplot.context_text(s, s.ok_rows()))
    shown = [r for _, rs in columns for r in (x for v in rs.values() for x in v)]
    caps.append(" · ".join(x for x in (sbplot.reps_note(shown, "images_per_s"),
                                       "line style: the study (" + ", ".join(
                                           f"{LINESTYLES[i % len(LINESTYLES)]} {n}" for i, n in enumerate(names)) + ")",
                                       "efficiency against each study's own N = 1") if x))
    for s, name in zip(studies, names):
        if note := sbplot.not_shown_note(s.rows):
            caps.append(f"{name}: {note}")
    title = "Throughput and scaling efficiency vs devices: " + " vs ".join(names)
    return sbplot.finish(fig, title, "\n".join(caps), out_dir, "overlay", legend_handles=sbplot.legend_handles(axes),
                         legend_ncol=2)


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("studies", nargs="+", help="two or more study folders or study files")
    ap.add_argument("-o", "--out", default=None, help="output folder (default: <first study's folder>/plots)")
    ap.add_argument("--label", action="append", default=[], help="a study's name in the legend (in order; repeatable)")
    sbplot.add_paper_option(ap)
    a = ap.parse_args(argv)
    sbplot.use_paper(a.paper)
    first = a.studies[0]
    out = a.out or os.path.join(first if os.path.isdir(first) else os.path.dirname(os.path.abspath(first)), "plots")
    try:
        for p in make(a.studies, out, a.label):
            print(p)
    except sbload.NoData as e:
        print(f"skipped: {e}")
    except sbload.InputError as e:
        print(f"overlay.py: error: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
