// test_onednn_conv2d.cpp — the oneDNN convolution (kernels/onednn/conv2d.h) against the direct
// reference: forward with and without bias, direct and Winograd, the weight and bias gradients and the data gradient,
// on the shapes the models use and on odd ones (stride 2, pad 0, 1×1, few channels); the state it
// keeps between calls (the blocked input reused by backward, one object for several batch sizes,
// a backward on another input than the last forward's); the fused ReLU's forward. Skipped in builds without oneDNN, where a
// call must fail with one line instead.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "kernels/common/check.h"
#include "kernels/cpu/conv2d.h"
#include "kernels/onednn/conv2d.h"
#include "tests/kernels/kernel_test_util.h"

namespace scalebench::onednn {
namespace {

using cpu::test::max_rel_err;
using cpu::test::poisoned;
using cpu::test::random_vec;

struct Case {
  int n, c_in, h, w, c_out, k, stride, pad;
};

Conv2dParams params(const Case& c) {
  Conv2dParams p;
  p.n = c.n, p.c_in = c.c_in, p.h_in = c.h, p.w_in = c.w, p.c_out = c.c_out;
  p.k_h = p.k_w = c.k, p.stride = c.stride, p.pad = c.pad;
  return p;
}

std::size_t x_size(const Conv2dParams& p) { return std::size_t(p.n) * p.c_in * p.h_in * p.w_in; }
std::size_t y_size(const Conv2dParams& p) { return std::size_t(p.n) * p.c_out * p.h_out() * p.w_out(); }
std::size_t w_size(const Conv2dParams& p) { return std::size_t(p.c_out) * p.c_in * p.k_h * p.k_w; }

// Everything one forward + backward produces, from the reference or from oneDNN.
struct Results {
  std::vector<float> y, dx, dw, db;
};

Results reference(const Conv2dParams& p, const std::vector<float>& x, const std::vector<float>& w,
                  const float* bias, const std::vector<float>& dy) {
  Results r{poisoned(y_size(p)), poisoned(x_size(p)), poisoned(w_size(p)), poisoned(p.c_out)};
  cpu::conv2d_forward_ref(p, x.data(), w.data(), bias, r.y.data());
  cpu::conv2d_backward_data_ref(p, dy.data(), w.data(), r.dx.data());
  cpu::conv2d_backward_filter_ref(p, x.data(), dy.data(), r.dw.data(), r.db.data());
  return r;
}

void expect_close(const Results& got, const Results& want, bool bias, const std::string& what) {
  EXPECT_LE(max_rel_err(got.y, want.y), 1e-4) << what << ": forward";
  EXPECT_LE(max_rel_err(got.dx, want.dx), 1e-4) << what << ": data gradient";
  EXPECT_LE(max_rel_err(got.dw, want.dw), 1e-4) << what << ": weight gradient";
  if (bias) {
    EXPECT_LE(max_rel_err(got.db, want.db), 1e-4) << what << ": bias gradient";
  }
}

class OnednnConv2dVsRef : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    if (!available()) GTEST_SKIP() << "this build has no oneDNN";
  }
};

TEST_P(OnednnConv2dVsRef, ForwardAndEveryGradient) {
  const auto p = params(GetParam());
  const auto x = random_vec(x_size(p), 1), w = random_vec(w_size(p), 2), b = random_vec(p.c_out, 3),
             dy = random_vec(y_size(p), 4);
  for (bool winograd : {false, true})  // Winograd where oneDNN has it (3x3 stride 1), else direct
    for (bool bias : {false, true}) {
      const float* bp = bias ? b.data() : nullptr;
      const Results want = reference(p, x, w, bp, dy);
      Conv2d conv(bias, false, winograd);
      // Twice: the second step runs on the primitives and buffers the first one made.
      for (int step = 0; step < 2; ++step) {
        Results got{poisoned(y_size(p)), poisoned(x_size(p)), poisoned(w_size(p)), poisoned(p.c_out)};
        conv.forward(p, x.data(), w.data(), bp, got.y.data());
        conv.backward(p, x.data(), w.data(), dy.data(), got.dw.data(), bias ? got.db.data() : nullptr, got.dx.data());
        expect_close(got, want, bias,
                     fmt::format("{}, {} bias, step {}", winograd ? "winograd" : "direct", bias ? "with" : "no", step));
      }
    }
}

// n, c_in, h, w, c_out, k, stride, pad
INSTANTIATE_TEST_SUITE_P(Shapes, OnednnConv2dVsRef,
                         ::testing::Values(Case{2, 16, 16, 16, 32, 3, 1, 1},   // a U-Net/VGG layer, blocked
                                           Case{3, 8, 9, 7, 5, 3, 1, 1},       // odd sizes, c_out not a block
                                           Case{2, 1, 12, 12, 16, 3, 1, 1},    // one input channel
                                           Case{2, 3, 7, 5, 5, 3, 2, 1},       // stride 2
                                           Case{1, 16, 10, 9, 8, 3, 1, 0},     // valid padding
                                           Case{2, 32, 6, 6, 3, 1, 1, 0},      // 1×1 head
                                           Case{1, 24, 8, 8, 20, 5, 1, 2}),    // 5×5
                         [](const auto& info) {
                           const Case& c = info.param;
                           return fmt::format("n{}_c{}x{}_{}x{}_k{}_s{}_p{}", c.n, c.c_in, c.c_out, c.h, c.w, c.k,
                                              c.stride, c.pad);
                         });

