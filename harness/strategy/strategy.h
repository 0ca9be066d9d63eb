// strategy.h — how gradients meet the optimizer (DESIGN §4). A Strategy is made per rank; the
// trainer calls start() once, before_backward()/after_backward() around every step, and finish()
// at the end. Synchronous strategies leave every worker with bit-identical weights after each step
// (the global-batch mean gradient, then the same update); the parameter-server strategies keep the
// weights and the optimizer on a server rank (the last rank), which runs serve() instead of training.
// A Strategy never reads data or computes a loss; it deliberately knows nothing of HDF5 or logging.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "harness/comm/communicator.h"
#include "harness/strategy/strategy_traits.h"
#include "harness/strategy/bucketer.h"
#include "harness/strategy/noise_scale.h"
#include "models/lr_schedule.h"
#include "models/model.h"
#include "models/optimizer.h"

namespace scalebench {

struct StrategyOptions {
  StrategyKind kind = StrategyKind::single;
  double bucket_mb = kDefaultBucketMb;  // tensor-fusion bucket size (synchronous strategies)
  bool overlap = true;          // allreduce buckets on a communication thread while backward runs
  int ranks_per_node = 0;       // hierarchical: 0 = by host name
  std::size_t chunk_bytes = std::size_t{128} << 10;  // ring pipeline chunk
  int staleness = 4;            // ps-async: a worker may run at most this many pushes ahead of the slowest
  comm::WireType compression = comm::WireType::f32;  // ring/hierarchical: on the wire; float32 sums
  // Parameter servers decide about non-finite pushes themselves: skip them (up to this many in a
  // row) or fail; the synchronous strategies leave the decision to the trainer (StepExchange).
  bool skip_nonfinite = false;
  int max_nonfinite_skips = 3;
  bool sync_bn = false;  // allreduce strategies: replica_sum() adds batch-norm statistics over workers
  // single: the trainer scans the gradient itself and reads the verdict one step late
  // (harness/train/late_steps.h), so after_backward neither scans nor waits for the device.
  bool scan_late = false;
  BucketObserver on_bucket;  // --trace: told of each bucket's allreduce
};

// What this worker saw of its own step before the exchange: a non-finite or diverged loss, or a
// non-finite input batch (the trainer checks; `where` says which).
struct StepHealth {
  enum class Issue : int { none, loss_not_finite, loss_diverged, input_not_finite, gradient_not_finite };
  bool bad = false;
  Issue issue = Issue::none;
  std::string where;  // this rank's detail: "loss nan", "input batch element 12 is inf", ...
  int stop_wanted = 0;  // the signal this rank got (preemption.h; 0: none): the step's agreement carries it
  // --checkpoint-minutes: the deciding rank's clock says a checkpoint is due (rank 0 of the
  // allreduce strategies and single; the parameter servers decide on the server's clock instead).
  bool checkpoint_wanted = false;
  static const char* describe(Issue i);  // what other ranks can say of it: "loss not finite", ...
};

struct StepExchange {
  double comm_exposed = 0;  // s waited for the exchange after backward finished
  double update = 0;        // s in the optimizer / weight copy
  // Non-finite training (DESIGN: nothing recorded wrong). Set on EVERY worker after the same step
  // (synchronous strategies agree with one scalar collective; the parameter server tells each
  // worker in its reply); the update was not applied. bad_rank: the worker that saw it first
  // (-1: found in the exchanged gradient itself). skipped: the parameter server already skipped it
  // (its policy); otherwise the trainer applies --on-nonfinite.
  bool nonfinite = false;
  int bad_rank = -1;
  std::string where;                // the bad rank's own detail, or what the others know of it
  bool skipped = false;
  // Every worker writes a checkpoint after this step (--checkpoint-minutes: a time-based one, agreed
  // in the exchange so that all of them write at the same step).
  bool checkpoint = false;
  // The gradient noise scale's squared norms of this step (noise_scale.h), the same on every
  // worker; smalls = 0 when the step measured nothing (a non-finite step, one batch size, ps-*).
  GradNorms norms;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual const char* name() const = 0;
  virtual int workers() const = 0;                 // data-parallel replicas (excludes servers)
  virtual int worker_index() const = 0;            // this rank's replica index, or -1 on a server
  // Before the first step: make the weights (and batch-norm statistics) equal everywhere.
  virtual void start(Model& model) = 0;
  virtual void before_backward(Model& model) {}
  // --accumulate M > 1: after the backward of each micro-batch but the step's last (the arena
  // holds that micro-batch's gradient alone). Reads only; the noise scale on one replica uses it.
  virtual void after_micro_batch(Model& model) {}
  // After backward: exchange gradients and update the weights with learning rate `lr`, unless
  // some worker's step (or the exchanged gradient) is not finite: then no worker updates and every
  // worker's result says so (StepExchange::nonfinite).
  virtual StepExchange after_backward(Model& model, Optimizer& opt, float lr, const StepHealth& health) = 0;
  // After the last step: every worker holds the final weights.
  virtual void finish(Model& model) {}
  // Every worker, after the same step short of its last: the run ends there (its target reached at
  // a check). A parameter server still waiting for this worker's next push is told in its place
  // and ends its serving (finish() then pairs up as usual); the allreduce strategies have no one
  // to tell. Not after a stop agree_stop() returned: a parameter server already ended that one.
  virtual void end_early(Model& model) {}
  // Server ranks: serve pushes until every worker is done (parameter server only).
  struct ServeHooks {
    // Polled between updates: non-zero (this rank got SIGUSR1/SIGTERM/SIGINT) stops the workers as
    // agree_stop() does.
    std::function<int()> stop_signal;
    // Checkpoints. first_step: a resumed run's steps per worker already applied. after_round:
    // called at a checkpoint moment — every `checkpoint_every` pushes per worker, a stop, and once
    // `checkpoint_minutes` have passed on the server's clock (announced to the workers in the
    // replies) — once every worker's push number `steps_done` is applied (or skipped) and before
    // any reply to it goes out, with whether the run stops there: the server writes its checkpoint
    // file, so a worker that has the reply knows it is on disk. ps-async makes its moments shared:
    // a worker's reply there waits until every worker has pushed as often, so all of them continue
    // from the same server weights.
    std::int64_t first_step = 0;
    std::int64_t checkpoint_every = 0;
    double checkpoint_minutes = 0;  // also a checkpoint moment once this long since the last (server's clock)
    std::function<void(std::int64_t steps_done, bool stopping)> after_round;
  };
  virtual void serve(Model& model, Optimizer& opt, const LrSchedule& sched, std::int64_t steps_per_worker,
                     const ServeHooks& hooks) {}
  // Synchronised batch norm (--sync-bn): the sum over the workers that training-mode batch norm
  // uses (Ctx::replica_sum), or null — single (one replica: its batch is the global batch) and
  // every strategy without sync_bn. The parameter servers have no worker-to-worker collective.
  virtual ReplicaSum* replica_sum() { return nullptr; }
  // A worker resumed at optimizer step `steps` (checkpoint.h): counters that follow the steps.
  virtual void resume_at(std::int64_t steps) {}
  virtual std::int64_t bytes_per_step() const = 0;  // bytes this worker sends per step
  // Sum / max of a scalar over the workers (collective among all ranks; servers pass 0).
  virtual double sum_over_workers(double x) = 0;
  virtual double max_over_workers(double x) = 0;
  virtual std::string summary() const { return ""; }  // e.g. the staleness ps-async saw
  // Preemption (harness/train/preemption.h). Every worker calls it after every step with `local`
  // = the signal this process got (0: none); it returns the same signal number on every worker
  // after the same step once any of them (or a server) asked — the highest number any worker got,
  // so the run file can name it whichever rank got it — and 0 otherwise, so they all leave the
  // loop together and finish() still pairs up. It sends nothing of its own: the step's exchange
  // already carried the request (the allreduce strategies fold StepHealth::stop_wanted into their
  // per-step scalar; the parameter servers carry it on the next push and the stop step on their
  // replies; single has no peers). So every run, on every strategy, stops within a step or two.
  virtual int agree_stop(int local) = 0;
};

// comm is null for single. Throws naming the option on a bad combination.
std::unique_ptr<Strategy> make_strategy(const StrategyOptions& opts, comm::Communicator* comm, std::int64_t param_count);

}  // namespace scalebench
