// param_server.cpp — ps-sync and ps-async: the last rank is the server; it holds the weights and the
// optimizer, workers push gradients and pull weights over point-to-point messages.
//   ps-sync: each step the server takes every worker's gradient, sums them in worker order (so the
//   result equals single-device training with the global batch), updates once and sends the new
//   weights to all workers.
//   ps-async: the server applies each gradient as it arrives (with lr / workers) and replies with the
//   weights at once;
//   the staleness of an update is how many updates the server applied since that worker last pulled.
//   Bounded staleness (SSP): a worker more than `staleness` pushes ahead of the slowest unfinished
//   worker gets its reply deferred until the slowest catches up.
// Preemption (Strategy::agree_stop): each push carries a header {version, stop wanted (the signal)}
// and each reply {version, stop after, signal}. A worker's signal rides on its next push (the server's own is
// polled between updates); the server then fixes the push count T every worker stops after — the
// round it is in for ps-sync; for ps-async the furthest any worker will have got when it next
// hears from the server (a worker already computing its next step counts that step) — and sends T
// in every later reply. So all workers stop after the same step without a message of their own,
// the server ends after T pushes per worker (a stopped worker leaves the staleness bound's
// "slowest") and sends the final weights as usual. T -1: no stop; a stop that would fall on the
// last step is none. With no signal every message and every update is as before.
// Checkpoints (ServeHooks::after_round): ps-sync writes the server's file after every round it is
// asked to; ps-async makes its checkpoint moments shared — the replies to push c wait until every
// worker has pushed c times — so every worker continues from the same server weights. A resumed
// ps-async run is the same as an uninterrupted one with 1 worker; with more, the order pushes
// arrive in after the resume is the network's, as in any ps-async run.
// One server rank only (no sharding of the arena across servers).
#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstring>
#include <thread>

#include "harness/strategy/strategy_impl.h"

namespace scalebench {
namespace {

constexpr int kTagGrad = 11, kTagWeights = 12, kTagFinal = 13, kTagScalar = 14, kTagVersion = 15;

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

class ParameterServer final : public Strategy {
 public:
  ParameterServer(const StrategyOptions& o, comm::Communicator& comm, std::int64_t count)
      : opts_(o), comm_(comm), count_(count), server_(comm.size() - 1), async_(o.kind == StrategyKind::ps_async) {}
  const char* name() const override { return traits(opts_.kind).name.data(); }
  int workers() const override { return comm_.size() - 1; }
  int worker_index() const override { return comm_.rank() == server_ ? -1 : comm_.rank(); }
  std::size_t bytes() const { return std::size_t(count_) * sizeof(float); }

  void start(Model& model) override {
    // The server's weights are the ones that train; everyone starts from them.
    comm_.broadcast(model.params().f32(), std::size_t(count_), server_);
    for (auto& [name, t] : model.buffers()) comm_.broadcast(t->f32(), std::size_t(t->numel()), 0);
  }

  StepExchange after_backward(Model& model, Optimizer&, float, const StepHealth& health) override {
    const auto t0 = std::chrono::steady_clock::now();
    const Header push{version_, stop_wanted_, health.bad ? comm_.rank() : -1, kOk, std::int64_t(health.issue)};
    comm_.send(&push, sizeof push, server_, kTagVersion);
    comm_.send(model.grads().f32(), bytes(), server_, kTagGrad);
    Header reply;
    comm_.recv(&reply, sizeof reply, server_, kTagVersion);
    comm_.recv(model.params().f32(), bytes(), server_, kTagWeights);
    version_ = reply.version, stop_after_ = reply.stop, stop_signal_ = int(reply.signal), ++pushes_;
    StepExchange x{.comm_exposed = since(t0)};  // the update happens on the server, inside this wait
    x.checkpoint = reply.checkpoint >= 0 && reply.checkpoint == pushes_;  // a time-based one, the server's call
    if (reply.action == kOk) return x;
    x.nonfinite = true;
    x.bad_rank = int(reply.bad_rank);
    x.where = reply.bad_rank == comm_.rank() ? health.where : StepHealth::describe(StepHealth::Issue(reply.issue));
    x.skipped = reply.action == kSkipped;
    if (!x.skipped) fail_input(nonfinite_message(reply.bad_rank, pushes_, x.where));
    return x;
  }

