// test_layer_modes.cpp — layer behaviour that a gradient check cannot see: batch norm in eval mode
// (running statistics) and their update in training mode, dropout as identity in eval and its
// mask's determinism and rate in training, the centre-crop window of concat_crop (and that
// center_crop_labels picks the same one), max-pool on odd sizes, shape validation messages.
// Forward values are checked against small formulas written here, not against PyTorch
// (test_golden.cpp does that for whole models).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "models/loss.h"
#include "tests/models/model_test_util.h"

namespace scalebench {
namespace {

using test::LayerRig;

Tensor* buffer(Layer& l, const std::string& name) {
  for (auto& [n, t] : l.buffers())
    if (n == name) return t;
  return nullptr;
}

TEST(BatchNormModes, EvalUsesRunningStatistics) {
  LayerRig rig({.kind = LayerKind::batchnorm, .bn_eps = 1e-3f}, {{3, 2, 4, 5}}, 11);
  Tensor* rm = buffer(rig.layer(), "running_mean");
  Tensor* rv = buffer(rig.layer(), "running_var");
  ASSERT_TRUE(rm && rv);
  ASSERT_EQ(rm->numel(), 2);
  rm->f32()[0] = 0.25f, rm->f32()[1] = -1.5f;
  rv->f32()[0] = 4.0f, rv->f32()[1] = 0.5f;
  Ctx ctx;
  const auto y = rig.forward(ctx, /*training=*/false);
  const auto& x = rig.inputs[0];
  const auto &g = rig.params[0], &b = rig.params[1];
  double worst = 0;
  for (int n = 0; n < 3; ++n)
    for (int c = 0; c < 2; ++c)
      for (int k = 0; k < 20; ++k) {
        const std::size_t i = (std::size_t(n) * 2 + c) * 20 + k;
        const double want = g[c] * (x[i] - rm->f32()[c]) / std::sqrt(double(rv->f32()[c]) + 1e-3) + b[c];
        worst = std::max(worst, std::abs(y[i] - want));
      }
  EXPECT_LT(worst, 1e-5);
  // Eval does not touch the running statistics.
  EXPECT_EQ(rm->f32()[1], -1.5f);
  EXPECT_EQ(rv->f32()[1], 0.5f);
}

TEST(BatchNormModes, TrainingNormalisesWithBatchStatsAndUpdatesRunningStats) {
  LayerRig rig({.kind = LayerKind::batchnorm, .bn_momentum = 0.25f}, {{4, 3}}, 12);
  std::fill(rig.params[0].begin(), rig.params[0].end(), 1.0f);  // γ = 1, β = 0: the output is
  std::fill(rig.params[1].begin(), rig.params[1].end(), 0.0f);  // then the normalised input
  Tensor* rm = buffer(rig.layer(), "running_mean");
  Tensor* rv = buffer(rig.layer(), "running_var");
  ASSERT_TRUE(rm && rv);
  // Fresh running stats are mean 0, variance 1 (PyTorch's defaults).
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(rm->f32()[c], 0.0f);
    EXPECT_EQ(rv->f32()[c], 1.0f);
  }
  rig.inputs[0] = {1, 10, -2, 2, 20, -2, 3, 30, 2, 6, 40, 2};  // per channel: {1,2,3,6} {10,20,30,40} {-2,-2,2,2}
  Ctx ctx;
  const auto y = rig.forward(ctx, /*training=*/true);
  const double mean[3] = {3.0, 25.0, 0.0}, var[3] = {3.5, 125.0, 4.0};  // biased
  for (int n = 0; n < 4; ++n)
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(y[std::size_t(n) * 3 + c], (rig.inputs[0][std::size_t(n) * 3 + c] - mean[c]) / std::sqrt(var[c] + 1e-5),
                  1e-5);
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(rm->f32()[c], 0.25 * mean[c], 1e-5);
    EXPECT_NEAR(rv->f32()[c], 0.75 + 0.25 * var[c] * 4.0 / 3.0, 1e-4);  // unbiased variance
  }
}

