// test_sync_bn_cuda.cpp — --sync-bn through a strategy on GPUs: multiworker on an NCCL job world of
// one process lends batch norm its ReplicaSum (the statistics cross NCCL's allgather), so a VGG with
// batch norm trains to the weights and statistics `single` (cuDNN's own batch norm) reaches, within
// a model step's fp32 tolerance per step. Several GPUs: not covered here (one GPU in this project).
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "harness/comm/nccl/comm.h"
#include "harness/strategy/strategy.h"
#include "models/cuda/context.h"
#include "models/device.h"
#include "models/model.h"
#include "models/optimizer.h"
#include "models/spec.h"

namespace scalebench {
namespace {

std::vector<float> train(const std::string& strategy, comm::Communicator* comm, bool sync_bn) {
  GpuOptions o;
  o.deterministic = true;
  auto dev = make_cuda_device(o);
  const DataShape data{3, 32, 32, 5};
  Model m(build_model_graph(parse_model_spec("vgg11:width=0.125,bn=1"), data), *dev, 5);
  const Shape in{6, 3, 32, 32};
  m.setup(in);
  auto s = make_strategy({.kind = parse_enum<StrategyKind>(strategy, "strategy"), .sync_bn = sync_bn}, comm,
                         m.param_count());
  Optimizer opt({.kind = OptimizerKind::sgd, .momentum = 0.9f}, m.param_count(), dev.get());
  s->start(m);
  Ctx ctx{.backend = Backend::cuda, .seed = 2, .replica_sum = s->replica_sum()};
  EXPECT_EQ(ctx.replica_sum != nullptr, sync_bn && comm != nullptr) << strategy;
  std::mt19937_64 rng(9);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  Tensor hx = Tensor::zeros(in), x = dev->zeros(in), dl;
  for (int step = 0; step < 3; ++step) {
    for (std::int64_t i = 0; i < hx.numel(); ++i) hx.f32()[i] = nd(rng);
    dev->upload(hx, x);
    std::vector<std::int32_t> labels(6);
    for (auto& l : labels) l = std::int32_t(rng() % 5);
    dev->softmax_xent(m.forward(ctx, x, true), labels.data(), {}, &dl);
    s->before_backward(m);
    m.backward(ctx, dl);
    s->after_backward(m, opt, 0.02f, {});
    ++ctx.step;
  }
  s->finish(m);
  const Tensor w = dev->to_host(m.params());
  std::vector<float> out(w.f32(), w.f32() + w.numel());
  for (auto& [name, t] : m.buffers()) {
    const Tensor h = dev->to_host(*t);
    out.insert(out.end(), h.f32(), h.f32() + h.numel());
  }
  return out;
}

TEST(GpuSyncBn, MultiworkerWithSyncBnAtOneRankEqualsSingle) {
  const auto single = train("single", nullptr, false);
  comm::JobPlace place;  // rank 0 of 1
  comm::NcclOptions no;
  no.comm.timeout_s = 60;
  no.device = 0;
  auto world = comm::make_nccl_world_file(place, no);
  const auto synced = train("multiworker", world.get(), true);
  ASSERT_EQ(synced.size(), single.size());
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < single.size(); ++i) {
    ASSERT_TRUE(std::isfinite(synced[i])) << i;
    diff = std::max(diff, double(std::fabs(synced[i] - single[i])));
    scale = std::max(scale, double(std::fabs(single[i])));
  }
  EXPECT_LE(diff / scale, 1e-3) << "max |sync-bn multiworker - single| / max |single|";
}

}  // namespace
}  // namespace scalebench
