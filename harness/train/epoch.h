// epoch.h — one epoch of one worker rank: its steps (each one train_step(): data → forward → loss
// → backward → exchange + update → record, timed per phase; between steps a progress line at most
// every --progress-seconds, the workers' agreement to stop on preemption or at a target, and
// checkpoints), then its close (epoch time = max over workers, loss = mean over every worker's
// steps, held-out evaluation, the epoch line and the observer, on the reporting rank).
// What it deliberately does not do: set anything up (rank_state.h), decide what a run does after
// a preemption (train_rank.cpp), or lay out a checkpoint's contents (checkpoint.h).
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include <optional>

#include "harness/data/loader.h"
#include "harness/train/checkpoint.h"
#include "harness/train/epoch_progress.h"
#include "harness/train/evaluate.h"
#include "harness/train/late_steps.h"
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

  // Runs the epoch's steps; stops early when the workers agree to (preemption, or a target reached
  // at a --eval-every-steps check). A resumed epoch starts after the steps its checkpoint had done,
  // with its sums.
  EpochProgress run_steps(int epoch);
  // After a complete epoch (or one cut short by its target): reduces it over the workers and, on
  // the reporting rank, evaluates, logs and observes it and appends it to the result. A collective
  // among the workers, which leave it together, after the evaluation, agreeing whether the target
  // is reached (o.target).
  void close(EpochProgress& o, TrainObserver* observer);

  // Checkpoints (checkpoint.h): every worker writes its file, then rank 0 commits the step. `o` is
  // the epoch in hand with `steps_done` steps; an epoch that was just closed is saved as the next
  // one at step 0. A collective among the workers. Returns the seconds it took (this rank's
  // clock, which waits for every worker's file): checkpoint time, kept out of the epoch's wall time.
  double save_checkpoint(const EpochProgress& o, bool closed);
  // Continue from a checkpoint: position, sums of the unfinished epoch, the record so far; this
  // launch is the checkpoint's segment + 1.
  void resume(const RankCheckpoint& c);
  int segment() const { return segment_; }
  bool checkpointing() const { return !st_.cfg.checkpoint_dir.empty(); }

 private:
  // The step (epoch.cpp reads it top to bottom): train_step() runs one optimizer step as a list of
  // the calls below it; run_steps() runs the steps with what happens between them.
  struct EpochTime;
  struct MicroBatch {
    int index = 0, size = 0;           // m of --accumulate K, and its samples
    Tensor x;                          // a view into the loader's batch
    std::vector<std::int32_t> labels;
  };
  struct StepLoss {
    double value = 0;                  // the mean over the step's micro-batches
    StepHealth health;                 // this worker's check of its step, before the exchange
  };
  EpochProgress start_epoch(int epoch, double& wall_before);  // a resumed epoch continues its checkpoint's
  StepExchange train_step(EpochProgress& o, std::int64_t s);
  void next_batch(std::int64_t s);
  MicroBatch micro_batch(int m);
  const Tensor& forward(const MicroBatch& mb);
  void add_loss(const Tensor& logits, const MicroBatch& mb, StepLoss& step);
  void backward(int m);
  StepExchange exchange_and_update(EpochProgress& o, StepHealth& health);
  // --cuda-graph: the step's forward, loss and backward as one graph launch once warm (eager before,
  // or for good once a capture failed), the loss read one step late. why_no_graph(): "" where the
  // step can be captured, else why not. graph_step() also runs the eager step with its loss read late
  // (late_steps_apply without a graph); it calls forward_done/backward_done where those phases end
  // (only backward_done for a replay) and returns whether it replayed.
  std::string why_no_graph() const;
  void decide_graph();
  bool graph_step(const MicroBatch& mb, StepLoss& loss, const std::function<void()>& forward_done,
                  const std::function<void()>& backward_done);
  void settle_late_loss(EpochProgress& o, double loss);
  // A replayed step's forward and backward were one launch, timed as one (`both` seconds): the
  // graph's split event divides them into t.fwd and t.bwd (all of it forward where it cannot be read).
  void split_replay(double both, StepTimes& t) const;
  void reset_graph();
  bool late_loss() const { return graph_ || late_; }  // the loss arrives with the next step
  // late_steps_apply (epoch_late.cpp): the step without a host wait — phases as device marks and
  // the gradient's scan, both read one step late (settle_late_steps: into the rows, the epoch's
  // times, and --on-nonfinite fail for a non-finite gradient).
  StepExchange late_step(EpochProgress& o, std::int64_t s);
  void settle_late_steps(EpochProgress& o);
  static void time_update(double after_backward, const StepExchange& xch, StepTimes& t);
  void record_step(EpochProgress& o, std::int64_t s, double loss, const StepTimes& t, const StepExchange& xch,
                   trace::Clock::time_point step_t0);
  // Between steps: the progress line, the workers' stop, a mid-epoch target check, a checkpoint.
  void log_progress(const EpochProgress& o, EpochTime& time);
  void agree_stop(EpochProgress& o);
  void check_target_if_due(EpochProgress& o, EpochTime& time);
  // The workers agreed the target is reached after the step just done: the run ends there
  // (`run_ends`: it was the run's last step anyway, so no server waits for a push).
  void end_at_target(EpochProgress& o, bool run_ends);
  void checkpoint_if_due(EpochProgress& o, bool agreed, EpochTime& time);
  // This worker's own check of its step (loss, input batch), before the exchange.
  StepHealth check_step(double loss, const Tensor& x) const;
  // Every worker, after the same step: fail (throws) or count and log the skip.
  void on_nonfinite(const StepExchange& x, int epoch, std::int64_t step);
  // The reporting rank's part of close(): evaluation, log line, observer, result.
  void evaluate_and_record(EpochProgress& o, TrainObserver* observer);
  // The held-out evaluation of the model as it is now, on the reporting rank; the same step's
  // result again when a mid-epoch check already took it (an epoch closed by its target).
  const EvalResult& evaluate_now(int epoch);  // epoch: the trace span's subject
  // --eval-every-steps: every worker, after the same step. The reporting rank evaluates and
  // records the check (`seconds`: training time so far); all agree whether the target is reached.
  bool check_target_mid_epoch(const EpochProgress& o, double seconds);
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
  std::unique_ptr<StepGraph> graph_;  // null: steps run eagerly (always on the CPU)
  std::unique_ptr<LateReads> late_reads_;  // late_steps_apply: the device's marks and scan ...
  std::optional<LateSteps> late_;          // ... and their book; empty: each step waits for its phases
  bool graph_decided_ = false;
  int graph_warm_ = 0;                // eager steps since the graph was last reset
  Shape logits_shape_;                // from the warm-up steps: the staged labels' shape
  std::int64_t late_row_ = -1;        // the row in o.rows whose loss is still on its way (-1: none)
  bool late_row_skipped_ = false;     // that step was skipped (non-finite gradient): no loss to add
  std::vector<std::vector<StepRow>> finished_rows_;  // reporting rank: each closed epoch's steps
  std::optional<EpochProgress> resumed_;  // the unfinished epoch of a checkpoint
  std::optional<EvalResult> eval_;  // the last evaluation (reporting rank) ...
  std::int64_t eval_step_ = -1;     // ... at this optimizer step
  double resumed_wall_s_ = 0;
  int segment_ = 1;             // this launch (RunSegment::segment)
  Stopwatch since_checkpoint_;  // --checkpoint-minutes (rank 0's decides)
};

// "IoU shower 0.512  track 0.301  mIoU 0.406" or "accuracy 0.870"; the run's last line.
std::string format_quality(const EpochResult& er, const data::DatasetInfo& info);
std::string format_final(const EpochResult& last, const data::DatasetInfo& info);

}  // namespace scalebench
