// test_model_cuda.cpp — whole models on the GPU against the CPU: one U-Net and one VGG training step
// (forward, loss, backward, SGD update) from the same initial weights and batch give the same loss,
// gradient arena and updated weights within the precision's tolerance (fp32, tf32; NCHW and NHWC);
// bf16 training lowers the loss over 100 steps; deterministic mode repeats losses bit for bit.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "models/cuda/context.h"
#include "models/cuda/memory.h"
#include "models/cuda/train.h"
#include "models/loss.h"
#include "models/model.h"
#include "models/optimizer.h"
#include "models/spec.h"
#include "tests/gpu/models/gpu_run.h"
#include "tests/gpu/models/step_util.h"

namespace scalebench::gpu_test {
namespace {

struct StepResult {
  double loss = 0;
  std::vector<float> grads, params;  // after backward; after the update
};

constexpr float kLr = 0.05f;
const OptimizerConfig kSgd{.kind = OptimizerKind::sgd, .momentum = 0.9f, .weight_decay = 1e-4f};

StepResult cpu_step(const Problem& p, const Batch& b) {
  Model m(build_model_graph(parse_model_spec(p.spec), p.data), Backend::cpu, 11);
  m.setup(b.x.shape());
  Ctx ctx{.backend = Backend::cpu, .reference = true, .seed = 3};
  Tensor dl;
  StepResult r;
  r.loss = softmax_cross_entropy(m.forward(ctx, b.x, true), b.labels.data(), {}, &dl);
  m.backward(ctx, dl);
  r.grads.assign(m.grads().f32(), m.grads().f32() + m.param_count());
  Optimizer opt(kSgd, m.param_count());
  opt.step(m.params().f32(), m.grads().f32(), kLr);
  r.params.assign(m.params().f32(), m.params().f32() + m.param_count());
  return r;
}

std::vector<float> download(GpuContext& g, const Tensor& t) {
  Tensor h = Tensor::zeros(t.shape());
  gpu_download(g, t, h);
  return {h.f32(), h.f32() + h.numel()};
}

// One GPU model (gpu_run.h) trained on one batch: its images uploaded, then the step.
struct ModelRun : GpuRun {
  ModelRun(const Problem& p, const GpuOptions& o) : GpuRun(p, o, kSgd) {}
  double step(const Batch& b, bool update = true) {
    gpu_upload(g, b.x, x);
    return GpuRun::step(b.labels, kLr, false, update);
  }
};

using StepParam = std::tuple<int, Precision, Layout>;
class ModelStep : public ::testing::TestWithParam<StepParam> {};

TEST_P(ModelStep, GpuTrainingStepMatchesCpu) {
  const auto [which, precision, layout] = GetParam();
  const Problem& p = which == 0 ? kUnet : kVgg;
  const Batch b = make_batch(p, 21);
  const StepResult want = cpu_step(p, b);
  GpuOptions o;
  o.precision = precision;
  o.layout = layout;
  ModelRun run(p, o);
  StepResult got;
  got.loss = run.step(b, /*update=*/false);
  got.grads = download(run.g, run.m.grads());
  run.opt->step(run.m.params().f32(), run.m.grads().f32(), kLr);
  got.params = download(run.g, run.m.params());
  // Errors compound through the layers: a model gets 10x a single layer's tolerance.
  const double tol = precision == Precision::fp32 ? 1e-3 : 4e-2;
  const std::string what = p.spec + " " + to_string(precision) + (layout == Layout::NCHW ? " NCHW" : " NHWC");
  EXPECT_NEAR(got.loss, want.loss, tol * std::fabs(want.loss)) << what;
  EXPECT_LE(rel_err(got.grads, want.grads), tol) << what;
  EXPECT_LE(rel_err(got.params, want.params), tol) << what;
}

INSTANTIATE_TEST_SUITE_P(UnetAndVgg, ModelStep,
                         ::testing::Combine(::testing::Values(0, 1), ::testing::Values(Precision::fp32, Precision::tf32),
                                            ::testing::Values(Layout::NCHW, Layout::NHWC)),
                         [](const ::testing::TestParamInfo<StepParam>& i) {
                           return std::string(std::get<0>(i.param) == 0 ? "unet_" : "vgg_") +
                                  to_string(std::get<1>(i.param)) +
                                  (std::get<2>(i.param) == Layout::NCHW ? "_NCHW" : "_NHWC");
                         });

TEST(ModelBf16, LossFallsOver100Steps) {
  for (Layout layout : {Layout::NCHW, Layout::NHWC}) {
    GpuOptions o;
    o.precision = Precision::bf16;
    o.layout = layout;
    ModelRun run(kUnet, o);
    std::vector<Batch> batches;
    for (int i = 0; i < 4; ++i) batches.push_back(make_batch(kUnet, 100 + i));
    std::vector<double> losses;
    for (int s = 0; s < 100; ++s) losses.push_back(run.step(batches[std::size_t(s) % batches.size()]));
    double first = 0, last = 0;
    for (int i = 0; i < 4; ++i) first += losses[std::size_t(i)] / 4, last += losses[std::size_t(96 + i)] / 4;
    for (double l : losses) ASSERT_TRUE(std::isfinite(l));
    EXPECT_LT(last, 0.6 * first) << "bf16 " << (layout == Layout::NCHW ? "NCHW" : "NHWC") << ": mean loss of steps 1-4 "
                                 << first << ", of steps 97-100 " << last;
  }
}

// --gpu-kernels own: our batch norm (the ReLU after it fused, as the CPU model fuses it), max
// pooling (argmax kept) and, without batch norm, convolution + bias + ReLU (cuDNN's fused call or
// the fallback) inside a whole training step, against the CPU step. The same tolerance as
// ModelStep's fp32 rows.
TEST(ModelOwnKernels, GpuTrainingStepMatchesCpu) {
  const Problem vgg_no_bn{"vgg11:width=0.125,bn=0,dropout=0.3", {3, 32, 32, 4}, 4, false};
  for (const Problem* p : {&kUnet, &kVgg, &vgg_no_bn})
    for (const Layout layout : {Layout::NCHW, Layout::NHWC}) {
      const Batch b = make_batch(*p, 23);
      const StepResult want = cpu_step(*p, b);
      GpuOptions o;
      o.layout = layout;
      o.kernels = GpuKernels::own;
      ModelRun run(*p, o);
      StepResult got;
      got.loss = run.step(b, /*update=*/false);
      got.grads = download(run.g, run.m.grads());
      const std::string what = p->spec + (layout == Layout::NCHW ? " NCHW" : " NHWC");
      EXPECT_NEAR(got.loss, want.loss, 1e-3 * std::fabs(want.loss)) << what;
      EXPECT_LE(rel_err(got.grads, want.grads), 1e-3) << what;
    }
}

TEST(ModelDeterministic, TwoRunsGiveIdenticalLosses) {
  for (Precision precision : {Precision::fp32, Precision::bf16}) {
    std::vector<double> losses[2];
    for (auto& run_losses : losses) {
      GpuOptions o;
      o.precision = precision;
      o.layout = Layout::NHWC;
      o.deterministic = true;
      ModelRun run(kVgg, o);
      ModelRun unet(kUnet, o);
      for (int s = 0; s < 5; ++s) {
        run_losses.push_back(run.step(make_batch(kVgg, 300 + s)));
        run_losses.push_back(unet.step(make_batch(kUnet, 400 + s)));
      }
    }
    for (std::size_t i = 0; i < losses[0].size(); ++i)
      EXPECT_EQ(losses[0][i], losses[1][i]) << to_string(precision) << " loss " << i;  // bit for bit
  }
}

}  // namespace
}  // namespace scalebench::gpu_test
