// test_layer_gradcheck.cpp — finite-difference gradient check of every CPU LayerKind through the
// Layer interface (make_layer → setup → bind → forward → backward), for every input and every
// parameter, on odd shapes and batch sizes 1 and 3. L = Σ y ⊙ r with a fixed random r, so dL/dy = r.
// Each case runs twice: with the reference kernels (double accumulation; tight tolerance) and with
// the BLAS fast path (float accumulation; looser tolerance). Input data is chosen so the loss is
// smooth within one step: no ReLU input near 0, no max-pool ties, a fixed dropout mask.
// Deliberately not here: forward values against an independent implementation (test_golden.cpp),
// eval-mode behaviour (test_layer_modes.cpp), whole models (test_model_gradcheck.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>
#include <vector>

#include "tests/models/model_test_util.h"

namespace scalebench {
namespace {

enum class Data { uniform, away_from_zero, distinct };

struct LayerCase {
  std::string name;
  LayerDesc desc;
  std::vector<Shape> in;
  Data data = Data::uniform;
  float step = 1e-2f;
  double tol_ref = 1e-4;   // reference kernels
  double tol_fast = 1e-3;  // BLAS path
};

void PrintTo(const LayerCase& c, std::ostream* os) { *os << c.name; }

LayerDesc conv(int c_out, int k, int stride, int pad, bool bias) {
  return {.kind = LayerKind::conv2d, .out_channels = c_out, .kernel = k, .stride = stride, .pad = pad, .bias = bias};
}

std::vector<LayerCase> cases() {
  std::vector<LayerCase> c;
  // conv2d: k 1 and 3, stride 1 and 2, pad 0 and 1, with and without bias, odd sizes.
  c.push_back({"conv_k3_s1_p1_bias_n1_c3_5x7", conv(4, 3, 1, 1, true), {{1, 3, 5, 7}}});
  c.push_back({"conv_k3_s1_p0_nobias_n3_c2_6x5", conv(3, 3, 1, 0, false), {{3, 2, 6, 5}}});
  c.push_back({"conv_k3_s2_p1_bias_n3_c3_7x5", conv(2, 3, 2, 1, true), {{3, 3, 7, 5}}});
  c.push_back({"conv_k3_s2_p0_nobias_n1_c2_9x8", conv(3, 3, 2, 0, false), {{1, 2, 9, 8}}});
  c.push_back({"conv_k1_s1_p0_bias_n3_c5_4x3", conv(2, 1, 1, 0, true), {{3, 5, 4, 3}}});
  c.push_back({"conv_k1_s2_p0_nobias_n1_c3_5x7", conv(4, 1, 2, 0, false), {{1, 3, 5, 7}}});
  c.push_back({"conv_k1_s1_p1_bias_n1_c2_3x3", conv(3, 1, 1, 1, true), {{1, 2, 3, 3}}});
  // upconv2x2 (always with bias).
  c.push_back({"upconv_n1_c3_3x5_to2", {.kind = LayerKind::upconv2x2, .out_channels = 2}, {{1, 3, 3, 5}}});
  c.push_back({"upconv_n3_c2_2x2_to4", {.kind = LayerKind::upconv2x2, .out_channels = 4}, {{3, 2, 2, 2}}});
  // maxpool2x2: odd sizes drop the last row/column; values ≥ 0.05 apart, step 0.01.
  c.push_back({"maxpool_n1_c3_5x7", {.kind = LayerKind::maxpool2x2}, {{1, 3, 5, 7}}, Data::distinct});
  c.push_back({"maxpool_n3_c2_4x6", {.kind = LayerKind::maxpool2x2}, {{3, 2, 4, 6}}, Data::distinct});
  // relu, rank 4 and rank 2; |x| ≥ 0.1, step 0.01.
  c.push_back({"relu_n3_c2_5x7", {.kind = LayerKind::relu}, {{3, 2, 5, 7}}, Data::away_from_zero});
  c.push_back({"relu_n1_11", {.kind = LayerKind::relu}, {{1, 11}}, Data::away_from_zero});
  // concat_crop (skip, up): odd and even size differences, and the identity crop.
  c.push_back({"concat_skip9x9_up6x6_n1", {.kind = LayerKind::concat_crop}, {{1, 2, 9, 9}, {1, 3, 6, 6}}});
  c.push_back({"concat_skip8x7_up4x4_n3", {.kind = LayerKind::concat_crop}, {{3, 1, 8, 7}, {3, 2, 4, 4}}});
  c.push_back({"concat_nocrop_5x7_n3", {.kind = LayerKind::concat_crop}, {{3, 3, 5, 7}, {3, 2, 5, 7}}});
  // batchnorm in training mode (batch statistics), [n,c,h,w] and [n,c]. Not linear in x, so a
  // smaller step; the truncation error is O(step²).
  c.push_back({"batchnorm_n3_c4_5x7", {.kind = LayerKind::batchnorm}, {{3, 4, 5, 7}}, Data::uniform, 3e-3f, 5e-4, 5e-4});
  c.push_back({"batchnorm_n1_c3_5x5", {.kind = LayerKind::batchnorm}, {{1, 3, 5, 5}}, Data::uniform, 3e-3f, 5e-4, 5e-4});
  c.push_back({"batchnorm_n5_c6", {.kind = LayerKind::batchnorm}, {{5, 6}}, Data::uniform, 3e-3f, 5e-4, 5e-4});
  c.push_back({"batchnorm_n3_c2_1x1", {.kind = LayerKind::batchnorm}, {{3, 2, 1, 1}}, Data::uniform, 3e-3f, 5e-4, 5e-4});
  // linear: [n,c,h,w] input flattened; with and without bias.
  c.push_back({"linear_n3_2x3x5_to4_bias", {.kind = LayerKind::linear, .out_channels = 4}, {{3, 2, 3, 5}}});
  c.push_back({"linear_n1_7_to3_nobias", {.kind = LayerKind::linear, .out_channels = 3, .bias = false}, {{1, 7}}});
  // dropout in training mode: the mask is a function of (seed, step, salt), fixed across the
  // finite-difference forwards.
  c.push_back({"dropout_p0.3_n3_c2_5x7", {.kind = LayerKind::dropout, .dropout_p = 0.3f, .salt = 7}, {{3, 2, 5, 7}}});
  c.push_back({"dropout_p0.5_n3_40", {.kind = LayerKind::dropout, .dropout_p = 0.5f, .salt = 2}, {{3, 40}}});
  return c;
}

class LayerGradCheck : public ::testing::TestWithParam<std::tuple<LayerCase, bool>> {};

TEST_P(LayerGradCheck, MatchesCentralDifferences) {
  const auto& [c, reference] = GetParam();
  const std::uint32_t seed = 1234;
  test::LayerRig rig(c.desc, c.in, seed);
  for (std::size_t i = 0; i < rig.inputs.size(); ++i) {
    const auto n = rig.inputs[i].size();
    if (c.data == Data::away_from_zero) rig.inputs[i] = test::away_from_zero(n, seed + 7 + std::uint32_t(i));
    if (c.data == Data::distinct) rig.inputs[i] = test::distinct(n, seed + 7 + std::uint32_t(i), 0.05f);
  }
  Ctx ctx;
  ctx.reference = reference;
  ctx.seed = 99;
  ctx.step = 5;
  const auto checks = test::check_layer_gradients(rig, ctx, /*training=*/true, c.step, seed + 3);
  const double tol = reference ? c.tol_ref : c.tol_fast;
  ASSERT_EQ(checks.size(), rig.inputs.size() + rig.params.size());
  double worst = 0;
  for (const auto& t : checks) {
    worst = std::max(worst, t.err);
    EXPECT_LE(t.err, tol) << c.name << (reference ? " [reference] " : " [blas] ") << t.name
                          << ": max |numeric| = " << t.scale;
    // A zero numeric gradient would make the comparison vacuous.
    EXPECT_GT(t.scale, 1e-3) << c.name << " " << t.name << ": the numeric gradient is (near) zero";
  }
  std::printf("[ gradchk  ] %s (%s): worst %.2e (tolerance %.0e)\n", c.name.c_str(), reference ? "reference" : "blas",
              worst, tol);
}

INSTANTIATE_TEST_SUITE_P(AllKinds, LayerGradCheck, ::testing::Combine(::testing::ValuesIn(cases()), ::testing::Bool()),
                         [](const auto& info) {
                           std::string n = std::get<0>(info.param).name + (std::get<1>(info.param) ? "_ref" : "_blas");
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

// Every kind of models/layers.def appears in the table above, so a new kind fails here until it has
// a gradient check.
TEST(LayerGradCheck, EveryKindIsCovered) {
  const auto all = cases();
  for (const LayerKind k : kLayerKinds)
    EXPECT_TRUE(std::any_of(all.begin(), all.end(), [k](const LayerCase& c) { return c.desc.kind == k; }))
        << to_string(k) << " (models/layers.def) has no case in test_layer_gradcheck.cpp's cases()";
}

}  // namespace
}  // namespace scalebench