  void resume_at(std::int64_t steps) override { pushes_ = version_ = steps; }

  int agree_stop(int local) override {
    if (!stop_wanted_) stop_wanted_ = local;  // told to the server with the next push
    return stop_after_ >= 0 && pushes_ >= stop_after_ ? stop_signal_ : 0;
  }

  void serve(Model& model, Optimizer& opt, const LrSchedule& sched, std::int64_t steps,
             const ServeHooks& hooks) override {
    server_signal_ = hooks.stop_signal;
    hooks_ = hooks;
    last_checkpoint_ = std::chrono::steady_clock::now();
    version_ = opt.steps_taken();  // resumed: the updates already applied
    async_ ? serve_async(model, opt, sched, steps) : serve_sync(model, opt, sched, steps);
    for (int w = 0; w < workers(); ++w) {
      comm_.send(&version_, sizeof version_, w, kTagVersion);
      comm_.send(model.params().f32(), bytes(), w, kTagFinal);
    }
  }

  void finish(Model& model) override {
    if (comm_.rank() != server_) {
      comm_.recv(&version_, sizeof version_, server_, kTagVersion);
      comm_.recv(model.params().f32(), bytes(), server_, kTagFinal);
      // The server failed on another worker's non-finite push after this one's last step.
      SB_REQUIRE(version_ >= 0, "{}", nonfinite_message(-version_ - 1, pushes_, ""));
    }
    const auto all = comm_.allgather(comm_.rank() == server_ ? stats_ : std::string());
    summary_ = all[std::size_t(server_)];
  }

  std::int64_t bytes_per_step() const override { return std::int64_t(bytes()); }
  // Among workers only (the server is busy serving): gather to worker 0, send the result back.
  double sum_over_workers(double x) override { return reduce(x, false); }
  double max_over_workers(double x) override { return reduce(x, true); }
  std::string summary() const override { return summary_; }

 private:
  // A push's header: {version the gradient is based on, stop wanted (a signal number or 0), this worker's rank if
  // its own step was not finite (loss, input) else -1, -}; a reply's: {the new version, the push
  // count every worker stops after or -1, the worker whose push was not finite or -1, what the
  // server did with the step: applied, skipped (--on-nonfinite skip), or failed (the run ends)}.
  static constexpr std::int64_t kOk = 0, kSkipped = 1, kFailed = 2;
  struct Header {
    // push: stop = the signal this worker got (0: none); reply: stop = the push count every worker
    // stops after (-1: none) and signal = the signal that stop is for. issue: StepHealth::Issue.
    // checkpoint (reply): the push count after which every worker writes a time-based checkpoint
    // (--checkpoint-minutes; -1: none).
    std::int64_t version = 0, stop = -1, bad_rank = -1, action = kOk, issue = 0, signal = 0, checkpoint = -1;
  };
  static std::string nonfinite_message(std::int64_t bad_rank, std::int64_t push, const std::string& where) {
    return fmt::format("non-finite training at push {}: rank {}{} (--on-nonfinite fail, or skip after too many in a row)",
                       push, bad_rank, where.empty() ? "" : " (" + where + ")");
  }
  // Server: a push (or the round's sum) is bad when the worker said so or its gradient holds a
  // NaN/Inf. Returns the action for it: skipped while the policy allows, else failed.
  std::int64_t judge(bool bad) {
    if (!bad) {
      consecutive_bad_ = 0;
      return kOk;
    }
    ++skipped_total_;
    return opts_.skip_nonfinite && ++consecutive_bad_ <= opts_.max_nonfinite_skips ? kSkipped : kFailed;
  }
  static bool finite(const std::vector<float>& g) {
    for (float v : g)
      if (!std::isfinite(v)) return false;
    return true;
  }
  int server_stop_signal() const { return server_signal_ ? server_signal_() : 0; }
  // --checkpoint-minutes, on the server's clock.
  bool checkpoint_overdue() const {
    return hooks_.after_round && hooks_.checkpoint_minutes > 0 && since(last_checkpoint_) >= hooks_.checkpoint_minutes * 60;
  }

