"""sbplot.py — figure helpers shared by the plot scripts: Agg backend and style, the one colour and
marker table per strategy, panel grids, log2 device-count axes, series grouping and labels, the
median/min/max aggregation of repetitions, the hardware/version caption and the "points not shown"
note, the figure legend outside the panels, facets past MAX_SERIES series, the paper mode (no title or
caption, vector output, one- or two-column width; use_paper), and saving every figure as PNG + PDF (with
a layout record the tests read: what each axes holds, where the legends and titles are).

It deliberately does not read files (plots/sbload.py does) and draws no particular plot.
"""
from __future__ import annotations

import math
import os
import re
import textwrap
from collections import Counter, OrderedDict

import matplotlib

matplotlib.use("Agg")  # before pyplot: no display, same output everywhere

import matplotlib.colors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator  # noqa: E402

import sbload  # noqa: E402

plt.rcParams.update({
    "font.size": 10, "axes.titlesize": 10.5, "axes.labelsize": 10, "legend.fontsize": 8.5,
    "xtick.labelsize": 9, "ytick.labelsize": 9, "figure.titlesize": 12.5, "axes.grid": True,
    "grid.alpha": 0.3, "grid.linewidth": 0.6, "lines.linewidth": 1.6, "lines.markersize": 5.5,
    "pdf.fonttype": 42,
})
DPI = 130.0  # PNG resolution; make_all.py --dpi changes it

MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "*"]
COLORS = plt.rcParams["axes.prop_cycle"].by_key()["color"]

# The one colour and marker of each strategy, in every plot (speedup, efficiency, accuracy, curves,
# sweep axes, projection; commbench's ring and hierarchical algorithms take their strategy's).
# Okabe–Ito colours (colour-blind safe) plus purple for single; grey and black stay free for the
# ideal and reference lines. A name not listed (a strategy
# added later) gets the next of EXTRA_COLORS in first-seen order, the same in every figure of a run.
STRATEGY_STYLE = {
    "single": ("#6A3D9A", "o"),
    "mirrored": ("#0072B2", "s"),
    "multiworker": ("#E69F00", "^"),
    "ring": ("#009E73", "D"),
    "hierarchical": ("#CC79A7", "v"),
    "ps-sync": ("#D55E00", "P"),
    "ps-async": ("#56B4E9", "X"),
}
EXTRA_COLORS = ["#8c564b", "#7f7f7f", "#bcbd22", "#17becf", "#9467bd"]
_extra_style = {}
MAX_SERIES = 8  # series per axes; beyond it a plot facets (curves: one row per N)


def strategy_style(strategy: str):
    """(colour, marker) of a strategy (or a commbench algorithm named like one)."""
    s = str(strategy)
    if s in STRATEGY_STYLE:
        return STRATEGY_STYLE[s]
    if s not in _extra_style:
        i = len(_extra_style)
        _extra_style[s] = (EXTRA_COLORS[i % len(EXTRA_COLORS)], MARKERS[(i + 7) % len(MARKERS)])
    return _extra_style[s]


def dodge(n, i: int, k: int, step: float = 0.06):
    """x positions (device counts on a log2 axis) moved by a small fraction of an octave per series
    (series i of k, centred), so series with equal values stay visible side by side instead of
    hiding each other."""
    return np.asarray(n, dtype=float) * 2.0 ** ((i - (k - 1) / 2.0) * step)

# Fields that tell two groups of one model apart in a label (strategy and N are the axes/lines).
# For study files written before collect recorded its point_fields attribute.
_DIFF_FIELDS = ("scaling", "batch", "global_batch", "precision", "backend", "optimizer", "lr", "lr_scaling", "lr_decay",
                "threads", "seed", "epochs", "max_steps", "data", "momentum", "weight_decay")


def slug(text: str) -> str:
    s = re.sub(r"[^A-Za-z0-9.+-]+", "_", str(text).replace("=", "-")).strip("_")
    return s or "x"


# ---- paper mode -----------------------------------------------------------------------------------
# A figure for a paper: no title and no caption (the paper's caption says it), vector files only, the
# width of one column or of the whole page (two columns), small fonts. Every script that draws through
# grid() and finish() gets it (make_all.py --paper, or use_paper() before a script's make()).
PAPER = None  # None (figures with title and caption, PNG + PDF), "one" or "two"
PAPER_WIDTH_IN = {"one": 3.5, "two": 7.16}  # IEEE/ACM one-column and two-column (page) widths
PAPER_FORMATS = ("pdf", "svg")
_STYLE = dict(plt.rcParams)


