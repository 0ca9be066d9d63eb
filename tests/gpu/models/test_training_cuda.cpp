// test_training_cuda.cpp — the training core's device interface on the GPU against the CPU
// (kernels/common/device.h): every element-wise op and reduction against the CPU device on odd
// sizes, the non-finite scan, the phase clock waiting for queued work, LARS and LAMB (norms on the
// device) and gradient accumulation over whole U-Net/VGG steps, each against the same on the CPU.
// Tolerances as test_model_cuda.cpp's: a model step fp32 1e-3; single ops bit for bit where both
// sides round the same operations (scale, axpy), 1e-12 relative for double sums (order differs).
#include <cuda_runtime.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/common/device.h"
#include "models/cuda/context.h"
#include "models/device.h"
#include "models/model.h"
#include "models/optimizer.h"
#include "models/spec.h"
#include "tests/gpu/models/step_util.h"

namespace scalebench::gpu_test {
namespace {

std::unique_ptr<ComputeDevice> gpu_device() {
  GpuOptions o;
  o.deterministic = true;
  return make_cuda_device(o);
}

std::vector<float> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = nd(rng);
  return v;
}

// A device copy of host values, and back.
Tensor up(ComputeDevice& d, const std::vector<float>& v) {
  Tensor t = d.zeros({std::int64_t(v.size())});
  d.upload(Tensor::view(const_cast<float*>(v.data()), {std::int64_t(v.size())}), t);
  return t;
}
std::vector<float> down(ComputeDevice& d, const Tensor& t) {
  const Tensor h = d.to_host(t);
  return {h.f32(), h.f32() + h.numel()};
}

constexpr std::int64_t kN = 100003;  // odd, not a multiple of any block

TEST(DeviceOps, ElementwiseOpsEqualTheCpuBitForBit) {
  auto cpu = cpu::make_cpu_device();
  auto gpu = gpu_device();
  const auto x = random_values(kN, 1), y = random_values(kN, 2);
  std::vector<float> want = y;
  cpu->axpy(kN, 0.37f, x.data(), want.data());
  cpu->axpy(kN, 1.0f, x.data(), want.data());
  cpu->scale(want.data(), kN, -1.7f);
  Tensor gx = up(*gpu, x), gy = up(*gpu, y);
  gpu->axpy(kN, 0.37f, gx.f32(), gy.f32());
  gpu->axpy(kN, 1.0f, gx.f32(), gy.f32());
  gpu->scale(gy.f32(), kN, -1.7f);
  const auto got = down(*gpu, gy);
  std::size_t differ = 0;
  for (std::int64_t i = 0; i < kN; ++i) differ += got[std::size_t(i)] != want[std::size_t(i)];
  EXPECT_EQ(differ, 0u);
  gpu->fill(gy.f32() + 5, 7, 2.5f);
  const auto filled = down(*gpu, gy);
  EXPECT_EQ(filled[5], 2.5f);
  EXPECT_EQ(filled[11], 2.5f);
  EXPECT_EQ(filled[12], got[12]);
  EXPECT_EQ(filled[4], got[4]);
}

TEST(DeviceOps, ReductionsEqualTheCpu) {
  auto cpu = cpu::make_cpu_device();
  auto gpu = gpu_device();
  const auto x = random_values(kN, 3), y = random_values(kN, 4);
  Tensor gx = up(*gpu, x), gy = up(*gpu, y);
  const double want = cpu->dot(kN, x.data(), y.data());
  EXPECT_NEAR(gpu->dot(kN, gx.f32(), gy.f32()), want, 1e-12 * std::fabs(want) + 1e-12);
  const std::vector<ComputeDevice::Segment> segs{{0, 1}, {1, 999}, {1000, 0}, {1000, kN - 1000}};
  const auto cs = cpu->sum_squares(x.data(), segs), gs = gpu->sum_squares(gx.f32(), segs);
  ASSERT_EQ(gs.size(), cs.size());
  for (std::size_t k = 0; k < cs.size(); ++k) EXPECT_NEAR(gs[k], cs[k], 1e-12 * cs[k]) << "segment " << k;
  // The same reduction twice gives the same bits (--deterministic relies on it).
  EXPECT_EQ(gpu->dot(kN, gx.f32(), gy.f32()), gpu->dot(kN, gx.f32(), gy.f32()));
}

TEST(DeviceOps, NonFiniteScanFindsTheFirstLikeTheCpu) {
  auto cpu = cpu::make_cpu_device();
  auto gpu = gpu_device();
  auto x = random_values(kN, 5);
  Tensor gx = up(*gpu, x);
  EXPECT_EQ(gpu->first_nonfinite(gx.f32(), kN).index, -1);
  x[90001] = std::numeric_limits<float>::infinity();
  x[77777] = std::numeric_limits<float>::quiet_NaN();
  x[99999] = -std::numeric_limits<float>::infinity();
  gx = up(*gpu, x);
  const NonFinite want = cpu->first_nonfinite(x.data(), kN), got = gpu->first_nonfinite(gx.f32(), kN);
  EXPECT_EQ(want.index, 77777);
  EXPECT_EQ(got.index, want.index);
  EXPECT_TRUE(std::isnan(got.value));
}

TEST(DeviceOps, PhaseClockWaitsForQueuedWork) {
  auto gpu = gpu_device();
  Tensor t = gpu->zeros({std::int64_t(1) << 26});  // 256 MiB: many fills take a while
  DeviceClock clock(*gpu);
  for (int i = 0; i < 20; ++i) gpu->fill(t.f32(), t.numel(), float(i));
  const double s = clock.lap();
  EXPECT_GE(s, 0.0);
  // lap() returned after the device finished the phase's work: the stream has nothing left.
  EXPECT_EQ(cudaStreamQuery(gpu->gpu()->stream()), cudaSuccess);
}

// A model's gradient arena from one CPU step, for the optimizer comparisons.
struct Arena {
  std::vector<float> w, g;
  std::vector<ParamTensor> tensors;
};

Arena arena_of(const Problem& p) {
  Model m(build_model_graph(parse_model_spec(p.spec), p.data), Backend::cpu, 7);
  const Batch b = make_batch(p, 11);
  m.setup(b.x.shape());
  Ctx ctx{.backend = Backend::cpu, .seed = 3};
  Tensor dl;
  auto dev = cpu::make_cpu_device();
  dev->softmax_xent(m.forward(ctx, b.x, true), b.labels.data(), {}, &dl);
  m.backward(ctx, dl);
  Arena a{{m.params().f32(), m.params().f32() + m.param_count()}, {m.grads().f32(), m.grads().f32() + m.param_count()}};
  for (const auto& info : m.param_info()) a.tensors.push_back({info.offset, numel(info.shape), info.shape.size() > 1});
  return a;
}

TEST(DeviceOptimizers, LarsAndLambOnTheGpuEqualTheCpu) {
  for (OptimizerKind kind : {OptimizerKind::lars, OptimizerKind::lamb}) {
    const Arena a = arena_of(kUnet);
    const std::int64_t n = std::int64_t(a.w.size());
    const OptimizerConfig cfg{.kind = kind, .momentum = 0.9f, .weight_decay = 1e-4f, .tensors = a.tensors};
    auto cpu = cpu::make_cpu_device();
    auto gpu = gpu_device();
    Optimizer oc(cfg, n, cpu.get()), og(cfg, n, gpu.get());
    std::vector<float> w = a.w;
    Tensor gw = up(*gpu, a.w), gg = up(*gpu, a.g);
    for (int s = 0; s < 3; ++s) {  // several steps: the moments carry over
      oc.step(w.data(), a.g.data(), 0.05f);
      og.step(gw.f32(), gg.f32(), 0.05f);
    }
    EXPECT_LE(rel_err(down(*gpu, gw), w), 1e-6) << name_of(kind);
    const auto sc = oc.state(), sg = og.state();
    EXPECT_EQ(sg.steps, 3);
    EXPECT_LE(rel_err(sg.m, sc.m), 1e-6) << name_of(kind) << " first moment";
    EXPECT_LE(rel_err(sg.v, sc.v), 1e-6) << name_of(kind) << " second moment";
  }
}

// --accumulate on the GPU: two micro-batches summed by Model::backward, against the same on the CPU.
TEST(DeviceAccumulate, TwoMicroBatchesEqualTheCpu) {
  for (const Problem* p : {&kUnet, &kVgg}) {
    const Batch b0 = make_batch(*p, 21), b1 = make_batch(*p, 22);
    auto cpu = cpu::make_cpu_device();
    auto gpu = gpu_device();
    std::vector<float> grads[2];
    int k = 0;
    for (ComputeDevice* d : {cpu.get(), gpu.get()}) {
      Model m(build_model_graph(parse_model_spec(p->spec), p->data), *d, 11);
      m.setup(b0.x.shape());
      Ctx ctx{.backend = m.backend(), .seed = 3};
      Tensor x = d->zeros(b0.x.shape()), dl;
      int micro = 0;
      for (const Batch* b : {&b0, &b1}) {
        d->upload(b->x, x);
        d->softmax_xent(m.forward(ctx, x, true), b->labels.data(), {}, &dl);
        d->scale(dl, 0.5f);
        m.backward(ctx, dl, /*last_micro_batch=*/++micro == 2);
      }
      grads[k++] = down(*d, m.grads());
    }
    EXPECT_LE(rel_err(grads[1], grads[0]), 1e-3) << p->spec;
  }
}

}  // namespace
}  // namespace scalebench::gpu_test

