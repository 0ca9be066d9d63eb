#!/usr/bin/python3
"""make_all.py — the entry point of plots/: every plot that has data, from one study.

    /usr/bin/python3 plots/make_all.py STUDY_DIR_OR_FILE [-o OUT] [--commbench PATH ...] [--only a,b] [--dpi D]
        [--with STUDY ...] [--paper one|two]

STUDY_DIR_OR_FILE is a study folder (holding study.h5 and runs/) or a study file; a .json path
makes the commbench plot alone. OUT defaults to <study folder>/plots. Prints each file written
(PNG and PDF per figure), one `skipped: <plot>: <reason>` line per plot without data (e.g. no
commbench JSON, no run files), and exits 2 with one `make_all.py: error: ...` line on stderr when
an input file is missing, unreadable or corrupt (nothing else on stderr). With --projection FILE (a
`scalebench project -o` file) it also draws projection.png: the predicted lines with the study's own
points and those of every --overlay study file (e.g. results/anchors/*.h5) overlaid. With --with
STUDY (repeatable) it also draws overlay.png: this study and the others in one figure (overlay.py).
--paper one|two makes every figure for a paper (no title or caption, PDF + SVG, column width;
sbplot.use_paper).

It deliberately does not run scalebench (no collect, no commbench), does not clear OUT, and does
not stop at the first plot without data.
"""
from __future__ import annotations

import argparse
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sbload  # noqa: E402

PLOTS = ["throughput", "speedup", "efficiency", "accuracy", "accuracy_cost", "critical_batch", "sweep_axes", "curves", "breakdown",
         "commbench"]


def fail(msg: str):
    print(f"make_all.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="make_all.py", description="Make every scalebench plot that has data.")
    ap.add_argument("study", help="study folder (with study.h5) or study file; a .json file: commbench only")
    ap.add_argument("-o", "--out", help="output folder (default: <study folder>/plots)")
    ap.add_argument("--commbench", action="append", metavar="PATH",
                    help="commbench JSON file or folder (repeatable; default: commbench*.json and "
                         "commbench/*.json next to the study)")
    ap.add_argument("--projection", metavar="FILE", help="a `scalebench project -o` file: draw projection.png")
    ap.add_argument("--overlay", action="append", default=[], metavar="STUDY",
                    help="with --projection: another study file whose points are overlaid (repeatable)")
    ap.add_argument("--with", dest="with_", action="append", default=[], metavar="STUDY",
                    help="another study drawn with this one in overlay.png (repeatable)")
    ap.add_argument("--only", help="comma-separated subset of: " + ",".join(PLOTS))
    ap.add_argument("--dpi", type=float, help="PNG resolution (default 130)")
    import sbplot
    sbplot.add_paper_option(ap)
    ap.add_argument("--traceback", action="store_true", help="show the Python traceback of an unexpected error")
    a = ap.parse_args(argv)

    warnings.simplefilter("ignore")  # numpy/matplotlib warnings are not our one error line
    study_dir = a.study if os.path.isdir(a.study) else os.path.dirname(os.path.abspath(a.study))
    out = a.out or os.path.join(study_dir, "plots")
    only = [p.strip() for p in a.only.split(",")] if a.only else PLOTS
    unknown = [p for p in only if p not in PLOTS]
    if unknown:
        fail(f"--only: unknown plot {', '.join(unknown)} (choose from {', '.join(PLOTS)})")

    if a.dpi:
        sbplot.DPI = a.dpi
    sbplot.use_paper(a.paper)
    json_only = a.study.endswith(".json")
    try:
        if json_only:
            only = ["commbench"]
            if not os.path.exists(a.study):
                raise sbload.InputError(f"{a.study}: no such file")
        else:
            sbload.load_study(a.study)  # one clear line before any plot when the study file is bad
        import importlib
        written = 0
        for name in only:
            mod = importlib.import_module(name)
            try:
                if name == "commbench":
                    paths = mod.make(a.study, out, commbench=a.commbench or ([a.study] if json_only else None))
                else:
                    paths = mod.make(a.study, out)
            except sbload.NoData as e:
                print(f"skipped: {name}: {e}", flush=True)
                continue
            for p in paths:
                print(p, flush=True)
            written += len(paths)
        if a.with_ and not json_only:
            import overlay
            try:
                paths = overlay.make([a.study] + a.with_, out)
            except sbload.NoData as e:
                print(f"skipped: overlay: {e}", flush=True)
                paths = []
            for p in paths:
                print(p, flush=True)
            written += len(paths)
        if a.projection:
            import projection
            overlay = ([] if json_only else [sbload.resolve_study(a.study)]) + a.overlay
            try:
                paths = projection.make(a.projection, out, overlay)
            except sbload.NoData as e:
                print(f"skipped: projection: {e}", flush=True)
                paths = []
            for p in paths:
                print(p, flush=True)
            written += len(paths)
    except sbload.InputError as e:
        fail(str(e))
    except Exception as e:  # a bug or an input we did not foresee: still one line, unless asked
        if a.traceback:
            raise
        first = (str(e).strip().splitlines() or [""])[0][:300]
        fail(f"unexpected {e.__class__.__name__}: {first} (rerun with --traceback for details)")
    if written == 0:
        print("no plot had data", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
