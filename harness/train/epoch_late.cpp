// epoch_late.cpp — the epoch's step without a host wait (late_steps_apply; see epoch.h): train_step()'s
// order with its phase boundaries as device marks and the gradient's non-finite scan queued, both
// read one step late (LateSteps), and its loss read one step late (graph_step, captured or eager).
// Not here: the step's order itself and its record (epoch.cpp), the graph's warm-up and capture
// (epoch_graph.cpp), the marks' and scan's device side (models/late_reads.h).
#include <limits>

#include "harness/train/epoch.h"

namespace scalebench {

// A graph step settles the previous step before its replay: the graph's split event is re-recorded
// by each replay, so the previous replay's split is read before this one. An eager step settles the
// previous one once its own work is queued, so the device has that work in hand while the host waits
// (the wait is for work a step old; the stream is not drained).
StepExchange EpochRunner::late_step(EpochProgress& o, std::int64_t s) {
  late_->begin(std::int64_t(o.rows.size()));  // record_step appends this step's row there
  next_batch(s);
  late_->mark(LateSteps::data);
  if (!graph_decided_) decide_graph();
  if (graph_) settle_late_steps(o);
  StepLoss loss;
  bool forward_marked = false;
  const bool replayed = graph_step(
      micro_batch(0), loss,
      [&] {
        late_->mark(LateSteps::forward);
        forward_marked = true;
      },
      [&] {
        if (!forward_marked) late_->mark(LateSteps::forward);  // a replay: settle splits it by the graph's event
        late_->mark(LateSteps::backward);
      });
  settle_late_loss(o, loss.value);  // the previous step's
  loss.value = std::numeric_limits<double>::quiet_NaN();  // this step's, read at the next
  const StepExchange xch = exchange_and_update(o, loss.health);
  if (!graph_) settle_late_steps(o);
  late_->finish(xch.nonfinite ? nullptr : st_.model.grads().f32(), st_.model.param_count(), xch.comm_exposed, replayed);
  ++ctx_.step;
  record_step(o, s, loss.value, StepTimes{}, xch, trace::Clock::now());  // its times arrive when settled
  return xch;
}

// The steps read late, into their rows and the epoch's phase sums; a non-finite gradient fails the run
// (late_steps_apply holds only under --on-nonfinite fail), naming the step it was found in.
void EpochRunner::settle_late_steps(EpochProgress& o) {
  if (!late_) return;
  for (LateSteps::Settled& r : late_->settle()) {
    if (r.replayed && graph_) split_replay(r.times.fwd + r.times.bwd, r.times);  // one launch: its split event divides it
    SB_CHECK(r.row >= 0 && r.row < std::int64_t(o.rows.size()), "late step row {} of {}", r.row, o.rows.size());
    StepRow& row = o.rows[std::size_t(r.row)];
    row.time = r.times;
    o.epoch.time += r.times;
    if (r.scan.index >= 0) {
      StepExchange x;
      x.nonfinite = true;
      x.where = fmt::format("gradient element {} is {} (read one step late: its update was applied)", r.scan.index,
                            r.scan.value);
      on_nonfinite(x, row.epoch, row.step);  // throws: --on-nonfinite fail
    }
  }
}

}  // namespace scalebench
