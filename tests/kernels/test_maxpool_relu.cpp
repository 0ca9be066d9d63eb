// test_maxpool_relu.cpp — 2×2 max pooling (odd sizes floor, ties to the first element, scatter
// backward) and ReLU, each with a central-difference gradient check on data kept away from the
// kinks (no ties, no values near 0) so the finite differences are valid.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>

#include "kernels/cpu/maxpool2x2.h"
#include "kernels/cpu/relu.h"
#include "tests/kernels/kernel_test_util.h"

namespace scalebench::cpu {
namespace {

using test::dot;
using test::max_rel_err;
using test::numeric_grad;
using test::poisoned;
using test::random_vec;

TEST(MaxPool2x2, OddSizesFloorByHand) {
  // 1×1×3×5 plane -> 1×2; the last row and column are dropped.
  const std::vector<float> x{1, 9, 2, 3, 100,  //
                             4, 5, 8, 7, 100,  //
                             100, 100, 100, 100, 100};
  std::vector<float> y(2);
  std::vector<std::int32_t> arg(2);
  maxpool2x2_forward(1, 1, 3, 5, x.data(), y.data(), arg.data());
  EXPECT_EQ(y, (std::vector<float>{9, 8}));
  EXPECT_EQ(arg, (std::vector<std::int32_t>{1, 7}));
  auto dx = poisoned(15);
  const std::vector<float> dy{0.5f, -2};
  maxpool2x2_backward(1, 1, 3, 5, dy.data(), arg.data(), dx.data());
  std::vector<float> want(15, 0.0f);
  want[1] = 0.5f, want[7] = -2;
  EXPECT_EQ(dx, want);
}

TEST(MaxPool2x2, TiesGoToFirstInRowMajorOrder) {
  const std::vector<float> x{3, 3, 3, 3, 1, 2, 2, 2};  // two planes of 2×2
  std::vector<float> y(2);
  std::vector<std::int32_t> arg(2);
  maxpool2x2_forward(1, 2, 2, 2, x.data(), y.data(), arg.data());
  EXPECT_EQ(arg, (std::vector<std::int32_t>{0, 1}));
}

TEST(MaxPool2x2, GradCheck) {
  const int n = 2, c = 3, h = 5, w = 7;
  const std::size_t nx = std::size_t(n) * c * h * w, ny = std::size_t(n) * c * (h / 2) * (w / 2);
  // Distinct values 0.1 apart: a ±0.01 step never changes which element is the maximum.
  std::vector<float> x(nx);
  std::iota(x.begin(), x.end(), 0.0f);
  std::shuffle(x.begin(), x.end(), std::mt19937(5));
  for (auto& v : x) v *= 0.1f;
  const auto r = random_vec(ny, 6);
  std::vector<float> y(ny);
  std::vector<std::int32_t> arg(ny);
  const auto loss = [&] {
    maxpool2x2_forward(n, c, h, w, x.data(), y.data(), arg.data());
    return dot(y, r);
  };
  const auto numeric = numeric_grad(x, loss);
  maxpool2x2_forward(n, c, h, w, x.data(), y.data(), arg.data());
  auto dx = poisoned(nx);
  maxpool2x2_backward(n, c, h, w, r.data(), arg.data(), dx.data());
  EXPECT_LE(max_rel_err(dx, numeric), 1e-2);
}

TEST(Relu, ForwardBackwardByHand) {
  std::vector<float> x{-2, -0.5f, 0, 0.5f, 3};
  std::vector<float> y(5);
  relu_forward(5, x.data(), y.data());
  EXPECT_EQ(y, (std::vector<float>{0, 0, 0, 0.5f, 3}));
  const std::vector<float> dy{1, 2, 3, 4, 5};
  std::vector<float> dx(5);
  relu_backward(5, y.data(), dy.data(), dx.data());
  EXPECT_EQ(dx, (std::vector<float>{0, 0, 0, 4, 5}));
  relu_forward(5, x.data(), x.data());  // in place
  EXPECT_EQ(x, y);
}

// The vectorised loops against the scalar rule on a length that is no multiple of any vector width,
// including NaN inputs and the in-place backward (dy == dx) the layers may use.
TEST(Relu, LongArraysMatchTheScalarRule) {
  const std::int64_t n = 1000 + 13;
  auto x = random_vec(std::size_t(n), 7);
  x[3] = std::numeric_limits<float>::quiet_NaN();
  x[4] = 0.0f;
  x[5] = -0.0f;
  std::vector<float> y(static_cast<std::size_t>(n)), dx(static_cast<std::size_t>(n));
  relu_forward(n, x.data(), y.data());
  const auto dy = random_vec(std::size_t(n), 8);
  relu_backward(n, y.data(), dy.data(), dx.data());
  auto dy_in_place = dy;
  relu_backward(n, y.data(), dy_in_place.data(), dy_in_place.data());
  for (std::size_t i = 0; i < std::size_t(n); ++i) {
    const float want_y = x[i] > 0.0f ? x[i] : 0.0f;
    ASSERT_EQ(y[i], want_y) << i;
    const float want_dx = want_y > 0.0f ? dy[i] : 0.0f;
    ASSERT_EQ(dx[i], want_dx) << i;
    ASSERT_EQ(dy_in_place[i], want_dx) << i;
  }
}

TEST(Relu, GradCheck) {
  // Magnitudes in [0.1, 1] with random signs: far from the kink at 0 for a 0.01 step.
  auto x = random_vec(64, 1, 0.1f, 1.0f);
  const auto sign = random_vec(64, 2);
  for (std::size_t i = 0; i < x.size(); ++i)
    if (sign[i] < 0) x[i] = -x[i];
  const auto r = random_vec(64, 3);
  std::vector<float> y(64);
  const auto loss = [&] {
    relu_forward(64, x.data(), y.data());
    return dot(y, r);
  };
  const auto numeric = numeric_grad(x, loss);
  relu_forward(64, x.data(), y.data());
  std::vector<float> dx(64);
  relu_backward(64, y.data(), r.data(), dx.data());
  EXPECT_LE(max_rel_err(dx, numeric), 1e-2);
}

}  // namespace
}  // namespace scalebench::cpu
