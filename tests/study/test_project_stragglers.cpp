// test_project_stragglers.cpp — `scalebench project`'s straggler term against distributions whose
// expected maximum is known in closed form (and, with a slow node, against brute-force enumeration),
// and the band by hand. It does not test the network model (test_project.cpp) or the inputs
// (test_project_inputs.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <tuple>

#include "harness/study/analysis/study_file.h"
#include "harness/study/project/netmodel.h"
#include "harness/study/project/project_cli.h"
#include "harness/study/project/projection.h"
#include "harness/train/trace.h"
#include "kernels/common/check.h"
#include "tests/common/harness_test_util.h"
#include "tests/study/project_fixtures.h"

namespace scalebench::project {
namespace {
using fixtures::net, fixtures::three_layers, fixtures::spread_steps;

// ---- stragglers ------------------------------------------------------------------------------------

TEST(ProjectStragglers, ExpectedMaxOfASmallSampleByHand) {
  // {1, 2}: the max of n draws is 1 only when every draw is 1, probability (1/2)^n
  EXPECT_DOUBLE_EQ(expected_max({2.0, 1.0}, 1), 1.5);
  EXPECT_DOUBLE_EQ(expected_max({2.0, 1.0}, 2), 1 * 0.25 + 2 * 0.75);
  EXPECT_DOUBLE_EQ(expected_max({2.0, 1.0}, 3), 1 * 0.125 + 2 * 0.875);
  EXPECT_DOUBLE_EQ(expected_max({3.0, 3.0, 3.0}, 64), 3.0);
  EXPECT_THROW(expected_max({}, 2), Error);
}

// K samples at the quantiles (i - 1/2)/K of a distribution: their empirical expected maximum tends
// to the distribution's (checked beforehand: K = 100 000 is within 5e-5 relative for the exponential
// at N <= 64, within 2e-9 absolute for the uniform).
std::vector<double> quantiles(int k, double (*inverse_cdf)(double)) {
  std::vector<double> v;
  for (int i = 1; i <= k; ++i) v.push_back(inverse_cdf((i - 0.5) / k));
  return v;
}

TEST(ProjectStragglers, ExpectedMaxMatchesTheClosedForms) {
  constexpr int k = 100000;
  // exponential with mean 0.05 s: E[max of N] = mean x H_N
  const auto exp = quantiles(k, [](double u) { return -0.05 * std::log(1 - u); });
  // uniform on [0.04, 0.06] s: E[max of N] = a + (b - a) N / (N + 1)
  const auto uni = quantiles(k, [](double u) { return 0.04 + 0.02 * u; });
  for (int n : {2, 4, 8, 64}) {
    double h = 0;
    for (int j = 1; j <= n; ++j) h += 1.0 / j;
    EXPECT_NEAR(expected_max(exp, n) / (0.05 * h), 1.0, 1e-4) << n;
    EXPECT_NEAR(expected_max(uni, n), 0.04 + 0.02 * n / (n + 1.0), 1e-8) << n;
  }
  // the straggler factor is that over the mean, its top 30 % from the fitted tail (a uniform's is a
  // generalized Pareto of shape -1: the fit recovers it to within the quantile grid's 1e-6)
  MeasuredStep m;
  m.step_compute_s = uni;
  EXPECT_NEAR(straggler_factor(m, 8), (0.04 + 0.02 * 8 / 9.0) / 0.05, 1e-5);
  EXPECT_DOUBLE_EQ(straggler_factor(m, 1), 1.0);
  EXPECT_DOUBLE_EQ(straggler_factor(MeasuredStep{}, 8), 1.0);  // no samples: no spread known
}

// E[max] with one rank slowed, against the K^n equally likely draws enumerated one by one.
double brute_expected_max(const std::vector<double>& v, int n, double slow) {
  const std::size_t k = v.size();
  std::size_t combos = 1;
  for (int r = 0; r < n; ++r) combos *= k;
  double sum = 0;
  for (std::size_t c = 0; c < combos; ++c) {
    std::size_t rest = c;
    double mx = 0;
    for (int r = 0; r < n; ++r, rest /= k) mx = std::max(mx, v[rest % k] / (r == 0 ? slow : 1.0));  // rank 0 is slow
    sum += mx;
  }
  return sum / double(combos);
}

TEST(ProjectStragglers, ASlowNodeIsTheSlowestOfNWhenItsLeadIsLarge) {
  // {1, 2}, n = 2, one rank at half speed draws {2, 4}: max (1,2) 2, (1,4) 4, (2,2) 2, (2,4) 4 -> 3
  EXPECT_DOUBLE_EQ(expected_max({1.0, 2.0}, 2, 0.5), 3.0);
  // identical steps: the slow rank's own, 1/0.8 of them, at every N >= 2; N = 1 is the traced rank
  EXPECT_DOUBLE_EQ(expected_max({3.0, 3.0, 3.0}, 8, 0.8), 3.75);
  EXPECT_DOUBLE_EQ(expected_max({3.0, 1.0}, 1, 0.8), 2.0);
  // a spread of steps, ties and overlapping ranges included: the union of jumps, exactly
  const std::vector<double> v{0.50, 0.52, 0.52, 0.55, 0.61, 0.70};
  for (int n : {2, 3, 4, 5})
    for (double slow : {0.95, 0.8, 0.52 / 0.61, 0.5}) EXPECT_NEAR(expected_max(v, n, slow), brute_expected_max(v, n, slow), 1e-12)
        << n << " " << slow;
  EXPECT_NEAR(expected_max(v, 4, 1.0), brute_expected_max(v, 4, 1.0), 1e-12);  // the plain term is the slow = 1 case
  EXPECT_THROW(expected_max(v, 2, 0.0), Error);
  EXPECT_THROW(expected_max(v, 2, 1.5), Error);
  MeasuredStep m;
  EXPECT_DOUBLE_EQ(straggler_factor(m, 4, 0.8), 1.25);  // no spread known: the slow rank alone
  EXPECT_DOUBLE_EQ(straggler_factor(m, 1, 0.8), 1.0);
  m.step_compute_s = v;
  EXPECT_GT(straggler_factor(m, 4, 0.8), straggler_factor(m, 4));
}


TEST(ProjectStragglers, SynchronousStepsComputeAtTheSlowestRanksPace) {
  const MeasuredStep m = spread_steps();
  // E[max of 2] = 60/4 + 70 x 3/4 = 67.5 ms: factor 67.5 / 65
  const double g = 67.5 / 65;
  EXPECT_NEAR(straggler_factor(m, 2), g, 1e-12);
  const Network n = net(0, 1e8);
  const ProjectOptions on{.batch = 8, .bucket_mb = 4.0};
  ProjectOptions off = on;
  off.stragglers = false;
  // 2 ranks, 8 MB buckets of 80 ms (ProjectStep.BucketsAndOverlapByHand) with every compute phase
  // x g: bucket 0 ready at 30g, the last ends at 30g + 160, then the agreement; step 20g + (30g +
  // 160 + agreement) + 5g
  const double agree = agreement_time(StrategyKind::ring, 2, n);
  const Prediction p = predict(m, n, on, {StrategyKind::ring, 2});
  EXPECT_NEAR(p.straggler, g, 1e-12);
  EXPECT_NEAR(p.step_s, 0.055 * g + 0.160 + agree, 1e-12);
  EXPECT_NEAR(predict(m, n, off, {StrategyKind::ring, 2}).step_s, 0.215 + agree, 1e-12);  // without: as before
  EXPECT_NEAR(predict(m, n, on, {StrategyKind::ring, 1}).step_s, 0.065, 1e-12);   // N = 1 waits for no one
  // the synchronous parameter server waits too; the asynchronous one and single do not
  EXPECT_NEAR(predict(m, n, on, {StrategyKind::ps_sync, 2}).straggler, g, 1e-12);
  EXPECT_TRUE(synchronous(StrategyKind::multiworker));
  EXPECT_TRUE(synchronous(StrategyKind::hierarchical));
  EXPECT_FALSE(synchronous(StrategyKind::ps_async));
  EXPECT_FALSE(synchronous(StrategyKind::single));
}

// ---- the band --------------------------------------------------------------------------------------

TEST(ProjectBand, ComputeSpreadAndFitResidualByHand) {
  const MeasuredStep m = spread_steps();
  // steps 60 and 70 ms: sd 7.071 ms, standard error 5 ms, relative 5/65; the band's compute factor
  // 1 -/+ 2 x 5/65
  EXPECT_NEAR(compute_rel_se(m), 5.0 / 65, 1e-12);
  const double c = 10.0 / 65;
  Network n = net(0, 1e8);
  n.inter.fit_residual = 0.1;
  ProjectOptions o{.batch = 8, .bucket_mb = 4.0, .max_devices = 2};
  o.stragglers = false;
  // ring, 2 ranks (above): step = 55 ms x compute + (160 ms + the agreement) x communication
  const double comm = 0.160 + agreement_time(StrategyKind::ring, 2, n);
  const Band b = band(m, n, o, {StrategyKind::ring, 2});
  EXPECT_NEAR(b.step_lo, 0.055 * (1 - c) + comm * 0.9, 1e-12);
  EXPECT_NEAR(b.step_hi, 0.055 * (1 + c) + comm * 1.1, 1e-12);
  // N = 1: 65 ms x compute; efficiency's band pairs N = 2's slow end with N = 1's fast one
  std::ostringstream table;
  const record::Table t = project_all(m, n, o, "toy", true, comm::WireType::f32, table);
  bool found = false;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    if (t.str("point_id", r) != "project-toy-weak-ring-n2") continue;
    found = true;
    EXPECT_NEAR(t.num("efficiency", r), 0.065 / (0.055 + comm), 1e-12);
    EXPECT_NEAR(t.num("efficiency_band_lo", r), 0.065 * (1 - c) / b.step_hi, 1e-12);
    EXPECT_NEAR(t.num("efficiency_band_hi", r), 0.065 * (1 + c) / b.step_lo, 1e-12);
    EXPECT_NEAR(t.num("step_time_s_band_hi", r), b.step_hi, 1e-12);
    EXPECT_NEAR(t.num("images_per_s_band_lo", r), 16 / b.step_hi, 1e-9);
    EXPECT_DOUBLE_EQ(t.num("straggler_factor", r), 1.0);
  }
  EXPECT_TRUE(found) << table.str();
  // no spread and no residual: the band is the point
  const Band point = band(three_layers(), net(0, 1e8), o, {StrategyKind::ring, 2});
  EXPECT_DOUBLE_EQ(point.step_lo, 0.055 + comm);
  EXPECT_DOUBLE_EQ(point.step_hi, 0.055 + comm);
}

TEST(ProjectBand, CommbenchFitReportsItsResidual) {
  sbtest::TempDir d;
  // 2 ranks, alpha 0, 100 MB/s, the middle two rows 10 % off the line in opposite directions
  json::Json rows = json::Json::array();
  const double off[] = {1.0, 1.1, 0.9, 1.0};
  for (int k = 0; k < 4; ++k) {
    const std::int64_t bytes = std::int64_t{1} << (16 + k);
    rows.push_back(fixtures::ring_row(bytes, json::rounded(double(bytes) / 1e8 * 1e6 * off[k], 6)));
  }
  const AlphaBeta ab = fit_commbench(fixtures::commbench_file(d.path() + "/cb.json", 2, rows), "ring");
  // each inner row against the line between its neighbours (times in units of the first row's):
  // 128K: between 1 (64K) and 3.6 (256K) at a third of the way, 1.8667, measured 2.2: +0.15152;
  // 256K: between 2.2 (128K) and 8 (512K), 4.1333, measured 3.6: -0.14815; RMS 0.14984 (an exact
  // line gives 0: ProjectNet.CommbenchFitRecoversAlphaBeta)
  const double plus = (2.2 - (1 + 2.6 / 3)) / 2.2, minus = (3.6 - (2.2 + 5.8 / 3)) / 3.6;
  EXPECT_NEAR(ab.fit_residual, std::sqrt((plus * plus + minus * minus) / 2), 1e-6);
  EXPECT_NEAR(ab.fit_residual, 0.14984, 1e-5);
  EXPECT_FALSE(ab.nameplate);
  EXPECT_TRUE(profile("10gbe").nameplate);
  EXPECT_EQ(profile("10gbe").fit_residual, 0.0);
}

}  // namespace
}  // namespace scalebench::project