TEST(OnednnConv2d, BackwardOfAnotherInputThanTheLastForward) {
  if (!available()) GTEST_SKIP() << "this build has no oneDNN";
  const auto p = params({2, 16, 8, 8, 16, 3, 1, 1});
  const auto x1 = random_vec(x_size(p), 5), x2 = random_vec(x_size(p), 6), w = random_vec(w_size(p), 7),
             dy = random_vec(y_size(p), 8);
  const Results want = reference(p, x2, w, nullptr, dy);
  Conv2d conv(false);
  std::vector<float> y(y_size(p));
  conv.forward(p, x1.data(), w.data(), nullptr, y.data());  // keeps x1's blocked copy
  Results got{{}, poisoned(x_size(p)), poisoned(w_size(p)), {}};
  conv.backward(p, x2.data(), w.data(), dy.data(), got.dw.data(), nullptr, got.dx.data());
  EXPECT_LE(max_rel_err(got.dw, want.dw), 1e-4) << "the weight gradient must be of x2, not the kept x1";
  EXPECT_LE(max_rel_err(got.dx, want.dx), 1e-4);
}

TEST(OnednnConv2d, OneObjectServesSeveralBatchSizesAndNoDataGradient) {
  if (!available()) GTEST_SKIP() << "this build has no oneDNN";
  Conv2d conv(true);
  for (int n : {4, 1, 4, 3}) {  // training batch, a held-out remainder, and back
    const auto p = params({n, 8, 6, 6, 16, 3, 1, 1});
    const auto x = random_vec(x_size(p), 10 + n), w = random_vec(w_size(p), 20), b = random_vec(p.c_out, 21),
               dy = random_vec(y_size(p), 30 + n);
    const Results want = reference(p, x, w, b.data(), dy);
    Results got{poisoned(y_size(p)), {}, poisoned(w_size(p)), poisoned(p.c_out)};
    conv.forward(p, x.data(), w.data(), b.data(), got.y.data());
    conv.backward(p, x.data(), w.data(), dy.data(), got.dw.data(), got.db.data(), nullptr);  // first layer: no dx
    EXPECT_LE(max_rel_err(got.y, want.y), 1e-4) << "n=" << n;
    EXPECT_LE(max_rel_err(got.dw, want.dw), 1e-4) << "n=" << n;
    EXPECT_LE(max_rel_err(got.db, want.db), 1e-4) << "n=" << n;
  }
}

// The fused ReLU (Conv2d(bias, relu)): forward = max(reference + bias, 0) on the blocked U-Net
// layer and an odd shape, with and without bias; the backward is the plain convolution's (the
// caller masks dy), so its gradients are the reference's of the dy given.
TEST(OnednnConv2d, FusedReluForwardClampsTheReference) {
  if (!available()) GTEST_SKIP() << "this build has no oneDNN";
  for (const Case c : {Case{2, 16, 16, 16, 32, 3, 1, 1}, Case{3, 8, 9, 7, 5, 3, 1, 1}}) {
    const auto p = params(c);
    const auto x = random_vec(x_size(p), 40), w = random_vec(w_size(p), 41), b = random_vec(p.c_out, 42),
               dy = random_vec(y_size(p), 43);
    for (bool bias : {false, true}) {
      const float* bp = bias ? b.data() : nullptr;
      Results want = reference(p, x, w, bp, dy);
      std::size_t clamped = 0;
      for (float& v : want.y) clamped += v <= 0.0f, v = v > 0.0f ? v : 0.0f;
      ASSERT_GT(clamped, 0u);
      ASSERT_LT(clamped, want.y.size());
      Conv2d conv(bias, /*relu=*/true, /*winograd=*/c.c_in == 16);
      Results got{poisoned(y_size(p)), poisoned(x_size(p)), poisoned(w_size(p)), poisoned(p.c_out)};
      conv.forward(p, x.data(), w.data(), bp, got.y.data());
      conv.backward(p, x.data(), w.data(), dy.data(), got.dw.data(), bias ? got.db.data() : nullptr, got.dx.data());
      expect_close(got, want, bias, fmt::format("relu, {} bias, c_in {}", bias ? "with" : "no", c.c_in));
    }
  }
}

TEST(OnednnConv2d, WithoutOneDnnACallFailsWithOneLine) {
  if (available()) GTEST_SKIP() << "this build has oneDNN";
  Conv2d conv(false);
  const auto p = params({1, 1, 4, 4, 1, 3, 1, 1});
  std::vector<float> x(16), w(9), y(16);
  EXPECT_THROW(conv.forward(p, x.data(), w.data(), nullptr, y.data()), Error);
}

}  // namespace
}  // namespace scalebench::onednn
