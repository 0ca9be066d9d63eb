"""test_sweep_axes.py — unittest (stdlib only) for plots/sweep_axes.py: the axis-<field> figures of
a study that sweeps run options besides model, strategy and N (docs/plots.md).

Run: /usr/bin/python3 -m unittest -v tests/python/test_sweep_axes.py   (ctest: python.sweep_axes)

The fixture is a study file only (the plot reads no run file), written here with h5py from the
committed sample U-Net row: single N=1 and ring N=1, 2 × compression none/bf16 × bucket_mb
0.25/1 (two repetitions of one point, one failed point), weak scaling; its throughput and mIoU
values are invented, its shape is real. The same fixture at one value of each option must draw
no axis figure. It deliberately does not compare pixels (test_plots.py says why).
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

from plot_fixtures import PLOTS, SAMPLES, check_outputs, png_has_content, run_make_all, write_fixture_study  # noqa: E402

sys.path.insert(0, PLOTS)
import sbload  # noqa: E402
import sweep_axes  # noqa: E402

POINT_FIELDS = "model,strategy,world_size,batch,global_batch,bucket_mb,compression"


def axis_points(swept=True, batch=None):
    """(strategy, N, compression, bucket_mb, repetition, status, batch) of the fixture's rows."""
    pts = [("single", 1, "none", 1.0, 1, "ok")]
    for comp in (("none", "bf16") if swept else ("none",)):
        for mb in ((0.25, 1.0) if swept else (1.0,)):
            for n in (1, 2):
                pts.append(("ring", n, comp, mb, 1, "ok"))
    pts.append(("ring", 2, "none", 1.0, 2, "ok"))  # a repetition: median with bars
    pts.append(("ring", 2, "none", 1.0, 3, "failed"))
    return [p + (batch,) for p in pts]


def make_axes_study(dst, swept=True, batches=(None,)):
    """The fixture; with `batches` (per-device batch sizes) the same points at each: batches=(4, 8)
    is studies/strategy-axes.toml's shape, 10 series (single and ring × 2 × 2) per panel."""
    import h5py
    with h5py.File(os.path.join(SAMPLES, "study.h5"), "r") as f:
        tmpl = f["runs"][()]
    src = next(r for r in tmpl if r["run_id"].decode() == "d8270d579261f947")
    names = list(tmpl.dtype.names) + ["bucket_mb", "compression"]
    sdt = h5py.string_dtype("utf-8")
    own = {"bucket_mb": np.dtype(np.float64), "compression": sdt}
    dt = np.dtype([(n, own[n] if n in own else (sdt if tmpl.dtype[n].kind == "O" else tmpl.dtype[n]))
                   for n in names])
    rows = []
    points = [p for b in batches for p in axis_points(swept, b)]
    for k, (strat, n, comp, mb, rep, status, batch) in enumerate(points):
        r = {c: (src[c].decode() if isinstance(src[c], bytes) else src[c]) for c in tmpl.dtype.names}
        ok = status == "ok"
        batch = int(r["batch"]) if batch is None else batch
        base = 100.0 * (1.3 if comp == "bf16" else 1.0) * (1.1 if mb < 1 else 1.0) * batch / 4
        eff = 1.0 if n == 1 else 0.9 - 0.02 * batch / 4
        r.update(run_id=f"{k:016x}", point_id=f"p{strat}{n}{comp}{mb}b{batch}", group_id=f"g{comp}{mb}b{batch}",
                 strategy=strat, world_size=n, repetition=rep, batch=batch, global_batch=batch * n, status=status,
                 bucket_mb=mb, compression=comp,
                 images_per_s=base * n * eff * (1.05 if rep == 2 else 1.0) if ok else np.nan,
                 speedup=n * eff if ok else np.nan, efficiency=eff if ok else np.nan, baseline=f"{strat} N=1",
                 baseline_images_per_s=base,
                 final_val_miou=(0.6 - 0.01 * n - (0.02 if comp == "bf16" else 0.0)) if ok else np.nan)
        rows.append(tuple(r[c] for c in names))
    return write_fixture_study(dst, "axes-fixture", np.array(rows, dtype=dt), point_fields=POINT_FIELDS)