def use_paper(mode=None):
    """Paper mode "one" or "two" (column widths), or None: back to figures with title and caption."""
    global PAPER
    if mode not in (None, *PAPER_WIDTH_IN):
        raise ValueError(f"paper mode: {mode!r} (choose one or two)")
    PAPER = mode
    plt.rcParams.update({k: _STYLE[k] for k in ("font.size", "axes.titlesize", "axes.labelsize", "legend.fontsize",
                                                 "xtick.labelsize", "ytick.labelsize", "lines.linewidth",
                                                 "lines.markersize")})
    if mode:
        plt.rcParams.update({"font.size": 7.5, "axes.titlesize": 7.5, "axes.labelsize": 7.5, "legend.fontsize": 6.5,
                             "xtick.labelsize": 6.5, "ytick.labelsize": 6.5, "lines.linewidth": 1.1,
                             "lines.markersize": 3.5})


def grid(n: int, ncols_max: int = 3, panel_w: float = 4.6, panel_h: float = 3.5, sharey=False):
    """A figure with n panels (row-major), unused axes removed. Returns fig, [axes]. In paper mode the
    panels fill the column width (one panel across in one column, at most 3 in two)."""
    if PAPER:
        ncols_max = min(ncols_max, 1 if PAPER == "one" else 3)
        ncols = max(1, min(ncols_max, n))
        w = (PAPER_WIDTH_IN[PAPER] - 0.3) / ncols
        panel_w, panel_h = w, w * panel_h / panel_w
    ncols = max(1, min(ncols_max, n))
    nrows = max(1, math.ceil(n / ncols))
    fig, axs = plt.subplots(nrows, ncols, figsize=(panel_w * ncols + 0.6, panel_h * nrows + 0.4),
                            squeeze=False, sharey=sharey)
    flat = list(axs.ravel())
    for ax in flat[n:]:
        ax.remove()
    return fig, flat[:n]


def log2_axis(ax, values, axis="x", fmt=None):
    """Log2 scale with a major tick at each value given (e.g. the device counts present)."""
    vals = sorted({float(v) for v in values if v and v > 0}) or [1.0]
    a = ax.xaxis if axis == "x" else ax.yaxis
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=2)
    if len(vals) > 12:  # thin out: every k-th power of two
        k = math.ceil(len(vals) / 12)
        vals = vals[::k]
    a.set_major_locator(FixedLocator(vals))
    a.set_minor_locator(NullLocator())
    a.set_major_formatter(FuncFormatter(fmt or (lambda v, _: f"{v:g}")))
    lo, hi = min(vals), max(vals)
    if hi <= lo:
        hi = lo * 2
    (ax.set_xlim if axis == "x" else ax.set_ylim)(lo / 2 ** 0.35, hi * 2 ** 0.35)


def bytes_label(v, _=None) -> str:
    for unit, p in (("G", 30), ("M", 20), ("K", 10)):
        if v >= 2 ** p:
            return f"{v / 2 ** p:g}{unit}"
    return f"{v:g}"


# ---- grouping -------------------------------------------------------------------------------------

def group_rows(rows, key):
    """OrderedDict key(row) → [rows], keys sorted."""
    d = {}
    for r in rows:
        d.setdefault(key(r), []).append(r)
    return OrderedDict(sorted(d.items(), key=lambda kv: tuple(str(x) for x in kv[0])))


def panel_key(r):
    return (r.get("model", ""), r.get("scaling", ""))


def panel_title(key) -> str:
    model, scaling = key
    if not scaling:
        return str(model)
    sep = "\n" if len(str(model)) + len(scaling) > 34 else " — "
    return f"{model}{sep}{scaling} scaling"


def series_key(r):
    return (r.get("group_id", ""), r.get("strategy", ""))


def varying_fields(series: dict) -> list:
    """The configuration fields (besides model, strategy and N) whose value differs between the
    series' first rows: what tells the series of one panel apart."""
    firsts = [rs[0] for rs in series.values()]
    # The study file names its point fields (every swept option among them); older files: a fixed list.
    fields = firsts[0].get("_point_fields") if firsts else None
    fields = [f for f in fields if f not in ("model", "strategy", "world_size")] if fields else _DIFF_FIELDS
    varying = [f for f in fields if len({str(r.get(f, "")) for r in firsts}) > 1]
    # The global batch follows from the per-device batch and N in weak scaling (and the reverse in
    # strong scaling), so it never tells two series apart: which row came first would decide.
    derived = "global_batch" if all(r.get("scaling") == "weak" for r in firsts) else "batch"
    if derived in varying:
        varying.remove(derived)
    return varying


