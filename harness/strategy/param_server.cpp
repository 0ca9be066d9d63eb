// param_server.cpp — ps-sync and ps-async (the class: param_server.h; the servers: ps_sync.cpp, ps_async.cpp): the last rank is the server; it holds the weights and the
// optimizer, workers push gradients and pull weights over point-to-point messages.
//   ps-sync: each step the server takes every worker's gradient, sums them in worker order (so the
//   result equals single-device training with the global batch), updates once and sends the new
//   weights to all workers.
//   ps-async: the server applies each gradient as it arrives (with lr / workers) and replies with the
//   weights at once. Bounded staleness (SSP): a worker more than `staleness` pushes ahead of the
//   slowest unfinished worker gets its reply deferred until the slowest catches up; the staleness
//   of an update is that count for the weights it was computed on (ps_async.cpp), so it never
//   exceeds the bound.
// Preemption (Strategy::agree_stop): each push carries a header {version, stop wanted (the signal)}
// and each reply {version, stop after, signal}. A worker's signal rides on its next push (the server's own is
// polled between updates); the server then fixes the push count T every worker stops after — the
// round it is in for ps-sync; for ps-async the furthest any worker will have got when it next
// hears from the server (a worker already computing its next step counts that step) — and sends T
// in every later reply. So all workers stop after the same step without a message of their own,
// the server ends after T pushes per worker (a stopped worker leaves the staleness bound's
// "slowest") and sends the final weights as usual. T -1: no stop; a stop that would fall on the
// last step is none. With no signal every message and every update is as before.
// A target reached at a check (Strategy::end_early): every worker, after the same push, sends an
// end in place of its next push; the server serves no more and sends the final weights, so no
// worker trains past the check.
// Checkpoints (ServeHooks::after_round): ps-sync writes the server's file after every round it is
// asked to; ps-async makes its checkpoint moments shared — the replies to push c wait until every
// worker has pushed c times — so every worker continues from the same server weights. A resumed
// ps-async run is the same as an uninterrupted one with 1 worker; with more, the order pushes
// arrive in after the resume is the network's, as in any ps-async run.
// One server rank only (no sharding of the arena across servers).
#include "harness/strategy/param_server.h"

namespace scalebench {

std::unique_ptr<Strategy> make_parameter_server(const StrategyOptions& o, comm::Communicator& comm,
                                                std::int64_t count) {
  return std::make_unique<ps::ParameterServer>(o, comm, count);
}

}  // namespace scalebench