  double reduce(double x, bool take_max) {
    const int w = workers();
    if (comm_.rank() == 0) {
      double acc = x;
      for (int r = 1; r < w; ++r) {
        double v = 0;
        comm_.recv(&v, sizeof v, r, kTagScalar);
        acc = take_max ? std::max(acc, v) : acc + v;
      }
      for (int r = 1; r < w; ++r) comm_.send(&acc, sizeof acc, r, kTagScalar);
      return acc;
    }
    comm_.send(&x, sizeof x, 0, kTagScalar);
    comm_.recv(&x, sizeof x, 0, kTagScalar);
    return x;
  }

  void serve_sync(Model& model, Optimizer& opt, const LrSchedule& sched, std::int64_t steps) {
    const int w = workers();
    std::vector<std::vector<float>> grads(static_cast<std::size_t>(w), std::vector<float>(static_cast<std::size_t>(count_)));
    std::vector<Header> seen(static_cast<std::size_t>(w));
    std::vector<float> sum(static_cast<std::size_t>(count_));
    std::int64_t limit = steps;  // rounds to serve: steps, or fewer once a stop was asked for
    for (std::int64_t s = hooks_.first_step; s < limit; ++s) {
      std::vector<comm::Request> reqs;
      for (int r = 0; r < w; ++r) {
        reqs.push_back(comm_.irecv(&seen[std::size_t(r)], sizeof(Header), r, kTagVersion));
        reqs.push_back(comm_.irecv(grads[std::size_t(r)].data(), bytes(), r, kTagGrad));
      }
      comm::wait_all(reqs);
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
        opt.step(model.params().f32(), sum.data(), float(sched.at(s)));
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
    if (limit < steps) stats_ += fmt::format(" (stopped after {} of {}: preempted)", limit, steps);
  }

  void serve_async(Model& model, Optimizer& opt, const LrSchedule& sched, std::int64_t steps) {
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
      std::memcpy(k.snapshot.data(), model.params().f32(), bytes());  // weights change while in flight
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
          opt.step(model.params().f32(), k.grad.data(), float(sched.at(version_ / w) / w));
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

  // ps-async: what the server tracks per worker.
  struct AsyncWorker {
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
  static std::int64_t furthest(const std::vector<AsyncWorker>& ws, std::int64_t done) {
    std::int64_t at = 0;
    for (const auto& k : ws) at = std::max(at, k.deferred || k.pushes >= done ? k.pushes : k.pushes + 1);
    return at;
  }

  // ps-async, --on-nonfinite fail (or too many skips): worker `bad`'s push just failed. Tell every
  // worker once, where it waits — for its reply (it pushed, or is computing a push we wait for),
  // or for the final weights (it has pushed its last step) — then end this rank with the error.
  [[noreturn]] void fail_everyone(std::vector<AsyncWorker>& ws, int bad, std::int64_t limit, Model& model) {
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

  StrategyOptions opts_;
  comm::Communicator& comm_;
  std::int64_t count_;
  int server_;
  bool async_;
  std::int64_t version_ = 0;  // updates the server had applied when this rank's weights were sent
  std::string stats_, summary_;
  // Preemption: workers' pushes so far, the stop the server announced (-1: none) and whether this
  // worker wants one; the server's own probe.
  std::int64_t pushes_ = 0, stop_after_ = -1;
  int stop_wanted_ = 0;   // the signal this worker got (0: none)
  int stop_signal_ = 0;   // the signal the stop is for (workers: from the replies; server: the first seen)
  // Non-finite pushes (server): in a row, and in all.
  int consecutive_bad_ = 0;
  std::int64_t skipped_total_ = 0;
  std::function<int()> server_signal_;
  ServeHooks hooks_;
  std::chrono::steady_clock::time_point last_checkpoint_;  // server: the last checkpoint written (or the start)
};

}  // namespace

std::unique_ptr<Strategy> make_parameter_server(const StrategyOptions& o, comm::Communicator& comm,
                                                std::int64_t count) {
  return std::make_unique<ParameterServer>(o, comm, count);
}

}  // namespace scalebench
