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
#include "models/lr_schedule.h"
#include "models/model.h"
#include "models/optimizer.h"

namespace scalebench {

struct StrategyOptions {
  StrategyKind kind = StrategyKind::single;
  double bucket_mb = 4.0;       // tensor-fusion bucket size (synchronous strategies)
  bool overlap = true;          // allreduce buckets on a communication thread while backward runs
  int ranks_per_node = 0;       // hierarchical: 0 = by host name
  std::size_t chunk_bytes = std::size_t{128} << 10;  // ring pipeline chunk
  int staleness = 4;            // ps-async: a worker may run at most this many pushes ahead of the slowest
  comm::WireType compression = comm::WireType::f32;  // ring/hierarchical: on the wire; float32 sums
};

struct StepExchange {
  double comm_exposed = 0;  // s waited for the exchange after backward finished
  double update = 0;        // s in the optimizer / weight copy
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
  // After backward: exchange gradients and update the weights with learning rate `lr`.
  virtual StepExchange after_backward(Model& model, Optimizer& opt, float lr) = 0;
  // After the last step: every worker holds the final weights.
  virtual void finish(Model& model) {}
  // Server ranks: serve pushes until every worker is done (parameter server only). stop_requested
  // is polled between updates: true (this rank got SIGUSR1) stops the workers as agree_stop() does.
  virtual void serve(Model& model, Optimizer& opt, const LrSchedule& sched, std::int64_t steps_per_worker,
                     const std::function<bool()>& stop_requested) {}
  virtual std::int64_t bytes_per_step() const = 0;  // bytes this worker sends per step
  // Sum / max of a scalar over the workers (collective among all ranks; servers pass 0).
  virtual double sum_over_workers(double x) = 0;
  virtual double max_over_workers(double x) = 0;
  virtual std::string summary() const { return ""; }  // e.g. the staleness ps-async saw
  // Preemption (harness/train/preemption.h). Workers call it after a step with `local` = this
  // process saw SIGUSR1; it returns true on every worker after the same step once any of them (or
  // a server) asked, so they all leave the loop together and finish() still pairs up. The default
  // ORs the flag over the workers with max_over_workers(): a collective, called by every worker
  // after the same steps. The parameter servers override it with no message of their own: the
  // flag rides on the next push, the server picks the step every worker stops after and says so
  // in its replies — so there it must be called after every step.
  virtual bool agree_stop(bool local) { return max_over_workers(local ? 1.0 : 0.0) > 0; }
  // agree_stop() sends nothing of its own (single, parameter servers): the trainer calls it after
  // every step even on unarmed runs. Otherwise: every step on armed runs, else after each epoch's
  // last step.
  virtual bool agree_stop_is_free() const { return false; }
};

// comm is null for single. Throws naming the option on a bad combination.
std::unique_ptr<Strategy> make_strategy(const StrategyOptions& opts, comm::Communicator* comm, std::int64_t param_count);

}  // namespace scalebench
