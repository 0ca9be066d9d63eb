// test_conv2d.cpp — conv2d: the im2col+sgemm path against the direct reference on odd shapes,
// strides, paddings, 1×1 and rectangular kernels; the reference backward against central
// differences of the reference forward.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "kernels/cpu/conv2d.h"
#include "tests/kernels/kernel_test_util.h"

namespace scalebench::cpu {
namespace {

using test::dot;
using test::max_rel_err;
using test::numeric_grad;
using test::poisoned;
using test::random_vec;

struct Case {
  int n, c_in, h, w, c_out, k_h, k_w, stride, pad;
};

Conv2dParams params(const Case& c) {
  Conv2dParams p;
  p.n = c.n, p.c_in = c.c_in, p.h_in = c.h, p.w_in = c.w, p.c_out = c.c_out;
  p.k_h = c.k_h, p.k_w = c.k_w, p.stride = c.stride, p.pad = c.pad;
  return p;
}

std::size_t x_size(const Conv2dParams& p) { return std::size_t(p.n) * p.c_in * p.h_in * p.w_in; }
std::size_t y_size(const Conv2dParams& p) { return std::size_t(p.n) * p.c_out * p.h_out() * p.w_out(); }
std::size_t w_size(const Conv2dParams& p) { return std::size_t(p.c_out) * p.c_in * p.k_h * p.k_w; }

class Conv2dBlasVsRef : public ::testing::TestWithParam<Case> {};

TEST_P(Conv2dBlasVsRef, Forward) {
  const auto p = params(GetParam());
  auto x = random_vec(x_size(p), 1), w = random_vec(w_size(p), 2), b = random_vec(p.c_out, 3);
  for (const float* bias : {static_cast<const float*>(nullptr), static_cast<const float*>(b.data())}) {
    auto want = poisoned(y_size(p)), got = poisoned(y_size(p));
    conv2d_forward_ref(p, x.data(), w.data(), bias, want.data());
    conv2d_forward_blas(p, x.data(), w.data(), bias, got.data());
    EXPECT_LE(max_rel_err(got, want), 1e-4) << (bias ? "with bias" : "no bias");
  }
}

TEST_P(Conv2dBlasVsRef, BackwardData) {
  const auto p = params(GetParam());
  auto dy = random_vec(y_size(p), 4), w = random_vec(w_size(p), 5);
  auto want = poisoned(x_size(p)), got = poisoned(x_size(p));
  conv2d_backward_data_ref(p, dy.data(), w.data(), want.data());
  conv2d_backward_data_blas(p, dy.data(), w.data(), got.data());
  EXPECT_LE(max_rel_err(got, want), 1e-4);
}

TEST_P(Conv2dBlasVsRef, BackwardFilter) {
  const auto p = params(GetParam());
  auto x = random_vec(x_size(p), 6), dy = random_vec(y_size(p), 7);
  auto want_w = poisoned(w_size(p)), got_w = poisoned(w_size(p));
  auto want_b = poisoned(p.c_out), got_b = poisoned(p.c_out);
  conv2d_backward_filter_ref(p, x.data(), dy.data(), want_w.data(), want_b.data());
  conv2d_backward_filter_blas(p, x.data(), dy.data(), got_w.data(), got_b.data());
  EXPECT_LE(max_rel_err(got_w, want_w), 1e-4);
  EXPECT_LE(max_rel_err(got_b, want_b), 1e-4);
  // A second call must overwrite, not accumulate onto, the previous result; db may be null.
  conv2d_backward_filter_blas(p, x.data(), dy.data(), got_w.data(), nullptr);
  EXPECT_LE(max_rel_err(got_w, want_w), 1e-4);
}

// n, c_in, h, w, c_out, k_h, k_w, stride, pad
INSTANTIATE_TEST_SUITE_P(Shapes, Conv2dBlasVsRef,
                         ::testing::Values(Case{1, 3, 7, 5, 5, 3, 3, 1, 1}, Case{3, 3, 7, 5, 5, 3, 3, 1, 1},
                                           Case{3, 3, 7, 5, 5, 3, 3, 2, 1}, Case{1, 3, 7, 5, 5, 3, 3, 2, 0},
                                           Case{3, 2, 7, 5, 4, 3, 3, 1, 0}, Case{3, 4, 6, 9, 3, 1, 1, 1, 0},
                                           Case{2, 4, 7, 5, 3, 1, 1, 2, 0}, Case{1, 3, 5, 5, 2, 1, 1, 1, 1},
                                           Case{2, 5, 8, 8, 6, 3, 3, 2, 1}, Case{2, 2, 6, 7, 3, 3, 2, 2, 1},
                                           Case{1, 16, 12, 12, 8, 3, 3, 1, 1}, Case{2, 2, 2, 3, 3, 3, 3, 1, 2},
                                           Case{1, 2, 3, 3, 2, 3, 3, 2, 2},
                                           // Large enough k·h_out·w_out that the BLAS path works in
                                           // several row bands, with a partial last band.
                                           Case{2, 64, 40, 37, 4, 3, 3, 1, 1}, Case{1, 64, 41, 40, 3, 3, 3, 2, 1},
                                           Case{1, 64, 43, 30, 2, 3, 3, 1, 0},
                                           // Backward data by the flipped filter (c_in >= 8, stride 1)
                                           // with pad = k-1 and a 5×5 kernel; pad > k-1 falls back.
                                           Case{2, 8, 5, 6, 3, 3, 3, 1, 2}, Case{1, 8, 9, 7, 4, 5, 5, 1, 2},
                                           Case{1, 8, 4, 5, 3, 1, 1, 1, 1}),
                         [](const auto& info) {
                           const Case& c = info.param;
                           return fmt::format("n{}_c{}x{}_{}x{}_k{}{}_s{}_p{}", c.n, c.c_in, c.c_out, c.h, c.w,
                                              c.k_h, c.k_w, c.stride, c.pad);
                         });

// Gradients of loss = Σ y·r through the reference forward, for every input, weight and bias.
class Conv2dGradCheck : public ::testing::TestWithParam<Case> {};

TEST_P(Conv2dGradCheck, MatchesCentralDifferences) {
  const auto p = params(GetParam());
  auto x = random_vec(x_size(p), 11), w = random_vec(w_size(p), 12), b = random_vec(p.c_out, 13);
  const auto r = random_vec(y_size(p), 14);
  std::vector<float> y(y_size(p));
  const auto loss = [&] {
    conv2d_forward_ref(p, x.data(), w.data(), b.data(), y.data());
    return dot(y, r);
  };
  std::vector<float> dx(x_size(p)), dw(w_size(p)), db(p.c_out);
  conv2d_backward_data_ref(p, r.data(), w.data(), dx.data());
  conv2d_backward_filter_ref(p, x.data(), r.data(), dw.data(), db.data());
  EXPECT_LE(max_rel_err(dx, numeric_grad(x, loss)), 1e-2);
  EXPECT_LE(max_rel_err(dw, numeric_grad(w, loss)), 1e-2);
  EXPECT_LE(max_rel_err(db, numeric_grad(b, loss)), 1e-2);
}

INSTANTIATE_TEST_SUITE_P(Shapes, Conv2dGradCheck,
                         ::testing::Values(Case{2, 2, 5, 4, 3, 3, 3, 1, 1}, Case{2, 2, 5, 4, 3, 3, 3, 2, 1},
                                           Case{1, 3, 6, 5, 2, 3, 3, 1, 0}, Case{2, 3, 4, 3, 2, 1, 1, 1, 0}));

TEST(Conv2d, HandComputedForward) {
  // 1×1 input channel 3×3, one 3×3 all-ones filter, pad 1: each output is the sum of its
  // neighbourhood; the centre sees all nine values 1..9 = 45, the corner (0,0) sees 1+2+4+5 = 12.
  Conv2dParams p;
  p.h_in = p.w_in = 3, p.pad = 1;
  const std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9}, w(9, 1.0f);
  const float bias = 0.5f;
  std::vector<float> ref(9), blas(9);
  conv2d_forward_ref(p, x.data(), w.data(), &bias, ref.data());
  conv2d_forward_blas(p, x.data(), w.data(), &bias, blas.data());
  const std::vector<float> want{12.5f, 21.5f, 16.5f, 27.5f, 45.5f, 33.5f, 24.5f, 39.5f, 28.5f};
  EXPECT_EQ(ref, want);
  EXPECT_EQ(blas, want);
}

}  // namespace
}  // namespace scalebench::cpu
