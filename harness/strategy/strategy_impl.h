// strategy_impl.h — constructors of the concrete strategies, for strategy.cpp's factory only.
#pragma once

#include "harness/comm/allreduce.h"
#include "harness/strategy/strategy.h"

namespace scalebench {

std::unique_ptr<Strategy> make_single_strategy(bool scan_late = false);  // StrategyOptions::scan_late
// After the exchange: bad_rank >= 0 (a worker whose own check failed, `issue` what it found;
// `health` is this worker's, for its detail) makes the step non-finite; otherwise a scan of the
// (exchanged) gradient for NaN/Inf on the model's device — identical on every worker, since the
// exchanged gradients are.
StepExchange check_gradient(Model& model, const StepHealth& health, int bad_rank, StepHealth::Issue issue);
// The allreduce algorithm is the strategy's (traits(o.kind).algo).
std::unique_ptr<Strategy> make_allreduce_strategy(const StrategyOptions& o, comm::Communicator& comm,
                                                  std::int64_t count);
std::unique_ptr<Strategy> make_parameter_server(const StrategyOptions& o, comm::Communicator& comm, std::int64_t count);

}  // namespace scalebench
