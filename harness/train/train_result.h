// train_result.h — what a run produced, as the trainer hands it on: one row per epoch, one per
// step, one per launch (segment), and the run's result around them (set-up figures, preemption,
// target). Plain data for the observer (train_observer.h), the checkpoints and the recorder.
// What it deliberately does not do: compute, store or print any of it.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "harness/train/phase_timer.h"
#include "harness/train/target.h"

namespace scalebench {

struct EpochResult {
  int epoch = 0;                  // 1-based
  bool warmup = false;            // the first epoch: recorded, excluded from summaries (DESIGN §5)
  double wall_s = 0;              // training pass only, validation excluded
  std::int64_t images = 0;
  double images_per_s = 0;
  double lr = 0;                  // at the epoch's last step
  double train_loss = 0;          // mean over the epoch's steps
  double val_loss = 0;
  std::vector<double> val_iou;    // per class (segmentation)
  double val_miou = 0;            // mean over non-background classes (segmentation)
  double val_accuracy = 0;
  // The gradient noise scale over the epoch's measured steps (harness/strategy/noise_scale.h;
  // docs/metrics.md): mean tr(Σ) estimate, mean |G|² estimate, their ratio. NaN when not measured.
  double grad_noise_trace = std::numeric_limits<double>::quiet_NaN();
  double grad_sq_norm = std::numeric_limits<double>::quiet_NaN();
  double b_simple = std::numeric_limits<double>::quiet_NaN();
  StepTimes time;                 // summed over the epoch's steps
  // Writing checkpoints during the epoch (rank 0's clock, which waits for every worker's file):
  // not in wall_s, so not in images_per_s. A resumed epoch's misses the write it resumed from.
  double checkpoint_s = 0;
  int segment = 1;                // the launch that ran its last step (RunSegment::segment)
};

// One training step as the run file's /steps table records it (t_total = time.total()).
struct StepRow {
  int epoch = 0;                  // 1-based
  std::int64_t step = 0;          // 1-based within the epoch
  double loss = 0;
  StepTimes time;
  double checkpoint_s = 0;        // writing a checkpoint after this step (not in time.total())
  int segment = 1;                // the launch that ran it (RunSegment::segment)
};

// One launch of a run: 1 for the first; a rerun that resumed from a checkpoint adds one. Which
// epochs and steps a launch ran is in their `segment`.
struct RunSegment {
  int segment = 1;
  std::string started_utc;        // ISO 8601
  std::string host;
  std::string resumed_from;       // the checkpoint (step folder) it continued from; "" for the first
  int first_epoch = 1;            // where it started: this epoch, after first_step of its steps
  std::int64_t first_step = 0;
  std::int64_t first_global_step = 0;
};

struct TrainResult {
  std::string task;               // segmentation | classification
  std::vector<std::string> class_names;
  std::string canonical_model;
  std::int64_t params = 0;
  double train_flops_per_image = 0;
  std::int64_t steps_per_epoch = 0;
  double peak_lr = 0;                       // base LR after the scaling rule
  std::int64_t comm_bytes_per_step = 0;     // gradient bytes a rank sends per step (0 for single)
  int world = 1;                            // ranks (threads for mirrored), servers included
  int workers = 1;                          // data-parallel replicas: the device count of scaling
  std::int64_t global_batch = 0;
  std::string transport = "none";           // what moved the gradients: "nccl", "mpi", "staged over mpi, 4 ranks share 1 GPU"
  bool gpu_shared = false;                  // ranks shared a GPU: a correctness run, not a scaling measurement
  std::string strategy_summary;             // e.g. the staleness ps-async saw
  std::string noise_scale_note;             // why b_simple is NaN ("" when it is measured)
  std::string turn_note;                    // took turns with an A/B pair's other side (turn_gate.h); "" otherwise
  std::int64_t nonfinite_skipped = 0;       // steps this worker skipped (--on-nonfinite skip)
  std::vector<EpochResult> epochs;
  std::vector<RunSegment> segments;         // rank 0: this run's launches so far, this one last
  // Stopped by SIGUSR1 before its last step (preemption.h). The epoch it stopped in and the last
  // step it finished there, of epoch_steps (steps_per_epoch capped by --max-steps). When that was
  // the epoch's last step the epoch is complete (validated, in `epochs`); otherwise its steps are
  // in partial_steps (rank 0) and it has no EpochResult.
  bool preempted = false;
  int preempted_signal = 0;                 // the signal the workers agreed on (preemption.h)
  int preempted_epoch = 0;
  std::int64_t preempted_step = 0;
  std::int64_t epoch_steps = 0;
  std::vector<StepRow> partial_steps;
  // --target-miou / --target-accuracy (target.h): rank 0's held-out checks and their verdict. A
  // run that reaches its target stops there with status ok (not preempted); inactive without one.
  TargetTracker target;
};

// "SIGUSR1 at epoch 2 step 5 of 12" (+ " (epoch complete)" when it stopped on an epoch's last step).
std::string describe_preemption(const TrainResult& r);

}  // namespace scalebench
