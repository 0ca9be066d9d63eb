// test_project_resampling.cpp — how far `scalebench project`'s straggler estimates can be trusted:
// the percentile bootstrap (order_stats.h, bootstrap_interval) against what is known of it, the
// compute term's and the ring steps' resampling intervals, and the band that carries them at N >= 2
// (docs/projection.md, "The band"). The band's 2-standard-error and residual parts by hand are in
// test_project_stragglers.cpp; the estimates themselves there and in test_project_ring_steps.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "harness/study/project/netmodel.h"
#include "harness/study/project/order_stats.h"
#include "harness/study/project/projection.h"
#include "kernels/common/check.h"
#include "tests/common/harness_test_util.h"
#include "tests/study/project_fixtures.h"

namespace scalebench::project {
namespace {

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / double(v.size());
}

// 1 .. K evenly: sd known in closed form
std::vector<double> evenly(int k) {
  std::vector<double> v;
  for (int i = 1; i <= k; ++i) v.push_back(i);
  return v;
}

TEST(ProjectResampling, BootstrapOfTheMeanIsAboutTwoStandardErrors) {
  // 1 .. 400: mean 200.5, sd sqrt((K^2 - 1)/12) = 115.47, SE 5.774: a 95 % interval about +-1.96 SE
  const std::vector<double> v = evenly(400);
  const auto [lo, hi] = bootstrap_interval(v, mean_of, 2000);
  const double se = std::sqrt((400.0 * 400 - 1) / 12) / std::sqrt(400.0);
  EXPECT_NEAR(hi - 200.5, 1.96 * se, 0.15 * 1.96 * se);
  EXPECT_NEAR(200.5 - lo, 1.96 * se, 0.15 * 1.96 * se);
  // the same samples give the same interval (a constant seed)
  EXPECT_EQ(bootstrap_interval(v, mean_of, 2000), std::make_pair(lo, hi));
  // samples without spread: every resample is the sample
  const auto [c_lo, c_hi] = bootstrap_interval({7.0, 7.0, 7.0}, mean_of);
  EXPECT_DOUBLE_EQ(c_lo, 7.0);
  EXPECT_DOUBLE_EQ(c_hi, 7.0);
  EXPECT_THROW(bootstrap_interval({}, mean_of), Error);
  EXPECT_THROW(bootstrap_interval({1.0}, mean_of, 0), Error);
}

TEST(ProjectResampling, TheSlowestOfNIsLessSureThanTheMean) {
  // 22 traced steps (as the held-out validation's), skewed to the right as step times are (a
  // floor plus exponential quantiles): the slowest of 8 rests on the few longest, so its interval is
  // wider than the mean's, and it narrows with more steps. (On a bounded, even spread it can be the
  // narrower one: the band takes the wider of the two.)
  MeasuredStep m = fixtures::three_layers();
  for (int i = 0; i < 22; ++i) m.step_compute_s.push_back(0.5 - 0.05 * std::log(1 - (i + 0.5) / 22));
  const auto [lo8, hi8] = straggler_interval(m, 8);
  const double c = 2 * compute_rel_se(m);
  EXPECT_LT(lo8, 1.0);
  EXPECT_GT(hi8, 1.0);
  EXPECT_GT(hi8 - lo8, 2 * c);
  MeasuredStep more = m;
  more.step_compute_s.clear();
  for (int i = 0; i < 220; ++i) more.step_compute_s.push_back(0.5 - 0.05 * std::log(1 - (i + 0.5) / 220));
  const auto [lo_more, hi_more] = straggler_interval(more, 8);
  EXPECT_LT(hi_more - lo_more, hi8 - lo8);
  // N = 1 waits for no one, and a single step has no spread to resample
  EXPECT_EQ(straggler_interval(m, 1), std::make_pair(1.0, 1.0));
  MeasuredStep one = m;
  one.step_compute_s = {0.5};
  EXPECT_EQ(straggler_interval(one, 8), std::make_pair(1.0, 1.0));
}

TEST(ProjectResampling, TheRingStepsIntervalAndWhichRingCrossesTheNetwork) {
  AlphaBeta link{5e-3, 1e7, "test commbench"};
  link.measured_ranks = 2;
  std::vector<double> steps;
  for (int i = 0; i < 40; ++i) steps.push_back(0.040 + 0.001 * ((i * 13) % 40));
  link.samples = {{1e3, 0.05, 0, steps}};
  const auto [lo, hi] = ring_step_interval(link, 8, 1e3);
  EXPECT_LT(lo, hi);
  EXPECT_GT(hi, 1.0);
  // 1 by definition: the calibration's own ring, fewer than 2 ranks, nothing measured
  EXPECT_EQ(ring_step_interval(link, 2, 1e3), std::make_pair(1.0, 1.0));
  EXPECT_EQ(ring_step_interval(link, 1, 1e3), std::make_pair(1.0, 1.0));
  EXPECT_EQ(ring_step_interval(profile("10gbe"), 8, 1e3), std::make_pair(1.0, 1.0));
  // the ring over the network: every rank once 2+ nodes, the leaders for hierarchical, none on one node
  const Network two = fixtures::net(0, 1e8, 2);
  EXPECT_EQ(network_ring_ranks(StrategyKind::ring, 8, two), 8);
  EXPECT_EQ(network_ring_ranks(StrategyKind::hierarchical, 8, two), 4);
  EXPECT_EQ(network_ring_ranks(StrategyKind::ring, 2, two), 0);
  EXPECT_EQ(network_ring_ranks(StrategyKind::ps_sync, 8, two), 0);
  EXPECT_EQ(network_ring_ranks(StrategyKind::ring, 1, two), 0);
}

TEST(ProjectResampling, TheBandCarriesBothIntervalsAtNOfTwoOrMore) {
  MeasuredStep m = fixtures::three_layers();
  for (int i = 0; i < 22; ++i) m.step_compute_s.push_back(0.060 + 0.001 * ((i * 7) % 22));
  Network n = fixtures::net(5e-3, 1e7);
  std::vector<double> steps;
  for (int i = 0; i < 40; ++i) steps.push_back(0.040 + 0.001 * ((i * 13) % 40));
  n.inter.measured_ranks = 2;
  n.inter.samples = {{1e5, 0.05, 0, steps}, {1e6, 0.2, 0, {}}};
  n.inter.fit_residual = 0.05;
  const ProjectOptions o{.batch = 8, .bucket_mb = 64.0, .max_devices = 8};
  const Scenario at8{StrategyKind::ring, 8};
  // the band with only the mean's 2 standard errors and the residual, as without the term's intervals
  const double c = 2 * compute_rel_se(m);
  ProjectOptions slow = o, fast = o;
  slow.compute_scale = 1 + c, slow.comm_scale = 1.05;
  fast.compute_scale = 1 - c, fast.comm_scale = 0.95;
  const double narrow_hi = predict(m, n, slow, at8).step_s, narrow_lo = predict(m, n, fast, at8).step_s;
  const Band b = band(m, n, o, at8);
  const double point = predict(m, n, o, at8).step_s;
  EXPECT_GT(b.step_hi, narrow_hi);
  EXPECT_LT(b.step_lo, narrow_lo);
  EXPECT_LT(b.step_lo, point);
  EXPECT_GT(b.step_hi, point);
  // exactly: compute by the wider of the two, communication by the residual times the ring's interval
  const auto [s_lo, s_hi] = straggler_interval(m, 8);
  const double bytes = double(m.params) * 4.0;  // one bucket holds the gradient
  const auto [r_lo, r_hi] = ring_step_interval(n.inter, 8, bytes / 8);
  slow.compute_scale = std::max(1 + c, s_hi), slow.comm_scale = 1.05 * r_hi;
  fast.compute_scale = std::min(1 - c, s_lo), fast.comm_scale = 0.95 * r_lo;
  EXPECT_DOUBLE_EQ(b.step_hi, predict(m, n, slow, at8).step_s);
  EXPECT_DOUBLE_EQ(b.step_lo, predict(m, n, fast, at8).step_s);
  // without the straggler terms the band is the mean's and the residual's alone
  ProjectOptions off = o;
  off.stragglers = false;
  ProjectOptions off_slow = off;
  off_slow.compute_scale = 1 + c, off_slow.comm_scale = 1.05;
  EXPECT_DOUBLE_EQ(band(m, n, off, at8).step_hi, predict(m, n, off_slow, at8).step_s);
}

TEST(ProjectResampling, TheCommbenchGapAndAgreementAreRead) {
  sbtest::TempDir d;
  const auto write = [&](const std::string& name, const json::Json& extra) {
    return fixtures::commbench_file(d.path() + "/" + name, 2,
                                    {fixtures::ring_row(2048, 20000.0), fixtures::ring_row(200000, 30000.0)}, extra);
  };
  const AlphaBeta spaced = fit_commbench(write("gap.json", {{"gap_ms", 560.5}}), "ring");
  EXPECT_DOUBLE_EQ(spaced.gap_s, 0.5605);
  EXPECT_NE(spaced.source.find("calls 560.5 ms of compute apart"), std::string::npos) << spaced.source;
  // a file from before --gap-ms: back to back
  const AlphaBeta old = fit_commbench(write("old.json", json::Json::object()), "ring");
  EXPECT_EQ(old.gap_s, 0.0);
  EXPECT_NE(old.source.find("calls back to back"), std::string::npos) << old.source;
  EXPECT_EQ(old.agree_s, 0.0);  // nor an agreement: project prices it at the link's message time
  // the step's agreement, measured (commbench's agree_us); a negative one is refused, naming the file
  EXPECT_DOUBLE_EQ(fit_commbench(write("agree.json", {{"agree_us", 8125.75}}), "ring").agree_s, 8125.75e-6);
  const std::string bad = write("bad.json", {{"agree_us", -3}});
  try {
    fit_commbench(bad, "ring");
    FAIL() << "a negative agreement must be refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("agree_us -3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace scalebench::project
