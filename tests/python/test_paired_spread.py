"""tools/paired_spread.py's paired spread test and cpu_step_bench.py's --from-log that prints it.

Made-up rounds whose answer is known by construction: equal spread, ours three times as spread (and
the reverse), a four-round case counted by hand, the sampled path above 16 rounds, bad input."""
import itertools
import math
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import paired_spread  # noqa: E402

# A host's drift, shared by both sides of a round (log-scale, mean zero, none zero)
DRIFT = [0.9, -1.3, 0.4, -0.2, 1.7, -0.8, 0.3, -1.1, 0.6, -0.5]


def side(scale, amplitude, drift=DRIFT):
    return [scale * math.exp(amplitude * z) for z in drift]


class SpreadTest(unittest.TestCase):
    def test_equal_spread_shows_no_difference(self):
        st = paired_spread.spread_test(side(170.0, 0.1), side(100.0, 0.1))  # ours 1.7x faster, same spread
        self.assertAlmostEqual(st.sd_ratio, 1.0)
        self.assertEqual((st.p_more, st.p_less), (1.0, 1.0))
        self.assertEqual(st.verdict, "no difference shown")

    def test_three_times_the_spread_is_less_steady(self):
        st = paired_spread.spread_test(side(170.0, 0.3), side(100.0, 0.1))
        self.assertAlmostEqual(st.sd_ratio, 3.0)
        self.assertEqual(st.p_more, 1 / 1024)  # only the observed sign pattern reaches its own sum
        self.assertEqual(st.verdict, "less steady")
        rev = paired_spread.spread_test(side(100.0, 0.1), side(170.0, 0.3))
        self.assertEqual((rev.p_less, rev.verdict), (1 / 1024, "steadier"))

    def test_four_rounds_counted_by_hand(self):
        ours, other = [1.0, 2.0, 4.0, 2.0], [3.0, 3.0, 3.0, 4.0]
        x = [math.log(v) for v in ours]
        y = [math.log(v) for v in other]
        mx, my = sum(x) / 4, sum(y) / 4
        d = [(a - mx) ** 2 - (b - my) ** 2 for a, b in zip(x, y)]
        sums = [sum(s * v for s, v in zip(signs, d)) for signs in itertools.product((1, -1), repeat=4)]
        want = sum(1 for s in sums if s >= sum(d) - 1e-12) / 16
        st = paired_spread.spread_test(ours, other)
        self.assertEqual(st.p_more, want)
        self.assertEqual(st.p_less, sum(1 for s in sums if s <= sum(d) + 1e-12) / 16)

    def test_more_than_sixteen_rounds_are_sampled(self):
        drift = DRIFT + [z * 0.7 for z in DRIFT]  # 20 rounds
        st = paired_spread.spread_test(side(2.0, 0.3, drift), side(1.0, 0.1, drift))
        self.assertLess(st.p_more, 0.001)  # 2^-20 exactly; sampled: a few hits of 65536 at most
        same = paired_spread.spread_test(side(2.0, 0.1, drift), side(1.0, 0.1, drift))
        self.assertEqual(same.verdict, "no difference shown")

    def test_bad_input_names_what(self):
        with self.assertRaisesRegex(ValueError, "3 figures of ours against 4"):
            paired_spread.spread_test([1, 2, 3], [1, 2, 3, 4])
        with self.assertRaisesRegex(ValueError, "2 rounds"):
            paired_spread.spread_test([1, 2], [1, 2])
        with self.assertRaisesRegex(ValueError, "positive"):
            paired_spread.spread_test([1, 0, 3], [1, 2, 3])


class FromLog(unittest.TestCase):
    def test_saved_rounds_are_tabled_and_pooled(self):
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for run, scale in enumerate((1.0, 1.3)):  # the second run on a faster hour
                path = os.path.join(tmp, f"run{run}.log")
                with open(path, "w") as f:
                    f.write("warm-up round 1/1 cfg: ours 999.0, torch 1.0 images/s\n")  # not counted
                    for i, (o, t) in enumerate(zip(side(170.0 * scale, 0.3), side(100.0 * scale, 0.1))):
                        f.write(f"round {i + 1}/10 cfg: ours {o:.4f}, torch {t:.4f} images/s\n")
                paths.append(path)
            out = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "cpu_step_bench.py"), "compare",
                                  "--from-log"] + paths, capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertEqual(out.stdout.count("less steady (0.001, 1.000)"), 2, out.stdout)
            self.assertIn("20 rounds: sd(log) ours / torch 3.00  less steady", out.stdout)
            self.assertEqual(out.stdout.count("in 1 of 1 configurations"), 3, out.stdout)
            empty = os.path.join(tmp, "empty.log")
            open(empty, "w").close()
            bad = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "cpu_step_bench.py"), "compare",
                                  "--from-log", empty], capture_output=True, text=True)
            self.assertNotEqual(bad.returncode, 0)
            self.assertIn(f"{empty} has no 'round K/N", bad.stderr)


if __name__ == "__main__":
    unittest.main()
