// ps_async.cpp — the ps-async server: it applies each gradient as it arrives (with lr / workers) and
// replies with the weights at once. Bounded staleness (SSP): a worker more than `staleness` pushes
// ahead of the slowest unfinished worker gets its reply deferred until the slowest catches up. The
// staleness it reports is the bound's quantity: how many pushes the weights a gradient was
// computed on lag the worker's own count (its count at that reply less the fewest any worker had
// made), so its max never exceeds the bound. Beside it the delay: updates the server applied since
// that reply, which with w workers reaches about (staleness + 1)(w - 1): updates, not pushes ahead,
// so no count-ahead bound holds it and it is not called staleness. Checkpoint moments are shared
// (replies wait until every worker has pushed as often); the workers' end (their target reached)
// comes in place of a push from each.
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
  // Pushes the weights of the last reply lag this worker's count (its count less the fewest any
  // worker had made when the reply went out): the staleness of its next gradient, <= the bound.
  std::int64_t lag = 0;
  comm::Request version_req, grad_req, reply_v, reply_w;
  bool deferred = false;
  bool ended = false;  // sent its end (Strategy::end_early) in place of a push
};

// ps-async: the furthest push count any worker reaches before it next hears from the server — a
// worker awaiting a reply (or done: at `done`) is at its count, one computing its next step
// will push once more. A stop or a checkpoint announced at it finds no worker past it.
std::int64_t ParameterServer::furthest(const std::vector<AsyncWorker>& ws, std::int64_t done) {
  std::int64_t at = 0;
  for (const auto& k : ws) at = std::max(at, k.deferred || k.pushes >= done ? k.pushes : k.pushes + 1);
  return at;
}

// One ps-async serving run: every worker's state and the server's counters over them.
class ParameterServer::AsyncServe {
 public:
  AsyncServe(ParameterServer& ps, Model& model, Optimizer& opt, const LrSchedule& sched, std::int64_t steps);
  // Every push served, or every worker ended the run (each one's end received, none left posted).
  bool done() const { return applied_ >= limit_ * w_ || ended_ == w_; }
  bool apply_pushes();                 // every push that has arrived; false when none had
  void notice_stop_and_checkpoint();   // a stop asked for, a time-based checkpoint due
  void send_replies();
  std::string finish();                // waits for the replies in flight; the run's statistics line

 private:
  void apply(int r);
  void end(int r);
  bool checkpoint_at(std::int64_t c) const;
  void post(int r);
  void reply(int r);

  ParameterServer& ps_;
  Model& model_;
  Optimizer& opt_;
  const LrSchedule& sched_;
  const std::int64_t steps_;
  const int w_;
  std::vector<AsyncWorker> ws_;
  std::int64_t limit_;      // pushes per worker: steps, or fewer once a stop was asked for
  const std::int64_t first_;  // pushes per worker a resumed run had applied
  std::int64_t saved_;      // the last checkpoint moment written
  std::int64_t timed_at_ = -1;  // the time-based checkpoint moment announced (--checkpoint-minutes)
  std::int64_t applied_, stale_sum_ = 0, stale_max_ = 0, delay_sum_ = 0, delay_max_ = 0, deferrals_ = 0;
  int ended_ = 0;                // workers whose end arrived
  std::int64_t ended_at_ = -1;  // the push count they ended after
};

ParameterServer::AsyncServe::AsyncServe(ParameterServer& ps, Model& model, Optimizer& opt, const LrSchedule& sched,
                                        std::int64_t steps)
    : ps_(ps), model_(model), opt_(opt), sched_(sched), steps_(steps), w_(ps.workers()),
      ws_(static_cast<std::size_t>(w_)), limit_(steps), first_(ps.hooks_.first_step), saved_(first_),
      applied_(first_ * w_) {
  for (int r = 0; r < w_; ++r) {
    auto& k = ws_[std::size_t(r)];
    k.grad.resize(std::size_t(ps_.count_));
    k.snapshot.resize(std::size_t(ps_.count_));
    k.pushes = first_;
    k.sent.version = ps_.version_;  // what the worker holds: the start's (or the checkpoint's) weights
    if (first_ < limit_) post(r);
  }
}

