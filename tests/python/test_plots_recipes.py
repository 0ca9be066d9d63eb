"""test_plots_recipes.py — unittest (stdlib only) for the figures of recipe studies: accuracy_cost.py
(final quality vs N per training recipe) and critical_batch.py (steps to a target vs global batch),
each on a fixture study file made here with h5py from the committed sample study (invented numbers,
real study-file shape), plus make_all.py drawing them.

Run: /usr/bin/python3 -m unittest -v tests/python/test_plots_recipes.py   (ctest: python.plots_recipes)

It deliberately does not compare pixels, and shares its fixtures with test_plots.py (plot_fixtures.py).
"""
from __future__ import annotations

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_fixtures import (SAMPLES, FixtureStudyCase, assert_figure_rules, check_outputs, np,  # noqa: E402
                           run_make_all, write_fixture_study)
import accuracy_cost  # noqa: E402
import sbload  # noqa: E402
import sbplot  # noqa: E402


def make_recipe_study(dst):
    """A study file (no run files: accuracy_cost reads only the study file) of one U-Net at N = 1, 2,
    4, 8 under lr_scaling none/linear × sync_bn false/true, built from the sample U-Net row with a
    sync_bn column added. Its mIoU values are invented and listed in RECIPE_MIOU."""
    import h5py
    with h5py.File(os.path.join(SAMPLES, "study.h5"), "r") as f:
        tmpl = f["runs"][()]
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
    return write_fixture_study(dst, "recipe-fixture", np.array(rows, dtype=dt),
                               point_fields="model,strategy,world_size,batch,lr_scaling,sync_bn")


RECIPE_MIOU = {(rule, sync, n): round(0.60 - (0.02 if rule == "none" else 0.005) * (n.bit_length() - 1)
                                      + (0.01 if sync else 0.0) + (0.003 * (rule == "linear") if n == 1 else 0), 4)
               for rule in ("none", "linear") for sync in (False, True) for n in (1, 2, 4, 8)}


class AccuracyCostPlot(FixtureStudyCase):
    """accuracy_cost.py on a small recipe study (invented numbers, real study-file shape)."""
    build = staticmethod(make_recipe_study)

    def test_plot_drawn(self):
        check_outputs(self, accuracy_cost.make(self.study, os.path.join(self.tmp, "out")), ["accuracy-cost"])
        assert_figure_rules(self, "accuracy-cost")

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
    return write_fixture_study(dst, "critical-batch-fixture", arr,
                               point_fields="model,strategy,world_size,batch,accumulate,lr,seed",
                               select_objective="steps_to_target", select_tuned="lr")


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
        rec = assert_figure_rules(self, "critical-batch")
        labels = [s[0] for s in rec["axes"][0]["series"]]
        self.assertIn("perfect scaling (steps ∝ 1/batch)", labels)
        self.assertTrue(any(lb.startswith("B_simple (measured)") for lb in labels), labels)
        self.assertIn("not reached (olympic mean)", labels)
        # The strategy keeps its one colour (FigureRules): single's.
        single = [s for s in rec["axes"][0]["series"] if s[0] == "single"]
        self.assertEqual(single[0][1], sbplot.STRATEGY_STYLE["single"][0].lower())
        self.assertIn("tuned per batch over lr by steps_to_target", rec["caption"])
        self.assertIn("3 of 15 runs shown did not reach the target", rec["caption"])

    def test_the_bend_fit_recovers_the_law_and_is_drawn(self):
        import critical_batch
        # exact S = 150 (1 + 12/B) at 4..64: B_crit 12, S_min 150, to the grid's refinement
        bc, smin = critical_batch.fit_bend([(b, 150 * (1 + 12 / b)) for b in (4, 8, 16, 32, 64)])
        self.assertAlmostEqual(bc / 12, 1, places=3)
        self.assertAlmostEqual(smin / 150, 1, places=3)
        self.assertIsNone(critical_batch.fit_bend([(4, 100.0), (8, 60.0), (16, float("inf"))]))
        critical_batch.make(self.study, os.path.join(self.tmp, "fit"))
        labels = [s[0] for s in sbplot.LAYOUT[-1]["axes"][0]["series"]]
        fit = [lb for lb in labels if lb.startswith("fit S_min(1 + B_crit/B): B_crit ")]
        self.assertEqual(len(fit), 1, labels)
        self.assertIn("(seeds ", fit[0])  # each seed's own fit gives the range
        self.assertTrue(any(lb.startswith("B_simple (measured): 20, IQR 19–21") for lb in labels), labels)

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



if __name__ == "__main__":
    unittest.main()
