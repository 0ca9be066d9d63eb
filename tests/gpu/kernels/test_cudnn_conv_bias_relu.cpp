// test_cudnn_conv_bias_relu.cpp — cuDNN's fused convolution + bias + ReLU forward
// (kernels/cudnn/conv2d_bias_relu.h) against the separate path it replaces (conv2d_forward, then
// bias_act_forward with the ReLU), fp32 and tf32, NCHW and NHWC, on odd shapes. Where cuDNN refuses
// the fused call for a problem (a documented outcome: the layer then runs the separate path), the
// output must be left untouched (still NaN) and the refusal is printed, never hidden as a pass of the
// fused path.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>

#include "kernels/cuda/bias_act.h"
#include "kernels/cudnn/conv2d_bias_relu.h"
#include "tests/common/gpu_test_util.h"

namespace scalebench::cudnn::test {
namespace {

using Param = std::tuple<Layout, Precision>;

class CudnnConvBiasRelu : public ::testing::TestWithParam<Param> {};

TEST_P(CudnnConvBiasRelu, FusedEqualsSeparatePathOrRefusesUntouched) {
  const auto [layout, prec] = GetParam();
  for (const Conv2dParams p : {Conv2dParams{3, 5, 7, 9, 6, 3, 3, 1, 1}, Conv2dParams{2, 3, 9, 7, 4, 3, 3, 2, 1}}) {
    const Conv2dSpec spec{p, DType::f32, layout, prec, false};
    ASSERT_TRUE(conv2d_bias_relu_applies(spec));
    const int ho = p.h_out(), wo = p.w_out();
    const std::size_t nx = std::size_t(p.n) * p.c_in * p.h_in * p.w_in;
    const std::size_t nw = std::size_t(p.c_out) * p.c_in * p.k_h * p.k_w;
    const std::size_t ny = std::size_t(p.n) * p.c_out * ho * wo;
    CudnnEnv env;
    const DevBuf x(random_vec(nx, 11), DType::f32, env.s()), w(random_vec(nw, 12), DType::f32, env.s());
    const DevBuf bias(random_vec(std::size_t(p.c_out), 13, -0.5f, 0.5f), DType::f32, env.s());
    DevBuf fused(ny, DType::f32, env.s()), separate(ny, DType::f32, env.s());  // NaN-filled

    conv2d_forward(env.ctx(), spec, x.get(), w.get(), separate.get());
    const cuda::ChannelParams cp{p.n, p.c_out, std::int64_t(ho) * wo, layout, DType::f32};
    cuda::bias_act_forward(cp, separate.get(), bias.f32(), cuda::Activation::relu, separate.get(), env.s());
    const bool ran = conv2d_bias_relu_forward(env.ctx(), spec, x.get(), w.get(), bias.f32(), fused.get());

    const auto got = fused.download(env.s()), want = separate.download(env.s());
    if (ran) {
      EXPECT_LE(max_rel_err(got, want), tolerance(prec)) << "fused against conv + bias + ReLU";
    } else {
      std::printf("cuDNN refused the fused call for %s %s (the layer runs the separate path)\n",
                  layout_name(layout), scalebench::to_string(prec));
      for (float v : got) ASSERT_TRUE(std::isnan(v)) << "a refused fused call wrote its output";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, CudnnConvBiasRelu,
                         ::testing::Combine(::testing::Values(Layout::NCHW, Layout::NHWC),
                                            ::testing::Values(Precision::fp32, Precision::tf32)),
                         [](const ::testing::TestParamInfo<Param>& i) {
                           return std::string(layout_name(std::get<0>(i.param))) + "_" +
                                  scalebench::to_string(std::get<1>(i.param));
                         });

}  // namespace
}  // namespace scalebench::cudnn::test
