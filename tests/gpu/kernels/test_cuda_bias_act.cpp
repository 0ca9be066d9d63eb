// test_cuda_bias_act.cpp — bias + ReLU forward, ReLU backward and the deterministic bias gradient
// against CPU references (kernels/cpu/relu.h after a host bias add; a double-accumulated channel
// sum), NCHW and NHWC (NHWC compared after transposing back), f32 and bf16, odd shapes.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/cpu/relu.h"
#include "kernels/cuda/bias_act.h"
#include "kernels/cuda/bias_grad.h"
#include "tests/common/gpu_test_util.h"

namespace scalebench::cuda::test {
namespace {

struct Case {
  DType dtype;
  Layout layout;
};

class BiasActTest : public CudaTest, public ::testing::WithParamInterface<Case> {};

// y = act(x + b[c]) on NCHW data, computed on the host in float.
std::vector<float> reference_forward(const std::vector<float>& x, const std::vector<float>& b, int n, int c,
                                     std::int64_t hw, bool relu) {
  std::vector<float> y(x.size());
  for (int i = 0; i < n; ++i)
    for (int ch = 0; ch < c; ++ch)
      for (std::int64_t s = 0; s < hw; ++s) {
        const std::int64_t k = (std::int64_t(i) * c + ch) * hw + s;
        y[k] = x[k] + b[ch];
      }
  if (relu) cpu::relu_forward(std::int64_t(y.size()), y.data(), y.data());
  return y;
}

// db[c] = Σ dy over n and hw, NCHW input, double accumulation.
std::vector<float> reference_bias_grad(const std::vector<float>& dy, int n, int c, std::int64_t hw) {
  std::vector<float> db(c);
  for (int ch = 0; ch < c; ++ch) {
    double acc = 0.0;
    for (int i = 0; i < n; ++i)
      for (std::int64_t s = 0; s < hw; ++s) acc += dy[(std::int64_t(i) * c + ch) * hw + s];
    db[ch] = static_cast<float>(acc);
  }
  return db;
}

TEST_P(BiasActTest, ForwardMatchesCpu) {
  const auto [dtype, layout] = GetParam();
  const int n = 3, c = 5;
  const std::int64_t hw = 7 * 9;
  const ChannelParams p{n, c, hw, layout, dtype};
  const std::vector<float> x = rounded(random_vec(p.count(), 1), dtype);  // NCHW
  const std::vector<float> b = random_vec(c, 2, -0.5f, 0.5f);
  const bool nhwc = layout == Layout::NHWC;
  DeviceBuffer dx = to_device(nhwc ? nchw_to_nhwc(x, n, c, hw) : x, dtype, s());
  DeviceBuffer db = upload(b, s());
  DeviceBuffer dy(p.count() * dtype_size(dtype));
  for (const Activation act : {Activation::none, Activation::relu}) {
    bias_act_forward(p, dx.data(), db.as<float>(), act, dy.data(), s());
    std::vector<float> got = to_host(dy.data(), p.count(), dtype, s());
    if (nhwc) got = nhwc_to_nchw(got, n, c, hw);
    const std::vector<float> want = rounded(reference_forward(x, b, n, c, hw, act == Activation::relu), dtype);
    EXPECT_LE(max_rel_err(got, want), tol_for(dtype)) << "act " << int(act);
  }
  // In place, no bias: plain ReLU.
  bias_act_forward(p, dx.data(), nullptr, Activation::relu, dx.data(), s());
  std::vector<float> got = to_host(dx.data(), p.count(), dtype, s());
  if (nhwc) got = nhwc_to_nchw(got, n, c, hw);
  std::vector<float> want(x.size());
  cpu::relu_forward(std::int64_t(x.size()), x.data(), want.data());
  EXPECT_EQ(got, want);  // exact: ReLU only selects values
}

TEST_P(BiasActTest, BiasGradMatchesCpuAndIsDeterministic) {
  const auto [dtype, layout] = GetParam();
  // n·hw = 3·(97·53) = 15423 rows: several partial ranges, none a multiple of 32.
  for (const std::int64_t hw : {std::int64_t(7 * 9), std::int64_t(97 * 53)}) {
    const int n = 3, c = 37;
    const ChannelParams p{n, c, hw, layout, dtype};
    const std::vector<float> dy = rounded(random_vec(p.count(), 3), dtype);  // NCHW
    const bool nhwc = layout == Layout::NHWC;
    DeviceBuffer d = to_device(nhwc ? nchw_to_nhwc(dy, n, c, hw) : dy, dtype, s());
    Workspace ws(bias_grad_workspace_bytes(p));  // capped at what the op declares
    DeviceBuffer db(c * sizeof(float));
    bias_grad(p, d.data(), db.as<float>(), ws, s());
    const std::vector<float> first = download<float>(db.data(), c, s());
    // Accumulation over ~15k values in fp32: relative to the largest channel sum.
    EXPECT_LE(max_rel_err(first, reference_bias_grad(dy, n, c, hw)), 1e-5) << "hw " << hw;
    bias_grad(p, d.data(), db.as<float>(), ws, s());
    EXPECT_EQ(download<float>(db.data(), c, s()), first) << "rerun changed bits, hw " << hw;
  }
}

TEST_P(BiasActTest, ReluBackwardMatchesCpu) {
  const DType dtype = GetParam().dtype;
  const std::int64_t count = 3 * 5 * 7 * 9;
  const std::vector<float> y = rounded(random_vec(count, 4), dtype);
  const std::vector<float> dy = rounded(random_vec(count, 5), dtype);
  DeviceBuffer dyb = to_device(y, dtype, s()), ddy = to_device(dy, dtype, s()), ddx(count * dtype_size(dtype));
  relu_backward(count, dtype, dyb.data(), ddy.data(), ddx.data(), s());
  std::vector<float> want(count);
  cpu::relu_backward(count, y.data(), dy.data(), want.data());
  EXPECT_EQ(to_host(ddx.data(), count, dtype, s()), want);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, BiasActTest,
                         ::testing::Values(Case{DType::f32, Layout::NCHW}, Case{DType::f32, Layout::NHWC},
                                           Case{DType::bf16, Layout::NCHW}, Case{DType::bf16, Layout::NHWC}),
                         [](const auto& info) {
                           return std::string(to_string(info.param.dtype)) +
                                  (info.param.layout == Layout::NHWC ? "_NHWC" : "_NCHW");
                         });

}  // namespace
}  // namespace scalebench::cuda::test
