// strategy_impl.h — constructors of the concrete strategies, for strategy.cpp's factory only.
#pragma once

#include "harness/comm/allreduce.h"
#include "harness/strategy/strategy.h"

namespace scalebench {

std::unique_ptr<Strategy> make_single_strategy();
// The allreduce algorithm is the strategy's (traits(o.kind).algo).
std::unique_ptr<Strategy> make_allreduce_strategy(const StrategyOptions& o, comm::Communicator& comm,
                                                  std::int64_t count);
std::unique_ptr<Strategy> make_parameter_server(const StrategyOptions& o, comm::Communicator& comm, std::int64_t count);

}  // namespace scalebench
