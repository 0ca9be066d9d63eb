"""test_plots.py — unittest (stdlib only) for plots/: every plot script on the committed sample
files (results/samples/), on a multi-N study derived from them, and on commbench JSON; each
expected PNG/PDF must exist, be non-empty, and the PNG must be a real image with drawn content;
corrupt or missing inputs must give a non-zero exit with exactly one error line.

Run: /usr/bin/python3 -m unittest -v tests/python/test_plots.py   (ctest: python.plots)
The recipe figures (accuracy-cost, critical batch) are tested in test_plots_recipes.py; what both
files share is in plot_fixtures.py.

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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_fixtures import (ROOT, SAMPLES, FixtureStudyCase, check_outputs, make_multi_n_study,  # noqa: E402
                           mpimg, np, pdf_ok, png_has_content, run_make_all)
import breakdown  # noqa: E402
import commbench  # noqa: E402
import efficiency  # noqa: E402
import sbload  # noqa: E402
import sbplot  # noqa: E402
import overlay  # noqa: E402
import speedup  # noqa: E402
import throughput  # noqa: E402


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



class SamplePlots(unittest.TestCase):
    """Every plot on the committed sample files (results/samples), drawn once by make_all.py (a
    subprocess: its command line as a user runs it); each test checks its figure's files."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sb_plots_")
        cls.all = os.path.join(cls.tmp, "all")
        cls.make_all = run_make_all(SAMPLES, "-o", cls.all)
        cls.written = [line for line in cls.make_all.stdout.splitlines() if line.startswith(cls.all)]

    def drawn(self, *stems):
        return [p for p in self.written if os.path.splitext(os.path.basename(p))[0] in stems]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def out(self, name):
        return os.path.join(self.tmp, name)

    def test_no_scaling_plots_at_one_n(self):
        # The samples run every point at N = 1: speedup, efficiency and throughput vs N have nothing
        # to show (a row of points at speedup 1 is not a scaling plot).
        for mod in (speedup, efficiency, throughput):
            with self.assertRaisesRegex(sbload.NoData, r"N does not vary .*\(N=1 only\)"):
                mod.make(os.path.join(SAMPLES, "study.h5"), self.out("one-n"))
        self.assertFalse(os.path.exists(self.out("one-n")))

    def test_accuracy(self):
        check_outputs(self, self.drawn("accuracy"), ["accuracy"])

    def test_curves(self):
        models = {r["model"] for r in sbload.load_study(SAMPLES).rows if r["epochs_done"] > 0}
        self.assertIn("unet:depth=2,base=4", models)
        stems = ["curves-" + sbplot.slug(m) for m in models]
        check_outputs(self, self.drawn(*stems), stems)
        self.assertIn("curves-unet_depth-2_base-4.png", [os.path.basename(p) for p in self.written])

    def test_breakdown(self):
        check_outputs(self, self.drawn("breakdown"), ["breakdown"])

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

    def test_commbench_collectives_panels_and_spread(self):
        # `--coll` tables (docs/comm.md): a panel per collective, spread shaded from time_min/max_us;
        # a file without the algorithm table ("results" empty) still plots.
        d = self.out("cbcoll")
        os.makedirs(d)
        rows = [{"collective": c, "type": t, "in_place": ip, "bytes": 1024 * 4 ** k, "time_us": 10.0 * 3 ** k,
                 "time_min_us": 9.0 * 3 ** k, "time_max_us": 14.0 * 3 ** k, "busbw_GBps": 0.1 * 1.5 ** k,
                 "busbw_factor": f, "wrong": 0}
                for c, f in (("allgather", "(n-1)/n"), ("alltoall", "(n-1)/n")) for t in ("float", "half")
                for ip in (False, True) for k in range(4)]
        with open(os.path.join(d, "commbench-coll.json"), "w") as fh:
            json.dump({"transport": "mpi", "ranks": 4, "nodes": 1, "results": [], "collectives": rows}, fh)
        check_outputs(self, commbench.make(d, self.out("cbc")), ["commbench"])
        rec = sbplot.LAYOUT[-1]
        self.assertEqual([a["title"] for a in rec["axes"]],
                         ["allgather (busbw = algbw × (n-1)/n)", "alltoall (busbw = algbw × (n-1)/n)"])
        self.assertEqual(len(rec["axes"][0]["series"]), 4)  # 2 types x out of place / in place
        self.assertIn("shaded: busbw at the slowest to the fastest timed call", rec["caption"])

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

    def test_shared_gpu_runs_are_captioned_as_correctness_runs(self):
        rows = [{"strategy": "ring", "world_size": 1, "gpu_shared": "0", "status": "ok"},
                {"strategy": "ring", "world_size": 2, "gpu_shared": "1", "status": "ok"},
                {"strategy": "mirrored", "world_size": 4, "gpu_shared": "1", "status": "ok"}]
        note = sbplot.shared_gpu_note(rows)
        self.assertIn("CORRECTNESS RUNS, NOT SCALING", note)
        self.assertIn("mirrored N=4, ring N=2", note)
        self.assertIn(note, sbplot.caption(None, rows, rows))
        self.assertEqual(sbplot.shared_gpu_note(rows[:1]), "")  # older study files have no column at all
        self.assertEqual(sbplot.shared_gpu_note([{"strategy": "ring", "world_size": 2}]), "")

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
        p = self.make_all
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertGreaterEqual(len(self.written), 8, p.stdout)  # 4 figures at least, PNG + PDF each
        for w in self.written:
            self.assertTrue(os.path.getsize(w) > 0, w)
        self.assertRegex(p.stdout, r"(?m)^skipped: commbench: .+")
        self.assertRegex(p.stdout, r"(?m)^skipped: speedup: N does not vary")




