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
// One server rank only (no sharding of the arena across servers).
#include <algorithm>
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
      : opts_(o), comm_(comm), count_(count), server_(comm.size() - 1), async_(o.name == "ps-async") {}
  const char* name() const override { return opts_.name.c_str(); }
  int workers() const override { return comm_.size() - 1; }
  int worker_index() const override { return comm_.rank() == server_ ? -1 : comm_.rank(); }
  std::size_t bytes() const { return std::size_t(count_) * sizeof(float); }

  void start(Model& model) override {
    // The server's weights are the ones that train; everyone starts from them.
    comm_.broadcast(model.params().f32(), std::size_t(count_), server_);
    for (auto& [name, t] : model.buffers()) comm_.broadcast(t->f32(), std::size_t(t->numel()), 0);
  }

  StepExchange after_backward(Model& model, Optimizer&, float) override {
    const auto t0 = std::chrono::steady_clock::now();
    const std::int64_t v = version_;
    comm_.send(&v, sizeof v, server_, kTagVersion);
    comm_.send(model.grads().f32(), bytes(), server_, kTagGrad);
    comm_.recv(&version_, sizeof version_, server_, kTagVersion);
    comm_.recv(model.params().f32(), bytes(), server_, kTagWeights);
    return {since(t0), 0.0};  // the update happens on the server, inside this wait
  }

  void serve(Model& model, Optimizer& opt, const LrSchedule& sched, std::int64_t steps) override {
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
    std::vector<std::int64_t> seen(static_cast<std::size_t>(w));
    std::vector<float> sum(static_cast<std::size_t>(count_));
    for (std::int64_t s = 0; s < steps; ++s) {
      std::vector<comm::Request> reqs;
      for (int r = 0; r < w; ++r) {
        reqs.push_back(comm_.irecv(&seen[std::size_t(r)], sizeof(std::int64_t), r, kTagVersion));
        reqs.push_back(comm_.irecv(grads[std::size_t(r)].data(), bytes(), r, kTagGrad));
      }
      comm::wait_all(reqs);
      // Worker order, then / w: the same arithmetic as the allreduce strategies' mean.
      std::copy(grads[0].begin(), grads[0].end(), sum.begin());
      for (int r = 1; r < w; ++r)
        for (std::int64_t i = 0; i < count_; ++i) sum[std::size_t(i)] += grads[std::size_t(r)][std::size_t(i)];
      const float inv = 1.0f / float(w);
      for (auto& g : sum) g *= inv;
      opt.step(model.params().f32(), sum.data(), float(sched.at(s)));
      ++version_;
      for (int r = 0; r < w; ++r) {
        comm_.send(&version_, sizeof version_, r, kTagVersion);
        comm_.send(model.params().f32(), bytes(), r, kTagWeights);
      }
    }
    stats_ = fmt::format("ps-sync: {} updates of {} worker gradients each", version_, w);
  }

  void serve_async(Model& model, Optimizer& opt, const LrSchedule& sched, std::int64_t steps) {
    const int w = workers();
    struct Worker {
      std::vector<float> grad, snapshot;
      std::int64_t based_on = 0, pushes = 0;
      comm::Request version_req, grad_req, reply_v, reply_w;
      bool deferred = false;
    };
    std::vector<Worker> ws(static_cast<std::size_t>(w));
    std::vector<std::int64_t> got(static_cast<std::size_t>(w));
    auto post = [&](int r) {
      auto& k = ws[std::size_t(r)];
      k.version_req = comm_.irecv(&got[std::size_t(r)], sizeof(std::int64_t), r, kTagVersion);
      k.grad_req = comm_.irecv(k.grad.data(), bytes(), r, kTagGrad);
    };
    auto reply = [&](int r) {
      auto& k = ws[std::size_t(r)];
      k.reply_v.wait();
      k.reply_w.wait();
      std::memcpy(k.snapshot.data(), model.params().f32(), bytes());  // weights change while in flight
      k.based_on = version_;
      k.reply_v = comm_.isend(&k.based_on, sizeof k.based_on, r, kTagVersion);
      k.reply_w = comm_.isend(k.snapshot.data(), bytes(), r, kTagWeights);
      k.deferred = false;
      if (k.pushes < steps) post(r);
    };
    for (int r = 0; r < w; ++r) {
      ws[std::size_t(r)].grad.resize(std::size_t(count_));
      ws[std::size_t(r)].snapshot.resize(std::size_t(count_));
      post(r);
    }
    const std::int64_t total = steps * w;
    std::int64_t applied = 0, stale_sum = 0, stale_max = 0, deferrals = 0;
    while (applied < total) {
      bool progressed = false;
      for (int r = 0; r < w; ++r) {
        auto& k = ws[std::size_t(r)];
        if (k.pushes >= steps || k.deferred || !k.grad_req.valid() || !k.version_req.test() || !k.grad_req.test())
          continue;
        const std::int64_t staleness = version_ - got[std::size_t(r)];
        stale_sum += staleness, stale_max = std::max(stale_max, staleness);
        // Each push carries one worker's gradient: lr / workers per push, so a round of `w` pushes
        // moves the weights as far as one synchronous step of the mean gradient would.
        opt.step(model.params().f32(), k.grad.data(), float(sched.at(version_ / w) / w));
        ++version_, ++applied, ++k.pushes;
        k.deferred = true;
        progressed = true;
      }
      // Replies: a worker may run ahead of the slowest unfinished one by at most `staleness` pushes.
      std::int64_t slowest = steps;
      for (const auto& k : ws)
        if (k.pushes < steps) slowest = std::min(slowest, k.pushes);
      for (int r = 0; r < w; ++r) {
        auto& k = ws[std::size_t(r)];
        if (!k.deferred) continue;
        if (k.pushes >= steps || k.pushes - slowest <= opts_.staleness)
          reply(r);
        else
          ++deferrals;
      }
      if (!progressed) std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    for (auto& k : ws) k.reply_v.wait(), k.reply_w.wait();
    stats_ = fmt::format("ps-async: {} updates, staleness mean {:.2f} max {} (bound {}), {} deferred polls", applied,
                         applied ? double(stale_sum) / double(applied) : 0.0, stale_max, opts_.staleness, deferrals);
  }

  StrategyOptions opts_;
  comm::Communicator& comm_;
  std::int64_t count_;
  int server_;
  bool async_;
  std::int64_t version_ = 0;  // updates the server had applied when this rank's weights were sent
  std::string stats_, summary_;
};

}  // namespace

std::unique_ptr<Strategy> make_parameter_server(const StrategyOptions& o, comm::Communicator& comm,
                                                std::int64_t count) {
  return std::make_unique<ParameterServer>(o, comm, count);
}

}  // namespace scalebench