namespace scalebench::gpu_test {
namespace {

// Two replicas holding the same batch: every per-channel sum doubles (the counts too).
struct TwinReplicas final : ReplicaSum {
  void sum(double* v, std::size_t n) override {
    for (std::size_t i = 0; i < n; ++i) v[i] *= 2;
  }
};

// --sync-bn on the GPU: a VGG with batch norm, one training step with a replica sum, against the
// CPU with the same replica sum (loss, gradient arena and the running statistics it moved).
TEST(DeviceSyncBn, ReplicaSummedBatchNormEqualsTheCpu) {
  for (Layout layout : {Layout::NCHW, Layout::NHWC}) {
    const Batch b = make_batch(kVgg, 31);
    auto cpu = cpu::make_cpu_device();
    GpuOptions o;
    o.layout = layout;
    auto gpu = make_cuda_device(o);
    TwinReplicas twins;
    std::vector<float> grads[2], stats[2];
    double loss[2];
    int k = 0;
    for (ComputeDevice* d : {cpu.get(), gpu.get()}) {
      Model m(build_model_graph(parse_model_spec(kVgg.spec), kVgg.data), *d, 11);
      m.setup(b.x.shape());
      Ctx ctx{.backend = m.backend(), .seed = 3, .replica_sum = &twins};
      Tensor x = d->zeros(b.x.shape()), dl;
      d->upload(b.x, x);
      loss[k] = d->softmax_xent(m.forward(ctx, x, true), b.labels.data(), {}, &dl);
      m.backward(ctx, dl);
      grads[k] = down(*d, m.grads());
      for (auto& [name, t] : m.buffers()) {
        const auto v = down(*d, *t);
        stats[k].insert(stats[k].end(), v.begin(), v.end());
      }
      ++k;
    }
    const std::string what = layout == Layout::NCHW ? "NCHW" : "NHWC";
    EXPECT_NEAR(loss[1], loss[0], 1e-3 * std::fabs(loss[0])) << what;
    EXPECT_LE(rel_err(grads[1], grads[0]), 1e-3) << what;
    EXPECT_LE(rel_err(stats[1], stats[0]), 1e-4) << what << ": running statistics";
  }
}

}  // namespace
}  // namespace scalebench::gpu_test
