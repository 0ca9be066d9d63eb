// test_nccl_strategies_cuda.cpp — the synchronous strategies on GPUs over NCCL at one rank give the
// weights of single-GPU training bit for bit: multiworker, ring and hierarchical (a job world of one
// process, file bootstrap without a file at size 1) and mirrored (a device group of one GPU); with
// 2+ GPUs, ring and hierarchical keep every rank identical. At one rank the
// allreduce is an identity and the mean a multiply by 1, so any difference is a wiring fault: the
// initial broadcast, the backward hook firing before the gradients are complete, bucket ranges, the
// gradient scaling or the optimizer running on the wrong memory. Multi-GPU equality needs 2+ GPUs
// (sb_test_gpu_comm covers the transport there). The staged transport (ranks sharing one GPU, over
// the threads transport) is held to the same: at one rank bit for bit single's, at three ranks on the
// one GPU every rank identical and close to single.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "harness/comm/nccl/comm.h"
#include "harness/comm/staged.h"
#include "harness/comm/threads_comm.h"
#include "harness/strategy/strategy.h"
#include "models/cuda/context.h"
#include "models/cuda/memory.h"
#include "models/cuda/train.h"
#include "models/model.h"
#include "models/optimizer.h"
#include "models/spec.h"

namespace scalebench::gpu_test {
namespace {

struct Case {
  std::string spec;
  DataShape data;
  int batch;
  bool segmentation;
};

// Trains `steps` steps with strategy `name` over `comm` (null for single) on device `device`;
// returns the final weights and batch-norm buffers on the host. staged: `comm` is a host transport
// (threads) that the rank wraps in a staged transport over its device (harness/comm/staged.h).
std::vector<float> train(const Case& c, const std::string& name, comm::Communicator* comm, int device, int steps,
                         bool staged = false) {
  GpuOptions o;
  o.device = device;
  o.precision = Precision::tf32;
  o.layout = Layout::NHWC;
  o.deterministic = true;  // two contexts choose the same algorithms only in deterministic mode
  auto dev = make_cuda_device(o);
  std::unique_ptr<comm::StagedComm> through_host;
  if (staged) {
    through_host = std::make_unique<comm::StagedComm>(*comm, [&dev] { return dev->stager(60); });
    comm = through_host.get();
  }
  GpuContext& g = *dev->gpu();
  Model m(build_model_graph(parse_model_spec(c.spec), c.data), *dev, 5);
  const Shape in{c.batch, c.data.channels, c.data.height, c.data.width};
  m.setup(in);
  auto strategy = make_strategy({.kind = parse_enum<StrategyKind>(name, "strategy"), .bucket_mb = 0.05}, comm, m.param_count());  // several buckets
  Optimizer opt({.kind = OptimizerKind::sgd, .momentum = 0.9f}, m.param_count(), dev.get());
  GpuLoss loss(g);
  strategy->start(m);
  std::mt19937_64 rng(9);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  Tensor hx = Tensor::zeros(in), x = gpu_zeros(g, in, DType::f32, Layout::NCHW), dl;
  Ctx ctx{.backend = Backend::cuda, .seed = 2};
  for (int s = 0; s < steps; ++s) {
    for (std::int64_t i = 0; i < hx.numel(); ++i) hx.f32()[i] = nd(rng);
    gpu_upload(g, hx, x);
    const Tensor& logits = m.forward(ctx, x, true);
    std::vector<std::int32_t> labels(static_cast<std::size_t>(numel(logits.shape()) / logits.dim(1)));
    for (auto& l : labels) l = std::int32_t(rng() % std::uint64_t(c.data.classes));
    loss(logits, labels.data(), {}, &dl);
    strategy->before_backward(m);
    m.backward(ctx, dl);
    strategy->after_backward(m, opt, 0.02f, {});
    ++ctx.step;
  }
  strategy->finish(m);
  std::vector<float> out(static_cast<std::size_t>(m.param_count()));
  Tensor host = Tensor::view(out.data(), {m.param_count()});
  gpu_download(g, m.params(), host);
  for (auto& [buf_name, t] : m.buffers()) {
    Tensor h = Tensor::zeros(t->shape());
    gpu_download(g, *t, h);
    out.insert(out.end(), h.f32(), h.f32() + h.numel());
  }
  return out;
}

void expect_identical(const std::vector<float>& a, const std::vector<float>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  std::size_t differ = 0;
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    differ += std::memcmp(&a[i], &b[i], sizeof(float)) != 0;
    worst = std::max(worst, double(std::fabs(a[i] - b[i])));
  }
  EXPECT_EQ(differ, 0u) << what << ": " << differ << " of " << a.size() << " values differ from single (max |diff| "
                        << worst << ")";
}

const Case kCases[] = {{"unet:depth=2,base=8", {1, 32, 32, 3}, 4, true},
                       {"vgg11:width=0.125,bn=1,dropout=0.3", {3, 32, 32, 5}, 6, false}};

TEST(NcclStrategies, MultiworkerRingHierarchicalAtOneRankEqualSingle) {
  for (const Case& c : kCases) {
    const auto single = train(c, "single", nullptr, 0, 4);
    for (const char* name : {"multiworker", "ring", "hierarchical"}) {
      comm::JobPlace place;  // rank 0 of 1: no id file needed
      comm::NcclOptions no;
      no.comm.timeout_s = 60;
      no.device = 0;
      auto world = comm::make_nccl_world_file(place, no);
      expect_identical(train(c, name, world.get(), 0, 4), single, c.spec + " " + name);
    }
  }
}

// Every rank sees the same data here, so the mean gradient is single's up to the rounding of the
// sum: the ranks must agree bit for bit with each other, and closely with single.
TEST(NcclStrategies, RingAndHierarchicalOnEveryGpuAgree) {
  const int n = comm::cuda_device_count();
  if (n < 2) GTEST_SKIP() << "needs 2 or more GPUs, " << n << " visible";
  const Case& c = kCases[0];
  const auto single = train(c, "single", nullptr, 0, 4);
  for (const char* name : {"ring", "hierarchical"}) {
    std::vector<std::vector<float>> per_rank(static_cast<std::size_t>(n));
    comm::NcclDeviceGroup::run(
        n,
        [&](comm::Communicator& comm) {
          per_rank[std::size_t(comm.rank())] = train(c, name, &comm, comm::nccl_device(comm), 4);
        },
        {.timeout_s = 120});
    for (int r = 1; r < n; ++r) expect_identical(per_rank[std::size_t(r)], per_rank[0], std::string(name) + " rank " + std::to_string(r) + " vs 0");
    ASSERT_EQ(per_rank[0].size(), single.size());
    double worst = 0;
    for (std::size_t i = 0; i < single.size(); ++i) worst = std::max(worst, double(std::fabs(per_rank[0][i] - single[i])));
    EXPECT_LT(worst, 1e-3) << name << " at " << n << " GPUs drifted from single";
  }
}

TEST(NcclStrategies, MirroredOnOneGpuEqualsSingle) {
  for (const Case& c : kCases) {
    const auto single = train(c, "single", nullptr, 0, 4);
    std::vector<float> mirrored;
    comm::NcclDeviceGroup::run(
        1, [&](comm::Communicator& comm) { mirrored = train(c, "mirrored", &comm, comm::nccl_device(comm), 4); },
        {.timeout_s = 60});
    expect_identical(mirrored, single, c.spec + " mirrored");
  }
}

}  // namespace
}  // namespace scalebench::gpu_test