class FigureRules(FixtureStudyCase):
    """Every study plot on a multi-N, multi-strategy, weak + strong study derived from the samples,
    drawn once by make_all.py (in this process, so that its layout record can be read; with --with
    a copy of the study file: the overlay), and the rules a figure for a paper keeps (docs/plots.md,
    "Figure rules"), read from the layout record sbplot.finish() keeps of each figure it drew
    (sbplot.LAYOUT): legends outside the data, titles that fit and do not collide, at most
    sbplot.MAX_SERIES series per axes, one colour per strategy in every figure, one y scale across
    the breakdown panels (about 10 s in all)."""
    build = staticmethod(make_multi_n_study)

    @classmethod
    def setUpClass(cls):
        import make_all
        super().setUpClass()
        del sbplot.LAYOUT[:]
        cls.out = os.path.join(cls.tmp, "rules")
        with open(os.path.join(cls.study, "commbench-threads4.json"), "w") as fh:
            json.dump(COMMBENCH_THREADS4, fh)
        cls.other = os.path.join(cls.tmp, "other-system")
        os.makedirs(cls.other)
        shutil.copy(os.path.join(cls.study, "study.h5"), cls.other)  # its points; no run files
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            cls.rc = make_all.main([cls.study, "-o", cls.out, "--with", cls.other])
        cls.stdout = stdout.getvalue()
        cls.layout = {r["stem"]: r for r in sbplot.LAYOUT}

    def test_make_all(self):
        self.assertEqual(self.rc, 0, self.stdout)
        written = [x for x in self.stdout.split() if x.startswith(self.out)]
        stems = {os.path.splitext(os.path.basename(x))[0] for x in written}
        self.assertEqual(stems, {"throughput", "speedup", "efficiency", "accuracy", "breakdown", "commbench", "overlay",
                                 "curves-unet_depth-2_base-4", "curves-vgg11_width-0.0625_hidden-16_bn-1"})
        self.assertEqual(len(written), 2 * len(stems))
        for s in stems:
            png_has_content(self, os.path.join(self.out, s + ".png"))
            pdf_ok(self, os.path.join(self.out, s + ".pdf"))

    def test_failed_point_in_caption(self):
        study = sbload.load_study(self.study)
        self.assertIn("1 failed point not shown (ring N=16)", sbplot.caption(study, study.ok_rows(), study.rows))

    def test_breakdown_reads_steps(self):
        study = sbload.load_study(self.study)
        rows = [r for r in study.ok_rows() if r["strategy"] == "ring" and r["world_size"] == 8]
        phases = breakdown.phase_means(study, rows)
        self.assertGreater(phases["t_comm_exposed"], 0)
        self.assertAlmostEqual(sum(phases[p] for p, _ in breakdown.PHASES), phases["t_total"], places=9)

    def test_every_figure_drawn(self):
        self.assertEqual(set(self.layout), {"throughput", "speedup", "efficiency", "accuracy", "breakdown",
                                            "commbench", "overlay", "curves-unet_depth-2_base-4",
                                            "curves-vgg11_width-0.0625_hidden-16_bn-1"})

    def test_overlay_draws_both_studies(self):
        rec = self.layout["overlay"]
        labels = [label for ax in rec["axes"] for label, _, _ in ax["series"]]
        a, b = (f" — {sbload.load_study(s).name} ({os.path.basename(s)})" for s in (self.study, self.other))
        self.assertTrue(any(lb.endswith(a) for lb in labels) and any(lb.endswith(b) for lb in labels), labels)
        self.assertEqual({a["ylabel"] for a in rec["axes"]}, {"images/s (log)", "scaling efficiency (%)"})
        self.assertIn(a[3:] + ": scalebench", rec["caption"])
        self.assertIn(b[3:] + ": scalebench", rec["caption"])
        with self.assertRaises(sbload.InputError):  # one study is no overlay
            overlay.make([self.study], os.path.join(self.tmp, "one"))

    def test_paper_mode(self):
        # No title or caption, vector files only, the column's width; back to normal afterwards.
        for mode, width in (("one", 3.5), ("two", 7.16)):
            sbplot.use_paper(mode)
            try:
                paths = speedup.make(self.study, os.path.join(self.tmp, "paper-" + mode))
            finally:
                sbplot.use_paper(None)
            self.assertEqual(sorted(os.path.splitext(p)[1] for p in paths), [".pdf", ".svg"])
            pdf_ok(self, paths[0])
            with open(paths[1]) as fh:
                self.assertIn("<svg", fh.read(2000))
            rec = sbplot.LAYOUT[-1]
            self.assertEqual((rec["title"], rec["caption"]), ([], ""))
            self.assertAlmostEqual(rec["size"][0], width, places=2)
            for ax in rec["axes"]:
                self.assertFalse(ax["legend_inside"])
        self.assertEqual(sbplot.LAYOUT[-2]["stem"], "speedup")

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