def facets(series: dict, limit: int = MAX_SERIES, fields=None) -> list:
    """A panel's series split so that none holds more than `limit`: [(title suffix, series)]. One
    facet per value of the field (of `fields`, default varying_fields) that splits them into the
    fewest facets of at most `limit` each (a swept study: one facet per batch, say); when no field
    does, consecutive chunks of `limit` ("1/2", "2/2"). Under the limit: [("", series)]."""
    if len(series) <= limit:
        return [("", series)]
    best = None
    for f in (varying_fields(series) if fields is None else fields):
        parts = OrderedDict()
        for k, rs in series.items():
            parts.setdefault(_fmt(rs[0].get(f, "")), OrderedDict())[k] = rs
        if max(len(p) for p in parts.values()) <= limit and (best is None or len(parts) < len(best[1])):
            best = (f, parts)
    if best:
        return [(f"{best[0]}={v}", part) for v, part in best[1].items()]
    items = list(series.items())
    k = math.ceil(len(items) / limit)
    return [(f"{i + 1}/{k}", OrderedDict(items[i * limit:(i + 1) * limit])) for i in range(k)]


def series_labels(series: dict, with_strategy=True) -> dict:
    """key → label: the strategy, plus the config fields that differ between the series' groups."""
    firsts = {k: rs[0] for k, rs in series.items()}
    varying = varying_fields(series)
    out = {}
    for k, r in firsts.items():
        parts = [str(r.get("strategy", ""))] if with_strategy else []
        extra = ", ".join(f"{f}={_fmt(r.get(f))}" for f in varying)
        out[k] = " ".join(p for p in parts if p) + (f" ({extra})" if extra else "")
    return out


def _fmt(v):
    return f"{v:g}" if isinstance(v, float) else str(v)


def aggregate(rows, metric, scale=1.0, flagged=False):
    """Per N: (N, median, lo, hi, count, flags). lo/hi are the point's 95 % interval from the study
    file (`<metric>_ci_lo/_hi`, collect's point statistics) when it has one, else the min and max of
    the repetitions; flags (with `flagged`: the scaling plots) are the point's `flags`."""
    byn, ci, flags = {}, {}, {}
    for r in rows:
        v = sbload.num(r.get(metric))
        if math.isfinite(v):
            n = int(r["world_size"])
            byn.setdefault(n, []).append(v * scale)
            lo, hi = sbload.num(r.get(metric + "_ci_lo")), sbload.num(r.get(metric + "_ci_hi"))
            if math.isfinite(lo) and math.isfinite(hi):
                ci[n] = (lo * scale, hi * scale)
            if flagged and r.get("flags"):
                flags.setdefault(n, set()).update(str(r["flags"]).split())
    out = []
    for n in sorted(byn):
        vs = byn[n]
        lo, hi = ci.get(n, (min(vs), max(vs)))
        out.append((n, float(np.median(vs)), lo, hi, len(vs), " ".join(sorted(flags.get(n, ())))))
    return out


def plot_agg(ax, agg, label, color, marker, shift=None, **kw):
    """Median line with bars (the 95 % interval, else min–max; only where they have width); a
    flagged point gets a red ring. `shift` = (i, k): dodge() the x positions (log2 axes)."""
    if not agg:
        return
    cols = list(zip(*agg))
    n, med, lo, hi = (np.array(c) for c in cols[:4])
    if shift is not None:
        n = dodge(n, *shift)
    fl = cols[5] if len(cols) > 5 else [""] * len(n)
    yerr = np.vstack([np.maximum(med - lo, 0), np.maximum(hi - med, 0)])
    has_err = bool(np.any(yerr > 0))
    ax.errorbar(n, med, yerr=yerr if has_err else None, label=label, color=color, marker=marker,
                capsize=3 if has_err else 0, **kw)
    bad = np.array([bool(f) for f in fl])
    if bad.any():
        ax.plot(n[bad], med[bad], "o", ms=2.4 * float(plt.rcParams["lines.markersize"]), mfc="none", mec="red",
                mew=1.4 if not PAPER else 0.9, zorder=4)


