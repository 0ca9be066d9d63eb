#!/usr/bin/python3
"""throughput.py — absolute throughput (images/s) vs number of devices, log-log, one panel per
model × scaling mode in which N varies, one line per strategy (× the other swept fields), each with
its ideal dotted in its colour: N × the line's N = 1 images/s (collect's baseline_images_per_s, the
median of the N = 1 runs its speedup is measured against). The figure weak-scaling papers show
first: the absolute numbers, which speedup divides away.

Repetitions of a point are drawn as their median with the point's 95 % interval of images/s from the
study file (min–max bars below 6 repetitions); flagged points get a red ring; panels, facets and the
caption as speedup.py's (draw_scaling).

It deliberately does not recompute throughputs or baselines (collect owns them) and draws no
speedup (speedup.py) or efficiency (efficiency.py).

Usage: /usr/bin/python3 plots/throughput.py STUDY_DIR_OR_FILE [-o OUT] [--paper one|two]
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sbload  # noqa: E402
import sbplot  # noqa: E402
from speedup import draw_scaling  # noqa: E402


def make(study_path_or_dir, out_dir) -> list:
    study = sbload.load_study(study_path_or_dir)
    return draw_scaling(study, out_dir, metric="images_per_s", stem="throughput", ideal=None,
                        title="Throughput vs devices (images/s, log-log; dotted: N × each line's N = 1)",
                        ylabel="images/s (log)")


if __name__ == "__main__":
    sbplot.main(make, __doc__.splitlines()[0])
