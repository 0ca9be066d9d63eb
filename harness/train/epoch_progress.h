// epoch_progress.h — one epoch of one worker as it stands between its steps: its row so far, this
// worker's sums over the steps done, and whether the workers agreed to stop there. The epoch
// runner (epoch.h) fills it step by step; a checkpoint (checkpoint.h) keeps and restores it.
// What it deliberately does not do: reduce over workers or time anything.
#pragma once

#include <cstdint>
#include <vector>

#include "harness/strategy/noise_scale.h"
#include "harness/train/train_result.h"

namespace scalebench {

struct EpochProgress {
  EpochResult epoch;              // times, images, loss sum so far (not yet reduced over workers)
  double loss_sum = 0;            // this worker's steps (skipped non-finite steps left out)
  std::int64_t loss_steps = 0;    // the steps loss_sum sums
  std::int64_t steps_done = 0;
  NoiseScaleSums noise;           // the gradient noise scale's measured steps (same on every worker)
  bool stop = false;              // the workers agreed to stop after the last step done
  int stop_signal = 0;            // ... because of this signal (preemption.h)
  bool target = false;            // ... because the run's target was reached there (target.h)
  std::vector<StepRow> rows;      // this epoch's steps, for the observer
};

}  // namespace scalebench
