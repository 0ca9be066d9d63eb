"""test_plots.py — unittest (stdlib only) for plots/: every plot script on the committed sample
files (results/samples/), on a multi-N study derived from them, and on commbench JSON; each
expected PNG/PDF must exist, be non-empty, and the PNG must be a real image with drawn content;
corrupt or missing inputs must give a non-zero exit with exactly one error line.

Run: /usr/bin/python3 -m unittest -v tests/python/test_plots.py   (ctest: python.plots)

It deliberately does not compare pixels against reference images (fonts and matplotlib versions
move them), and does not judge whether a plot is pretty. The multi-N fixture is made here with
h5py by copying the committed sample run files and changing strategy, N and timings — the only
h5py writes in plots/ and tests/python/; its numbers are invented, only its shape is real.
"""
from __future__ import annotations

import contextlib
import io
import json
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

import accuracy  # noqa: E402
import accuracy_cost  # noqa: E402
import breakdown  # noqa: E402
import commbench  # noqa: E402
import curves  # noqa: E402
import efficiency  # noqa: E402
import sbload  # noqa: E402
import sbplot  # noqa: E402
import speedup  # noqa: E402

# A real `scalebench commbench --json` output (threads transport, 4 ranks, this project's
# commbench_main on a 2-core VM), trimmed to 4K…1M. Used because the sample folder has no
# commbench file.
COMMBENCH_THREADS4 = {
    "benchmark": "allreduce", "transport": "threads", "ranks": 4, "nodes": 1, "hostnames": ["vm"] * 4,
    "chunk_bytes": 131072, "depth": 4, "ranks_per_node": 0, "warmup": 2, "iters": 10, "busbw_factor": "2(n-1)/n",
    "results": [
        {"algo": a, "bytes": b, "count": b // 4, "time_us": t, "algbw_GBps": b / t / 1e3,
         "busbw_GBps": b / t / 1e3 * 1.5, "max_abs_err": 0}
        for b, ts in [(4096, (175.9, 374.8, 246.3)), (16384, (122.3, 553.8, 259.8)), (65536, (253.7, 329.1, 712.4)),
                      (262144, (204.9, 383.3, 358.2)), (1048576, (993.8, 1016.6, 1695.1))]
        for a, t in zip(("native", "ring", "hierarchical"), ts)
    ],
}


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


def make_multi_n_study(dst):
    """A study with U-Net single/ring/multiworker at N = 1…8 (two repetitions of ring, one failed
    ring N=16), VGG multiworker at N = 1, 2, 4 in strong scaling, built from the sample run files."""
    import h5py
    runs = os.path.join(dst, "runs")
    os.makedirs(runs)
    with h5py.File(os.path.join(SAMPLES, "study.h5"), "r") as f:
        tmpl = f["runs"][()]
        study_attrs = dict(f.attrs)
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
    with h5py.File(os.path.join(dst, "study.h5"), "w") as f:
        f.attrs.update(study_attrs)
        f.attrs["study"] = "multi-n-fixture"
        f.attrs["runs"] = len(rows)
        f.create_dataset("runs", data=arr)
    return dst


