// micro_batch_norms.h — the noise scale's two batch sizes on one replica (single, or an allreduce
// strategy at N = 1): with --accumulate M > 1 each micro-batch's gradient is a small batch
// (B_small = --batch) and the accumulated step gradient the big one (B_big = M × --batch).
// What it deliberately does not do: change the gradients (it only reads the arena and the model's
// held sum), or measure anything when the step had one micro-batch (GradNorms::smalls = 0).
#pragma once

#include "harness/strategy/noise_scale.h"
#include "models/model.h"

namespace scalebench {

class MicroBatchNorms {
 public:
  // After the backward of a micro-batch that is not the step's last: the arena holds its gradient
  // alone (scaled by 1/M, epoch.cpp's loss scaling).
  void after_micro_batch(Model& model);
  // After the step's last backward, before any exchange touches the arena: the step's norms
  // (smalls = M), or smalls = 0 when it had one micro-batch. Starts the next step.
  GradNorms finish(Model& model);

 private:
  double sum_sq_ = 0;  // Σ |arena|² over the step's earlier micro-batches
  int earlier_ = 0;    // how many
};

}  // namespace scalebench
