// strategy.cpp — the strategy factory and `single` (no exchange: the baseline every efficiency
// divides by).
#include "harness/strategy/strategy.h"

#include <chrono>

#include "harness/strategy/strategy_impl.h"

namespace scalebench {

bool strategy_is_parameter_server(const std::string& name) { return name == "ps-sync" || name == "ps-async"; }
bool strategy_uses_mpi(const std::string& name) {
  return name == "multiworker" || name == "ring" || name == "hierarchical" || strategy_is_parameter_server(name);
}

namespace {
class SingleStrategy final : public Strategy {
 public:
  const char* name() const override { return "single"; }
  int workers() const override { return 1; }
  int worker_index() const override { return 0; }
  void start(Model&) override {}
  StepExchange after_backward(Model& model, Optimizer& opt, float lr) override {
    const auto t0 = std::chrono::steady_clock::now();
    opt.step(model.params().f32(), model.grads().f32(), lr);
    return {0.0, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
  }
  std::int64_t bytes_per_step() const override { return 0; }
  double sum_over_workers(double x) override { return x; }
  double max_over_workers(double x) override { return x; }
  bool agree_stop_is_free() const override { return true; }
};
}  // namespace

std::unique_ptr<Strategy> make_single_strategy() { return std::make_unique<SingleStrategy>(); }

std::unique_ptr<Strategy> make_strategy(const StrategyOptions& o, comm::Communicator* comm, std::int64_t count) {
  SB_REQUIRE(o.bucket_mb > 0, "--bucket-mb {} must be > 0", o.bucket_mb);
  SB_REQUIRE(o.staleness >= 0, "--staleness {} must be >= 0", o.staleness);
  SB_REQUIRE(o.compression == "none" || o.name == "ring" || o.name == "hierarchical",
             "--compression {} needs --strategy ring or hierarchical, not {}", o.compression, o.name);
  if (o.name == "single") return make_single_strategy();
  SB_CHECK(comm != nullptr, "strategy {} needs a communicator", o.name);
  if (o.name == "mirrored") {
    const std::string t = comm->transport();
    SB_REQUIRE(t == "threads" || t == "nccl", "strategy mirrored runs as threads in one process (threads or nccl)");
    return make_allreduce_strategy(o, *comm, count, comm::AllreduceAlgo::native);
  }
  if (o.name == "multiworker") return make_allreduce_strategy(o, *comm, count, comm::AllreduceAlgo::native);
  if (o.name == "ring") return make_allreduce_strategy(o, *comm, count, comm::AllreduceAlgo::ring);
  if (o.name == "hierarchical") return make_allreduce_strategy(o, *comm, count, comm::AllreduceAlgo::hierarchical);
  if (strategy_is_parameter_server(o.name)) {
    SB_REQUIRE(comm->size() >= 2, "strategy {} needs at least 2 ranks (workers + 1 server), got {}", o.name,
               comm->size());
    return make_parameter_server(o, *comm, count);
  }
  fail_input(fmt::format("--strategy '{}' is unknown", o.name));
}

}  // namespace scalebench
