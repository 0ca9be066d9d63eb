// param_server.h — the parameter-server strategies' class, shared by their files: the worker side
// and what both protocols share (headers, the non-finite judgement, scalar reductions among the
// workers, preemption and checkpoint bookkeeping) here and in param_server.cpp; the server side of
// each protocol in a file of its own, ps_sync.cpp and ps_async.cpp. For strategy.cpp's factory
// (through strategy_impl.h) and those files only.
// What it deliberately does not do: shard the arena over several servers (one server rank).
#pragma once

#include <chrono>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "harness/strategy/strategy_impl.h"

namespace scalebench::ps {

inline constexpr int kTagGrad = 11, kTagWeights = 12, kTagFinal = 13, kTagScalar = 14, kTagVersion = 15;

inline double since(std::chrono::steady_clock::time_point t0) {
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
    StepExchange x;
    x.comm_exposed = since(t0);  // the update happens on the server, inside this wait
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

  // An end in place of the next push: the header says so, and the gradient message goes too (its
  // contents unread) so that it meets the receive the server posted for a push, as a push would.
  void end_early(Model& model) override {
    if (stop_after_ >= 0 && pushes_ >= stop_after_) return;  // the server has ended this worker already
    const Header end{version_, stop_wanted_, -1, kEnd, 0};
    comm_.send(&end, sizeof end, server_, kTagVersion);
    comm_.send(model.grads().f32(), bytes(), server_, kTagGrad);
  }

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
  // A push whose action is kEnd is no push: the workers ended the run (Strategy::end_early), every
  // one of them after the same push count; the server serves no more and sends the final weights.
  static constexpr std::int64_t kOk = 0, kSkipped = 1, kFailed = 2, kEnd = 3;
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
  // The server adds pushes on the host (in worker order, as the allreduce strategies' mean does),
  // and its optimizer runs on the model's device: the host gradient goes there first — an upload on
  // a GPU (the staged transport landed it in host memory), a copy on the CPU.
  const float* on_device(Model& model, std::vector<float>& host_grad) {
    if (!grad_on_device_.defined()) grad_on_device_ = model.device().zeros({count_});
    model.device().upload(Tensor::view(host_grad.data(), {count_}), grad_on_device_);
    return grad_on_device_.f32();
  }
  // The server's weights into a host vector (ps-async's reply snapshot: they change while in flight).
  void copy_weights(Model& model, std::vector<float>& out) {
    Tensor host = Tensor::view(out.data(), {count_});
    model.device().download(model.params(), host);
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

  // The two protocols' server halves: ps_sync.cpp and ps_async.cpp.
  void serve_sync(Model& model, Optimizer& opt, const LrSchedule& sched, std::int64_t steps);
  void serve_async(Model& model, Optimizer& opt, const LrSchedule& sched, std::int64_t steps);
  struct AsyncWorker;  // ps-async: what the server tracks per worker (ps_async.cpp)
  class AsyncServe;   // ps-async: one serving run over them (ps_async.cpp)
  static std::int64_t furthest(const std::vector<AsyncWorker>& ws, std::int64_t done);
  [[noreturn]] void fail_everyone(std::vector<AsyncWorker>& ws, int bad, std::int64_t limit, Model& model);

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
  Tensor grad_on_device_;  // server: the gradient its optimizer reads (on_device)
};

}  // namespace scalebench::ps
