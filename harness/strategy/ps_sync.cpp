// ps_sync.cpp — the ps-sync server: each round it takes every worker's gradient, sums them in worker
// order and divides by the workers (the allreduce strategies' arithmetic, so the result equals
// single-device training with the global batch), judges the sum, updates once and sends every
// worker the new weights; a stop or a checkpoint falls on a round (param_server.cpp's header note),
// and the workers' end (their target reached) comes in place of a round's pushes.
// What it deliberately does not do: overlap rounds or talk to one worker ahead of the others.
#include <algorithm>

#include "harness/strategy/param_server.h"

namespace scalebench::ps {

void ParameterServer::serve_sync(Model& model, Optimizer& opt, const LrSchedule& sched, std::int64_t steps) {
  const int w = workers();
  std::vector<std::vector<float>> grads(static_cast<std::size_t>(w), std::vector<float>(static_cast<std::size_t>(count_)));
  std::vector<Header> seen(static_cast<std::size_t>(w));
  std::vector<float> sum(static_cast<std::size_t>(count_));
  std::int64_t limit = steps;  // rounds to serve: steps, or fewer once a stop was asked for
  bool ended = false;          // ... or once the workers ended the run (their target reached)
  for (std::int64_t s = hooks_.first_step; s < limit; ++s) {
    std::vector<comm::Request> reqs;
    for (int r = 0; r < w; ++r) {
      reqs.push_back(comm_.irecv(&seen[std::size_t(r)], sizeof(Header), r, kTagVersion));
      reqs.push_back(comm_.irecv(grads[std::size_t(r)].data(), bytes(), r, kTagGrad));
    }
    comm::wait_all(reqs);
    // The workers ended the run after the previous round (end_early): an end from each, no push.
    const auto ends = std::count_if(seen.begin(), seen.end(), [](const Header& h) { return h.action == kEnd; });
    if (ends > 0) {
      SB_CHECK(ends == w, "ps-sync: {} of {} workers ended the run before round {}", ends, w, s + 1);
      limit = s, ended = true;
      break;
    }
    if (!stop_signal_) stop_signal_ = server_stop_signal();
    for (const Header& h : seen) stop_signal_ = std::max(stop_signal_, int(h.stop));
    if (stop_signal_ && limit == steps && s + 1 < steps) limit = s + 1;  // every worker awaits this round's reply
    // Worker order, then / w: the same arithmetic as the allreduce strategies' mean.
    std::copy(grads[0].begin(), grads[0].end(), sum.begin());
    for (int r = 1; r < w; ++r)
      for (std::int64_t i = 0; i < count_; ++i) sum[std::size_t(i)] += grads[std::size_t(r)][std::size_t(i)];
    const float inv = 1.0f / float(w);
    for (auto& g : sum) g *= inv;
    std::int64_t bad_rank = -1, issue = 0;
    for (const Header& h : seen)
      if (h.bad_rank > bad_rank) bad_rank = h.bad_rank, issue = h.issue;
    if (bad_rank < 0 && !finite(sum)) issue = std::int64_t(StepHealth::Issue::gradient_not_finite);
    const std::int64_t action = judge(bad_rank >= 0 || !finite(sum));
    if (action == kOk) {
      opt.step(model.params().f32(), on_device(model, sum), float(sched.at(s)));
      ++version_;
    }
    // The server's file is on disk before any reply of a checkpoint round goes out.
    const bool stopping = limit < steps && s + 1 == limit;
    const bool timed = s + 1 < limit && checkpoint_overdue();
    const std::int64_t every = hooks_.checkpoint_every;
    const bool write = hooks_.after_round && action != kFailed && (stopping || timed || (every > 0 && (s + 1) % every == 0));
    if (write) hooks_.after_round(s + 1, stopping), last_checkpoint_ = std::chrono::steady_clock::now();
    const Header reply{version_, limit < steps ? limit : -1, bad_rank, action, issue, stop_signal_,
                       write && timed ? s + 1 : -1};
    for (int r = 0; r < w; ++r) {
      comm_.send(&reply, sizeof reply, r, kTagVersion);
      comm_.send(model.params().f32(), bytes(), r, kTagWeights);
    }
    if (action == kFailed)
      fail_input(fmt::format("server: {}", nonfinite_message(bad_rank, s + 1, StepHealth::describe(StepHealth::Issue(issue)))));
  }
  stats_ = fmt::format("ps-sync: {} updates of {} worker gradients each", version_, w);
  if (skipped_total_) stats_ += fmt::format(", {} non-finite rounds skipped", skipped_total_);
  if (ended)
    stats_ += fmt::format(" (ended by the workers after {} of {}: target reached)", limit, steps);
  else if (limit < steps)
    stats_ += fmt::format(" (stopped after {} of {}: preempted)", limit, steps);
}

}  // namespace scalebench::ps