def reps_note(rows, metric=None) -> str:
    """What markers and bars mean; with `metric` (the scaling plots), intervals and flag rings too."""
    c = Counter(r.get("point_id", "") for r in rows)
    m = max(c.values()) if c else 1
    has_ci = metric is not None and any(math.isfinite(sbload.num(r.get(metric + "_ci_lo"))) for r in rows)
    note = f"markers: median of up to {m} repetitions, bars: " + ("95% interval (else min–max)" if has_ci else "min–max")
    flagged = sorted({f for r in rows for f in str(r.get("flags") or "").split()}) if metric else []
    flag_note = f"red ring: flagged ({', '.join(flagged)}; scalebench report states the rules)" if flagged else ""
    return " · ".join(x for x in ((note if m > 1 or has_ci else ""), flag_note) if x)


# ---- caption --------------------------------------------------------------------------------------

def _short_mpi(s: str) -> str:
    s = (s or "").strip().splitlines()[0] if s else ""
    return s.split(",")[0].strip()


def _distinct(values):
    out = []
    for v in values:
        v = str(v).strip()
        if v and v not in out:
            out.append(v)
    return out


def context_text(study, rows) -> str:
    """Hardware and versions of the given rows, from their run files' /context (the study's own
    columns where a run file is not there)."""
    ctxs = []
    for r in rows:
        run = study.run(r) if study is not None else None
        c = dict(run.context) if run is not None else {}
        for k in ("hostnames", "cpu_model", "git_sha", "git_dirty", "scalebench_version"):
            c.setdefault(k, r.get(k, ""))
        c.setdefault("backend", r.get("backend", ""))
        c["_backend"] = r.get("backend", "")
        c["_precision"] = r.get("precision", "")
        ctxs.append(c)
    if not ctxs:
        return ""
    parts = []
    vers = _distinct(c.get("scalebench_version", "") for c in ctxs)
    shas = _distinct((str(c.get("git_sha", ""))[:10] + ("+dirty" if str(c.get("git_dirty")) == "true" else ""))
                     for c in ctxs if c.get("git_sha"))
    parts.append("scalebench " + "/".join(vers or ["?"]) + (f" (git {', '.join(shas)})" if shas else ""))
    cpus = _distinct(c.get("cpu_model", "") for c in ctxs)
    thr = _distinct(c.get("cpu_threads", "") for c in ctxs)
    if cpus:
        parts.append("CPU " + " / ".join(cpus) + (f" ({'/'.join(thr)} threads)" if thr else ""))
    gpus = _distinct(c.get("gpu_names", "") for c in ctxs)
    if gpus:
        parts.append("GPU " + " / ".join(gpus))
    hosts = []
    for c in ctxs:
        hosts += _distinct(re.split(r"[,\s]+", str(c.get("hostnames", ""))))
    hosts = _distinct(hosts)
    if hosts:
        parts.append(f"{len(hosts)} host{'s' if len(hosts) != 1 else ''} ("
                     + ", ".join(hosts[:3]) + (", …" if len(hosts) > 3 else "") + ")")
    mpis = _distinct(_short_mpi(c.get("mpi_version", "")) for c in ctxs)
    if mpis:
        parts.append("MPI " + " / ".join(mpis))
    for key, name in (("nccl_version", "NCCL"), ("cuda_version", "CUDA"), ("cudnn_version", "cuDNN"),
                      ("driver_version", "driver")):
        vs = _distinct(c.get(key, "") for c in ctxs)
        if vs:
            parts.append(f"{name} " + " / ".join(vs))
    comp = _distinct(c.get("compiler", "") for c in ctxs)
    if comp:
        parts.append(" / ".join(comp))
    be = _distinct(f"{c['_backend']} {c['_precision']}".strip() for c in ctxs)
    if be:
        parts.append("backend " + " / ".join(be))
    return " · ".join(parts)


def not_shown_note(rows, what="points") -> str:
    """'4 failed points not shown (mirrored N=1, 2); 1 running point not shown (single N=1)'."""
    by = {}
    for r in rows:
        if r.get("status") != "ok":
            by.setdefault(r.get("status") or "unknown", []).append(r)
    notes = []
    for status in sorted(by):
        rs = by[status]
        strat = {}
        for r in rs:
            strat.setdefault(r.get("strategy", "?"), set()).add(int(r.get("world_size", 0)))
        where = "; ".join(f"{s} N={', '.join(str(n) for n in sorted(ns))}" for s, ns in sorted(strat.items()))
        one = what[:-1] if what.endswith("s") else what
        notes.append(f"{len(rs)} {status} {one if len(rs) == 1 else what} not shown ({where})")
    return "; ".join(notes)


