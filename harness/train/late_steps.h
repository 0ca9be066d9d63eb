// late_steps.h — the book of training steps whose phase times and gradient scan are read one step
// late (models/late_reads.h), so the step's host thread does not wait for the device: begin() takes
// the step's slot and marks its start, mark() its phase boundaries, finish() queues the gradient's
// scan and the last mark; settle() then (at the next step, before its device work, or where the epoch
// needs its numbers: a checkpoint, an evaluation, its end) waits for every step still on its way,
// oldest first, and returns its times and scan. late_steps_apply() says whether a run's steps go
// through it: the cuda backend, --strategy single (its exchange is none, so nothing else waits),
// --on-nonfinite fail (skip must know before the update), --accumulate 1 and no --trace (both
// time or read on the host between micro-batches or layers).
// What it deliberately does not do: decide what a non-finite step does (epoch.cpp applies
// --on-nonfinite), or touch the device itself (LateReads does).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "harness/train/phase_timer.h"
#include "harness/train/train_config.h"
#include "models/late_reads.h"

namespace scalebench {

bool late_steps_apply(const TrainConfig& cfg);

class LateSteps {
 public:
  // The step's marks, in the order they are queued: the phases are the spans between them.
  enum Mark : int { start, data, forward, backward, end, kMarks };
  explicit LateSteps(LateReads& reads) : reads_(reads) {}

  // A new step, whose result belongs to `row` (the caller's index). Throws if its slot is still
  // unread (a settle() was missed: its times would be overwritten).
  void begin(std::int64_t row);
  void mark(Mark m);
  // The step's device work is queued: scan `grads` (null: no scan), mark its end. comm_exposed: the
  // host-timed exposed exchange, taken out of the update phase as epoch.cpp's time_update does;
  // replayed: its forward and backward were one graph launch (their split is the graph's).
  void finish(const float* grads, std::int64_t n, double comm_exposed, bool replayed);

  struct Settled {
    std::int64_t row = -1;
    StepTimes times;
    NonFinite scan;
    bool replayed = false;
  };
  // Every ended step not yet settled, oldest first (waiting for each); empty when none is pending.
  std::vector<Settled> settle();
  bool pending() const;

 private:
  struct Slot {
    bool open = false;     // begun, not yet ended
    bool queued = false;   // ended, not yet settled
    std::int64_t row = -1, order = -1;
    double comm_exposed = 0;
    bool scanned = false, replayed = false;
  };
  LateReads& reads_;
  std::array<Slot, LateReads::kSlots> slots_{};
  std::int64_t begun_ = 0;  // steps begun: the next one's order, and its slot (order % kSlots)
  int current_ = -1;        // the open step's slot
};

}  // namespace scalebench