namespace scalebench::gpu_test {
namespace {

TEST(StagedStrategies, AtOneRankOverTheHostEqualSingle) {
  for (const Case& c : kCases) {
    const auto single = train(c, "single", nullptr, 0, 4);
    for (const char* name : {"mirrored", "multiworker", "ring", "hierarchical"}) {
      std::vector<float> got;
      comm::ThreadsWorld::run(1, [&](comm::Communicator& host) { got = train(c, name, &host, 0, 4, true); }, {60.0});
      expect_identical(got, single, c.spec + " staged " + name);
    }
  }
}

// Three ranks on ONE GPU (what NCCL refuses): the staged transport keeps them bit-identical, and
// with every rank on the same data the mean is single's up to the rounding of the sum.
TEST(StagedStrategies, ThreeRanksSharingOneGpuAgree) {
  const Case& c = kCases[0];
  const auto single = train(c, "single", nullptr, 0, 4);
  for (const char* name : {"mirrored", "ring", "hierarchical"}) {
    std::vector<std::vector<float>> per_rank(3);
    comm::ThreadsWorld::run(3, [&](comm::Communicator& host) {
      per_rank[std::size_t(host.rank())] = train(c, name, &host, 0, 4, true);
    }, {120.0});
    for (int r = 1; r < 3; ++r)
      expect_identical(per_rank[std::size_t(r)], per_rank[0], std::string(name) + " rank " + std::to_string(r) + " vs 0");
    double worst = 0;
    for (std::size_t i = 0; i < single.size(); ++i) worst = std::max(worst, double(std::fabs(per_rank[0][i] - single[i])));
    EXPECT_LT(worst, 1e-3) << name << " staged at 3 ranks on one GPU drifted from single";
  }
}

// The copy to the host waits for what the compute stream had queued: a buffer still being written by
// queued kernels when the exchange starts must arrive with its final values (no synchronize here).
TEST(StagedStrategies, CopiesWaitForTheComputeStream) {
  GpuOptions o;
  o.device = 0;
  auto dev = make_cuda_device(o);
  const std::int64_t n = std::int64_t{1} << 25;  // 128 MiB: the queued passes take milliseconds
  Tensor t = dev->zeros({n});
  std::vector<float> got(64);
  comm::ThreadsWorld::run(1, [&](comm::Communicator& host) {
    comm::StagedComm staged(host, [&dev] { return dev->stager(60); });
    dev->fill(t.f32(), n, 1.0f);
    for (int k = 0; k < 20; ++k) dev->scale(t.f32(), n, 1.5f);  // queued, not waited for
    staged.allreduce_sum(t.f32(), std::size_t(n));
    Tensor h = Tensor::view(got.data(), {64});
    Tensor head = Tensor::view(t.f32() + (n - 64), {64}, DType::f32, dev->where());
    dev->download(head, h);
  }, {60.0});
  float want = 1.0f;
  for (int k = 0; k < 20; ++k) want *= 1.5f;  // the device's own rounding, pass by pass
  for (float v : got) ASSERT_FLOAT_EQ(v, want);
}

}  // namespace
}  // namespace scalebench::gpu_test
