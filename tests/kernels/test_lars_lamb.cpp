// test_lars_lamb.cpp — the layer-wise large-batch optimizers against steps worked out by hand:
// LARS (trust ratio eta·‖w‖/(‖g‖ + wd·‖w‖), momentum), LAMB (bias-corrected Adam direction plus
// weight decay, trust ratio ‖w‖/‖r‖), the non-adapting case (trust 1), zero weights, and trust
// ratios beyond float's range (a finite step, not ±inf). The
// Optimizer's per-tensor dispatch is tested in tests/models/test_layerwise_optimizer.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/cpu/lamb.h"
#include "kernels/cpu/lars.h"

using namespace scalebench;

TEST(Lars, TwoStepsByHand) {
  // w = (3, 4), ‖w‖ = 5; g = (0.6, 0.8), ‖g‖ = 1; eta 0.001, lr 10: trust 0.005, local lr 0.05.
  std::vector<float> w = {3, 4}, g = {0.6f, 0.8f}, v = {0, 0};
  EXPECT_NEAR(cpu::lars_step(2, w.data(), g.data(), v.data(), 10, 0.9f, 0, 0.001f, true), 0.005, 1e-9);
  EXPECT_NEAR(v[0], 0.03, 1e-7);
  EXPECT_NEAR(w[0], 2.97, 1e-6);
  EXPECT_NEAR(w[1], 3.96, 1e-6);
  // Step 2: ‖w‖ = 4.95 → trust 0.00495; v = 0.9·(0.03, 0.04) + 0.0495·g = (0.0567, 0.0756).
  EXPECT_NEAR(cpu::lars_step(2, w.data(), g.data(), v.data(), 10, 0.9f, 0, 0.001f, true), 0.00495, 1e-8);
  EXPECT_NEAR(v[0], 0.0567, 1e-6);
  EXPECT_NEAR(v[1], 0.0756, 1e-6);
  EXPECT_NEAR(w[0], 2.9133, 1e-5);
  EXPECT_NEAR(w[1], 3.8844, 1e-5);
}

TEST(Lars, WeightDecayEntersRatioAndDirection) {
  // wd 0.1: trust = 0.001·5 / (1 + 0.5); lr·trust = 1/30; direction g + wd·w = (0.9, 1.2).
  std::vector<float> w = {3, 4}, g = {0.6f, 0.8f}, v = {0, 0};
  EXPECT_NEAR(cpu::lars_step(2, w.data(), g.data(), v.data(), 10, 0.9f, 0.1f, 0.001f, true), 0.005 / 1.5, 1e-9);
  EXPECT_NEAR(w[0], 3 - 0.9 / 30, 1e-6);
  EXPECT_NEAR(w[1], 4 - 1.2 / 30, 1e-6);
}

TEST(Lars, NonAdaptingAndZeroWeightsUseTrustOne) {
  std::vector<float> w = {3, 4}, g = {0.6f, 0.8f}, v = {0, 0};
  EXPECT_EQ(cpu::lars_step(2, w.data(), g.data(), v.data(), 0.5f, 0.9f, 0, 0.001f, false), 1.0);
  EXPECT_NEAR(w[0], 2.7, 1e-6);  // plain momentum SGD: v = 0.5·g
  std::vector<float> z = {0, 0}, vz = {0, 0};
  EXPECT_EQ(cpu::lars_step(2, z.data(), g.data(), vz.data(), 0.5f, 0.9f, 0, 0.001f, true), 1.0);
  EXPECT_NEAR(z[1], -0.4, 1e-6);
}

TEST(Lamb, FirstStepByHand) {
  // Step 1: m̂ = g, v̂ = g², so r = g/(|g| + eps) ≈ sign(g) = (1, -1); ‖r‖ = √2, trust = 5/√2.
  std::vector<float> w = {3, 4}, g = {0.6f, -0.8f}, m = {0, 0}, v = {0, 0};
  const double trust = cpu::lamb_step(2, w.data(), g.data(), m.data(), v.data(), 0.01f, 0.9f, 0.999f, 1e-8f, 0, 1, true);
  EXPECT_NEAR(trust, 5 / std::sqrt(2.0), 1e-5);
  const double a = 0.01 * 5 / std::sqrt(2.0);
  EXPECT_NEAR(w[0], 3 - a, 1e-6);
  EXPECT_NEAR(w[1], 4 + a, 1e-6);
  EXPECT_NEAR(m[0], 0.06, 1e-7);
  EXPECT_NEAR(v[1], 0.001 * 0.64, 2e-8);  // 1 - beta2 is rounded in float
  // Step 2 with the same g: bias correction makes m̂ = g and v̂ = g² again; trust = ‖w₁‖/√2.
  const double n1 = std::hypot(3 - a, 4 + a);
  EXPECT_NEAR(cpu::lamb_step(2, w.data(), g.data(), m.data(), v.data(), 0.01f, 0.9f, 0.999f, 1e-8f, 0, 2, true),
              n1 / std::sqrt(2.0), 1e-5);
  EXPECT_NEAR(w[0], 3 - a - 0.01 * n1 / std::sqrt(2.0), 1e-6);
  EXPECT_NEAR(w[1], 4 + a + 0.01 * n1 / std::sqrt(2.0), 1e-6);
}