def shared_gpu_note(rows) -> str:
    """Where ranks shared a GPU (the run files' gpu_shared, collect's column): those points check
    correctness, their timings measure contention for one device, not scaling."""
    shared = sorted({(r.get("strategy", "?"), int(r.get("world_size", 0))) for r in rows
                     if str(r.get("gpu_shared", "")) == "1"})
    if not shared:
        return ""
    where = ", ".join(f"{s} N={n}" for s, n in shared)
    return f"CORRECTNESS RUNS, NOT SCALING: ranks shared a GPU ({where})"


def caption(study, rows_shown, rows_in_scope, extra=()) -> str:
    """Caption text: context of the runs shown, scaling mode(s), study, non-ok points left out."""
    lines = []
    ctx = context_text(study, rows_shown or [r for r in rows_in_scope])
    if ctx:
        lines.append(ctx)
    second = []
    modes = _distinct(r.get("scaling", "") for r in rows_in_scope)
    if modes:
        mode_txt = {"weak": "weak scaling (per-device batch fixed)", "strong": "strong scaling (global batch fixed)"}
        second.append(" and ".join(mode_txt.get(m, m + " scaling") for m in modes))
    if study is not None:
        second.append(f"study '{study.name}' ({os.path.basename(study.path)})")
    second += [e for e in extra if e]
    ns = not_shown_note(rows_in_scope)
    if ns:
        second.append(ns)
    shared = shared_gpu_note(rows_in_scope)
    if shared:
        second.append(shared)
    if second:
        lines.append(" · ".join(second))
    return "\n".join(lines)


# ---- saving ---------------------------------------------------------------------------------------

def legend_handles(axes, title=None) -> list:
    """The distinct labelled artists of all the axes (first one of each label), for one figure
    legend under the panels instead of a legend inside each (over the data)."""
    seen = {}
    for ax in axes:
        for h, lb in zip(*ax.get_legend_handles_labels()):
            if lb and not lb.startswith("_"):
                seen.setdefault(lb, h)
    return list(seen.values())


# What finish() drew, one entry per figure (tests read it; nothing else does): stem, title lines,
# caption, whether the title fits the figure, per axes its title (and box), y limits, the (label,
# colour, first x) of each labelled line, and whether a legend sits inside the axes.
LAYOUT = []


def _artist_color(h):
    for get in ("get_color", "get_facecolor", "get_edgecolor"):
        if hasattr(h, get):
            c = getattr(h, get)()
            if isinstance(c, np.ndarray) and c.ndim == 2:
                c = c[0] if len(c) else None
            if c is not None:
                return matplotlib.colors.to_hex(c)
    return None


def _record(fig, stem, title_lines, cap):
    # After the PNG is saved: the layout is final and text extents need a renderer, not a new draw.
    r = fig.canvas.get_renderer()
    W = fig.bbox.width
    sup = fig._suptitle
    tb = sup.get_window_extent(r) if sup is not None else None
    axes = []
    for ax in fig.axes:
        series = []
        for h in ax.get_lines() + list(ax.containers):
            lb = h.get_label()
            if lb and not lb.startswith("_"):
                line = h if not hasattr(h, "lines") else h.lines[0]
                x = line.get_xdata() if hasattr(line, "get_xdata") else []
                series.append((lb, _artist_color(line), float(x[0]) if len(x) else None))
        t = ax.title
        axes.append({"title": t.get_text(), "series": series,
                     "title_box": tuple(t.get_window_extent(r).bounds) if t.get_text() else None,
                     "legend_inside": ax.get_legend() is not None, "ylim": ax.get_ylim(),
                     "ylabel": ax.get_ylabel(), "xlabel": ax.get_xlabel()})
    LAYOUT.append({"stem": stem, "title": title_lines, "caption": cap, "title_fits": tb is None or (tb.x0 >= 0 and tb.x1 <= W),
                   "axes": axes, "size": tuple(fig.get_size_inches())})


