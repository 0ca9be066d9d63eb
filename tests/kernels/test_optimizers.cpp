// test_optimizers.cpp — SGD with momentum and AdamW: two steps on two parameters against numbers
// worked out by hand from PyTorch's update rules (written out in the comments).
#include <gtest/gtest.h>

#include "kernels/common/check.h"
#include "kernels/cpu/optimizers.h"

namespace scalebench::cpu {
namespace {

TEST(SgdMomentum, TwoStepsByHand) {
  // lr 0.1, momentum 0.9, weight decay 0.01; w = (1, −2); g1 = (0.5, 1), g2 = (−0.2, 3).
  std::vector<float> w{1.0f, -2.0f}, m{123.0f, -7.0f};  // garbage: the first step must overwrite m
  const std::vector<float> g1{0.5f, 1.0f}, g2{-0.2f, 3.0f};
  sgd_momentum_step(2, w.data(), g1.data(), m.data(), 0.1f, 0.9f, 0.01f, true);
  // g' = g + 0.01·w = (0.51, 0.98); m = g'; w −= 0.1·m → (0.949, −2.098).
  EXPECT_NEAR(m[0], 0.51f, 1e-6);
  EXPECT_NEAR(m[1], 0.98f, 1e-6);
  EXPECT_NEAR(w[0], 0.949f, 1e-6);
  EXPECT_NEAR(w[1], -2.098f, 1e-6);
  sgd_momentum_step(2, w.data(), g2.data(), m.data(), 0.1f, 0.9f, 0.01f, false);
  // g' = (−0.2 + 0.00949, 3 − 0.02098) = (−0.19051, 2.97902); m = 0.9·m + g' = (0.26849, 3.86102);
  // w = (0.949 − 0.026849, −2.098 − 0.386102) = (0.922151, −2.484102).
  EXPECT_NEAR(m[0], 0.26849f, 1e-6);
  EXPECT_NEAR(m[1], 3.86102f, 1e-5);
  EXPECT_NEAR(w[0], 0.922151f, 1e-6);
  EXPECT_NEAR(w[1], -2.484102f, 1e-6);
}

TEST(AdamW, TwoStepsByHand) {
  // lr 0.1, β = (0.9, 0.999), eps 1e-8, weight decay 0.01; w = (1, −2); g1 = (0.5, 1), g2 = (−0.2, 3).
  std::vector<float> w{1.0f, -2.0f}, m(2, 0.0f), v(2, 0.0f);
  const std::vector<float> g1{0.5f, 1.0f}, g2{-0.2f, 3.0f};
  adamw_step(2, w.data(), g1.data(), m.data(), v.data(), 0.1f, 0.9f, 0.999f, 1e-8f, 0.01f, 1);
  // Step 1: w ·= 1 − 0.001 → (0.999, −1.998); m = 0.1·g = (0.05, 0.1); v = 0.001·g² = (0.00025, 0.001);
  // m̂ = m/0.1 = g, √v̂ = √(v/0.001) = |g|, so w −= 0.1·g/(|g| + 1e-8) ≈ 0.1·sign(g):
  // w = (0.899000002, −2.097999999).
  // v carries a 1.3e-5 relative error by construction: 0.999f is 0.99900001287, so 1 − β2 is
  // 0.00099998713 in any precision; hence the relative tolerance 5e-5 on v.
  EXPECT_NEAR(m[0], 0.05f, 1e-7);
  EXPECT_NEAR(v[0], 0.00025f, 0.00025 * 5e-5);
  EXPECT_NEAR(m[1], 0.1f, 1e-7);
  EXPECT_NEAR(v[1], 0.001f, 0.001 * 5e-5);
  EXPECT_NEAR(w[0], 0.899000002f, 1e-6);
  EXPECT_NEAR(w[1], -2.097999999f, 1e-6);
  adamw_step(2, w.data(), g2.data(), m.data(), v.data(), 0.1f, 0.9f, 0.999f, 1e-8f, 0.01f, 2);
  // Step 2, element 0: w = 0.899000002·0.999 = 0.898101002; m = 0.045 − 0.02 = 0.025;
  // v = 0.999·0.00025 + 0.001·0.04 = 0.00028975; m̂ = 0.025/0.19 = 0.1315789; v̂ = 0.00028975/0.001999 =
  // 0.1449475, √ = 0.3807197; w −= 0.1·0.1315789/0.3807197 = 0.0345605 → 0.8635404.
  // Element 1: w = −2.097999999·0.999 = −2.095902; m = 0.09 + 0.3 = 0.39; v = 0.000999 + 0.009 = 0.009999;
  // m̂ = 2.0526316; v̂ = 5.0020010, √ = 2.2365154; w −= 0.1·0.9177811 → −2.1876801.
  EXPECT_NEAR(m[0], 0.025f, 1e-7);
  EXPECT_NEAR(v[0], 0.00028975f, 0.00028975 * 5e-5);
  EXPECT_NEAR(m[1], 0.39f, 1e-6);
  EXPECT_NEAR(v[1], 0.009999f, 0.009999 * 5e-5);
  EXPECT_NEAR(w[0], 0.8635404f, 2e-6);
  EXPECT_NEAR(w[1], -2.1876801f, 2e-6);
}

TEST(AdamW, StepIsOneBased) {
  std::vector<float> w(1), g(1), m(1), v(1);
  EXPECT_THROW(adamw_step(1, w.data(), g.data(), m.data(), v.data(), 0.1f, 0.9f, 0.999f, 1e-8f, 0.0f, 0),
               scalebench::Error);
}

}  // namespace
}  // namespace scalebench::cpu
