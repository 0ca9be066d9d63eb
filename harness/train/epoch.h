// epoch.h — one epoch of one worker rank: its steps (data → forward → loss → backward → exchange
// + update, timed per phase, a progress line at most every --progress-seconds, and the workers'
// agreement to stop after a step on preemption or at a target), then its close (epoch time = max over workers,
// loss = mean over every worker's steps, held-out evaluation, the epoch line and the observer, on
// the reporting rank). What it deliberately does not do: set anything up (rank_state.h) or decide
// what a run does after a preemption (train_rank.cpp).
#pragma once

#include <iosfwd>
#include <vector>

#include <optional>

#include "harness/data/loader.h"
#include "harness/train/checkpoint.h"
#include "harness/train/evaluate.h"
#include "harness/train/phase_timer.h"
#include "harness/train/rank_state.h"
#include "harness/train/trace.h"
#include "harness/train/train_observer.h"

namespace scalebench {

// What the steps of every epoch share: the loader, the layer context (its step counter runs over
// the whole run), the step's buffers.
class EpochRunner {
 public:
  EpochRunner(RankState& st, std::ostream& log);

  struct Outcome {
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
  // Runs the epoch's steps; stops early when the workers agree to (preemption, or a target reached
  // at a --eval-every-steps check). A resumed epoch starts after the steps its checkpoint had done,
  // with its sums.
  Outcome run_steps(int epoch);
  // After a complete epoch (or one cut short by its target): reduces it over the workers and, on
  // the reporting rank, evaluates, logs and observes it and appends it to the result. A collective
  // among the workers, which leave it together, after the evaluation, agreeing whether the target
  // is reached (o.target).
  void close(Outcome& o, TrainObserver* observer);

  // Checkpoints (checkpoint.h): every worker writes its file, then rank 0 commits the step. `o` is
  // the epoch in hand with `steps_done` steps; an epoch that was just closed is saved as the next
  // one at step 0. A collective among the workers. Returns the seconds it took (this rank's
  // clock, which waits for every worker's file): checkpoint time, kept out of the epoch's wall time.
  double save_checkpoint(const Outcome& o, bool closed);
  // Continue from a checkpoint: position, sums of the unfinished epoch, the record so far; this
  // launch is the checkpoint's segment + 1.
  void resume(const RankCheckpoint& c);
  int segment() const { return segment_; }
  bool checkpointing() const { return !st_.cfg.checkpoint_dir.empty(); }

 private:
  // This worker's own check of its step (loss, input batch), before the exchange.
  StepHealth check_step(double loss, const Tensor& x) const;
  // Every worker, after the same step: fail (throws) or count and log the skip.
  void on_nonfinite(const StepExchange& x, int epoch, std::int64_t step);
  // The reporting rank's part of close(): evaluation, log line, observer, result.
  void evaluate_and_record(Outcome& o, TrainObserver* observer);
  // The held-out evaluation of the model as it is now, on the reporting rank; the same step's
  // result again when a mid-epoch check already took it (an epoch closed by its target).
  const EvalResult& evaluate_now(int epoch);  // epoch: the trace span's subject
  // --eval-every-steps: every worker, after the same step. The reporting rank evaluates and
  // records the check (`seconds`: training time so far); all agree whether the target is reached.
  bool check_target_mid_epoch(const Outcome& o, double seconds);
  // Training seconds of the closed epochs (reporting rank).
  double closed_seconds() const;
  double epochs_so_far(int epoch, std::int64_t steps_done) const;  // TargetCheck::epochs

  RankState& st_;
  std::ostream& log_;
  data::DataLoader loader_;
  Ctx ctx_;
  Tensor dlogits_;
  data::Batch batch_;
  trace::Clock::time_point layer_mark_;  // --trace: where the next layer's backward span starts
  void trace_step(trace::Clock::time_point t0, const StepTimes& t, std::int64_t step) const;
  int consecutive_skips_ = 0;
  // --on-nonfinite skip: the batch-norm running statistics as they were before the step's forward,
  // put back when the step is skipped, so a skipped step leaves no trace in them (the weights and
  // optimizer are untouched by a skip already; dropout and the sampler are functions of the step).
  void save_buffers();
  void restore_buffers();
  std::vector<Tensor> saved_buffers_;
  std::vector<std::vector<StepRow>> finished_rows_;  // reporting rank: each closed epoch's steps
  std::optional<Outcome> resumed_;                    // the unfinished epoch of a checkpoint
  std::optional<EvalResult> eval_;  // the last evaluation (reporting rank) ...
  std::int64_t eval_step_ = -1;     // ... at this optimizer step
  double resumed_wall_s_ = 0;
  int segment_ = 1;             // this launch (RunSegment::segment)
  // A parameter server learns of a stop only through the stop protocol of preemption (the next
  // push carries it, the reply names the push count every worker stops after: param_server.h), so
  // there the workers' agreement that the target is reached first makes it pending: every step
  // then asks the server for a stop (kTargetStop), and the run ends at the count it names.
  bool target_pending_ = false;
  const bool via_server_;       // the strategy has a parameter server
  Stopwatch since_checkpoint_;  // --checkpoint-minutes (rank 0's decides)
};

// "IoU shower 0.512  track 0.301  mIoU 0.406" or "accuracy 0.870"; the run's last line.
std::string format_quality(const EpochResult& er, const data::DatasetInfo& info);
std::string format_final(const EpochResult& last, const data::DatasetInfo& info);

}  // namespace scalebench
