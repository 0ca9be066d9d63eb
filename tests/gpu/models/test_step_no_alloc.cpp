// test_step_no_alloc.cpp — the allocation-free step (issue 46): once warm, a training step on the GPU
// (forward, the loss queued with its labels from page-locked memory and read one step late, backward,
// the SGD update; the batch resident on the device) makes no device or page-locked allocation, no
// stream or device synchronisation and no cuDNN descriptor, counted by our wrappers
// (kernels/cuda/counters.h). The late losses equal the synchronous path's bit for bit (deterministic
// mode), and the counters do see the synchronous path's waits, so a zero is not a counter that
// never moves. U-Net and VGG (batch norm, dropout, linear), fp32 NCHW, tf32 NHWC and bf16 NHWC (the
// input's cast and relayout); and with --gpu-kernels own (our batch norm and pooling, whose scratch
// comes from the kept workspace and whose argmax buffer is made at setup).
// Not here: the trainer's step (harness/train/epoch.cpp reads its loss late only with --cuda-graph,
// and its phase clock and gradient scan still wait each step), CUDA graphs (test_step_graph.cpp).
#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/cuda/counters.h"
#include "models/cuda/context.h"
#include "models/cuda/memory.h"
#include "models/cuda/train.h"
#include "models/model.h"
#include "models/optimizer.h"
#include "models/spec.h"
#include "tests/gpu/models/gpu_run.h"
#include "tests/gpu/models/step_util.h"

namespace scalebench::gpu_test {
namespace {

constexpr int kWarmup = 3, kSteps = 4;

// The step of gpu_run.h with SGD and momentum at lr 0.01; the batch's images stay the zeros in `x`.
struct LateRun : GpuRun {
  LateRun(const Problem& p, const GpuOptions& o)
      : GpuRun(p, o, OptimizerConfig{.kind = OptimizerKind::sgd, .momentum = 0.9f}) {}
  double step(const std::vector<std::int32_t>& labels, bool late) { return GpuRun::step(labels, 0.01f, late); }
};

using Param = std::tuple<int, Precision, Layout, GpuKernels>;
class StepNoAlloc : public ::testing::TestWithParam<Param> {};

TEST_P(StepNoAlloc, WarmStepAllocatesAndWaitsForNothing) {
  const auto [which, precision, layout, kernels] = GetParam();
  const Problem& p = which == 0 ? kUnet : kVgg;
  const std::string what = p.spec + " " + to_string(precision) + (layout == Layout::NCHW ? " NCHW" : " NHWC") +
                           (kernels == GpuKernels::own ? " own kernels" : "");
  std::vector<Batch> batches;
  for (int i = 0; i < kWarmup + kSteps; ++i) batches.push_back(make_batch(p, 500 + std::uint64_t(i)));
  GpuOptions o;
  o.precision = precision;
  o.layout = layout;
  o.kernels = kernels;
  o.deterministic = true;  // the two paths' losses compare bit for bit

  // The synchronous path, for the reference losses and to show the counters see its waits.
  std::vector<double> want;
  cuda::CallCounts sync_delta;
  {
    LateRun r(p, o);
    gpu_upload(r.g, batches[0].x, r.x);  // resident: the same images every step, labels change
    for (int s = 0; s < kWarmup; ++s) want.push_back(r.step(batches[std::size_t(s)].labels, false));
    const cuda::CallCounts before = cuda::call_counts();
    for (int s = kWarmup; s < kWarmup + kSteps; ++s) want.push_back(r.step(batches[std::size_t(s)].labels, false));
    sync_delta = cuda::call_counts() - before;
  }
  EXPECT_GE(sync_delta.syncs, kSteps) << what << ": the counters miss the synchronous loss's waits";

  LateRun r(p, o);
  gpu_upload(r.g, batches[0].x, r.x);
  std::vector<double> got;
  for (int s = 0; s < kWarmup; ++s) {
    const double l = r.step(batches[std::size_t(s)].labels, true);
    if (s > 0) got.push_back(l);
    else EXPECT_TRUE(std::isnan(l)) << what << ": the first late loss has no previous step";
  }
  const cuda::CallCounts before = cuda::call_counts();
  for (int s = kWarmup; s < kWarmup + kSteps; ++s) got.push_back(r.step(batches[std::size_t(s)].labels, true));
  const cuda::CallCounts d = cuda::call_counts() - before;
  got.push_back(r.loss.last());
  EXPECT_EQ(d.allocations, 0) << what << ": allocations in " << kSteps << " warm steps";
  EXPECT_EQ(d.syncs, 0) << what << ": stream/device synchronisations in " << kSteps << " warm steps";
  EXPECT_EQ(d.descriptors, 0) << what << ": cuDNN descriptors made in " << kSteps << " warm steps";
  EXPECT_LE(d.lagged_waits, kSteps) << what << ": more than one wait a step for the previous loss";
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], want[i]) << what << " loss of step " << i + 1;
}

INSTANTIATE_TEST_SUITE_P(UnetAndVgg, StepNoAlloc,
                         ::testing::Values(Param{0, Precision::fp32, Layout::NCHW, GpuKernels::cudnn},
                                           Param{0, Precision::bf16, Layout::NHWC, GpuKernels::cudnn},
                                           Param{0, Precision::tf32, Layout::NHWC, GpuKernels::cudnn},
                                           Param{1, Precision::fp32, Layout::NCHW, GpuKernels::cudnn},
                                           Param{1, Precision::bf16, Layout::NHWC, GpuKernels::cudnn},
                                           Param{0, Precision::bf16, Layout::NHWC, GpuKernels::own},
                                           Param{1, Precision::fp32, Layout::NCHW, GpuKernels::own}),
                         [](const ::testing::TestParamInfo<Param>& i) {
                           return std::string(std::get<0>(i.param) == 0 ? "unet_" : "vgg_") +
                                  to_string(std::get<1>(i.param)) +
                                  (std::get<2>(i.param) == Layout::NCHW ? "_NCHW" : "_NHWC") +
                                  (std::get<3>(i.param) == GpuKernels::own ? "_own" : "");
                         });

}  // namespace
}  // namespace scalebench::gpu_test
