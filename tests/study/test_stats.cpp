// test_stats.cpp — the statistics behind compare and report against published or hand-computed
// values: the exact Mann–Whitney null distribution (Mann & Whitney 1947, Table I; the usual
// two-sided α = 0.05 critical values), Holm and Benjamini–Hochberg adjusted p-values worked by
// hand, the Hodges–Lehmann interval on a hand-worked sample, and the coverage of both intervals on
// synthetic data with a known answer (fixed seeds: the same draws every run).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "harness/study/analysis/intervals.h"
#include "harness/study/analysis/stats.h"
#include "harness/study/analysis/verdict.h"

using namespace scalebench::study;

// Mann & Whitney (1947), Table I: P(U ≤ u) for small samples, to the three decimals printed there.
TEST(UNullDistribution, MatchesThePublishedTable) {
  const double t33[] = {0.050, 0.100, 0.200, 0.350};
  for (int u = 0; u < 4; ++u) EXPECT_NEAR(u_lower_tail(3, 3, u), t33[u], 5e-4) << "n=3,3 u=" << u;
  const double t44[] = {0.014, 0.029, 0.057, 0.100, 0.171};
  for (int u = 0; u < 5; ++u) EXPECT_NEAR(u_lower_tail(4, 4, u), t44[u], 5e-4) << "n=4,4 u=" << u;
  const double t55[] = {0.004, 0.008, 0.016, 0.028, 0.048, 0.075};
  for (int u = 0; u < 6; ++u) EXPECT_NEAR(u_lower_tail(5, 5, u), t55[u], 5e-4) << "n=5,5 u=" << u;
  EXPECT_DOUBLE_EQ(u_lower_tail(5, 5, 2), 4.0 / 252);  // exactly: 1 + 1 + 2 splits of 252
  // Two-sided α = 0.05 critical values (reject when U ≤ c): n = 5..10 per side.
  const int critical[][2] = {{5, 2}, {6, 5}, {7, 8}, {8, 13}, {9, 17}, {10, 23}};
  for (const auto& [n, c] : critical) {
    EXPECT_LE(2 * u_lower_tail(n, n, c), 0.05) << n;
    EXPECT_GT(2 * u_lower_tail(n, n, c + 1), 0.05) << n;
  }
  // The counts sum to C(n1 + n2, n1) and are symmetric.
  const auto c = u_null_counts(4, 6);
  double total = 0;
  for (double x : c) total += x;
  EXPECT_DOUBLE_EQ(total, 210);
  for (std::size_t u = 0; u < c.size(); ++u) EXPECT_DOUBLE_EQ(c[u], c[c.size() - 1 - u]);
  // The enumerating test agrees with the table: U = 2 of 5 vs 5, two-sided.
  EXPECT_NEAR(mann_whitney({1, 2, 3, 4, 7}, {5, 6, 8, 9, 10}).p, 2 * 4.0 / 252, 1e-12);
}

TEST(UNullDistribution, SmallestP) {
  EXPECT_DOUBLE_EQ(smallest_p(5), 2.0 / 252);  // 0.0079: 5 vs 5 can pass α = 0.01
  EXPECT_DOUBLE_EQ(smallest_p(4), 2.0 / 70);   // 0.029: 4 vs 4 cannot
  EXPECT_EQ(repetitions_to_reach(0.01), 5);
  EXPECT_EQ(repetitions_to_reach(0.05), 4);
  EXPECT_EQ(repetitions_to_reach(0.1), 4);  // 3 vs 3 gives exactly 0.1, not below
}

// p = (0.01, 0.04, 0.03, 0.005), m = 4, worked by hand:
// Holm, sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 → running max 0.06.
// BH, p·m/rank = 0.02, 0.02, 0.04, 0.04 → running min from the top is the same.
TEST(MultipleTesting, HolmAndBenjaminiHochbergByHand) {
  const std::vector<double> p = {0.01, 0.04, 0.03, 0.005};
  const auto h = holm(p), b = benjamini_hochberg(p);
  const double holm_want[] = {0.03, 0.06, 0.06, 0.02}, bh_want[] = {0.02, 0.04, 0.04, 0.02};
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(h[std::size_t(i)], holm_want[i], 1e-15) << i;
    EXPECT_NEAR(b[std::size_t(i)], bh_want[i], 1e-15) << i;
  }
  EXPECT_TRUE(holm({}).empty());
  // Why compare uses BH: a global slowdown at 5 vs 5 gives every comparison p = 2/252. Holm can
  // never reject 50 of them at 0.01 (50 × 0.0079 > 1); BH rejects all.
  const std::vector<double> global(50, 2.0 / 252);
  for (double q : holm(global)) EXPECT_GE(q, 0.01);
  for (double q : benjamini_hochberg(global)) EXPECT_NEAR(q, 2.0 / 252, 1e-15);
}