TEST(Lamb, WeightDecayIsInTheDirection) {
  // wd 0.5: r = (1, -1) + 0.5·(3, 4) = (2.5, 1); ‖r‖ = √7.25; trust = 5/√7.25.
  std::vector<float> w = {3, 4}, g = {0.6f, -0.8f}, m = {0, 0}, v = {0, 0};
  const double trust = 5 / std::sqrt(7.25);
  EXPECT_NEAR(cpu::lamb_step(2, w.data(), g.data(), m.data(), v.data(), 0.01f, 0.9f, 0.999f, 1e-8f, 0.5f, 1, true),
              trust, 1e-5);
  EXPECT_NEAR(w[0], 3 - 0.01 * trust * 2.5, 1e-6);
  EXPECT_NEAR(w[1], 4 - 0.01 * trust * 1.0, 1e-6);
  // Not adapting: trust 1, the step is lr·r.
  std::vector<float> w2 = {3, 4}, m2 = {0, 0}, v2 = {0, 0};
  EXPECT_EQ(cpu::lamb_step(2, w2.data(), g.data(), m2.data(), v2.data(), 0.01f, 0.9f, 0.999f, 1e-8f, 0.5f, 1, false), 1.0);
  EXPECT_NEAR(w2[0], 3 - 0.025, 1e-6);
}

// A tensor whose gradient has (nearly) vanished while its weights are large — the first moment
// decays towards 0 and ‖r‖ with it — has a trust ratio ‖w‖/‖r‖ beyond float's range, but its step
// is still lr·‖w‖ along r̂. It used to be taken as float(lr·trust) = inf, turning the tensor into ±inf
// in one step (LAMB at lr 0.05, batch 4, in studies/accuracy-cost.toml).
TEST(Lamb, HugeTrustRatioGivesAFiniteStepOfLrTimesNorm) {
  // g² underflows in float, so v = 0 and r = m̂/eps = g/eps = (6e-23, -8e-23): ‖r‖ = 1e-22,
  // trust = 5e30/1e-22 = 5e52; the step is 0.01·5e30·(0.6, -0.8) = (3e28, -4e28).
  std::vector<float> w = {3e30f, 4e30f}, g = {6e-31f, -8e-31f}, m = {0, 0}, v = {0, 0};
  const double trust = cpu::lamb_step(2, w.data(), g.data(), m.data(), v.data(), 0.01f, 0.9f, 0.999f, 1e-8f, 0, 1, true);
  EXPECT_NEAR(trust / 5e52, 1.0, 1e-5);
  ASSERT_TRUE(std::isfinite(w[0]) && std::isfinite(w[1])) << w[0] << " " << w[1];
  EXPECT_NEAR(w[0] / 2.97e30, 1.0, 1e-5);
  EXPECT_NEAR(w[1] / 4.04e30, 1.0, 1e-5);
}

TEST(Lars, HugeTrustRatioGivesAFiniteStep) {
  // ‖w‖ = 5e30, ‖g‖ = 1e-30, eta 0.001, lr 10: lr·trust = 5e58; v = lr·trust·g = (3e28, 4e28).
  std::vector<float> w = {3e30f, 4e30f}, g = {6e-31f, 8e-31f}, v = {0, 0};
  EXPECT_NEAR(cpu::lars_step(2, w.data(), g.data(), v.data(), 10, 0.9f, 0, 0.001f, true) / 5e57, 1.0, 1e-5);
  ASSERT_TRUE(std::isfinite(w[0]) && std::isfinite(w[1]) && std::isfinite(v[0])) << w[0] << " " << w[1];
  EXPECT_NEAR(v[0] / 3e28, 1.0, 1e-5);
  EXPECT_NEAR(w[0] / 2.97e30, 1.0, 1e-5);
  EXPECT_NEAR(w[1] / 3.96e30, 1.0, 1e-5);
}
