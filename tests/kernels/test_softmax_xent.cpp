// test_softmax_xent.cpp — softmax cross-entropy: a hand-computed 2-class example (plain and
// class-weighted mean), stability for large logits, label checking, argmax ties, and the gradient
// against central differences per pixel and per sample, with and without class weights.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "kernels/common/check.h"
#include "kernels/cpu/softmax_xent.h"
#include "tests/kernels/kernel_test_util.h"

namespace scalebench::cpu {
namespace {

using test::max_rel_err;
using test::numeric_grad;
using test::poisoned;
using test::random_vec;

// logits [n=1, classes=2, hw=2]: pixel 0 is (0, ln 3) with label 1, pixel 1 is (2, 0) with label 0.
const std::vector<float> kLogits{0.0f, 2.0f, static_cast<float>(std::log(3.0)), 0.0f};
const std::vector<std::int32_t> kLabels{1, 0};
const SoftmaxXentParams kTwoClass{1, 2, 2};

TEST(SoftmaxXent, TwoClassByHand) {
  // nll0 = −ln(3/4), nll1 = −ln(e²/(e²+1)) = ln(1 + e⁻²); the loss is their mean.
  const double nll0 = std::log(4.0 / 3.0), nll1 = std::log(1.0 + std::exp(-2.0));
  auto d = poisoned(4);
  EXPECT_NEAR(softmax_xent(kTwoClass, kLogits.data(), kLabels.data(), nullptr, d.data()), (nll0 + nll1) / 2, 1e-6);
  // d/dx = (softmax − onehot)/2: pixel 0 → (1/4, −1/4)/2, pixel 1 → (−1/(e²+1), 1/(e²+1))/2.
  const double q = 1.0 / (std::exp(2.0) + 1.0);
  EXPECT_NEAR(d[0], 0.125, 1e-6);
  EXPECT_NEAR(d[2], -0.125, 1e-6);
  EXPECT_NEAR(d[1], -q / 2, 1e-6);
  EXPECT_NEAR(d[3], q / 2, 1e-6);
}

TEST(SoftmaxXent, TwoClassWeightedMeanByHand) {
  // Weights (1, 3): Σ w[y_i]·nll_i / Σ w[y_i] = (3·nll0 + 1·nll1) / 4.
  const std::vector<float> w{1, 3};
  const double nll0 = std::log(4.0 / 3.0), nll1 = std::log(1.0 + std::exp(-2.0));
  auto d = poisoned(4);
  EXPECT_NEAR(softmax_xent(kTwoClass, kLogits.data(), kLabels.data(), w.data(), d.data()),
              (3 * nll0 + nll1) / 4, 1e-6);
  EXPECT_NEAR(d[0], 3.0 / 4.0 * 0.25, 1e-6);
  EXPECT_NEAR(d[2], -3.0 / 4.0 * 0.25, 1e-6);
  // Without an output buffer the loss is the same.
  EXPECT_NEAR(softmax_xent(kTwoClass, kLogits.data(), kLabels.data(), w.data(), nullptr), (3 * nll0 + nll1) / 4,
              1e-6);
}

TEST(SoftmaxXent, LargeLogitsStayFinite) {
  const std::vector<float> logits{1000.0f, -1000.0f, 0.0f, 0.0f};  // [n=2, classes=2, hw=1]
  const std::vector<std::int32_t> labels{1, 0};
  std::vector<float> d(4);
  const double loss = softmax_xent({2, 2, 1}, logits.data(), labels.data(), nullptr, d.data());
  EXPECT_NEAR(loss, (2000.0 + std::log(2.0)) / 2, 1e-3);
  for (float v : d) EXPECT_TRUE(std::isfinite(v));
}

TEST(SoftmaxXent, LabelOutOfRangeNamesValueAndPosition) {
  const std::vector<float> logits(8, 0.0f);  // [n=2, classes=2, hw=2]
  const std::vector<std::int32_t> labels{0, 1, 1, 5};
  try {
    softmax_xent({2, 2, 2}, logits.data(), labels.data(), nullptr, nullptr);
    FAIL() << "expected scalebench::Error";
  } catch (const scalebench::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("label 5"), std::string::npos) << msg;
    EXPECT_NE(msg.find("position 3"), std::string::npos) << msg;
  }
}

TEST(SoftmaxXent, AllZeroWeightGivesZeroLossAndGradient) {
  const std::vector<float> w{0, 1};
  const std::vector<std::int32_t> labels{0, 0};
  auto d = poisoned(4);
  EXPECT_EQ(softmax_xent(kTwoClass, kLogits.data(), labels.data(), w.data(), d.data()), 0.0);
  EXPECT_EQ(d, std::vector<float>(4, 0.0f));
}

TEST(ArgmaxClasses, TiesGoToLowerClass) {
  // [n=1, classes=3, hw=3]: pixel 0 tie between 0 and 2, pixel 1 clear max class 1, pixel 2 tie 1 and 2.
  const std::vector<float> logits{5, 0, 1, 2, 7, 4, 5, 1, 4};
  std::vector<std::int32_t> pred(3);
  argmax_classes({1, 3, 3}, logits.data(), pred.data());
  EXPECT_EQ(pred, (std::vector<std::int32_t>{0, 1, 1}));
}

struct GradCase {
  SoftmaxXentParams p;
  bool weighted;
};

class SoftmaxXentGrad : public ::testing::TestWithParam<GradCase> {};

TEST_P(SoftmaxXentGrad, MatchesCentralDifferences) {
  const auto [p, weighted] = GetParam();
  const std::size_t count = std::size_t(p.n) * p.classes * p.hw;
  auto logits = random_vec(count, 1, -2.0f, 2.0f);
  std::vector<std::int32_t> labels(std::size_t(p.n) * p.hw);
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<std::int32_t>((i * 7 + 3) % p.classes);
  const auto weights = random_vec(p.classes, 2, 0.2f, 3.0f);
  const float* w = weighted ? weights.data() : nullptr;
  const auto loss = [&] { return softmax_xent(p, logits.data(), labels.data(), w, nullptr); };
  const auto numeric = numeric_grad(logits, loss);
  auto d = poisoned(count);
  softmax_xent(p, logits.data(), labels.data(), w, d.data());
  EXPECT_LE(max_rel_err(d, numeric), 1e-2);
}

INSTANTIATE_TEST_SUITE_P(Cases, SoftmaxXentGrad,
                         ::testing::Values(GradCase{{2, 3, 5}, false}, GradCase{{2, 3, 5}, true},
                                           GradCase{{4, 5, 1}, false}, GradCase{{4, 5, 1}, true}),
                         [](const auto& info) {
                           const auto& c = info.param;
                           return std::string(c.p.hw == 1 ? "per_sample" : "per_pixel") +
                                  (c.weighted ? "_weighted" : "_plain");
                         });

}  // namespace
}  // namespace scalebench::cpu
