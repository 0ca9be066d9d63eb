// test_strategy.cpp — sb_test_strategy: the strategies room on its own, in one process (the
// multi-process equivalence tests are tests/mpi/strategy_test.sh). The factory's refusals; single's
// update and its gradient scan through the model's device (a NaN names its element, nothing is
// updated); an allreduce strategy over the threads transport leaves every rank with the mean
// gradient's update, bit for bit the same on each; the parameter servers over it: ps-async's
// reported staleness never exceeds its bound, and workers that end early (a target reached) end
// the server's serving there, with nothing applied past it.
#include <cmath>
#include <cstring>
#include <regex>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "harness/comm/threads_comm.h"
#include "harness/strategy/strategy.h"
#include "kernels/common/check.h"
#include "models/model.h"
#include "models/optimizer.h"
#include "models/spec.h"

namespace scalebench {
namespace {

const DataShape kData{1, 16, 16, 3};

std::unique_ptr<Model> small_model() {
  auto m = std::make_unique<Model>(build_model_graph(parse_model_spec("unet:depth=1,base=4,bn=0"), kData), Backend::cpu, 3);
  m->setup({2, 1, 16, 16});
  return m;
}

std::string refusal(const StrategyOptions& o, comm::Communicator* comm) {
  try {
    make_strategy(o, comm, 10);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(StrategyFactory, RefusesBadOptionsNamingThem) {
  EXPECT_NE(refusal({.kind = StrategyKind::single, .bucket_mb = 0}, nullptr).find("--bucket-mb 0"), std::string::npos);
  EXPECT_NE(refusal({.kind = StrategyKind::ps_async, .staleness = -1}, nullptr).find("--staleness -1"),
            std::string::npos);
  EXPECT_NE(refusal({.kind = StrategyKind::single, .compression = comm::WireType::bf16}, nullptr).find("--compression"),
            std::string::npos);
  EXPECT_NE(refusal({.kind = StrategyKind::ring}, nullptr).find("needs a communicator"), std::string::npos);
  EXPECT_EQ(refusal({.kind = StrategyKind::single}, nullptr), "");
}

TEST(StepHealth, EveryIssueIsDescribed) {
  using I = StepHealth::Issue;
  EXPECT_STREQ(StepHealth::describe(I::none), "");
  for (I i : {I::loss_not_finite, I::loss_diverged, I::input_not_finite, I::gradient_not_finite})
    EXPECT_GT(std::strlen(StepHealth::describe(i)), 0u);
}

TEST(SingleStrategy, UpdatesOrRefusesANonFiniteGradient) {
  auto m = small_model();
  auto s = make_strategy({.kind = StrategyKind::single}, nullptr, m->param_count());
  Optimizer opt({.kind = OptimizerKind::sgd, .momentum = 0.0f}, m->param_count());
  s->start(*m);
  const std::vector<float> w0(m->params().f32(), m->params().f32() + m->param_count());
  float* g = m->grads().f32();
  std::fill_n(g, m->param_count(), 0.5f);
  const std::int64_t bad = m->param_count() - 2;
  g[bad] = -std::numeric_limits<float>::infinity();
  StepExchange x = s->after_backward(*m, opt, 0.1f, {});
  EXPECT_TRUE(x.nonfinite);
  EXPECT_EQ(x.bad_rank, -1);  // found in the gradient, not by a worker's own check
  EXPECT_EQ(x.where, fmt::format("gradient element {} is -inf", bad));
  EXPECT_EQ(std::memcmp(w0.data(), m->params().f32(), w0.size() * sizeof(float)), 0) << "updated after an inf";
  g[bad] = 0.5f;
  x = s->after_backward(*m, opt, 0.1f, {});
  EXPECT_FALSE(x.nonfinite) << x.where;
  for (std::size_t i = 0; i < w0.size(); ++i) ASSERT_EQ(m->params().f32()[i], w0[i] - 0.1f * 0.5f) << i;
  // A worker's own bad step (its loss) is reported as its own, with its detail.
  const StepHealth h{.bad = true, .issue = StepHealth::Issue::loss_not_finite, .where = "loss nan"};
  x = s->after_backward(*m, opt, 0.1f, h);
  EXPECT_TRUE(x.nonfinite);
  EXPECT_EQ(x.bad_rank, 0);
  EXPECT_EQ(x.where, "loss nan");
}

// scan_late (the trainer's step without a host wait, harness/train/late_steps.h): the strategy leaves
// the gradient's scan to the trainer, which reads it a step late, so a non-finite gradient is
// applied here; a worker's own bad step (its input) still stops the update.
TEST(SingleStrategy, ScanLateLeavesTheGradientScanToTheTrainer) {
  auto m = small_model();
  auto s = make_strategy({.kind = StrategyKind::single, .scan_late = true}, nullptr, m->param_count());
  Optimizer opt({.kind = OptimizerKind::sgd, .momentum = 0.0f}, m->param_count());
  s->start(*m);
  const std::vector<float> w0(m->params().f32(), m->params().f32() + m->param_count());
  float* g = m->grads().f32();
  std::fill_n(g, m->param_count(), 0.5f);
  g[0] = std::numeric_limits<float>::quiet_NaN();
  StepExchange x = s->after_backward(*m, opt, 0.1f, {});
  EXPECT_FALSE(x.nonfinite) << "scanned the gradient itself: " << x.where;
  EXPECT_TRUE(std::isnan(m->params().f32()[0])) << "the update was not applied";
  EXPECT_EQ(m->params().f32()[1], w0[1] - 0.1f * 0.5f);
  const std::vector<float> w1(m->params().f32(), m->params().f32() + m->param_count());
  const StepHealth h{.bad = true, .issue = StepHealth::Issue::input_not_finite, .where = "input batch element 3 is nan"};
  x = s->after_backward(*m, opt, 0.1f, h);
  EXPECT_TRUE(x.nonfinite);
  EXPECT_EQ(x.bad_rank, 0);
  EXPECT_EQ(x.where, "input batch element 3 is nan");
  EXPECT_EQ(std::memcmp(w1.data(), m->params().f32(), w1.size() * sizeof(float)), 0) << "updated after a bad input";
}

TEST(AllreduceStrategy, ThreadsRanksEndWithTheMeanGradientsUpdate) {
  constexpr int kRanks = 3;
  std::vector<std::vector<float>> after(kRanks);
  std::vector<float> w0;
  comm::ThreadsWorld::run(kRanks, [&](comm::Communicator& c) {
    auto m = small_model();
    auto s = make_strategy({.kind = StrategyKind::ring, .bucket_mb = 0.001}, &c, m->param_count());
    Optimizer opt({.kind = OptimizerKind::sgd, .momentum = 0.0f}, m->param_count());
    s->start(*m);
    if (c.rank() == 0) w0.assign(m->params().f32(), m->params().f32() + m->param_count());
    s->before_backward(*m);
    std::fill_n(m->grads().f32(), m->param_count(), float(c.rank() + 1));  // ranks' gradients 1, 2, 3
    const StepExchange x = s->after_backward(*m, opt, 0.5f, {});
    EXPECT_FALSE(x.nonfinite) << x.where;
    after[std::size_t(c.rank())].assign(m->params().f32(), m->params().f32() + m->param_count());
    s->finish(*m);
  });
  ASSERT_FALSE(w0.empty());
  for (int r = 1; r < kRanks; ++r) EXPECT_EQ(after[std::size_t(r)], after[0]) << "rank " << r;
  for (std::size_t i = 0; i < w0.size(); ++i)
    ASSERT_NEAR(after[0][i], w0[i] - 0.5f * 2.0f, 1e-6f) << i;  // mean gradient (1 + 2 + 3) / 3 = 2
}

// One worker sends nothing, so its exposed communication is 0 by definition (the step's own
// bookkeeping is update time): every allreduce strategy at one rank, the one-rank world of MPI
// runs at N = 1 and of mirrored --devices 1.
TEST(AllreduceStrategy, OneWorkerHasNoExposedCommunication) {
  for (auto kind : {StrategyKind::mirrored, StrategyKind::multiworker, StrategyKind::ring, StrategyKind::hierarchical}) {
    comm::ThreadsWorld::run(1, [&](comm::Communicator& c) {
      auto m = small_model();
      auto s = make_strategy({.kind = kind, .bucket_mb = 0.001}, &c, m->param_count());
      Optimizer opt({.kind = OptimizerKind::sgd, .momentum = 0.0f}, m->param_count());
      s->start(*m);
      for (int step = 0; step < 3; ++step) {
        s->before_backward(*m);
        std::fill_n(m->grads().f32(), m->param_count(), 1.0f);
        const StepExchange x = s->after_backward(*m, opt, 0.5f, {});
        EXPECT_EQ(x.comm_exposed, 0.0) << name_of(kind) << " step " << step;
        EXPECT_EQ(s->bytes_per_step(), 0) << name_of(kind);
      }
      s->finish(*m);
    });
  }
}

// A parameter-server job over the threads transport: `workers` workers and the server (the last
// rank), each worker pushing gradient 1 for `steps` steps unless it ends early after `end_after`
// (Strategy::end_early). Returns the server's summary line and its updates, and every worker's
// final weights.
struct ServedJob {
  std::string summary;
  std::vector<std::vector<float>> finals;
};
ServedJob serve_job(StrategyKind kind, int workers, int staleness, std::int64_t steps, std::int64_t end_after = -1) {
  ServedJob job;
  job.finals.resize(std::size_t(workers));
  comm::ThreadsWorld::run(workers + 1, [&](comm::Communicator& c) {
    auto m = small_model();
    auto s = make_strategy({.kind = kind, .staleness = staleness}, &c, m->param_count());
    Optimizer opt({.kind = OptimizerKind::sgd, .momentum = 0.0f}, m->param_count());
    s->start(*m);
    if (s->worker_index() < 0) {
      s->serve(*m, opt, {.base_lr = 0.1, .decay = LrDecay::constant, .steps_per_epoch = steps}, steps, {});
    } else {
      for (std::int64_t step = 0; step < steps; ++step) {
        if (step == end_after) {
          s->end_early(*m);
          break;
        }
        std::fill_n(m->grads().f32(), m->param_count(), 1.0f);
        EXPECT_FALSE(s->after_backward(*m, opt, 0.1f, {}).nonfinite);
        EXPECT_EQ(s->agree_stop(0), 0);
      }
    }
    s->finish(*m);
    if (c.rank() == 0) job.summary = s->summary();
    if (s->worker_index() >= 0)
      job.finals[std::size_t(s->worker_index())].assign(m->params().f32(), m->params().f32() + m->param_count());
  });
  return job;
}

// --staleness S bounds how many pushes a worker runs ahead of the slowest: the staleness reported
// is that count, so its max is at most S. At S = 0 with 2 workers the second push of every round
// has one update (the first's) applied since its pull: the delay, which is no staleness beyond the
// bound (it used to be reported as the staleness: `max 1 (bound 0)`, `max 2 (bound 1)`).
TEST(ParameterServer, AsyncStalenessNeverExceedsItsBound) {
  const std::regex line(R"(staleness mean [0-9.]+ max ([0-9]+) \(bound ([0-9]+)\) pushes, delay mean [0-9.]+ max ([0-9]+) updates)");
  for (const auto& [workers, bound] : std::vector<std::pair<int, int>>{{2, 0}, {2, 1}, {3, 1}}) {
    const ServedJob job = serve_job(StrategyKind::ps_async, workers, bound, 12);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(job.summary, m, line)) << job.summary;
    EXPECT_LE(std::stoi(m[1]), bound) << job.summary;
    EXPECT_EQ(std::stoi(m[2]), bound) << job.summary;
    EXPECT_GE(std::stoi(m[3]), 1) << job.summary;  // every round: a push sees another's update
  }
}

// A target reached at a check after push 3 of 8: every worker ends there (end_early), the server
// applies nothing more, says so, and every worker ends with the weights of a 3-step run: nothing
// trained past the check (the workers used to push once more to tell the server).
TEST(ParameterServer, WorkersEndingEarlyEndTheServerThere) {
  for (auto kind : {StrategyKind::ps_sync, StrategyKind::ps_async}) {
    const ServedJob ended = serve_job(kind, 2, 4, 8, 3);
    const ServedJob three = serve_job(kind, 2, 4, 3);
    EXPECT_NE(ended.summary.find("ended by the workers after 3 of 8"), std::string::npos) << ended.summary;
    EXPECT_NE(ended.summary.find(kind == StrategyKind::ps_sync ? "3 updates" : "6 updates"), std::string::npos)
        << ended.summary;
    for (int w = 0; w < 2; ++w)  // a constant rate and gradient: 3 steps' weights, however pushes interleave
      EXPECT_EQ(ended.finals[std::size_t(w)], three.finals[0]) << name_of(kind) << " worker " << w;
  }
}

}  // namespace
}  // namespace scalebench
