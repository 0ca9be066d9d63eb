// test_model_gradcheck.cpp — whole-model gradient check: tiny U-Nets (same and valid padding, with
// and without batch norm) and tiny VGGs (bn 0 and 1) built from spec strings through Model, loss =
// softmax cross-entropy (class-weighted for most U-Nets) on random labels, analytic parameter
// gradients (reference kernels and BLAS path) against central differences of the loss (reference
// forward) in three random entries of every parameter tensor. The U-Net's encoder outputs feed both
// a pool and a concat, so this covers the Model's fan-out gradient sum; the valid U-Nets cover
// cropping skips (forward and backward agree on the window; which window is right is pinned by
// test_layer_modes.cpp and test_golden.cpp).
// A float32 network full of ReLU/max-pool kinks (and batch norm over a few values) has no step at
// which every central difference is clean, so the judgement is statistical (see the test body);
// the tight whole-model comparison is test_golden.cpp, the tight per-layer one
// test_layer_gradcheck.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "models/loss.h"
#include "tests/models/model_test_util.h"

namespace scalebench {
namespace {

struct ModelCase {
  std::string name, spec;
  DataShape data;
  int batch = 2;
  std::vector<float> class_weights;
  double tol = 1e-2;  // per-tensor median error; batch norm over few values makes the loss rougher
};

void PrintTo(const ModelCase& c, std::ostream* os) { *os << c.name << " '" << c.spec << "'"; }

std::vector<ModelCase> model_cases() {
  return {
      {"unet_same_bn", "unet:depth=2,base=2,padding=same,bn=1", {1, 8, 8, 3}, 2, {0.2f, 1.0f, 1.5f}, 5e-2},
      {"unet_same_nobn", "unet:depth=2,base=2,padding=same,bn=0", {2, 8, 8, 3}, 2, {0.5f, 1.0f, 2.0f}},
      // 44 → 40 → pool 20 → 16 → pool 8 → 4 → up 8 (skip 16 cropped) → 4 → up 8 (skip 40 cropped) → 4.
      {"unet_valid_nobn", "unet:depth=2,base=2,padding=valid,bn=0", {1, 44, 44, 3}, 2, {0.2f, 1.0f, 1.5f}},
      {"unet_valid_bn", "unet:depth=2,base=2,padding=valid,bn=1", {1, 44, 44, 2}, 2, {}, 5e-2},
      {"vgg11_nobn", "vgg11:width=0.0625,hidden=8,dropout=0,bn=0", {3, 32, 32, 4}, 2, {}},
      {"vgg11_bn", "vgg11:width=0.0625,hidden=8,dropout=0,bn=1", {3, 32, 32, 4}, 3, {}, 0.1},
  };
}

struct Problem {
  std::unique_ptr<Model> model;
  std::vector<float> x;
  std::vector<std::int32_t> labels;  // matching the logits' spatial size
  Shape in_shape;
};

Problem make_problem(const ModelCase& c, std::uint64_t seed) {
  Problem p;
  p.model = test::make_model(c.spec, c.data, seed);
  p.in_shape = {c.batch, c.data.channels, c.data.height, c.data.width};
  const Shape out = p.model->setup(p.in_shape);
  p.x = test::uniform(std::size_t(numel(p.in_shape)), std::uint32_t(seed) + 1);
  if (out.size() == 2) {
    p.labels = test::random_labels(std::size_t(c.batch), c.data.classes, std::uint32_t(seed) + 2);
  } else {
    const auto full = test::random_labels(std::size_t(c.batch) * c.data.height * c.data.width, c.data.classes,
                                          std::uint32_t(seed) + 2);
    p.labels = center_crop_labels(full.data(), c.batch, c.data.height, c.data.width, int(out[2]), int(out[3]));
  }
  return p;
}

double forward_loss(Problem& p, Ctx& ctx, const std::vector<float>& weights, Tensor* dlogits) {
  const Tensor x = Tensor::view(p.x.data(), p.in_shape);
  const Tensor& logits = p.model->forward(ctx, x, /*training=*/true);
  return softmax_cross_entropy(logits, p.labels.data(), weights, dlogits);
}

// Analytic parameter gradients of one forward/backward with the given kernels.
std::vector<float> analytic_gradients(Problem& p, const ModelCase& c, bool reference) {
  Ctx ctx;
  ctx.reference = reference;
  Tensor dlogits;
  const double loss = forward_loss(p, ctx, c.class_weights, &dlogits);
  EXPECT_TRUE(std::isfinite(loss));
  p.model->grads().fill(NAN);  // backward must overwrite every entry
  p.model->backward(ctx, dlogits);
  const float* g = p.model->grads().f32();
  return std::vector<float>(g, g + p.model->param_count());
}

class ModelGradCheck : public ::testing::TestWithParam<ModelCase> {};

TEST_P(ModelGradCheck, ParameterGradientsMatchCentralDifferences) {
  const ModelCase& c = GetParam();
  Problem p = make_problem(c, 21);
  const std::vector<std::vector<float>> analytic{analytic_gradients(p, c, true), analytic_gradients(p, c, false)};
  const char* path_name[2] = {"reference", "blas"};
  for (const auto& a : analytic)
    for (std::size_t e = 0; e < a.size(); ++e) ASSERT_TRUE(std::isfinite(a[e])) << "entry " << e << " not written";
  const double g_max = test::max_abs(analytic[0]);
  ASSERT_GT(g_max, 0.0);

  // Three random entries of every parameter tensor (all of a smaller one).
  std::mt19937 gen(5);
  struct Pick {
    std::int64_t entry;
    const ParamInfo* info;
    double err[2] = {INFINITY, INFINITY};  // per analytic path
  };
  std::vector<Pick> picks;
  for (const auto& info : p.model->param_info()) {
    std::vector<std::int64_t> idx(std::size_t(numel(info.shape)));
    std::iota(idx.begin(), idx.end(), info.offset);
    std::shuffle(idx.begin(), idx.end(), gen);
    for (std::size_t k = 0; k < std::min<std::size_t>(3, idx.size()); ++k) picks.push_back({idx[k], &info});
  }

  // No single step suits every entry: large steps cross ReLU/max-pool kinks, small ones drown in
  // the float32 rounding of the forward. Each entry takes, per analytic path, the central difference
  // (reference forward, the more accurate one) closest to it over six steps; where the loss is
  // smooth at any of those scales they agree to ~1e-4. Entries below 1% of the model's largest
  // gradient are judged on that absolute scale.
  Ctx ctx;
  ctx.reference = true;
  float* w = p.model->params().f32();
  const double floor = 1e-2 * g_max;
  for (auto& pick : picks) {
    const std::int64_t e = pick.entry;
    for (float step : {1e-2f, 3e-3f, 1e-3f, 3e-4f, 1e-4f, 3e-5f}) {
      const float keep = w[e];
      w[e] = keep + step;
      const double up = forward_loss(p, ctx, c.class_weights, nullptr);
      w[e] = keep - step;
      const double down = forward_loss(p, ctx, c.class_weights, nullptr);
      w[e] = keep;
      const double numeric = (up - down) / (double(keep + step) - double(keep - step));
      for (int k = 0; k < 2; ++k)
        pick.err[k] = std::min(pick.err[k], std::abs(analytic[k][std::size_t(e)] - numeric) /
                                                std::max(std::abs(numeric), floor));
    }
  }

  // An entry can sit on a kink at every step, so: each tensor's median error ≤ tol, at most 10% of
  // all entries above tol, none above 0.5. A wiring or layer bug (a missed fan-out sum, a wrong crop
  // window or weight layout) puts whole tensors far above these.
  for (int k = 0; k < 2; ++k) {
    std::size_t poor = 0;
    double worst = 0;
    for (std::size_t i = 0; i < picks.size();) {
      std::size_t j = i;
      std::vector<double> errs;
      for (; j < picks.size() && picks[j].info == picks[i].info; ++j) errs.push_back(picks[j].err[k]);
      std::sort(errs.begin(), errs.end());
      EXPECT_LE(errs[errs.size() / 2], c.tol) << c.name << " [" << path_name[k] << "] " << picks[i].info->name
                                              << ": median error over " << errs.size() << " entries (worst "
                                              << errs.back() << ")";
      for (double err : errs) {
        poor += err > c.tol;
        worst = std::max(worst, err);
      }
      i = j;
    }
    EXPECT_LE(double(poor), 0.1 * double(picks.size())) << c.name << " [" << path_name[k] << "]: entries above " << c.tol;
    EXPECT_LE(worst, 0.5) << c.name << " [" << path_name[k] << "]";
    std::printf("[ gradchk  ] %s (%s): %zu entries, %zu above %.0e, worst %.2e\n", c.name.c_str(), path_name[k],
                picks.size(), poor, c.tol, worst);
  }
}

INSTANTIATE_TEST_SUITE_P(TinyModels, ModelGradCheck, ::testing::ValuesIn(model_cases()),
                         [](const auto& info) { return info.param.name; });

// Parameter gradients and fan-out sums start afresh on every backward: a second backward of the same
// forward gives the same gradients, not twice them.
TEST(ModelBackward, RepeatedBackwardOverwritesGradients) {
  Problem p = make_problem(model_cases()[0], 3);
  Ctx ctx;
  Tensor dlogits;
  forward_loss(p, ctx, {}, &dlogits);
  p.model->backward(ctx, dlogits);
  const std::vector<float> first(p.model->grads().f32(), p.model->grads().f32() + p.model->param_count());
  p.model->backward(ctx, dlogits);
  const std::vector<float> second(p.model->grads().f32(), p.model->grads().f32() + p.model->param_count());
  EXPECT_EQ(first, second);
}

// The backward hook reports each node with parameters once, with its arena range, from the end of
// the arena backwards, and the ranges tile the arena.
TEST(ModelBackward, HookCoversTheArenaFromTheEnd) {
  Problem p = make_problem(model_cases()[0], 4);
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
  std::vector<int> nodes;
  p.model->set_backward_hook([&](int node, std::int64_t b, std::int64_t e) {
    nodes.push_back(node);
    ranges.emplace_back(b, e);
  });
  Ctx ctx;
  Tensor dlogits;
  forward_loss(p, ctx, {}, &dlogits);
  p.model->backward(ctx, dlogits);
  ASSERT_FALSE(ranges.empty());
  EXPECT_EQ(ranges.front().second, p.model->param_count());
  EXPECT_EQ(ranges.back().first, 0);
  for (std::size_t i = 1; i < ranges.size(); ++i) {
    EXPECT_EQ(ranges[i].second, ranges[i - 1].first);
    EXPECT_LT(nodes[i], nodes[i - 1]);
  }
}

}  // namespace
}  // namespace scalebench
