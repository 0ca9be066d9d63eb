// test_step_graph.cpp — the captured step (--cuda-graph, kernels/common/device.h's StepGraph on the
// cuda device): forward, the loss's compute and backward captured once after two eager warm-up
// steps and replayed, each step's images copied into the same device buffer and its labels staged
// before the replay, the optimizer after it, eagerly. Replayed training equals eager training bit
// for bit over several steps (deterministic mode: the same kernels on the same data), losses and
// final weights; each replayed step is one graph launch and allocates nothing. And a capture that
// cannot succeed (a synchronisation inside it) returns its reason, runs nothing, and leaves the
// device able to run the step eagerly with the same result.
// Not here: the trainer's use of it (harness/train/epoch.cpp; the gpu-labelled train runs do).
#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/cuda/counters.h"
#include "models/cuda/context.h"
#include "models/cuda/memory.h"
#include "models/model.h"
#include "models/optimizer.h"
#include "tests/gpu/models/gpu_run.h"
#include "tests/gpu/models/step_util.h"

namespace scalebench::gpu_test {
namespace {

constexpr int kWarmup = 2, kSteps = 4;
constexpr float kLr = 0.01f;

struct GraphRun : GpuRun {
  explicit GraphRun(const GpuOptions& o) : GpuRun(kUnet, o, OptimizerConfig{.kind = OptimizerKind::sgd, .momentum = 0.9f}) {}
  void body() {
    const Tensor& logits = m.forward(ctx, x, true);
    if (graph) graph->split();
    dev->softmax_xent_compute(logits, {}, &dl);
    m.backward(ctx, dl);
  }
  // One step: images into x, labels staged, then the body (eager, or the captured graph replayed),
  // the update, and the previous step's loss.
  double step(const Batch& b, bool replay) {
    gpu_upload(g, b.x, x);
    dev->softmax_xent_stage(b.labels.data(), std::int64_t(b.labels.size()));
    if (replay) graph->replay();
    else body();
    opt->step(m.params().f32(), m.grads().f32(), kLr);
    ++ctx.step;
    return dev->softmax_xent_publish();
  }
  std::vector<float> weights() {
    Tensor h = dev->to_host(m.params());
    return {h.f32(), h.f32() + h.numel()};
  }
  std::unique_ptr<StepGraph> graph;
};

GpuOptions options(Precision p, Layout l, GpuKernels k = GpuKernels::cudnn) {
  GpuOptions o;
  o.precision = p;
  o.layout = l;
  o.kernels = k;
  o.deterministic = true;
  return o;
}

// The last element: --gpu-kernels (own: our batch norm and pooling inside the captured step).
class StepGraphReplay : public ::testing::TestWithParam<std::tuple<Precision, Layout, GpuKernels>> {};

TEST_P(StepGraphReplay, EqualsEagerTrainingAndLaunchesOnceAStep) {
  const auto [precision, layout, kernels] = GetParam();
  std::vector<Batch> batches;
  for (int i = 0; i < kWarmup + kSteps; ++i) batches.push_back(make_batch(kUnet, 700 + std::uint64_t(i)));

  std::vector<double> want;
  cuda::CallCounts eager_delta;
  std::vector<float> want_w;
  {
    GraphRun r(options(precision, layout, kernels));
    for (int s = 0; s < kWarmup; ++s) want.push_back(r.step(batches[std::size_t(s)], false));
    const cuda::CallCounts before = cuda::call_counts();
    for (int s = kWarmup; s < kWarmup + kSteps; ++s) want.push_back(r.step(batches[std::size_t(s)], false));
    eager_delta = cuda::call_counts() - before;
    want.push_back(r.dev->softmax_xent_last());
    want_w = r.weights();
  }

  GraphRun r(options(precision, layout, kernels));
  r.graph = r.dev->step_graph();
  ASSERT_TRUE(r.graph) << "the cuda device has no step graph";
  std::vector<double> got;
  for (int s = 0; s < kWarmup; ++s) got.push_back(r.step(batches[std::size_t(s)], false));
  // The capture records the next step's body; its labels are staged first, as the trainer does.
  const Batch& first = batches[kWarmup];
  gpu_upload(r.g, first.x, r.x);
  r.dev->softmax_xent_stage(first.labels.data(), std::int64_t(first.labels.size()));
  const std::string why = r.graph->capture([&] { r.body(); });
  ASSERT_EQ(why, "") << "capture failed";
  ASSERT_TRUE(r.graph->ready());
  const cuda::CallCounts before = cuda::call_counts();
  for (int s = kWarmup; s < kWarmup + kSteps; ++s) got.push_back(r.step(batches[std::size_t(s)], true));
  const cuda::CallCounts d = cuda::call_counts() - before;
  got.push_back(r.dev->softmax_xent_last());
  EXPECT_TRUE(std::isfinite(r.graph->split_seconds()) || std::isnan(r.graph->split_seconds()));

  EXPECT_EQ(d.graph_launches, kSteps) << "one graph launch per replayed step";
  EXPECT_EQ(eager_delta.graph_launches, 0);
  EXPECT_EQ(d.allocations, 0) << "allocations in replayed steps";
  EXPECT_EQ(d.descriptors, 0) << "cuDNN descriptors made in replayed steps";
  EXPECT_EQ(d.syncs, eager_delta.syncs) << "replayed steps wait more than eager ones (the images' uploads)";
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (i == 0) EXPECT_TRUE(std::isnan(got[i]) && std::isnan(want[i]));
    else EXPECT_EQ(got[i], want[i]) << "loss of step " << i;
  }
  const std::vector<float> got_w = r.weights();
  ASSERT_EQ(got_w.size(), want_w.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < want_w.size(); ++i) differ += got_w[i] != want_w[i];
  EXPECT_EQ(differ, 0u) << "weights after " << kWarmup + kSteps << " steps differ from eager training's";
}

INSTANTIATE_TEST_SUITE_P(Unet, StepGraphReplay,
                         ::testing::Values(std::tuple{Precision::fp32, Layout::NCHW, GpuKernels::cudnn},
                                           std::tuple{Precision::bf16, Layout::NHWC, GpuKernels::cudnn},
                                           std::tuple{Precision::bf16, Layout::NHWC, GpuKernels::own}),
                         [](const auto& i) {
                           return std::string(to_string(std::get<0>(i.param))) +
                                  (std::get<1>(i.param) == Layout::NCHW ? "_NCHW" : "_NHWC") +
                                  (std::get<2>(i.param) == GpuKernels::own ? "_own" : "");
                         });

// A synchronisation is what capture forbids: the capture fails with its reason, nothing of the step
// ran, and the eager step after it trains exactly as one without the failed try.
TEST(StepGraphCapture, FailureReturnsReasonAndLeavesEagerStepsIntact) {
  const Batch b = make_batch(kUnet, 900);
  const Batch c = make_batch(kUnet, 901);
  std::vector<double> want;
  {
    GraphRun r(options(Precision::fp32, Layout::NCHW));
    want.push_back(r.step(b, false));
    want.push_back(r.step(c, false));
    want.push_back(r.dev->softmax_xent_last());
  }
  GraphRun r(options(Precision::fp32, Layout::NCHW));
  r.graph = r.dev->step_graph();
  std::vector<double> got;
  got.push_back(r.step(b, false));
  gpu_upload(r.g, c.x, r.x);
  r.dev->softmax_xent_stage(c.labels.data(), std::int64_t(c.labels.size()));
  const std::string why = r.graph->capture([&] {
    r.body();
    r.g.synchronize();  // not allowed under capture
  });
  EXPECT_NE(why, "") << "a capture that synchronises succeeded";
  EXPECT_FALSE(r.graph->ready());
  got.push_back(r.step(c, false));
  got.push_back(r.dev->softmax_xent_last());
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 1; i < want.size(); ++i) EXPECT_EQ(got[i], want[i]) << "loss of step " << i;
}

}  // namespace
}  // namespace scalebench::gpu_test