class SamplePlots(unittest.TestCase):
    """Every plot on the committed sample files (results/samples)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sb_plots_")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def out(self, name):
        return os.path.join(self.tmp, name)

    def test_speedup(self):
        check_outputs(self, speedup.make(SAMPLES, self.out("speedup")), ["speedup"])

    def test_efficiency(self):
        check_outputs(self, efficiency.make(os.path.join(SAMPLES, "study.h5"), self.out("eff")), ["efficiency"])

    def test_accuracy(self):
        check_outputs(self, accuracy.make(SAMPLES, self.out("acc")), ["accuracy"])

    def test_curves(self):
        paths = curves.make(SAMPLES, self.out("curves"))
        models = {r["model"] for r in sbload.load_study(SAMPLES).rows if r["epochs_done"] > 0}
        self.assertIn("unet:depth=2,base=4", models)
        check_outputs(self, paths, ["curves-" + sbplot.slug(m) for m in models])
        self.assertIn("curves-unet_depth-2_base-4.png", [os.path.basename(p) for p in paths])

    def test_breakdown(self):
        check_outputs(self, breakdown.make(SAMPLES, self.out("bd")), ["breakdown"])

    def test_commbench_absent_is_no_data(self):
        with self.assertRaises(sbload.NoData):
            commbench.make(SAMPLES, self.out("cb0"))

    def test_commbench_json(self):
        d = self.out("cbjson")
        os.makedirs(d)
        with open(os.path.join(d, "commbench-threads.json"), "w") as fh:
            json.dump(COMMBENCH_THREADS4, fh)
        rows = [{"transport": "mpi", "algo": a, "ranks": 2, "bytes": 4096 * 4 ** k, "time_us": 10.0 * 3 ** k,
                 "algbw_GBps": 0.4 * 1.3 ** k, "busbw_GBps": 0.4 * 1.3 ** k, "max_error": 0}
                for a in ("native", "ring") for k in range(5)]
        with open(os.path.join(d, "commbench-rows.json"), "w") as fh:
            json.dump(rows, fh)  # the plain list-of-rows form
        sets = sbload.load_commbench(os.path.join(d, "commbench-rows.json"))
        self.assertEqual([(s.transport, s.ranks, len(s.rows)) for s in sets], [("mpi", 2, 10)])
        check_outputs(self, commbench.make(d, self.out("cb")), ["commbench"])

    def test_caption_counts_not_ok_runs(self):
        # The samples (results/samples/README.md) hold failed `mirrored` runs and one killed run
        # left `running`; counted from the rows so a regeneration with other counts still passes.
        study = sbload.load_study(SAMPLES)
        note = sbplot.not_shown_note(study.rows)
        statuses = [r["status"] for r in study.rows if r["status"] != "ok"]
        self.assertTrue(statuses, "the samples should include runs that are not ok")
        for st in set(statuses):
            k = statuses.count(st)
            self.assertIn(f"{k} {st} point{'s' if k != 1 else ''} not shown (", note)
        cap = sbplot.caption(study, study.ok_rows(), study.rows)
        self.assertIn("scalebench 0.1.0", cap)
        self.assertIn("weak scaling", cap)
        self.assertIn("1 host", cap)

    def test_loader_decodes_and_fills(self):
        study = sbload.load_study(SAMPLES)
        self.assertEqual(len(study.rows), study.attrs["runs"])  # collect's own counts
        self.assertEqual(len(study.ok_rows()), study.attrs["runs_ok"])
        self.assertTrue(all(isinstance(r["status"], str) for r in study.rows))
        killed = [r for r in study.rows if r["status"] == "running"][0]
        run = study.run(killed)
        self.assertGreaterEqual(run.n_epochs(), 2)
        self.assertEqual(run.summary, {})
        self.assertTrue(np.isnan(sbload.num(run.summary.get("images_per_s"))))

    def test_make_all_on_samples(self):
        out = self.out("all")
        p = run_make_all(SAMPLES, "-o", out)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        written = [line for line in p.stdout.splitlines() if line.startswith(out)]
        self.assertGreaterEqual(len(written), 12, p.stdout)  # 6 figures at least, PNG + PDF each
        for w in written:
            self.assertTrue(os.path.getsize(w) > 0, w)
        self.assertRegex(p.stdout, r"(?m)^skipped: commbench: .+")


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


class MultiNPlots(FixtureStudyCase):
    """Every study plot on a multi-N, multi-strategy, weak + strong study derived from the samples."""
    build = staticmethod(make_multi_n_study)

    def test_make_all(self):
        out = os.path.join(self.tmp, "out")
        with open(os.path.join(self.study, "commbench-threads4.json"), "w") as fh:
            json.dump(COMMBENCH_THREADS4, fh)
        p = run_make_all(self.study, "-o", out)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        stems = {os.path.splitext(os.path.basename(x))[0] for x in p.stdout.split() if x.startswith(out)}
        self.assertEqual(stems, {"speedup", "efficiency", "accuracy", "breakdown", "commbench",
                                 "curves-unet_depth-2_base-4", "curves-vgg11_width-0.0625_hidden-16_bn-1"})
        for s in stems:
            png_has_content(self, os.path.join(out, s + ".png"))
            pdf_ok(self, os.path.join(out, s + ".pdf"))

    def test_failed_point_in_caption(self):
        study = sbload.load_study(self.study)
        self.assertIn("1 failed point not shown (ring N=16)", sbplot.caption(study, study.ok_rows(), study.rows))

    def test_breakdown_reads_steps(self):
        study = sbload.load_study(self.study)
        rows = [r for r in study.ok_rows() if r["strategy"] == "ring" and r["world_size"] == 8]
        phases = breakdown.phase_means(study, rows)
        self.assertGreater(phases["t_comm_exposed"], 0)
        self.assertAlmostEqual(sum(phases[p] for p, _ in breakdown.PHASES), phases["t_total"], places=9)


class FigureRules(FixtureStudyCase):
    """The rules a figure for a paper keeps (docs/plots.md, "Figure rules"), read from the layout
    record sbplot.finish() keeps of each figure it drew (sbplot.LAYOUT): legends outside the data,
    titles that fit and do not collide, at most sbplot.MAX_SERIES series per axes, one colour per
    strategy in every figure, one y scale across the breakdown panels. Each figure is drawn once
    (about 10 s in all)."""
    build = staticmethod(make_multi_n_study)

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        del sbplot.LAYOUT[:]
        out = os.path.join(cls.tmp, "rules")
        for mod in (speedup, efficiency, accuracy, curves, breakdown):
            mod.make(cls.study, out)
        commbench.make(cls.study, out, commbench=[cls._commbench(cls.tmp)])
        cls.layout = {r["stem"]: r for r in sbplot.LAYOUT}

    @staticmethod
    def _commbench(tmp):
        path = os.path.join(tmp, "cb.json")
        with open(path, "w") as fh:
            json.dump(COMMBENCH_THREADS4, fh)
        return path

    def test_every_figure_drawn(self):
        self.assertEqual(set(self.layout), {"speedup", "efficiency", "accuracy", "breakdown", "commbench",
                                            "curves-unet_depth-2_base-4", "curves-vgg11_width-0.0625_hidden-16_bn-1"})

    def test_legends_outside_and_titles_fit(self):
        for stem, rec in self.layout.items():
            self.assertTrue(rec["title_fits"], f"{stem}: title wider than the figure: {rec['title']}")
            self.assertFalse(sbplot.titles_collide(rec), f"{stem}: panel titles overlap")
            for ax in rec["axes"]:
                self.assertFalse(ax["legend_inside"], f"{stem}: a legend inside the panel '{ax['title']}'")

    def test_at_most_max_series_per_axes(self):
        for stem, rec in self.layout.items():
            for ax in rec["axes"]:
                self.assertLessEqual(len(ax["series"]), sbplot.MAX_SERIES, f"{stem}: '{ax['title']}': {ax['series']}")
        # the U-Net curves hold 9 strategy × N series plus a failed run: split into one row per N
        unet = self.layout["curves-unet_depth-2_base-4"]
        self.assertTrue(any(a["title"].startswith("N = 8: ") for a in unet["axes"]), [a["title"] for a in unet["axes"]])

    def test_one_colour_per_strategy(self):
        seen = {}
        for stem, rec in self.layout.items():
            for ax in rec["axes"]:
                for label, color, _ in ax["series"]:
                    strategy = label.replace(":", " ").split()[0]
                    if strategy in sbplot.STRATEGY_STYLE:
                        seen.setdefault(strategy, set()).add(color)
        self.assertGreaterEqual(set(seen), {"single", "ring", "multiworker"})
        for strategy, colors in seen.items():
            self.assertEqual(colors, {sbplot.STRATEGY_STYLE[strategy][0].lower()}, strategy)

    def test_breakdown_shares_one_scale(self):
        ylims = {tuple(a["ylim"]) for a in self.layout["breakdown"]["axes"]}
        self.assertEqual(len(ylims), 1, ylims)

    def test_long_title_wraps(self):
        fig, axes = sbplot.grid(1)
        axes[0].plot([1, 2], [1, 2], label="ring")
        sbplot.finish(fig, "A title far longer than one narrow panel can hold on a single line of bold text",
                      "", os.path.join(self.tmp, "wrap"), "wrap")
        rec = sbplot.LAYOUT[-1]
        self.assertGreater(len(rec["title"]), 1)
        self.assertTrue(rec["title_fits"])
        self.assertTrue(rec["axes"][0]["legend_inside"] is False)


def make_recipe_study(dst):
    """A study file (no run files: accuracy_cost reads only the study file) of one U-Net at N = 1, 2,
    4, 8 under lr_scaling none/linear × sync_bn false/true, built from the sample U-Net row with a
    sync_bn column added. Its mIoU values are invented and listed in RECIPE_MIOU."""
    import h5py
    with h5py.File(os.path.join(SAMPLES, "study.h5"), "r") as f:
        tmpl = f["runs"][()]
        attrs = dict(f.attrs)
    src = next(r for r in tmpl if r["run_id"].decode() == "d8270d579261f947")
    names = list(tmpl.dtype.names) + ["sync_bn"]
    dt = np.dtype([(n, h5py.string_dtype("utf-8") if n != "sync_bn" and tmpl.dtype[n].kind == "O"
                    else (np.int8 if n == "sync_bn" else tmpl.dtype[n])) for n in names])
    rows = []
    for k, ((rule, sync, n), miou) in enumerate(RECIPE_MIOU.items()):
        r = {n_: (src[n_].decode() if isinstance(src[n_], bytes) else src[n_]) for n_ in tmpl.dtype.names}
        r.update(run_id=f"{k:016x}", point_id=f"p{k}", group_id=f"g{rule}{sync}", strategy="mirrored",
                 world_size=n, lr_scaling=rule, sync_bn=int(sync), final_val_miou=miou, status="ok")
        rows.append(tuple(r[n_] if n_ in r else 0 for n_ in names))
    os.makedirs(dst)
    with h5py.File(os.path.join(dst, "study.h5"), "w") as f:
        f.attrs.update(attrs)
        f.attrs["study"] = "recipe-fixture"
        f.attrs["runs"] = len(rows)
        f.attrs["point_fields"] = "model,strategy,world_size,batch,lr_scaling,sync_bn"
        f.create_dataset("runs", data=np.array(rows, dtype=dt))
    return dst


RECIPE_MIOU = {(rule, sync, n): round(0.60 - (0.02 if rule == "none" else 0.005) * (n.bit_length() - 1)
                                      + (0.01 if sync else 0.0) + (0.003 * (rule == "linear") if n == 1 else 0), 4)
               for rule in ("none", "linear") for sync in (False, True) for n in (1, 2, 4, 8)}


class AccuracyCostPlot(FixtureStudyCase):
    """accuracy_cost.py on a small recipe study (invented numbers, real study-file shape)."""
    build = staticmethod(make_recipe_study)

    def test_plot_drawn(self):
        check_outputs(self, accuracy_cost.make(self.study, os.path.join(self.tmp, "out")), ["accuracy-cost"])
        rec = sbplot.LAYOUT[-1]  # the figure rules (FigureRules) hold here too
        self.assertEqual(rec["stem"], "accuracy-cost")
        self.assertTrue(rec["title_fits"])
        self.assertFalse(any(a["legend_inside"] for a in rec["axes"]))
        self.assertFalse(sbplot.titles_collide(rec))

    def test_recipe_fields_and_band(self):
        rows = sbload.load_study(self.study).ok_rows()
        self.assertEqual(accuracy_cost.varied_recipe_fields(rows), ["lr_scaling", "sync_bn"])
        n1 = [v for (rule, sync, n), v in RECIPE_MIOU.items() if n == 1]
        lo, med, hi = accuracy_cost.n1_band(rows, "final_val_miou", 1.0)
        self.assertAlmostEqual(lo, min(n1))
        self.assertAlmostEqual(hi, max(n1))
        self.assertAlmostEqual(med, float(np.median(n1)))

    def test_no_recipe_varied_is_no_data(self):
        # The samples hold two models with their own LRs and one U-Net recipe: not a recipe study.
        with self.assertRaises(sbload.NoData):
            accuracy_cost.make(SAMPLES, os.path.join(self.tmp, "none"))

    def test_make_all_draws_it(self):
        out = os.path.join(self.tmp, "all")
        p = run_make_all(self.study, "-o", out, "--only", "accuracy_cost")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn(os.path.join(out, "accuracy-cost.png"), p.stdout.split())


def make_critical_batch_study(dst, b_simple=True):
    """A study file (no run files: critical_batch reads only the study file) of a tuned
    critical-batch study as collect writes it: U-Net, global batch 4-64 (batch x accumulate on
    one device), lr 0.05/0.1 of which one is selected per batch, 3 seeds; batch 64 reached the
    target in one seed of three only (its olympic mean: not reached). Invented steps (CRITICAL_STEPS),
    real column names; with b_simple, every run carries a measured noise scale near 20."""
    import h5py
    with h5py.File(os.path.join(SAMPLES, "study.h5"), "r") as f:
        attrs = dict(f.attrs)
    cols = {k: [] for k in ("run_id", "point_id", "group_id", "config_id", "status", "model", "strategy", "scaling",
                            "task", "target_metric", "lr")}
    num_cols = ("world_size", "batch", "accumulate", "global_batch", "seed", "selected", "config_runs", "config_seeds",
                "target_not_reached")
    f64_cols = ("target_value", "steps_to_target", "steps_to_target_olympic", "steps_to_target_lo",
                "steps_to_target_hi", "b_simple")
    for c in num_cols + f64_cols:
        cols[c] = []
    k = 0
    for gb, (steps, lo, hi, nr) in CRITICAL_STEPS.items():
        for lr in ("0.05", "0.1"):
            for seed in (1, 2, 3):
                sel = lr == "0.1"
                row = dict(run_id=f"{k:016x}", point_id=f"p{gb}-{lr}-{seed}", group_id=f"g{gb}-{lr}-{seed}",
                           config_id=f"c{gb}-{lr}", status="ok", model="unet:depth=2,base=8", strategy="single",
                           scaling="weak", task="segmentation", target_metric="val_miou", lr=lr, world_size=1,
                           batch=4, accumulate=gb // 4, global_batch=gb, seed=seed, selected=int(sel), config_runs=3,
                           config_seeds=3, target_not_reached=nr if sel else 0, target_value=0.4,
                           steps_to_target=lo, steps_to_target_olympic=steps if sel else steps * 1.5,
                           steps_to_target_lo=lo, steps_to_target_hi=hi,
                           b_simple=(18.0 + seed) if b_simple else np.nan)
                for c, v in row.items():
                    cols[c].append(v)
                k += 1
    fields = []
    for c, v in cols.items():
        kind = (h5py.string_dtype("utf-8") if isinstance(v[0], str)
                else np.int64 if c in num_cols else np.float64)
        fields.append((c, kind))
    arr = np.array(list(zip(*cols.values())), dtype=np.dtype(fields))
    os.makedirs(dst)
    with h5py.File(os.path.join(dst, "study.h5"), "w") as f:
        f.attrs.update(attrs)
        f.attrs["study"] = "critical-batch-fixture"
        f.attrs["runs"] = len(arr)
        f.attrs["point_fields"] = "model,strategy,world_size,batch,accumulate,lr,seed"
        f.attrs["select_objective"] = "steps_to_target"
        f.attrs["select_tuned"] = "lr"
        f.create_dataset("runs", data=arr)
    return dst


# global batch -> (olympic mean of steps, lowest seed, highest seed, seeds not reached) of the
# selected lr; batch 64: two seeds of three never reached the target.
CRITICAL_STEPS = {4: (400.0, 380.0, 430.0, 0), 8: (210.0, 200.0, 240.0, 0), 16: (120.0, 110.0, 150.0, 0),
                  32: (90.0, 80.0, np.inf, 1), 64: (np.inf, 85.0, np.inf, 2)}


class CriticalBatchPlot(FixtureStudyCase):
    """critical_batch.py on a tuned study with B_simple (invented numbers, real study-file shape)."""
    build = staticmethod(make_critical_batch_study)

    def test_plot_drawn_with_its_marks(self):
        import critical_batch
        check_outputs(self, critical_batch.make(self.study, os.path.join(self.tmp, "out")), ["critical-batch"])
        rec = sbplot.LAYOUT[-1]  # the figure rules (FigureRules) hold here too
        self.assertEqual(rec["stem"], "critical-batch")
        self.assertTrue(rec["title_fits"])
        self.assertFalse(any(a["legend_inside"] for a in rec["axes"]))
        labels = [s[0] for s in rec["axes"][0]["series"]]
        self.assertIn("perfect scaling (steps ∝ 1/batch)", labels)
        self.assertTrue(any(lb.startswith("B_simple (measured)") for lb in labels), labels)
        self.assertIn("not reached (olympic mean)", labels)
        # The strategy keeps its one colour (FigureRules): single's.
        single = [s for s in rec["axes"][0]["series"] if s[0] == "single"]
        self.assertEqual(single[0][1], sbplot.STRATEGY_STYLE["single"][0].lower())
        self.assertIn("tuned per batch over lr by steps_to_target", rec["caption"])
        self.assertIn("3 of 15 runs shown did not reach the target", rec["caption"])

    def test_points_are_the_selected_ones(self):
        import critical_batch
        rows = critical_batch.shown_rows(sbload.load_study(self.study))
        self.assertEqual({r["lr"] for r in rows}, {"0.1"})
        pts = critical_batch.points(rows)
        self.assertEqual([p[0] for p in pts], [4, 8, 16, 32, 64])
        self.assertEqual(pts[0][1], 400.0)
        self.assertTrue(np.isinf(pts[-1][1]))

    def test_without_b_simple_the_caption_says_so(self):
        import critical_batch
        d = make_critical_batch_study(os.path.join(self.tmp, "no-b"), b_simple=False)
        critical_batch.make(d, os.path.join(self.tmp, "no-b-out"))
        rec = sbplot.LAYOUT[-1]
        self.assertIn("B_simple: not measured in this study", rec["caption"])
        self.assertFalse(any(s[0].startswith("B_simple") for s in rec["axes"][0]["series"]))

    def test_no_target_is_no_data_and_make_all_draws_it(self):
        import critical_batch
        with self.assertRaises(sbload.NoData):
            critical_batch.make(SAMPLES, os.path.join(self.tmp, "none"))
        out = os.path.join(self.tmp, "all")
        p = run_make_all(self.study, "-o", out, "--only", "critical_batch")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn(os.path.join(out, "critical-batch.png"), p.stdout.split())


class BadInputs(unittest.TestCase):
    """Missing or corrupt inputs: non-zero exit, exactly one line on stderr naming the file."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sb_plots_bad_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def one_error_line(self, p, needle):
        self.assertNotEqual(p.returncode, 0, p.stdout + p.stderr)
        lines = [line for line in p.stderr.splitlines() if line.strip()]
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertIn(needle, lines[0])
        self.assertTrue(lines[0].startswith("make_all.py: error: "), lines[0])

    def test_corrupt_study_file(self):
        bad = os.path.join(self.tmp, "study.h5")
        with open(bad, "wb") as fh:
            fh.write(b"\x89HDF\r\n\x1a\n" + b"this is not really HDF5" * 40)
        self.one_error_line(run_make_all(bad, "-o", os.path.join(self.tmp, "o")), bad)

    def test_corrupt_study_folder(self):
        with open(os.path.join(self.tmp, "study.h5"), "wb") as fh:
            fh.write(b"garbage")
        self.one_error_line(run_make_all(self.tmp), "study.h5")

    def test_missing_input(self):
        missing = os.path.join(self.tmp, "nope", "study.h5")
        self.one_error_line(run_make_all(missing), missing)

    def test_truncated_run_file(self):
        d = os.path.join(self.tmp, "s")
        shutil.copytree(SAMPLES, d)
        victim = os.path.join(d, "runs", "d8270d579261f947.h5")
        with open(victim, "r+b") as fh:
            fh.truncate(300)
        self.one_error_line(run_make_all(d, "-o", os.path.join(self.tmp, "o")), victim)

    def test_run_file_given_as_study(self):
        run = os.path.join(SAMPLES, "runs", "d8270d579261f947.h5")
        self.one_error_line(run_make_all(run, "-o", os.path.join(self.tmp, "o")), "expected a study file")

    def test_corrupt_commbench_json(self):
        d = os.path.join(self.tmp, "s")
        shutil.copytree(SAMPLES, d)
        with open(os.path.join(d, "commbench.json"), "w") as fh:
            fh.write('{"benchmark": "allreduce", "results": [')
        self.one_error_line(run_make_all(d, "-o", os.path.join(self.tmp, "o")), "commbench.json")

    def test_loader_raises_input_error(self):
        bad = os.path.join(self.tmp, "x.h5")
        with open(bad, "w") as fh:
            fh.write("not hdf5")
        with self.assertRaises(sbload.InputError):
            sbload.load_study(bad)
        with self.assertRaises(sbload.InputError):
            sbload.load_run(bad)
        with contextlib.redirect_stderr(io.StringIO()):
            with self.assertRaises(sbload.InputError):
                sbload.load_commbench(bad)


