// ps_async.cpp — the ps-async server: it applies each gradient as it arrives (with lr / workers) and
// replies with the weights at once; the staleness of an update is how many updates the server
// applied since that worker last pulled. Bounded staleness (SSP): a worker more than `staleness`
// pushes ahead of the slowest unfinished worker gets its reply deferred until the slowest catches
// up. Checkpoint moments are shared (replies wait until every worker has pushed as often).
// What it deliberately does not do: shard, or order pushes other than as they arrive.
#include <algorithm>
#include <cstring>
#include <thread>

#include "harness/strategy/param_server.h"

namespace scalebench::ps {

// What the server tracks per worker.
struct ParameterServer::AsyncWorker {
  std::vector<float> grad, snapshot;
  Header got, sent;  // the last push's header; the reply in flight
  std::int64_t action = kOk;  // what the server did with the last push
  std::int64_t pushes = 0;
  comm::Request version_req, grad_req, reply_v, reply_w;
  bool deferred = false;
};

// ps-async: the furthest push count any worker reaches before it next hears from the server — a
// worker awaiting a reply (or done: at `done`) is at its count, one computing its next step
// will push once more. A stop or a checkpoint announced at it finds no worker past it.
std::int64_t ParameterServer::furthest(const std::vector<AsyncWorker>& ws, std::int64_t done) {
  std::int64_t at = 0;
  for (const auto& k : ws) at = std::max(at, k.deferred || k.pushes >= done ? k.pushes : k.pushes + 1);
  return at;
}

void ParameterServer::serve_async(Model& model, Optimizer& opt, const LrSchedule& sched, std::int64_t steps) {
  const int w = workers();
  std::vector<AsyncWorker> ws(static_cast<std::size_t>(w));
  std::int64_t limit = steps;  // pushes per worker: steps, or fewer once a stop was asked for
  const std::int64_t first = hooks_.first_step;  // pushes per worker a resumed run had applied
  std::int64_t saved = first;                    // the last checkpoint moment written
  std::int64_t timed_at = -1;  // the time-based checkpoint moment announced (--checkpoint-minutes)
  // A checkpoint moment (after_round): every `checkpoint_every` pushes per worker, a stop, and
  // the time-based one the server announced.
  auto checkpoint_at = [&](std::int64_t c) {
    const std::int64_t every = hooks_.checkpoint_every;
    return hooks_.after_round && c > saved &&
           ((every > 0 && c % every == 0) || (c == limit && limit < steps) || c == timed_at);
  };
  auto post = [&](int r) {
    auto& k = ws[std::size_t(r)];
    k.version_req = comm_.irecv(&k.got, sizeof k.got, r, kTagVersion);
    k.grad_req = comm_.irecv(k.grad.data(), bytes(), r, kTagGrad);
  };
  auto reply = [&](int r) {
    auto& k = ws[std::size_t(r)];
    k.reply_v.wait();
    k.reply_w.wait();
    copy_weights(model, k.snapshot);  // weights change while in flight
    k.sent = {version_, limit < steps ? limit : -1, k.got.bad_rank, k.action, k.got.issue, stop_signal_, timed_at};
    k.reply_v = comm_.isend(&k.sent, sizeof k.sent, r, kTagVersion);
    k.reply_w = comm_.isend(k.snapshot.data(), bytes(), r, kTagWeights);
    k.deferred = false;
    if (k.pushes < limit) post(r);
  };
  for (int r = 0; r < w; ++r) {
    auto& k = ws[std::size_t(r)];
    k.grad.resize(std::size_t(count_));
    k.snapshot.resize(std::size_t(count_));
    k.pushes = first;
    k.sent.version = version_;  // what the worker holds: the start's (or the checkpoint's) weights
    if (first < limit) post(r);
  }
  std::int64_t applied = first * w, stale_sum = 0, stale_max = 0, deferrals = 0;
  while (applied < limit * w) {
    bool progressed = false;
    for (int r = 0; r < w; ++r) {
      auto& k = ws[std::size_t(r)];
      if (k.pushes >= limit || k.deferred || !k.grad_req.valid() || !k.version_req.test() || !k.grad_req.test())
        continue;
      stop_signal_ = std::max(stop_signal_, int(k.got.stop));
      if (k.got.bad_rank < 0 && !finite(k.grad))
        k.got.bad_rank = r, k.got.issue = std::int64_t(StepHealth::Issue::gradient_not_finite);
      k.action = judge(k.got.bad_rank >= 0);
      if (k.action == kFailed) fail_everyone(ws, r, limit, model);  // throws
      // Updates applied since the weights this gradient was computed on were sent (kept here, not
      // taken from the push, so that it holds across a resume too).
      const std::int64_t staleness = version_ - k.sent.version;
      stale_sum += staleness, stale_max = std::max(stale_max, staleness);
      // Each push carries one worker's gradient: lr / workers per push, so a round of `w` pushes
      // moves the weights as far as one synchronous step of the mean gradient would.
      if (k.action == kOk) {
        opt.step(model.params().f32(), on_device(model, k.grad), float(sched.at(version_ / w) / w));
        ++version_;
      }
      ++applied, ++k.pushes;
      k.deferred = true;
      progressed = true;
    }
    // A stop: every worker ends at the furthest push count any of them reaches before its next
    // reply (which carries the count): a worker awaiting a reply is at `pushes`, one computing
    // its next step will push once more.
    if (!stop_signal_) stop_signal_ = server_stop_signal();
    if (limit == steps && stop_signal_) limit = std::min(furthest(ws, steps), steps);
    // A time-based checkpoint: at the same push count, found the same way (so no worker has had
    // its reply for it yet); every later reply announces it. None on a run's last push.
    if (timed_at <= saved && checkpoint_overdue()) {
      const std::int64_t at = furthest(ws, limit);
      if (at > saved && at < limit) timed_at = at;
    }
    // Replies: a worker may run ahead of the slowest unfinished one by at most `staleness` pushes.
    // At a checkpoint moment a reply waits until every worker has pushed as often; the server's
    // file is written before the first of those replies goes out.
    std::int64_t slowest = limit, least = limit;
    for (const auto& k : ws) {
      if (k.pushes < limit) slowest = std::min(slowest, k.pushes);
      least = std::min(least, k.pushes);
    }
    for (int r = 0; r < w; ++r) {
      auto& k = ws[std::size_t(r)];
      if (!k.deferred) continue;
      if (checkpoint_at(k.pushes)) {
        if (least < k.pushes) continue;
        hooks_.after_round(k.pushes, k.pushes == limit && limit < steps);
        saved = k.pushes;
        last_checkpoint_ = std::chrono::steady_clock::now();
      }
      if (k.pushes >= limit || k.pushes - slowest <= opts_.staleness)
        reply(r);
      else
        ++deferrals;
    }
    if (!progressed) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  for (auto& k : ws) k.reply_v.wait(), k.reply_w.wait();
  stats_ = fmt::format("ps-async: {} updates, staleness mean {:.2f} max {} (bound {}), {} deferred polls", applied,
                       applied ? double(stale_sum) / double(applied) : 0.0, stale_max, opts_.staleness, deferrals);
  if (skipped_total_) stats_ += fmt::format(", {} non-finite pushes skipped", skipped_total_);
  if (limit < steps) stats_ += fmt::format(" (stopped after {} of {} pushes each: preempted)", limit, steps);
}

// ps-async, --on-nonfinite fail (or too many skips): worker `bad`'s push just failed. Tell every
// worker once, where it waits — for its reply (it pushed, or is computing a push we wait for),
// or for the final weights (it has pushed its last step) — then end this rank with the error.
void ParameterServer::fail_everyone(std::vector<AsyncWorker>& ws, int bad, std::int64_t limit, Model& model) {
  const std::int64_t bad_rank = ws[std::size_t(bad)].got.bad_rank;
  for (int r = 0; r < int(ws.size()); ++r) {
    auto& k = ws[std::size_t(r)];
    k.reply_v.wait();
    k.reply_w.wait();
    bool awaits_reply = k.deferred || r == bad;
    if (!awaits_reply && k.pushes < limit && k.grad_req.valid()) {
      k.version_req.wait();
      k.grad_req.wait();
      awaits_reply = true;
    }
    if (awaits_reply) {
      k.sent = {version_, -1, bad_rank, kFailed, ws[std::size_t(bad)].got.issue};
      comm_.send(&k.sent, sizeof k.sent, r, kTagVersion);
      comm_.send(model.params().f32(), bytes(), r, kTagWeights);
    } else {
      const std::int64_t failed = -bad_rank - 1;  // a negative final version: the run failed
      comm_.send(&failed, sizeof failed, r, kTagVersion);
      comm_.send(model.params().f32(), bytes(), r, kTagFinal);
    }
  }
  fail_input(fmt::format("server: {}", nonfinite_message(bad_rank, ws[std::size_t(bad)].pushes + 1,
                                                         StepHealth::describe(StepHealth::Issue(ws[std::size_t(bad)].got.issue)))));
}

}  // namespace scalebench::ps
