// test_upconv.cpp — 2×2 stride-2 transposed convolution: sgemm path against the reference on odd
// shapes, the reference backward against central differences, and one hand-computed output.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "kernels/cpu/upconv2x2.h"
#include "tests/kernels/kernel_test_util.h"

namespace scalebench::cpu {
namespace {

using test::dot;
using test::max_rel_err;
using test::numeric_grad;
using test::poisoned;
using test::random_vec;

std::size_t x_size(const UpConvParams& p) { return std::size_t(p.n) * p.c_in * p.h_in * p.w_in; }
std::size_t y_size(const UpConvParams& p) { return std::size_t(p.n) * p.c_out * 4 * p.h_in * p.w_in; }
std::size_t w_size(const UpConvParams& p) { return std::size_t(p.c_in) * p.c_out * 4; }

class UpConvBlasVsRef : public ::testing::TestWithParam<UpConvParams> {};

TEST_P(UpConvBlasVsRef, Forward) {
  const auto p = GetParam();
  auto x = random_vec(x_size(p), 1), w = random_vec(w_size(p), 2), b = random_vec(p.c_out, 3);
  for (const float* bias : {static_cast<const float*>(nullptr), static_cast<const float*>(b.data())}) {
    auto want = poisoned(y_size(p)), got = poisoned(y_size(p));
    upconv2x2_forward_ref(p, x.data(), w.data(), bias, want.data());
    upconv2x2_forward_blas(p, x.data(), w.data(), bias, got.data());
    EXPECT_LE(max_rel_err(got, want), 1e-4) << (bias ? "with bias" : "no bias");
  }
}

TEST_P(UpConvBlasVsRef, BackwardData) {
  const auto p = GetParam();
  auto dy = random_vec(y_size(p), 4), w = random_vec(w_size(p), 5);
  auto want = poisoned(x_size(p)), got = poisoned(x_size(p));
  upconv2x2_backward_data_ref(p, dy.data(), w.data(), want.data());
  upconv2x2_backward_data_blas(p, dy.data(), w.data(), got.data());
  EXPECT_LE(max_rel_err(got, want), 1e-4);
}

TEST_P(UpConvBlasVsRef, BackwardFilter) {
  const auto p = GetParam();
  auto x = random_vec(x_size(p), 6), dy = random_vec(y_size(p), 7);
  auto want_w = poisoned(w_size(p)), got_w = poisoned(w_size(p));
  auto want_b = poisoned(p.c_out), got_b = poisoned(p.c_out);
  upconv2x2_backward_filter_ref(p, x.data(), dy.data(), want_w.data(), want_b.data());
  upconv2x2_backward_filter_blas(p, x.data(), dy.data(), got_w.data(), got_b.data());
  EXPECT_LE(max_rel_err(got_w, want_w), 1e-4);
  EXPECT_LE(max_rel_err(got_b, want_b), 1e-4);
  upconv2x2_backward_filter_blas(p, x.data(), dy.data(), got_w.data(), nullptr);  // overwrites again
  EXPECT_LE(max_rel_err(got_w, want_w), 1e-4);
}

UpConvParams up(int n, int c_in, int h, int w, int c_out) { return {n, c_in, h, w, c_out}; }

INSTANTIATE_TEST_SUITE_P(Shapes, UpConvBlasVsRef,
                         ::testing::Values(up(1, 3, 7, 5, 5), up(3, 3, 7, 5, 5), up(3, 2, 4, 3, 4),
                                           up(2, 5, 1, 1, 3), up(1, 16, 9, 6, 8)),
                         [](const auto& info) {
                           const auto& p = info.param;
                           return fmt::format("n{}_c{}x{}_{}x{}", p.n, p.c_in, p.c_out, p.h_in, p.w_in);
                         });

TEST(UpConv2x2, GradCheck) {
  for (const auto& p : {up(2, 3, 3, 2, 2), up(1, 2, 1, 3, 3)}) {
    auto x = random_vec(x_size(p), 11), w = random_vec(w_size(p), 12), b = random_vec(p.c_out, 13);
    const auto r = random_vec(y_size(p), 14);
    std::vector<float> y(y_size(p));
    const auto loss = [&] {
      upconv2x2_forward_ref(p, x.data(), w.data(), b.data(), y.data());
      return dot(y, r);
    };
    std::vector<float> dx(x_size(p)), dw(w_size(p)), db(p.c_out);
    upconv2x2_backward_data_ref(p, r.data(), w.data(), dx.data());
    upconv2x2_backward_filter_ref(p, x.data(), r.data(), dw.data(), db.data());
    EXPECT_LE(max_rel_err(dx, numeric_grad(x, loss)), 1e-2);
    EXPECT_LE(max_rel_err(dw, numeric_grad(w, loss)), 1e-2);
    EXPECT_LE(max_rel_err(db, numeric_grad(b, loss)), 1e-2);
  }
}

TEST(UpConv2x2, HandComputedLayout) {
  // One input pixel per channel (c_in = 2, 1×1) to one output channel: y[a][b] = Σ_ci x[ci]·w[ci][0][a][b]
  // + bias, which pins down the PyTorch weight layout [c_in, c_out, 2, 2].
  const UpConvParams p = up(1, 2, 1, 1, 1);
  const std::vector<float> x{2, 3}, w{1, 2, 3, 4, 10, 20, 30, 40};
  const float bias = 1.0f;
  const std::vector<float> want{2 + 30 + 1, 4 + 60 + 1, 6 + 90 + 1, 8 + 120 + 1};
  std::vector<float> ref(4), blas(4);
  upconv2x2_forward_ref(p, x.data(), w.data(), &bias, ref.data());
  upconv2x2_forward_blas(p, x.data(), w.data(), &bias, blas.data());
  EXPECT_EQ(ref, want);
  EXPECT_EQ(blas, want);
}

}  // namespace
}  // namespace scalebench::cpu