def _overlap(a, b) -> bool:
    return a and b and a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def titles_collide(rec) -> bool:
    """Whether two axes titles of a recorded figure overlap."""
    boxes = [a["title_box"] for a in rec["axes"] if a["title_box"]]
    return any(_overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def finish(fig, title: str, cap: str, out_dir: str, stem: str, legend_handles=None, legend_ncol=None) -> list:
    """Title (wrapped to the figure's width), wrapped caption under the panels, optional figure
    legend between the panels and the caption (outside the data), then PNG + PDF. Returns paths.
    In paper mode (use_paper): no title and no caption, the figure scaled to the column width, and
    PAPER_FORMATS (vector) written instead."""
    w_in, h_in = fig.get_size_inches()
    if PAPER:
        w = PAPER_WIDTH_IN[PAPER]
        if abs(w - w_in) > 0.01:  # a script that sized its own figure: keep its aspect
            fig.set_size_inches(w, h_in * w / w_in)
            w_in, h_in = w, h_in * w / w_in
        title, cap = "", ""
        for ax in fig.axes:  # small panels: wrap their titles to their width
            t = ax.get_title()
            chars = int(ax.get_position().width * w_in * 72 / (float(plt.rcParams["axes.titlesize"]) * 0.55))
            if t and chars > 10:
                ax.set_title("\n".join(w for line in t.split("\n") for w in textwrap.wrap(line, chars)))
    width_chars = max(60, int(w_in * 72 / (7.5 * 0.55)))  # ~8 pt caption font
    cap_lines = []
    for line in cap.splitlines():
        cap_lines += textwrap.wrap(line, width_chars) or [""]
    cap_h = (len(cap_lines) * 8 * 1.35 + 10) / 72.0 if cap else 0.0  # inches
    # A bold 12.5 pt character is ~0.62 em wide on average: wrap the title to the figure's width.
    # "N = 1" is kept on one line (no-break spaces around "=").
    title_lines = textwrap.wrap(re.sub(r" = ", "\u00a0=\u00a0", title),
                                max(20, int(w_in * 72 * 0.94 / (12.5 * 0.58)))) or [""]
    title_h = (len(title_lines) - 1) * 12.5 * 1.25 / 72.0 if title else 0.0
    leg_h = 0.0
    if legend_handles:
        longest = max(len(str(h.get_label())) for h in legend_handles)
        font = float(plt.rcParams["legend.fontsize"])  # 8.5 pt, 6.5 in paper mode
        fits = max(1, int(w_in * 72 * 0.95 // (longest * font * 0.56 + 42 * font / 8.5)))  # columns that fit
        ncol = max(1, min(legend_ncol or 6, len(legend_handles), fits))
        leg_h = (math.ceil(len(legend_handles) / ncol) * font * 1.06 * 1.5 + 6) / 72.0
    fig.set_size_inches(w_in, h_in + cap_h + leg_h + title_h)
    H = h_in + cap_h + leg_h + title_h
    if title:
        fig.suptitle("\n".join(title_lines), fontweight="bold")
    bottom = (cap_h + leg_h) / H
    fig.tight_layout(rect=(0, bottom, 1, 1), pad=0.4 if PAPER else 1.08)
    if legend_handles:
        fig.legend(handles=legend_handles, loc="lower center", ncol=ncol, frameon=False,
                   bbox_to_anchor=(0.5, cap_h / H))
    if cap:
        fig.text(0.01, (cap_h - 4 / 72) / H, "\n".join(cap_lines), ha="left", va="top", fontsize=7.5,
                 color="#333333", linespacing=1.35)
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for i, ext in enumerate(PAPER_FORMATS if PAPER else ("png", "pdf")):
        p = os.path.join(out_dir, f"{stem}.{ext}")
        fig.savefig(p, dpi=DPI)
        paths.append(p)
        if i == 0:
            _record(fig, stem, title_lines if title else [], cap)
    plt.close(fig)
    return paths


def add_paper_option(ap):
    """The --paper option every plot command line shares (make_all.py, each script, commbench.py's)."""
    ap.add_argument("--paper", choices=sorted(PAPER_WIDTH_IN), default=None,
                    help="a figure for a paper: no title or caption, PDF + SVG, one-column (3.5 in) or "
                         "two-column (7.16 in) width")


def main(make, description: str):
    """The command line every plot script shares: SCRIPT STUDY_DIR_OR_FILE [-o OUT]."""
    import argparse
    import sys
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("study", help="study folder (holding study.h5) or study file")
    ap.add_argument("-o", "--out", default=None, help="output folder (default: <study folder>/plots)")
    add_paper_option(ap)
    a = ap.parse_args()
    use_paper(a.paper)
    out = a.out or os.path.join(a.study if os.path.isdir(a.study) else os.path.dirname(os.path.abspath(a.study)),
                                "plots")
    try:
        for p in make(a.study, out):
            print(p)
    except sbload.NoData as e:
        print(f"skipped: {e}")
    except sbload.InputError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