TEST(DropoutModes, EvalIsIdentityAndBackwardPassesThrough) {
  LayerRig rig({.kind = LayerKind::dropout, .dropout_p = 0.5f}, {{3, 2, 5, 7}}, 13);
  Ctx ctx;
  EXPECT_EQ(rig.forward(ctx, /*training=*/false), rig.inputs[0]);
  const auto r = test::uniform(rig.inputs[0].size(), 14);
  EXPECT_EQ(rig.backward(ctx, r)[0], r);
}

TEST(DropoutModes, ZeroProbabilityIsIdentityInTraining) {
  LayerRig rig({.kind = LayerKind::dropout, .dropout_p = 0.0f}, {{2, 9}}, 15);
  Ctx ctx;
  EXPECT_EQ(rig.forward(ctx, /*training=*/true), rig.inputs[0]);
}

TEST(DropoutModes, TrainingMaskIsFixedPerSeedStepSaltAndHasRateP) {
  const float p = 0.3f;
  const Shape shape{4, 5, 20, 25};  // 10,000 elements
  auto run = [&](std::uint64_t seed, std::int64_t step, std::uint64_t salt) {
    LayerRig rig({.kind = LayerKind::dropout, .dropout_p = p, .salt = salt}, {shape}, 16);
    rig.inputs[0].assign(rig.inputs[0].size(), 1.0f);
    Ctx ctx;
    ctx.seed = seed;
    ctx.step = step;
    return rig.forward(ctx, /*training=*/true);
  };
  const auto a = run(1, 10, 3);
  EXPECT_EQ(a, run(1, 10, 3));  // replays exactly
  EXPECT_NE(a, run(1, 11, 3));  // a new step, a new mask
  EXPECT_NE(a, run(2, 10, 3));  // a new run seed
  EXPECT_NE(a, run(1, 10, 4));  // another layer
  std::size_t dropped = 0;
  for (float v : a) {
    if (v == 0.0f)
      ++dropped;
    else
      EXPECT_FLOAT_EQ(v, 1.0f / (1.0f - p));  // inverted dropout keeps the expectation
  }
  EXPECT_NEAR(double(dropped) / double(a.size()), p, 0.03);
}

TEST(ConcatCrop, CentreCropOffsetIsFloorOfHalfTheDifference) {
  // skip 9×9 → up 6×6: the difference 3 is odd; the window starts at row/col 1 (floor(3/2)), so
  // one extra row/column is dropped at the bottom/right, not the top/left.
  LayerRig rig({.kind = LayerKind::concat_crop}, {{1, 1, 9, 9}, {1, 1, 6, 6}}, 17);
  for (std::size_t i = 0; i < 81; ++i) rig.inputs[0][i] = float(i);  // value = y·9 + x
  EXPECT_EQ(rig.out_shape(), (Shape{1, 2, 6, 6}));
  Ctx ctx;
  const auto y = rig.forward(ctx, false);
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 6; ++c) {
      EXPECT_EQ(y[std::size_t(r) * 6 + c], float((r + 1) * 9 + c + 1)) << r << "," << c;
      EXPECT_EQ(y[36 + std::size_t(r) * 6 + c], rig.inputs[1][std::size_t(r) * 6 + c]);  // up follows skip
    }
  // The backward puts the gradient back in the same window and zero elsewhere.
  std::vector<float> dout(72);
  for (std::size_t i = 0; i < 72; ++i) dout[i] = float(i + 1);
  const auto din = rig.backward(ctx, dout);
  for (int r = 0; r < 9; ++r)
    for (int c = 0; c < 9; ++c) {
      const bool inside = r >= 1 && r < 7 && c >= 1 && c < 7;
      EXPECT_EQ(din[0][std::size_t(r) * 9 + c], inside ? float((r - 1) * 6 + (c - 1) + 1) : 0.0f) << r << "," << c;
    }
  // The labels of a valid-padding U-Net are cropped with the same window.
  std::vector<std::int32_t> labels(81);
  for (std::size_t i = 0; i < 81; ++i) labels[i] = std::int32_t(i);
  const auto cropped = center_crop_labels(labels.data(), 1, 9, 9, 6, 6);
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 6; ++c) EXPECT_EQ(float(cropped[std::size_t(r) * 6 + c]), y[std::size_t(r) * 6 + c]);
}

