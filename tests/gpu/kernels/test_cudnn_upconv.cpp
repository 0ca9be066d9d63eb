// test_cudnn_upconv.cpp — the cuDNN 2×2 stride-2 up-convolution (kernels/cudnn/upconv2x2.h,
// built on convolution backward-data) against the CPU reference (kernels/cpu/upconv2x2.h), weight
// [c_in, c_out, 2, 2] with no transpose, forward, backward data, backward filter (no bias: the
// layer adds it with kernels/cuda/bias_act.h, tested in test_cuda_bias_act.cpp), in NCHW and NHWC
// (NHWC weight stored [c_in, 2, 2, c_out]) at fp32, tf32 and bf16.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "kernels/cpu/upconv2x2.h"
#include "kernels/cudnn/upconv2x2.h"
#include "tests/common/gpu_test_util.h"

namespace scalebench::cudnn::test {
namespace {

using Param = std::tuple<Layout, Precision>;

class CudnnUpConv : public ::testing::TestWithParam<Param> {};

TEST_P(CudnnUpConv, MatchesCpuReference) {
  const auto [layout, prec] = GetParam();
  const UpConvParams p{3, 5, 7, 9, 6};  // x [3, 5, 7, 9] → y [3, 6, 14, 18]
  const DType dt = data_dtype(prec);
  const UpConv2x2Spec spec{p, dt, layout, prec, false};
  const int ho = 2 * p.h_in, wo = 2 * p.w_in;
  const std::size_t nx = std::size_t(p.n) * p.c_in * p.h_in * p.w_in, nw = std::size_t(p.c_in) * p.c_out * 4,
                    ny = std::size_t(p.n) * p.c_out * ho * wo;
  const auto x = rounded(random_vec(nx, 21), dt), w = rounded(random_vec(nw, 22), dt),
             dy = rounded(random_vec(ny, 24), dt);
  std::vector<float> y_ref(ny), dx_ref(nx), dw_ref(nw);
  cpu::upconv2x2_forward_ref(p, x.data(), w.data(), nullptr, y_ref.data());
  cpu::upconv2x2_backward_data_ref(p, dy.data(), w.data(), dx_ref.data());
  cpu::upconv2x2_backward_filter_ref(p, x.data(), dy.data(), dw_ref.data(), nullptr);

  CudnnEnv env;
  const DevBuf dx_in(to_layout(layout, x, p.n, p.c_in, p.h_in, p.w_in), dt, env.s());
  // The weight is the filter [k = c_in, c = c_out, 2, 2] of the adjoint convolution.
  const DevBuf dw_in(to_layout(layout, w, p.c_in, p.c_out, 2, 2), dt, env.s());
  const DevBuf ddy(to_layout(layout, dy, p.n, p.c_out, ho, wo), dt, env.s());
  DevBuf y(ny, dt, env.s()), dx(nx, dt, env.s()), dw(nw, dt, env.s());

  upconv2x2_forward(env.ctx(), spec, dx_in.get(), dw_in.get(), y.get());
  upconv2x2_backward_data(env.ctx(), spec, ddy.get(), dw_in.get(), dx.get());
  upconv2x2_backward_filter(env.ctx(), spec, dx_in.get(), ddy.get(), dw.get());

  const double tol = tolerance(prec);
  EXPECT_LE(max_rel_err(from_layout(layout, y.download(env.s()), p.n, p.c_out, ho, wo), y_ref), tol) << "forward";
  EXPECT_LE(max_rel_err(from_layout(layout, dx.download(env.s()), p.n, p.c_in, p.h_in, p.w_in), dx_ref), tol)
      << "backward data";
  EXPECT_LE(max_rel_err(from_layout(layout, dw.download(env.s()), p.c_in, p.c_out, 2, 2), dw_ref), tol)
      << "backward filter";

  // Forward and backward-data of the up-conv are backward-data and forward of one convolution key.
  const ConvKey k = upconv_key(spec);
  EXPECT_TRUE(env.algos.lookup(ConvDir::backward_data, k).has_value());
  EXPECT_TRUE(env.algos.lookup(ConvDir::forward, k).has_value());
  EXPECT_TRUE(env.algos.lookup(ConvDir::backward_filter, k).has_value());
}

INSTANTIATE_TEST_SUITE_P(All, CudnnUpConv,
                         ::testing::Combine(::testing::Values(Layout::NCHW, Layout::NHWC),
                                            ::testing::Values(Precision::fp32, Precision::tf32, Precision::bf16)),
                         [](const ::testing::TestParamInfo<Param>& i) {
                           return std::string(layout_name(std::get<0>(i.param))) + "_" +
                                  to_string(std::get<1>(i.param));
                         });

}  // namespace
}  // namespace scalebench::cudnn::test
