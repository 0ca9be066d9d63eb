// strategy.cpp — the strategy factory and `single` (no exchange: the baseline every efficiency
// divides by).
#include "harness/strategy/strategy.h"

#include "harness/comm/staged.h"
#include "harness/strategy/micro_batch_norms.h"
#include "harness/strategy/strategy_impl.h"

namespace scalebench {

namespace {
class SingleStrategy final : public Strategy {
 public:
  explicit SingleStrategy(bool scan_late) : scan_late_(scan_late) {}
  const char* name() const override { return "single"; }
  int workers() const override { return 1; }
  int worker_index() const override { return 0; }
  void start(Model&) override {}
  void after_micro_batch(Model& model) override { micro_.after_micro_batch(model); }
  StepExchange after_backward(Model& model, Optimizer& opt, float lr, const StepHealth& health) override {
    if (scan_late_) return update_unchecked(model, opt, lr, health);
    DeviceClock clock(model.device());  // the update's time includes its device work
    const GradNorms norms = micro_.finish(model);  // one replica: its micro-batches are the small batch
    StepExchange x = check_gradient(model, health, health.bad ? 0 : -1, health.issue);
    if (!x.nonfinite) x.norms = norms;
    x.checkpoint = health.checkpoint_wanted;
    if (!x.nonfinite) opt.step(model.params().f32(), model.grads().f32(), lr);
    x.update = clock.lap();
    return x;
  }
  std::int64_t bytes_per_step() const override { return 0; }
  double sum_over_workers(double x) override { return x; }
  double max_over_workers(double x) override { return x; }
  int agree_stop(int local) override { return local; }

 private:
  // scan_late: the step's own bad health (its input) still stops the update; the gradient's scan and
  // the update's time are the trainer's, read one step late, so nothing here waits for the device
  // (x.update stays 0: the trainer's update phase is the device's time).
  StepExchange update_unchecked(Model& model, Optimizer& opt, float lr, const StepHealth& health) {
    const GradNorms norms = micro_.finish(model);
    StepExchange x;
    if (health.bad) x = check_gradient(model, health, 0, health.issue);
    else x.norms = norms;
    x.checkpoint = health.checkpoint_wanted;
    if (!x.nonfinite) opt.step(model.params().f32(), model.grads().f32(), lr);
    return x;
  }
  const bool scan_late_;
  MicroBatchNorms micro_;
};
}  // namespace

const char* StepHealth::describe(Issue i) {
  switch (i) {
    case Issue::none: return "";
    case Issue::loss_not_finite: return "loss not finite";
    case Issue::loss_diverged: return "loss above --max-loss";
    case Issue::input_not_finite: return "input batch not finite";
    case Issue::gradient_not_finite: return "gradient not finite";
  }
  return "";
}

StepExchange check_gradient(Model& model, const StepHealth& health, int bad_rank, StepHealth::Issue issue) {
  StepExchange x;
  if (bad_rank >= 0) {
    x.nonfinite = true;
    x.bad_rank = bad_rank;
    x.where = health.bad ? health.where : StepHealth::describe(issue);
    return x;
  }
  const NonFinite bad = model.device().first_nonfinite(model.grads().f32(), model.param_count());
  if (bad.index >= 0) {
    x.nonfinite = true;
    x.where = fmt::format("gradient element {} is {}", bad.index, bad.value);
  }
  return x;
}

std::unique_ptr<Strategy> make_single_strategy(bool scan_late) { return std::make_unique<SingleStrategy>(scan_late); }

std::unique_ptr<Strategy> make_strategy(const StrategyOptions& o, comm::Communicator* comm, std::int64_t count) {
  const StrategyTraits& t = traits(o.kind);
  SB_REQUIRE(o.bucket_mb > 0, "--bucket-mb {} must be > 0", o.bucket_mb);
  SB_REQUIRE(o.staleness >= 0, "--staleness {} must be >= 0", o.staleness);
  SB_REQUIRE(o.compression == comm::WireType::f32 || t.compression, "--compression {} needs --strategy {}, not {}",
             name_of(o.compression), strategies_with(&StrategyTraits::compression, " or "), t.name);
  switch (t.exchange) {
    case Exchange::none: return make_single_strategy(o.scan_late);
    case Exchange::allreduce: {
      SB_CHECK(comm != nullptr, "strategy {} needs a communicator", t.name);
      if (t.processes == Processes::one) {
        // A staged transport (ranks sharing a GPU) runs over a host transport: that one must be threads.
        const auto* staged = dynamic_cast<const comm::StagedComm*>(comm);
        const std::string tr = staged != nullptr ? staged->host_transport() : comm->transport();
        SB_REQUIRE(tr == "threads" || tr == "nccl",
                   "strategy {} runs as threads in one process (threads, staged over threads, or nccl)", t.name);
      }
      return make_allreduce_strategy(o, *comm, count);
    }
    case Exchange::server:
      SB_CHECK(comm != nullptr, "strategy {} needs a communicator", t.name);
      SB_REQUIRE(comm->size() >= 1 + t.extra_ranks, "strategy {} needs at least {} ranks (workers + {} server), got {}",
                 t.name, 1 + t.extra_ranks, t.extra_ranks, comm->size());
      return make_parameter_server(o, *comm, count);
  }
  SB_CHECK(false, "strategy kind {} has no constructor", int(o.kind));
  return nullptr;
}

}  // namespace scalebench