// base 1..5, new 11..15: the 25 differences are 10 + (j − i) = 6 (once), 7 (twice) … 14 (once);
// k = 3 (P(U ≤ 2) = 4/252 ≤ 0.025 < P(U ≤ 3) = 7/252), so the interval is [d(3), d(23)] = [7, 13]
// with confidence 1 − 8/252.
TEST(Intervals, HodgesLehmannByHand) {
  const Interval iv = shift_interval({1, 2, 3, 4, 5}, {11, 12, 13, 14, 15}, false);
  ASSERT_TRUE(iv.bounded);
  EXPECT_DOUBLE_EQ(iv.estimate, 10);
  EXPECT_DOUBLE_EQ(iv.lo, 7);
  EXPECT_DOUBLE_EQ(iv.hi, 13);
  EXPECT_NEAR(iv.confidence, 1 - 8.0 / 252, 1e-12);
  // On log values it is a ratio: new = 2 × base exactly gives 2 with a degenerate interval.
  const Interval r = shift_interval({1, 2, 4}, {2, 4, 8}, true, 0.8);
  EXPECT_NEAR(r.estimate, 2, 1e-12);
  // 3 vs 3 cannot reach 95 % (at most 1 − 2/20 = 90 %): unbounded, never narrowed.
  const Interval few = shift_interval({1, 2, 3}, {4, 5, 6}, false);
  EXPECT_FALSE(few.bounded);
  EXPECT_TRUE(std::isnan(few.lo));
  // A median needs 6 values for 95 % (1 − 2/64); 5 reach only 93.75 %.
  EXPECT_FALSE(median_interval({1, 2, 3, 4, 5}).bounded);
  const Interval m6 = median_interval({6, 1, 5, 2, 4, 3});
  ASSERT_TRUE(m6.bounded);
  EXPECT_DOUBLE_EQ(m6.lo, 1);
  EXPECT_DOUBLE_EQ(m6.hi, 6);
  EXPECT_NEAR(m6.confidence, 1 - 2.0 / 64, 1e-12);
  EXPECT_NEAR(robust_spread({1, 2, 3, 4, 100}, false), 1.4826, 1e-12);  // MAD 1: the outlier does not count
}

// Coverage on synthetic data with a known answer: log-normal timings (σ = 0.1), NEW 20 % slower.
// The HL interval at 5 vs 5 has exact confidence 1 − 8/252 = 96.8 % for a pure shift on the log
// scale; the median interval at n = 10 has 1 − 2·11/1024 = 97.9 %. 4000 draws: ±0.003 standard error.
TEST(Intervals, CoverageOnSyntheticData) {
  std::mt19937_64 rng(20251125);
  std::normal_distribution<double> noise(0.0, 0.1);
  const double ratio = 0.8;
  int hl_hits = 0, med_hits = 0;
  const int trials = 4000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> b, n, ten;
    for (int i = 0; i < 5; ++i) b.push_back(100 * std::exp(noise(rng)));
    for (int i = 0; i < 5; ++i) n.push_back(100 * ratio * std::exp(noise(rng)));
    for (int i = 0; i < 10; ++i) ten.push_back(100 * std::exp(noise(rng)));  // median 100
    const Interval iv = shift_interval(b, n, true);
    hl_hits += iv.lo <= ratio && ratio <= iv.hi;
    const Interval m = median_interval(ten);
    med_hits += m.lo <= 100 && 100 <= m.hi;
  }
  EXPECT_NEAR(double(hl_hits) / trials, 1 - 8.0 / 252, 0.012);
  EXPECT_NEAR(double(med_hits) / trials, 1 - 22.0 / 1024, 0.012);
}

TEST(Verdict, RepetitionsToDecide) {
  // No shift, 5 % spread, ±10 % band: 2·(1.96·sqrt(π/3)·0.05/0.1)² ≈ 2.0 → the test's floor, 5.
  EXPECT_EQ(repetitions_to_decide(0.0, 0.05, 0.10, 0.01), 5);
  // 20 % spread: 2·(2.006·0.2/0.1)² ≈ 32.2 → 33.
  EXPECT_EQ(repetitions_to_decide(0.0, 0.20, 0.10, 0.01), 33);
  EXPECT_EQ(repetitions_to_decide(0.10, 0.05, 0.10, 0.01), 0);  // at the tolerance: nothing decides
}
