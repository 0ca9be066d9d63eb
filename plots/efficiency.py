#!/usr/bin/python3
"""efficiency.py — scaling efficiency (speedup / N, in %) vs number of devices, one panel per
model × scaling mode, one line per strategy, the ideal at 100 %; x axis log2.

Efficiency is the study file's `efficiency` column; repetitions are drawn as median with min–max
bars; runs whose status is not ok (and ok runs without an N = 1 baseline) are left out and counted
in the caption; panels where N does not vary are not drawn, and a crowded panel is split into facets
(speedup.draw_scaling).

It deliberately does not recompute efficiencies from throughputs (collect owns the definition,
docs/results-schema.md) and does not draw speedup (speedup.py).

Usage: /usr/bin/python3 plots/efficiency.py STUDY_DIR_OR_FILE [-o OUT] [--paper one|two]
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
    return draw_scaling(study, out_dir, metric="efficiency", stem="efficiency", scale=100.0,
                        title="Scaling efficiency vs devices (speedup / N)",
                        ylabel="scaling efficiency (%)", ideal=lambda n: 1.0)


if __name__ == "__main__":
    sbplot.main(make, __doc__.splitlines()[0])
