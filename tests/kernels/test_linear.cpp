// test_linear.cpp — fully connected layer: sgemm path against the reference, the reference backward
// against central differences, and the PyTorch weight layout [out, in] by hand.
#include <gtest/gtest.h>

#include "kernels/cpu/linear.h"
#include "tests/kernels/kernel_test_util.h"

namespace scalebench::cpu {
namespace {

using test::dot;
using test::max_rel_err;
using test::numeric_grad;
using test::poisoned;
using test::random_vec;

TEST(Linear, BlasMatchesReference) {
  for (const LinearParams p : {LinearParams{1, 7, 5}, LinearParams{3, 13, 6}, LinearParams{8, 33, 17}}) {
    const std::size_t nx = std::size_t(p.n) * p.in, ny = std::size_t(p.n) * p.out, nw = std::size_t(p.out) * p.in;
    auto x = random_vec(nx, 1), w = random_vec(nw, 2), b = random_vec(p.out, 3), dy = random_vec(ny, 4);
    for (const float* bias : {static_cast<const float*>(nullptr), static_cast<const float*>(b.data())}) {
      auto want = poisoned(ny), got = poisoned(ny);
      linear_forward_ref(p, x.data(), w.data(), bias, want.data());
      linear_forward_blas(p, x.data(), w.data(), bias, got.data());
      EXPECT_LE(max_rel_err(got, want), 1e-4) << "forward n=" << p.n << " in=" << p.in << " out=" << p.out;
    }
    auto want_dx = poisoned(nx), got_dx = poisoned(nx);
    linear_backward_data_ref(p, dy.data(), w.data(), want_dx.data());
    linear_backward_data_blas(p, dy.data(), w.data(), got_dx.data());
    EXPECT_LE(max_rel_err(got_dx, want_dx), 1e-4) << "backward data n=" << p.n;
    auto want_dw = poisoned(nw), got_dw = poisoned(nw), want_db = poisoned(p.out), got_db = poisoned(p.out);
    linear_backward_filter_ref(p, x.data(), dy.data(), want_dw.data(), want_db.data());
    linear_backward_filter_blas(p, x.data(), dy.data(), got_dw.data(), got_db.data());
    EXPECT_LE(max_rel_err(got_dw, want_dw), 1e-4) << "backward filter n=" << p.n;
    EXPECT_LE(max_rel_err(got_db, want_db), 1e-4) << "bias grad n=" << p.n;
  }
}

TEST(Linear, GradCheck) {
  const LinearParams p{3, 5, 4};
  auto x = random_vec(15, 11), w = random_vec(20, 12), b = random_vec(4, 13);
  const auto r = random_vec(12, 14);
  std::vector<float> y(12);
  const auto loss = [&] {
    linear_forward_ref(p, x.data(), w.data(), b.data(), y.data());
    return dot(y, r);
  };
  std::vector<float> dx(15), dw(20), db(4);
  linear_backward_data_ref(p, r.data(), w.data(), dx.data());
  linear_backward_filter_ref(p, x.data(), r.data(), dw.data(), db.data());
  EXPECT_LE(max_rel_err(dx, numeric_grad(x, loss)), 1e-2);
  EXPECT_LE(max_rel_err(dw, numeric_grad(w, loss)), 1e-2);
  EXPECT_LE(max_rel_err(db, numeric_grad(b, loss)), 1e-2);
}

TEST(Linear, HandComputedLayout) {
  // w [out=2, in=3]: y_o = Σ_i w[o][i]·x[i] + b[o].
  const LinearParams p{1, 3, 2};
  const std::vector<float> x{1, 2, 3}, w{1, 0, -1, 2, 1, 0}, b{0.5f, -1};
  std::vector<float> ref(2), blas(2);
  linear_forward_ref(p, x.data(), w.data(), b.data(), ref.data());
  linear_forward_blas(p, x.data(), w.data(), b.data(), blas.data());
  const std::vector<float> want{1 - 3 + 0.5f, 2 + 2 - 1};
  EXPECT_EQ(ref, want);
  EXPECT_EQ(blas, want);
}

}  // namespace
}  // namespace scalebench::cpu