class SweepAxesPlots(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sb_axes_")
        cls.study = make_axes_study(os.path.join(cls.tmp, "swept"))
        cls.flat = make_axes_study(os.path.join(cls.tmp, "flat"), swept=False)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_swept_fields(self):
        rows = sbload.load_study(self.study).ok_rows()
        # global_batch varies with N in weak scaling: derived, not an axis.
        self.assertEqual(sweep_axes.swept_fields(rows), ["bucket_mb", "compression"])
        self.assertEqual(sweep_axes.swept_fields(sbload.load_study(self.flat).ok_rows()), [])

    def test_axis_kinds(self):
        self.assertTrue(sweep_axes.is_numeric([0.25, 1.0]))
        self.assertFalse(sweep_axes.is_numeric(["none", "bf16"]))
        self.assertFalse(sweep_axes.is_numeric([0, 1]))  # an on/off flag: two categories
        self.assertEqual(sweep_axes.category_order(["fp16", "none", "bf16"]), ["none", "bf16", "fp16"])

    def test_one_figure_per_axis(self):
        out = os.path.join(self.tmp, "out")
        check_outputs(self, sweep_axes.make(self.study, out), ["axis-bucket_mb", "axis-compression"])

    def test_no_line_along_an_axis_the_strategy_does_not_use(self):
        import sbplot
        del sbplot.LAYOUT[:]
        sweep_axes.make(self.study, os.path.join(self.tmp, "unused"))
        rec = {r["stem"]: r for r in sbplot.LAYOUT}["axis-bucket_mb"]
        labels = [label for ax in rec["axes"] for label, _, _ in ax["series"]]
        self.assertTrue(labels and all(label.startswith("ring") for label in labels), labels)  # single ran once
        self.assertIn("not drawn: single (one bucket_mb value: the strategy does not use it)", rec["caption"])
        self.assertEqual({a["title"].split("\n")[-1] for a in rec["axes"] if a["title"]}, {"N = 1", "N = 2"})
        for ax in rec["axes"]:
            self.assertLessEqual(len(ax["series"]), sbplot.MAX_SERIES)
            self.assertEqual({c for _, c, _ in ax["series"]}, {sbplot.STRATEGY_STYLE["ring"][0].lower()})

    def test_no_extra_axis_draws_none(self):
        with self.assertRaises(sbload.NoData):
            sweep_axes.make(self.flat, os.path.join(self.tmp, "none"))
        with self.assertRaises(sbload.NoData):  # two models with their own settings are not an axis
            sweep_axes.make(SAMPLES, os.path.join(self.tmp, "none"))

    def test_make_all(self):
        out = os.path.join(self.tmp, "all")
        p = run_make_all(self.study, "-o", out, "--only", "sweep_axes,speedup")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        for stem in ("axis-bucket_mb", "axis-compression"):
            self.assertIn(os.path.join(out, stem + ".png"), p.stdout.split())
            png_has_content(self, os.path.join(out, stem + ".png"))
        flat_out = os.path.join(self.tmp, "flat-all")
        p = run_make_all(self.flat, "-o", flat_out, "--only", "sweep_axes,speedup")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"(?m)^skipped: sweep_axes: the study varies no run option")
        self.assertFalse([f for f in os.listdir(flat_out) if f.startswith("axis-")])
        self.assertIn(os.path.join(flat_out, "speedup.png"), p.stdout.split())


class SweptScalingPlots(unittest.TestCase):
    """The scaling plots of a swept study shaped like studies/strategy-axes.toml (single and ring ×
    compression × bucket_mb, at per-device batch 4 and 8: 10 series a model): no axes holds more
    than sbplot.MAX_SERIES series (with the ideal line); the facets are one per batch."""

    @classmethod
    def setUpClass(cls):
        import sbplot
        import speedup
        import throughput
        cls.tmp = tempfile.mkdtemp(prefix="sb_swept_")
        cls.study = make_axes_study(os.path.join(cls.tmp, "swept"), batches=(4, 8))
        del sbplot.LAYOUT[:]
        for mod in (speedup, throughput):
            mod.make(cls.study, os.path.join(cls.tmp, "out"))
        cls.layout = {r["stem"]: r for r in sbplot.LAYOUT}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_facets_hold_at_most_max_series(self):
        import sbplot
        for stem in ("speedup", "throughput"):
            axes = self.layout[stem]["axes"]
            self.assertEqual(sorted(a["title"].split("\n")[-1] for a in axes), ["batch=4", "batch=8"], stem)
            for ax in axes:
                data = [s for s in ax["series"] if not s[0].startswith("ideal")]
                self.assertEqual(len(data), 5, (stem, ax["series"]))  # single + ring × 2 × 2
                self.assertLessEqual(len(ax["series"]), sbplot.MAX_SERIES, (stem, ax["series"]))
                self.assertFalse(any("batch=" in s[0] for s in data), data)  # the facet says it, not each label

    def test_throughput_is_log_log_with_an_ideal_per_line(self):
        ax = self.layout["throughput"]["axes"][0]
        self.assertEqual(ax["ylabel"], "images/s (log)")
        self.assertIn("ideal: N × the line's N = 1 images/s", [s[0] for s in ax["series"]])


if __name__ == "__main__":
    unittest.main()
