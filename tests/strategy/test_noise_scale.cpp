// test_noise_scale.cpp — the gradient noise scale (harness/strategy/noise_scale.h): the two-batch
// estimator recovers tr(Σ) and |G|² exactly from exact expectations and, within a tolerance taken
// from the sample count, from synthetic per-example gradients of known mean and covariance; an
// allreduce strategy over the threads transport reports the replicas' and the averaged gradient's
// squared norms, bucket by bucket, overlapped or not; which runs cannot measure it. Well under a
// second in all.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "harness/comm/threads_comm.h"
#include "harness/strategy/noise_scale.h"
#include "harness/strategy/scalar_reduce.h"
#include "harness/strategy/strategy.h"
#include "kernels/common/check.h"
#include "models/model.h"
#include "models/optimizer.h"
#include "models/spec.h"

namespace scalebench {
namespace {

// E|G_B|² = |G|² + tr(Σ)/B exactly: the estimator must invert it.
TEST(NoiseScale, RecoversTraceAndNormFromExactExpectations) {
  const double g2 = 0.37, tr = 12.5;
  for (auto [bs, bb] : {std::pair{1.0, 2.0}, {8.0, 32.0}, {4.0, 64.0}}) {
    const NoiseScale e = estimate_noise_scale(g2 + tr / bs, g2 + tr / bb, bs, bb);
    EXPECT_NEAR(e.trace, tr, 1e-12 * tr) << bs << " " << bb;
    EXPECT_NEAR(e.sq_norm, g2, 1e-12) << bs << " " << bb;
    EXPECT_NEAR(e.b_simple, tr / g2, 1e-9 * tr / g2);
  }
  // A noise-dominated |G|² estimate (<= 0) has no ratio; the two estimates stay as measured.
  const NoiseScale neg = estimate_noise_scale(1.0, 0.6, 1, 2);
  EXPECT_DOUBLE_EQ(neg.sq_norm, 0.2);
  EXPECT_DOUBLE_EQ(neg.trace, 0.8);
  EXPECT_DOUBLE_EQ(estimate_noise_scale(1.0, 0.4, 1, 2).sq_norm, -0.2);
  EXPECT_TRUE(std::isnan(estimate_noise_scale(1.0, 0.4, 1, 2).b_simple));
  EXPECT_THROW(estimate_noise_scale(1, 1, 4, 4), Error);
}

// Per-example gradients g = G + ε, ε ~ N(0, diag σ²): tr(Σ) = Σσ², |G|² known. k replicas of b
// samples per step, as an allreduce strategy sees them; the epoch's estimate must fall within 5
// standard errors (from the per-step estimates' spread over `steps` steps) of the truth, and that
// band must be narrow enough for the check to mean something.
TEST(NoiseScale, SyntheticGradientsOfKnownCovariance) {
  constexpr int d = 40, k = 4, b = 8, steps = 3000;
  std::vector<double> G(d), sigma(d);
  double g2 = 0, tr = 0;
  for (int j = 0; j < d; ++j) {
    G[std::size_t(j)] = 0.2 * std::sin(j + 1.0);
    sigma[std::size_t(j)] = 0.3 + 0.02 * j;
    g2 += G[std::size_t(j)] * G[std::size_t(j)];
    tr += sigma[std::size_t(j)] * sigma[std::size_t(j)];
  }
  std::mt19937_64 rng(2018);
  std::normal_distribution<double> normal;
  NoiseScaleSums sums;
  std::vector<double> step_tr, step_g2;
  for (int s = 0; s < steps; ++s) {
    std::vector<double> big(d, 0.0);
    double small_sq = 0;
    for (int r = 0; r < k; ++r) {
      std::vector<double> mean(d, 0.0);
      for (int i = 0; i < b; ++i)
        for (int j = 0; j < d; ++j) mean[std::size_t(j)] += (G[std::size_t(j)] + sigma[std::size_t(j)] * normal(rng)) / b;
      for (int j = 0; j < d; ++j) small_sq += mean[std::size_t(j)] * mean[std::size_t(j)] / k, big[std::size_t(j)] += mean[std::size_t(j)] / k;
    }
    double big_sq = 0;
    for (double x : big) big_sq += x * x;
    sums.add({.small_sq = small_sq, .big_sq = big_sq, .smalls = k});
    const NoiseScale one = estimate_noise_scale(small_sq, big_sq, b, k * b);
    step_tr.push_back(one.trace), step_g2.push_back(one.sq_norm);
  }
  const auto stderr_of = [](const std::vector<double>& v) {
    double m = 0, var = 0;
    for (double x : v) m += x / double(v.size());
    for (double x : v) var += (x - m) * (x - m) / double(v.size() - 1);
    return std::sqrt(var / double(v.size()));
  };
  const double tol_tr = 5 * stderr_of(step_tr), tol_g2 = 5 * stderr_of(step_g2);
  ASSERT_LT(tol_tr, 0.05 * tr);
  ASSERT_LT(tol_g2, 0.2 * g2);
  const NoiseScale e = sums.estimate(k * b);
  EXPECT_EQ(sums.steps, steps);
  EXPECT_NEAR(e.trace, tr, tol_tr);
  EXPECT_NEAR(e.sq_norm, g2, tol_g2);
  EXPECT_GE(e.b_simple, (tr - tol_tr) / (g2 + tol_g2));
  EXPECT_LE(e.b_simple, (tr + tol_tr) / (g2 - tol_g2));
}

TEST(NoiseScale, SumsSkipUnmeasuredStepsAndRefuseMixedSizes) {
  NoiseScaleSums s;
  EXPECT_TRUE(std::isnan(s.estimate(8).b_simple));  // nothing measured
  s.add({});                                         // smalls = 0: not measured
  EXPECT_EQ(s.steps, 0);
  s.add({.small_sq = 3, .big_sq = 2, .smalls = 2});
  s.add({.small_sq = 5, .big_sq = 2, .smalls = 2});
  const NoiseScale e = s.estimate(8);  // means 4 and 2 at B = 4 and 8
  EXPECT_DOUBLE_EQ(e.sq_norm, (8 * 2.0 - 4 * 4.0) / 4);
  EXPECT_DOUBLE_EQ(e.trace, (4.0 - 2.0) / (1.0 / 4 - 1.0 / 8));
  EXPECT_THROW(s.add({.small_sq = 1, .big_sq = 1, .smalls = 4}), Error);
}

TEST(NoiseScale, SaysWhichRunsCannotMeasureIt) {
  EXPECT_NE(noise_scale_unmeasurable(traits(StrategyKind::single), 1, 1).find("--accumulate"), std::string::npos);
  EXPECT_NE(noise_scale_unmeasurable(traits(StrategyKind::ring), 1, 1).find("--accumulate"), std::string::npos);
  EXPECT_EQ(noise_scale_unmeasurable(traits(StrategyKind::single), 1, 2), "");
  EXPECT_EQ(noise_scale_unmeasurable(traits(StrategyKind::ring), 2, 1), "");
  for (auto k : {StrategyKind::ps_sync, StrategyKind::ps_async})
    EXPECT_NE(noise_scale_unmeasurable(traits(k), 3, 2).find(name_of(k)), std::string::npos);
}

TEST(ScalarReduce, MaxAndSumInOneCollective) {
  comm::ThreadsWorld::run(3, [](comm::Communicator& c) {
    const auto [mx, sum] = allreduce_scalar_max_sum(c, double(10 - c.rank()), double(c.rank() + 1));
    EXPECT_EQ(mx, 10.0);
    EXPECT_EQ(sum, 6.0);
  });
}

// Rank r's gradient is element i ↦ (r + 1)·(1 + i mod 3): |G_small|² averaged over the replicas
// and |G_big|² of the mean are known exactly. The gradient arrives through the model's backward
// hook in three descending ranges, as backward delivers it, so the buckets (tiny: several per
// step) go over the communication thread while later ranges are still written (overlap) or at the
// end (no overlap).
TEST(AllreduceStrategy, ReportsReplicaAndAveragedGradientNorms) {
  constexpr int kRanks = 3;
  for (bool overlap : {true, false}) {
    comm::ThreadsWorld::run(kRanks, [&](comm::Communicator& c) {
      auto m = std::make_unique<Model>(build_model_graph(parse_model_spec("unet:depth=1,base=4,bn=0"), {1, 16, 16, 3}),
                                       Backend::cpu, 3);
      m->setup({2, 1, 16, 16});
      const std::int64_t n = m->param_count();
      auto s = make_strategy({.kind = StrategyKind::ring, .bucket_mb = 0.0005, .overlap = overlap}, &c, n);
      Optimizer opt({.kind = OptimizerKind::sgd, .momentum = 0.0f}, n);
      s->start(*m);
      double pattern_sq = 0;
      for (std::int64_t i = 0; i < n; ++i) pattern_sq += double(1 + i % 3) * double(1 + i % 3);
      for (int step = 0; step < 2; ++step) {
        s->before_backward(*m);
        float* g = m->grads().f32();
        const std::int64_t cuts[] = {n, 2 * n / 3, n / 3, 0};
        for (int part = 0; part < 3; ++part) {
          for (std::int64_t i = cuts[part + 1]; i < cuts[part]; ++i) g[i] = float((c.rank() + 1) * (1 + i % 3));
          m->backward_hook()(part, cuts[part + 1], cuts[part]);
        }
        const StepExchange x = s->after_backward(*m, opt, 0.0f, {});
        ASSERT_FALSE(x.nonfinite) << x.where;
        EXPECT_EQ(x.norms.smalls, kRanks);
        EXPECT_NEAR(x.norms.small_sq, (1 + 4 + 9) / 3.0 * pattern_sq, 1e-9 * pattern_sq) << "overlap " << overlap;
        EXPECT_NEAR(x.norms.big_sq, 4.0 * pattern_sq, 1e-6 * pattern_sq) << "overlap " << overlap;
      }
      s->finish(*m);
    });
  }
}

}  // namespace
}  // namespace scalebench
