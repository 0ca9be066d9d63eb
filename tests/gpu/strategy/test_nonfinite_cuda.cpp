// test_nonfinite_cuda.cpp — the gradient non-finite scan on the GPU, through the strategies as the
// trainer uses it: a NaN planted in a cuda Model's gradient arena makes `single` and `multiworker`
// (an NCCL job world of one process) report the step as not finite, naming the element like the
// CPU does, and apply no update; a finite arena is updated.
#include <cmath>
#include <cstring>
#include <limits>
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

void check(const std::string& strategy, comm::Communicator* comm) {
  GpuOptions o;
  auto dev = make_cuda_device(o);
  Model m(build_model_graph(parse_model_spec("unet:depth=2,base=8"), {1, 32, 32, 3}), *dev, 5);
  m.setup({2, 1, 32, 32});
  auto s = make_strategy({.kind = parse_enum<StrategyKind>(strategy, "strategy")}, comm, m.param_count());
  Optimizer opt({.kind = OptimizerKind::sgd, .momentum = 0.9f}, m.param_count(), dev.get());
  s->start(m);
  std::vector<float> g(std::size_t(m.param_count()), 0.01f);
  const std::int64_t bad = m.param_count() / 3;
  g[std::size_t(bad)] = std::numeric_limits<float>::quiet_NaN();
  dev->upload(Tensor::view(g.data(), {m.param_count()}), m.grads());
  const Tensor before = dev->to_host(m.params());
  s->before_backward(m);
  StepExchange x = s->after_backward(m, opt, 0.1f, {});
  EXPECT_TRUE(x.nonfinite) << strategy;
  EXPECT_NE(x.where.find(fmt::format("gradient element {} is nan", bad)), std::string::npos) << strategy << ": " << x.where;
  const Tensor after = dev->to_host(m.params());
  EXPECT_EQ(std::memcmp(before.raw(), after.raw(), before.nbytes()), 0) << strategy << ": updated after a NaN";
  g[std::size_t(bad)] = 0.01f;
  dev->upload(Tensor::view(g.data(), {m.param_count()}), m.grads());
  s->before_backward(m);
  x = s->after_backward(m, opt, 0.1f, {});
  EXPECT_FALSE(x.nonfinite) << strategy << ": " << x.where;
  const Tensor updated = dev->to_host(m.params());
  EXPECT_NE(std::memcmp(before.raw(), updated.raw(), before.nbytes()), 0) << strategy << ": no update";
}

TEST(GpuNonFinite, SingleAndMultiworkerSeeANanGradient) {
  check("single", nullptr);
  comm::JobPlace place;  // rank 0 of 1
  comm::NcclOptions no;
  no.comm.timeout_s = 60;
  no.device = 0;
  auto world = comm::make_nccl_world_file(place, no);
  check("multiworker", world.get());
}

}  // namespace
}  // namespace scalebench