class TestAnchorsAndProjection(unittest.TestCase):
    """tools/make_anchors.py writes study files the plots read; projection.py draws a projection
    file's lines with points overlaid, and refuses a file that is not a projection."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sb_proj_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _projection(self, path):
        import h5py
        sdt = h5py.string_dtype("utf-8")
        dt = np.dtype([("point_id", sdt), ("group_id", sdt), ("status", sdt), ("model", sdt), ("strategy", sdt),
                       ("scaling", sdt), ("source", sdt), ("world_size", "<i8"), ("efficiency", "<f8")])
        rows = [(f"p-{n}", "project-vgg16-weak", "ok", "vgg16", "ring", "weak", "projection", n, e)
                for n, e in ((1, 1.0), (2, 0.8), (512, 0.5))]
        with h5py.File(path, "w") as f:
            f.attrs.update({"schema_version": np.int64(1), "kind": "study", "network": "profile 25gbe"})
            f.create_dataset("runs", data=np.array(rows, dtype=dt))

    def test_anchor_files(self):
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "make_anchors.py"), self.tmp], check=True,
                       capture_output=True)
        hv = sbload.load_study(os.path.join(self.tmp, "horovod-2018.h5"))
        eff = {r["model"]: r["efficiency"] for r in hv.rows}
        self.assertEqual(eff, {"inception_v3": 0.90, "resnet101": 0.90, "vgg16": 0.68})
        self.assertIn("68% scaling efficiency for VGG-16", hv.attrs["source"])
        self.assertTrue(all(r["world_size"] == 512 and r["status"] == "ok" for r in hv.rows))
        # the committed files are what the generator writes (rows, not creation metadata)
        shipped = sbload.load_study(os.path.join(ROOT, "results", "anchors", "horovod-2018.h5"))
        self.assertEqual([(r["model"], r["efficiency"]) for r in shipped.rows], [(r["model"], r["efficiency"]) for r in hv.rows])
        paths = efficiency.make(os.path.join(self.tmp, "unet-medical-tf2.h5"), self.tmp)
        self.assertTrue(all(os.path.getsize(p) > 0 for p in paths))

    def test_projection_plot_with_overlay(self):
        import projection
        proj = os.path.join(self.tmp, "projection.h5")
        self._projection(proj)
        anchor = os.path.join(ROOT, "results", "anchors", "horovod-2018.h5")
        out = os.path.join(self.tmp, "figs")
        r = subprocess.run([sys.executable, os.path.join(ROOT, "plots", "make_all.py"), anchor, "-o", out,
                            "--only", "efficiency", "--projection", proj], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(os.path.join(out, "projection.png"), r.stdout)
        self.assertGreater(mpimg.imread(os.path.join(out, "projection.png")).shape[0], 100)
        with self.assertRaises(sbload.NoData):
            projection.make(anchor, out, [])  # an anchor is not a projection file

    def test_projection_title_and_identical_lines(self):
        import h5py
        import projection
        proj = os.path.join(self.tmp, "projection.h5")
        self._projection(proj)
        with h5py.File(proj, "r+") as f:  # a second strategy with the very same predictions
            rows = f["runs"][()]
            twin = rows.copy()
            twin["strategy"] = "hierarchical"
            twin["point_id"] = [b"h" + p for p in rows["point_id"]]
            del f["runs"]
            f.create_dataset("runs", data=np.concatenate([rows, twin]))
        projection.make(proj, os.path.join(self.tmp, "alone"), [])
        rec = sbplot.LAYOUT[-1]
        self.assertNotIn("measured points overlaid", " ".join(rec["title"]))
        self.assertIn("no measured point overlaid", rec["caption"])
        self.assertIn("identical predictions: hierarchical = ring", rec["caption"])
        xs = {label: x for label, _, x in rec["axes"][0]["series"]}
        self.assertNotEqual(xs["ring: predicted"], xs["hierarchical: predicted"])  # side by side, both visible
        anchor = os.path.join(ROOT, "results", "anchors", "horovod-2018.h5")
        projection.make(proj, os.path.join(self.tmp, "over"), [anchor])
        self.assertIn("measured points overlaid", " ".join(sbplot.LAYOUT[-1]["title"]))


if __name__ == "__main__":
    unittest.main()
