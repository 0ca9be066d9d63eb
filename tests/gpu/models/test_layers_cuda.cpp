// test_layers_cuda.cpp — every GPU layer against its CPU reference (layer_check.h) on odd shapes,
// in every precision (fp32, tf32, bf16) and activation layout (NCHW, NHWC): output, input gradients,
// parameter gradients and batch-norm running statistics, within the precision's tolerance.
#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "tests/gpu/models/layer_check.h"

namespace scalebench::gpu_test {
namespace {

struct Named {
  std::string name;
  LayerCase c;
};

LayerDesc desc(LayerKind k, int out = 0, int kernel = 3, int stride = 1, int pad = 0, bool bias = true) {
  LayerDesc d;
  d.kind = k;
  d.out_channels = out;
  d.kernel = kernel;
  d.stride = stride;
  d.pad = pad;
  d.bias = bias;
  d.salt = 5;
  return d;
}

std::vector<Named> cases() {
  std::vector<Named> v;
  auto add = [&](std::string name, LayerDesc d, std::vector<Shape> in, bool training = true) {
    LayerCase c;
    c.desc = d;
    c.in = std::move(in);
    c.training = training;
    v.push_back({std::move(name), c});
  };
  add("conv3x3_pad1", desc(LayerKind::conv2d, 6, 3, 1, 1), {{3, 5, 9, 7}});
  add("conv3x3_stride2_nobias", desc(LayerKind::conv2d, 4, 3, 2, 0, false), {{2, 3, 11, 8}});
  add("conv1x1", desc(LayerKind::conv2d, 3, 1, 1, 0), {{2, 7, 5, 5}});
  add("upconv", desc(LayerKind::upconv2x2, 4), {{2, 6, 5, 3}});
  add("maxpool_odd", desc(LayerKind::maxpool2x2), {{3, 4, 9, 7}});
  add("relu4d", desc(LayerKind::relu), {{3, 5, 7, 9}});
  add("relu2d", desc(LayerKind::relu), {{5, 11}});
  add("concat_crop", desc(LayerKind::concat_crop), {{2, 3, 9, 11}, {2, 5, 6, 7}});
  add("batchnorm4d", desc(LayerKind::batchnorm), {{4, 6, 5, 3}});
  add("batchnorm2d", desc(LayerKind::batchnorm), {{7, 10}});
  add("batchnorm_eval", desc(LayerKind::batchnorm), {{3, 5, 4, 3}}, false);
  add("linear2d", desc(LayerKind::linear, 11), {{5, 37}});
  add("linear_flatten4d", desc(LayerKind::linear, 7), {{3, 4, 3, 5}});
  add("linear_nobias", desc(LayerKind::linear, 9, 3, 1, 0, false), {{4, 13}});
  LayerDesc drop = desc(LayerKind::dropout);
  drop.dropout_p = 0.3f;
  add("dropout4d_strided", drop, {{4, 3, 5, 7}});
  v.back().c.ctx.sample_offset = 2, v.back().c.ctx.sample_stride = 3, v.back().c.ctx.step = 4;
  add("dropout2d", drop, {{6, 13}});
  v.back().c.ctx.sample_offset = 6, v.back().c.ctx.step = 1;
  add("dropout_eval", drop, {{3, 4, 5, 2}}, false);
  // --gpu-kernels own: our batch norm and max pooling in place of cuDNN's.
  const auto own = [&](std::string name, LayerDesc d, std::vector<Shape> in, bool training = true) {
    add(std::move(name), d, std::move(in), training);
    v.back().c.kernels = GpuKernels::own;
  };
  own("maxpool_odd_own", desc(LayerKind::maxpool2x2), {{3, 4, 9, 7}});
  own("batchnorm4d_own", desc(LayerKind::batchnorm), {{4, 6, 5, 3}});
  own("batchnorm2d_own", desc(LayerKind::batchnorm), {{7, 10}});
  own("batchnorm_eval_own", desc(LayerKind::batchnorm), {{3, 5, 4, 3}}, false);
  return v;
}

using Param = std::tuple<int, Precision, Layout>;

class GpuLayer : public ::testing::TestWithParam<Param> {};

TEST_P(GpuLayer, MatchesCpuReference) {
  const auto [index, precision, layout] = GetParam();
  LayerCase c = cases()[std::size_t(index)].c;
  c.precision = precision;
  c.layout = layout;
  const LayerErrors e = check_layer(c);
  const double tol = tolerance(precision);
  const std::string what = describe(c) + ": " + e.describe();
  EXPECT_LE(e.out, tol) << what;
  EXPECT_LE(e.buffers, tol) << what;
  // bf16 inputs tie inside pooling windows (8-bit mantissas); cuDNN and the CPU route a tied
  // maximum's gradient differently, both correctly, so bf16 pooling checks the output only (ours
  // routes ties as the CPU does, so it is held to the gradient too).
  const bool ties = precision == Precision::bf16 && c.desc.kind == LayerKind::maxpool2x2 &&
                    c.kernels == GpuKernels::cudnn;
  if (!ties) {
    for (double d : e.din) EXPECT_LE(d, tol) << what;
  }
  for (double d : e.dparam) EXPECT_LE(d, tol) << what;
  if (c.training) {
    EXPECT_EQ(e.din.size(), c.in.size()) << what;
  }
}

std::string name(const ::testing::TestParamInfo<Param>& info) {
  const auto [index, precision, layout] = info.param;
  return cases()[std::size_t(index)].name + "_" + to_string(precision) + (layout == Layout::NCHW ? "_NCHW" : "_NHWC");
}

// Every kind of models/layers.def has a case above, so a new kind fails here until its GPU layer is
// checked against the CPU one. (Needs no device, but runs where the gpu tests run.)
TEST(GpuLayerCoverage, EveryKindHasACase) {
  const auto all = cases();
  for (const LayerKind k : kLayerKinds)
    EXPECT_TRUE(std::any_of(all.begin(), all.end(), [k](const Named& n) { return n.c.desc.kind == k; }))
        << to_string(k) << " (models/layers.def) has no case in test_layers_cuda.cpp's cases()";
}

INSTANTIATE_TEST_SUITE_P(AllLayers, GpuLayer,
                         ::testing::Combine(::testing::Range(0, int(cases().size())),
                                            ::testing::Values(Precision::fp32, Precision::tf32, Precision::bf16),
                                            ::testing::Values(Layout::NCHW, Layout::NHWC)),
                         name);

}  // namespace
}  // namespace scalebench::gpu_test