// A checkpoint moment (after_round): every `checkpoint_every` pushes per worker, a stop, and
// the time-based one the server announced.
bool ParameterServer::AsyncServe::checkpoint_at(std::int64_t c) const {
  const std::int64_t every = ps_.hooks_.checkpoint_every;
  return ps_.hooks_.after_round && c > saved_ &&
         ((every > 0 && c % every == 0) || (c == limit_ && limit_ < steps_) || c == timed_at_);
}

void ParameterServer::AsyncServe::post(int r) {
  auto& k = ws_[std::size_t(r)];
  k.version_req = ps_.comm_.irecv(&k.got, sizeof k.got, r, kTagVersion);
  k.grad_req = ps_.comm_.irecv(k.grad.data(), ps_.bytes(), r, kTagGrad);
}

void ParameterServer::AsyncServe::reply(int r) {
  auto& k = ws_[std::size_t(r)];
  k.reply_v.wait();
  k.reply_w.wait();
  ps_.copy_weights(model_, k.snapshot);  // weights change while in flight
  std::int64_t least = k.pushes;
  for (const auto& o : ws_) least = std::min(least, o.pushes);
  k.lag = k.pushes - least;
  k.sent = {ps_.version_, limit_ < steps_ ? limit_ : -1, k.got.bad_rank, k.action, k.got.issue, ps_.stop_signal_,
            timed_at_};
  k.reply_v = ps_.comm_.isend(&k.sent, sizeof k.sent, r, kTagVersion);
  k.reply_w = ps_.comm_.isend(k.snapshot.data(), ps_.bytes(), r, kTagWeights);
  k.deferred = false;
  if (k.pushes < limit_) post(r);
}

bool ParameterServer::AsyncServe::apply_pushes() {
  bool progressed = false;
  for (int r = 0; r < w_; ++r) {
    auto& k = ws_[std::size_t(r)];
    if (k.pushes >= limit_ || k.deferred || !k.grad_req.valid() || !k.version_req.test() || !k.grad_req.test())
      continue;
    k.got.action == kEnd ? end(r) : apply(r);
    progressed = true;
  }
  return progressed;
}

// Worker r's push, which has arrived: judged, applied (or skipped), and its reply deferred to
// send_replies().
void ParameterServer::AsyncServe::apply(int r) {
  auto& k = ws_[std::size_t(r)];
  ps_.stop_signal_ = std::max(ps_.stop_signal_, int(k.got.stop));
  if (k.got.bad_rank < 0 && !finite(k.grad))
    k.got.bad_rank = r, k.got.issue = std::int64_t(StepHealth::Issue::gradient_not_finite);
  k.action = ps_.judge(k.got.bad_rank >= 0);
  if (k.action == kFailed) ps_.fail_everyone(ws_, r, limit_, model_);  // throws
  // The staleness (pushes behind, as the bound counts them) and the delay (updates applied since
  // the weights this gradient was computed on were sent) — both kept here, not taken from the
  // push, so that they hold across a resume too.
  stale_sum_ += k.lag, stale_max_ = std::max(stale_max_, k.lag);
  const std::int64_t delay = ps_.version_ - k.sent.version;
  delay_sum_ += delay, delay_max_ = std::max(delay_max_, delay);
  // Each push carries one worker's gradient: lr / workers per push, so a round of `w` pushes
  // moves the weights as far as one synchronous step of the mean gradient would.
  if (k.action == kOk) {
    opt_.step(model_.params().f32(), ps_.on_device(model_, k.grad), float(sched_.at(ps_.version_ / w_) / w_));
    ++ps_.version_;
  }
  ++applied_, ++k.pushes;
  k.deferred = true;
}