TEST(ConcatCrop, RejectsSkipSmallerThanUp) {
  auto layer = make_layer({.kind = LayerKind::concat_crop}, Backend::cpu);
  try {
    layer->setup({{1, 2, 5, 5}, {1, 2, 6, 6}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("smaller"), std::string::npos) << e.what();
  }
  EXPECT_THROW(layer->setup({{1, 2, 8, 8}, {2, 2, 6, 6}}), Error);  // batch mismatch
  EXPECT_THROW(layer->setup({{1, 2, 8, 8}}), Error);                // one input
}

TEST(MaxPool, OddSizesDropTheLastRowAndColumn) {
  LayerRig rig({.kind = LayerKind::maxpool2x2}, {{1, 1, 3, 5}}, 18);
  EXPECT_EQ(rig.out_shape(), (Shape{1, 1, 1, 2}));
  rig.inputs[0] = {1, 2, 3, 4, 99,  //
                   5, 0, 7, 6, 99,  //
                   99, 99, 99, 99, 99};
  Ctx ctx;
  EXPECT_EQ(rig.forward(ctx, false), (std::vector<float>{5, 7}));
  const auto din = rig.backward(ctx, {10, 20});
  EXPECT_EQ(din[0], (std::vector<float>{0, 0, 0, 0, 0, 10, 0, 20, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(LayerSetup, ShapeErrorsNameTheLayer) {
  auto expect_error = [](const LayerDesc& d, const std::vector<Shape>& in, const std::string& needle) {
    auto layer = make_layer(d, Backend::cpu);
    try {
      layer->setup(in);
      ADD_FAILURE() << to_string(d.kind) << ": expected an error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error({.kind = LayerKind::conv2d, .out_channels = 2, .kernel = 3}, {{1, 1, 2, 2}}, "conv2d");
  expect_error({.kind = LayerKind::conv2d, .out_channels = 2}, {{1, 4}}, "conv2d");
  expect_error({.kind = LayerKind::maxpool2x2}, {{1, 1, 1, 4}}, "maxpool2x2");
  expect_error({.kind = LayerKind::upconv2x2, .out_channels = 2}, {{1, 4}}, "upconv2x2");
  expect_error({.kind = LayerKind::batchnorm}, {{1, 2, 3}}, "batchnorm");
  expect_error({.kind = LayerKind::linear, .out_channels = 2}, {{4}}, "linear");
  EXPECT_THROW(make_layer({.kind = LayerKind::dropout, .dropout_p = 1.0f}, Backend::cpu), Error);
}

TEST(LayerFlops, ConvAndLinearAreTwiceTheMultiplyAdds) {
  auto conv = make_layer({.kind = LayerKind::conv2d, .out_channels = 5, .kernel = 3, .stride = 2, .pad = 1}, Backend::cpu);
  const std::vector<Shape> in{{2, 3, 9, 7}};
  EXPECT_EQ(conv->setup(in), (Shape{2, 5, 5, 4}));
  EXPECT_EQ(conv->flops(in), 2.0 * 9 * 3 * 5 * (5 * 4) * 2);
  auto lin = make_layer({.kind = LayerKind::linear, .out_channels = 10}, Backend::cpu);
  const std::vector<Shape> lin_in{{3, 4, 2, 2}};
  lin->setup(lin_in);
  EXPECT_EQ(lin->flops(lin_in), 2.0 * 3 * 16 * 10);
  auto up = make_layer({.kind = LayerKind::upconv2x2, .out_channels = 4}, Backend::cpu);
  const std::vector<Shape> up_in{{1, 6, 3, 5}};
  up->setup(up_in);
  EXPECT_EQ(up->flops(up_in), 2.0 * 4 * 6 * 4 * 3 * 5);  // each input pixel meets a 2×2×c_out patch
}

}  // namespace
}  // namespace scalebench
