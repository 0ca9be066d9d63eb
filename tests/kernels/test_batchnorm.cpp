// test_batchnorm.cpp — batch normalisation: hand-computed batch statistics, PyTorch running-stat
// update (unbiased variance) and eval mode; the train-mode backward against central differences
// for x, γ and β, in the NCHW and the [n, c] (hw = 1) case; the fused ReLU against batch norm and
// relu.h composed, bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/common/check.h"
#include "kernels/cpu/batchnorm.h"
#include "kernels/cpu/relu.h"
#include "tests/kernels/kernel_test_util.h"

namespace scalebench::cpu {
namespace {

using test::dot;
using test::max_rel_err;
using test::numeric_grad;
using test::poisoned;
using test::random_vec;

TEST(BatchNorm, TrainStatsAndRunningUpdateByHand) {
  BatchNormParams p;
  p.n = 2, p.c = 2, p.hw = 2, p.eps = 1e-5f, p.momentum = 0.1f;
  // x [n=2, c=2, hw=2]: channel 0 holds {1, 2, 3, 4}, channel 1 holds {10, 10.5, 11, 12.5}.
  const std::vector<float> x{1, 2, 10, 10.5f, 3, 4, 11, 12.5f};
  const std::vector<float> gamma{2, 1}, beta{1, 0};
  std::vector<float> y(8), mean(2), invstd(2), rmean{0, 1}, rvar{1, 2};
  batchnorm_forward_train(p, x.data(), gamma.data(), beta.data(), y.data(), mean.data(), invstd.data(),
                          rmean.data(), rvar.data());
  // Channel 0: mean 2.5, biased var 1.25, unbiased 5/3. Channel 1: mean 11, squares 1+0.25+0+2.25 = 3.5,
  // biased var 0.875, unbiased 3.5/3.
  EXPECT_FLOAT_EQ(mean[0], 2.5f);
  EXPECT_FLOAT_EQ(mean[1], 11.0f);
  EXPECT_FLOAT_EQ(invstd[0], static_cast<float>(1.0 / std::sqrt(1.25 + 1e-5)));
  EXPECT_FLOAT_EQ(invstd[1], static_cast<float>(1.0 / std::sqrt(0.875 + 1e-5)));
  EXPECT_FLOAT_EQ(rmean[0], 0.9f * 0 + 0.1f * 2.5f);
  EXPECT_FLOAT_EQ(rmean[1], 0.9f * 1 + 0.1f * 11);
  EXPECT_FLOAT_EQ(rvar[0], static_cast<float>(0.9 * 1 + 0.1 * 5.0 / 3.0));
  EXPECT_FLOAT_EQ(rvar[1], static_cast<float>(0.9 * 2 + 0.1 * 3.5 / 3.0));
  // y = γ·(x − mean)/sqrt(var + eps) + β with the biased variance.
  const double s0 = 1.0 / std::sqrt(1.25 + 1e-5), s1 = 1.0 / std::sqrt(0.875 + 1e-5);
  const std::vector<double> want{2 * -1.5 * s0 + 1, 2 * -0.5 * s0 + 1, -1 * s1, -0.5 * s1,
                                 2 * 0.5 * s0 + 1,  2 * 1.5 * s0 + 1,  0,       1.5 * s1};
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(y[i], want[i], 1e-5) << "element " << i;

  // Eval mode uses the running statistics just computed.
  std::vector<float> ye(8);
  batchnorm_forward_eval(p, x.data(), gamma.data(), beta.data(), rmean.data(), rvar.data(), ye.data());
  for (int i = 0; i < 8; ++i) {
    const int ch = (i / 2) % 2;
    const double want_e = gamma[ch] * (x[i] - double(rmean[ch])) / std::sqrt(double(rvar[ch]) + 1e-5) + beta[ch];
    EXPECT_NEAR(ye[i], want_e, 1e-5) << "eval element " << i;
  }
}

TEST(BatchNorm, SingleValuePerChannelIsRejectedInTraining) {
  BatchNormParams p;
  p.n = 1, p.c = 2, p.hw = 1;
  std::vector<float> x{1, 2}, g{1, 1}, b{0, 0}, y(2), m(2), s(2), rm(2), rv(2);
  EXPECT_THROW(batchnorm_forward_train(p, x.data(), g.data(), b.data(), y.data(), m.data(), s.data(), rm.data(),
                                       rv.data()),
               scalebench::Error);
}

class BatchNormGrad : public ::testing::TestWithParam<BatchNormParams> {};

TEST_P(BatchNormGrad, TrainModeMatchesCentralDifferences) {
  const auto p = GetParam();
  const std::size_t count = std::size_t(p.n) * p.c * p.hw;
  auto x = random_vec(count, 1, -2.0f, 2.0f), gamma = random_vec(p.c, 2, 0.5f, 1.5f), beta = random_vec(p.c, 3);
  const auto r = random_vec(count, 4);
  std::vector<float> y(count), mean(p.c), invstd(p.c), rmean(p.c, 0.0f), rvar(p.c, 1.0f);
  const auto loss = [&] {
    batchnorm_forward_train(p, x.data(), gamma.data(), beta.data(), y.data(), mean.data(), invstd.data(),
                            rmean.data(), rvar.data());
    return dot(y, r);
  };
  const auto num_x = numeric_grad(x, loss), num_g = numeric_grad(gamma, loss), num_b = numeric_grad(beta, loss);
  loss();  // leaves save_mean/save_invstd of the unperturbed input
  auto dx = poisoned(count), dgamma = poisoned(p.c), dbeta = poisoned(p.c);
  batchnorm_backward(p, x.data(), r.data(), gamma.data(), mean.data(), invstd.data(), dx.data(), dgamma.data(),
                     dbeta.data());
  EXPECT_LE(max_rel_err(dx, num_x), 1e-2);
  EXPECT_LE(max_rel_err(dgamma, num_g), 1e-2);
  EXPECT_LE(max_rel_err(dbeta, num_b), 1e-2);
}

BatchNormParams bn(int n, int c, int hw) {
  BatchNormParams p;
  p.n = n, p.c = c, p.hw = hw;
  return p;
}

INSTANTIATE_TEST_SUITE_P(Shapes, BatchNormGrad, ::testing::Values(bn(3, 2, 5), bn(2, 3, 7), bn(4, 3, 1)));

// The fused ReLU (batchnorm.h FusedRelu) against the composition it replaces: batch norm, then
// relu.h's forward; relu.h's backward, then the batch norm's backward. Bit for bit, in training and
// eval, on planes with and without a remainder after the 16-lane blocks, with gamma/beta that make
// both signs common and exact zeros in the input (the mask's edge).
TEST(BatchNorm, FusedReluEqualsBatchNormThenReluBitForBit) {
  for (const int hw : {1, 37, 64}) {
    BatchNormParams p;
    p.n = 3, p.c = 4, p.hw = hw;
    const std::size_t count = std::size_t(p.n) * p.c * p.hw;
    auto x = random_vec(count, 11 + unsigned(hw), -2.0f, 2.0f);
    for (std::size_t i = 0; i < count; i += 7) x[i] = 0.0f;
    const auto dz = random_vec(count, 12 + unsigned(hw));
    const std::vector<float> gamma{1.5f, -0.7f, 0.3f, 1.0f}, beta{0.2f, -0.4f, 0.0f, 1.1f};
    // The composition.
    std::vector<float> y(count), z(count), dy(count), dx(count), mean(4), invstd(4), rm(4, 0.0f), rv(4, 1.0f);
    std::vector<float> dgamma(4), dbeta(4);
    batchnorm_forward_train(p, x.data(), gamma.data(), beta.data(), y.data(), mean.data(), invstd.data(), rm.data(),
                            rv.data());
    relu_forward(std::int64_t(count), y.data(), z.data());
    relu_backward(std::int64_t(count), z.data(), dz.data(), dy.data());
    batchnorm_backward(p, x.data(), dy.data(), gamma.data(), mean.data(), invstd.data(), dx.data(), dgamma.data(),
                       dbeta.data());
    // Fused.
    std::vector<float> fz = poisoned(count), fdx = poisoned(count), fmean(4), finvstd(4), frm(4, 0.0f),
                       frv(4, 1.0f), fdgamma(4), fdbeta(4), scale(4), shift(4);
    batchnorm_forward_train(p, x.data(), gamma.data(), beta.data(), fz.data(), fmean.data(), finvstd.data(),
                            frm.data(), frv.data(), {}, FusedRelu{scale.data(), shift.data()});
    batchnorm_backward(p, x.data(), dz.data(), gamma.data(), fmean.data(), finvstd.data(), fdx.data(),
                       fdgamma.data(), fdbeta.data(), {}, FusedReluSaved{scale.data(), shift.data()});
    const auto same_bits = [](const std::vector<float>& a, const std::vector<float>& b) {
      return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
    };
    EXPECT_TRUE(same_bits(fz, z)) << "forward, hw " << hw;
    EXPECT_TRUE(same_bits(fdx, dx)) << "dx, hw " << hw;
    EXPECT_TRUE(same_bits(fdgamma, dgamma) && same_bits(fdbeta, dbeta)) << "dgamma/dbeta, hw " << hw;
    EXPECT_TRUE(same_bits(frm, rm) && same_bits(frv, rv) && same_bits(fmean, mean)) << "statistics, hw " << hw;
    // Some outputs were clamped and some passed, or the test shows nothing.
    const auto zeros = std::count(z.begin(), z.end(), 0.0f);
    EXPECT_GT(zeros, 0);
    EXPECT_LT(std::size_t(zeros), count);
    // Eval mode.
    std::vector<float> ye(count), ze(count), fze = poisoned(count);
    batchnorm_forward_eval(p, x.data(), gamma.data(), beta.data(), rm.data(), rv.data(), ye.data());
    relu_forward(std::int64_t(count), ye.data(), ze.data());
    batchnorm_forward_eval(p, x.data(), gamma.data(), beta.data(), rm.data(), rv.data(), fze.data(), true);
    EXPECT_TRUE(same_bits(fze, ze)) << "eval, hw " << hw;
  }
}

}  // namespace
}  // namespace scalebench::cpu