// Worker r's end in place of a push: it has its reply to every push (the workers agreed after
// the same one, at a check), so nothing of it is deferred or posted any more.
void ParameterServer::AsyncServe::end(int r) {
  auto& k = ws_[std::size_t(r)];
  SB_CHECK(ended_at_ < 0 || ended_at_ == k.pushes, "ps-async: worker {} ended after push {}, another after {}", r,
           k.pushes, ended_at_);
  ended_at_ = k.pushes;
  k.ended = true;
  ++ended_;
}

void ParameterServer::AsyncServe::notice_stop_and_checkpoint() {
  // A stop: every worker ends at the furthest push count any of them reaches before its next
  // reply (which carries the count): a worker awaiting a reply is at `pushes`, one computing
  // its next step will push once more.
  if (!ps_.stop_signal_) ps_.stop_signal_ = ps_.server_stop_signal();
  if (limit_ == steps_ && ps_.stop_signal_) limit_ = std::min(furthest(ws_, steps_), steps_);
  // A time-based checkpoint: at the same push count, found the same way (so no worker has had
  // its reply for it yet); every later reply announces it. None on a run's last push.
  if (timed_at_ <= saved_ && ps_.checkpoint_overdue()) {
    const std::int64_t at = furthest(ws_, limit_);
    if (at > saved_ && at < limit_) timed_at_ = at;
  }
}

// Replies: a worker may run ahead of the slowest unfinished one by at most `staleness` pushes.
// At a checkpoint moment a reply waits until every worker has pushed as often; the server's
// file is written before the first of those replies goes out.
void ParameterServer::AsyncServe::send_replies() {
  std::int64_t slowest = limit_, least = limit_;
  for (const auto& k : ws_) {
    if (k.pushes < limit_) slowest = std::min(slowest, k.pushes);
    least = std::min(least, k.pushes);
  }
  for (int r = 0; r < w_; ++r) {
    auto& k = ws_[std::size_t(r)];
    if (!k.deferred) continue;
    if (checkpoint_at(k.pushes)) {
      if (least < k.pushes) continue;
      ps_.hooks_.after_round(k.pushes, k.pushes == limit_ && limit_ < steps_);
      saved_ = k.pushes;
      ps_.last_checkpoint_ = std::chrono::steady_clock::now();
    }
    if (k.pushes >= limit_ || k.pushes - slowest <= ps_.opts_.staleness)
      reply(r);
    else
      ++deferrals_;
  }
}

std::string ParameterServer::AsyncServe::finish() {
  for (auto& k : ws_) k.reply_v.wait(), k.reply_w.wait();
  const auto mean = [this](std::int64_t sum) { return applied_ ? double(sum) / double(applied_) : 0.0; };
  std::string stats = fmt::format(
      "ps-async: {} updates, staleness mean {:.2f} max {} (bound {}) pushes, delay mean {:.2f} max {} updates, "
      "{} deferred polls",
      applied_, mean(stale_sum_), stale_max_, ps_.opts_.staleness, mean(delay_sum_), delay_max_, deferrals_);
  if (ps_.skipped_total_) stats += fmt::format(", {} non-finite pushes skipped", ps_.skipped_total_);
  if (ended_ == w_)
    stats += fmt::format(" (ended by the workers after {} of {} pushes each: target reached)", ended_at_, steps_);
  else if (limit_ < steps_)
    stats += fmt::format(" (stopped after {} of {} pushes each: preempted)", limit_, steps_);
  return stats;
}

void ParameterServer::serve_async(Model& model, Optimizer& opt, const LrSchedule& sched, std::int64_t steps) {
  AsyncServe s(*this, model, opt, sched, steps);
  while (!s.done()) {
    const bool progressed = s.apply_pushes();
    s.notice_stop_and_checkpoint();
    s.send_replies();
    if (!progressed) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  stats_ = s.finish();
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
