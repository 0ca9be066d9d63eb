"""plot_fixtures.py — what the plot tests share (tests/python/test_plots*.py): the checks of a drawn
file (a real PNG with content, a PDF, the expected stems), make_all.py as a subprocess, the multi-N
study derived from the committed samples, the test class over one fixture study, and the figure
rules every recipe-style figure keeps. Not a test itself; it deliberately holds no assertions about
any one plot script.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
PLOTS = os.path.join(ROOT, "plots")
SAMPLES = os.path.join(ROOT, "results", "samples")
PY = sys.executable or "/usr/bin/python3"
sys.path.insert(0, PLOTS)

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402
import numpy as np  # noqa: E402

import sbplot  # noqa: E402


def png_has_content(test, path):
    test.assertTrue(os.path.isfile(path), path)
    test.assertGreater(os.path.getsize(path), 2000, path)
    with open(path, "rb") as fh:
        test.assertEqual(fh.read(8), b"\x89PNG\r\n\x1a\n", path)
    img = mpimg.imread(path)
    test.assertEqual(img.ndim, 3, path)
    test.assertGreater(img.shape[0], 200, path)
    test.assertGreater(img.shape[1], 300, path)
    rgb = img[..., :3]
    test.assertGreater(float(rgb.std()), 0.02, f"{path}: nearly uniform image")
    # Drawn content: a fair share of non-white pixels, and coloured (non-grey) ones (data lines).
    nonwhite = (rgb.min(axis=2) < 0.9).mean()
    test.assertGreater(nonwhite, 0.005, f"{path}: almost nothing drawn")
    colourful = ((rgb.max(axis=2) - rgb.min(axis=2)) > 0.25).mean()
    test.assertGreater(colourful, 0.0005, f"{path}: no coloured data drawn")


def pdf_ok(test, path):
    test.assertTrue(os.path.isfile(path), path)
    test.assertGreater(os.path.getsize(path), 1000, path)
    with open(path, "rb") as fh:
        test.assertEqual(fh.read(5), b"%PDF-", path)


def check_outputs(test, paths, expected_stems):
    stems = sorted({os.path.splitext(os.path.basename(p))[0] for p in paths})
    test.assertEqual(stems, sorted(expected_stems))
    for p in paths:
        if p.endswith(".png"):
            png_has_content(test, p)
        else:
            test.assertTrue(p.endswith(".pdf"), p)
            pdf_ok(test, p)
    test.assertEqual(len(paths), 2 * len(expected_stems))


def run_make_all(*args):
    return subprocess.run([PY, os.path.join(PLOTS, "make_all.py"), *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


def write_fixture_study(dst, name, runs, **attrs):
    """Write DST/study.h5 as collect would: the committed sample study's root attributes, `study` =
    NAME, `runs` = the row count, any further ATTRS, and the structured array RUNS as /runs. Returns
    DST (made if missing)."""
    import h5py
    with h5py.File(os.path.join(SAMPLES, "study.h5"), "r") as f:
        sample_attrs = dict(f.attrs)
    os.makedirs(dst, exist_ok=True)
    with h5py.File(os.path.join(dst, "study.h5"), "w") as f:
        f.attrs.update(sample_attrs)
        f.attrs["study"] = name
        f.attrs["runs"] = len(runs)
        for k, v in attrs.items():
            f.attrs[k] = v
        f.create_dataset("runs", data=runs)
    return dst


def make_multi_n_study(dst):
    """A study with U-Net single/ring/multiworker at N = 1…8 (two repetitions of ring, one failed
    ring N=16), VGG multiworker at N = 1, 2, 4 in strong scaling, built from the sample run files."""
    import h5py
    runs = os.path.join(dst, "runs")
    os.makedirs(runs)
    with h5py.File(os.path.join(SAMPLES, "study.h5"), "r") as f:
        tmpl = f["runs"][()]
    by_id = {r["run_id"].decode(): r for r in tmpl}
    points = []  # (source run id, strategy, N, rep, status, scaling)
    for s, n_list in (("single", [1]), ("ring", [1, 2, 4, 8]), ("multiworker", [1, 2, 4, 8])):
        for n in n_list:
            for rep in ((1, 2) if s == "ring" else (1,)):
                points.append(("d8270d579261f947", s, n, rep, "ok", "weak"))
    points.append(("d8270d579261f947", "ring", 16, 1, "failed", "weak"))
    for n in (1, 2, 4):
        points.append(("7f88d9d897361a49", "multiworker", n, 1, "ok", "strong"))
    rows = []
    for k, (src, strat, n, rep, status, scaling) in enumerate(points):
        rid = f"{k:016x}"
        gid = f"g{src[:7]}{scaling[0]}"
        comm = {"single": 0.0, "ring": 0.0015, "multiworker": 0.0025}[strat] * np.log2(2 * n) * (n > 1)
        shutil.copy(os.path.join(SAMPLES, "runs", src + ".h5"), os.path.join(runs, rid + ".h5"))
        with h5py.File(os.path.join(runs, rid + ".h5"), "r+") as f:
            f.attrs["status"] = status
            f["config"].attrs.update({"strategy": strat, "world_size": n, "repetition": rep, "run_id": rid,
                                      "group_id": gid, "point_id": f"p{src[:5]}{strat}{n}", "scaling": scaling})
            f["context"].attrs["hostnames"] = "node01" if n <= 4 else "node01,node02"
            st = f["steps"][()]
            if scaling == "strong":
                for c in ("t_data", "t_fwd", "t_bwd", "t_update"):
                    st[c] /= n
            st["t_comm_exposed"] = comm * (1 + 0.1 * rep)
            st["t_total"] = sum(st[c] for c in ("t_data", "t_fwd", "t_bwd", "t_comm_exposed", "t_update"))
            st["loss"] *= 1 + 0.03 * np.log2(n)
            f["steps"][...] = st
            ep = f["epochs"][()]
            ep["wall_s"] = [st["t_total"][st["epoch"] == e].sum() for e in ep["epoch"]]
            ep["train_loss"] *= 1 + 0.04 * np.log2(n)
            ep["val_miou"] *= 1 - 0.03 * np.log2(n)
            ep["val_accuracy"] *= 1 - 0.02 * np.log2(n)
            f["epochs"][...] = ep
            if status != "ok":
                f.attrs["error"] = "killed by signal 9 (Killed)"
                for a in list(f["summary"].attrs):
                    del f["summary"].attrs[a]
        r = by_id[src].copy()
        meas = ep[ep["warmup"] == 0]
        imgs = meas["images"].sum() * (n if scaling == "weak" else 1)
        r["run_id"], r["group_id"], r["point_id"] = rid.encode(), gid.encode(), f"p{src[:5]}{strat}{n}".encode()
        r["strategy"], r["status"], r["scaling"] = strat.encode(), status.encode(), scaling.encode()
        r["world_size"], r["repetition"], r["file"] = n, rep, f"runs/{rid}.h5".encode()
        r["images_per_s"] = imgs / meas["wall_s"].sum() if status == "ok" else np.nan
        r["final_train_loss"], r["final_val_miou"] = ep["train_loss"][-1], ep["val_miou"][-1]
        r["final_val_accuracy"], r["final_val_loss"] = ep["val_accuracy"][-1], ep["val_loss"][-1]
        r["error"] = b"" if status == "ok" else b"killed by signal 9 (Killed)"
        rows.append(r)
    for r in rows:  # speedup against the same strategy's N=1 (median over repetitions), as collect does
        if r["status"] != b"ok":
            r["speedup"] = r["efficiency"] = np.nan
            r["baseline"] = b""
            continue
        base = [b["images_per_s"] for b in rows if b["group_id"] == r["group_id"] and b["world_size"] == 1
                and b["strategy"] == r["strategy"] and b["status"] == b"ok"]
        r["baseline_images_per_s"] = float(np.median(base))
        r["baseline"] = r["strategy"] + b" N=1"
        r["speedup"] = r["images_per_s"] / r["baseline_images_per_s"]
        r["efficiency"] = r["speedup"] / r["world_size"]
    dt = np.dtype([(n, h5py.string_dtype("utf-8") if tmpl.dtype[n].kind == "O" else tmpl.dtype[n])
                   for n in tmpl.dtype.names])
    arr = np.array([tuple(r[n].decode() if isinstance(r[n], bytes) else r[n] for n in tmpl.dtype.names)
                    for r in rows], dtype=dt)
    return write_fixture_study(dst, "multi-n-fixture", arr)




class FixtureStudyCase(unittest.TestCase):
    """A test class over one fixture study, made once in a temporary folder by `build`."""
    build = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sb_plots_fixture_")
        cls.study = cls.build(os.path.join(cls.tmp, "study"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)



def assert_figure_rules(test, stem):
    """The last figure sbplot drew is `stem` and keeps the figure rules (FigureRules): its title fits
    and collides with nothing, and no legend sits inside the data."""
    rec = sbplot.LAYOUT[-1]
    test.assertEqual(rec["stem"], stem)
    test.assertTrue(rec["title_fits"])
    test.assertFalse(any(a["legend_inside"] for a in rec["axes"]))
    test.assertFalse(sbplot.titles_collide(rec))
    return rec
