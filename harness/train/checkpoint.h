// checkpoint.h — what one rank needs to continue a run bit for bit, and how it is kept on disk.
// A checkpoint is a folder <dir>/step-<global step>/ with one file per rank (rank-<r>.bin); <dir>/latest
// names the newest complete one. Each file is written to a temporary name, fsync'ed and renamed,
// and carries a checksum; `latest` is rewritten the same way only after every rank's file is in
// place, so a crash at any moment leaves the previous complete checkpoint in force. The last
// kKeep checkpoints are kept.
// A rank's file holds: the run's agreement text (TrainConfig::canonical_text) and world size, the
// position (epoch, step in it, global step — which also fixes the LR schedule, the sampler and
// every dropout mask), the weights, the optimizer's state, the batch-norm statistics, this
// worker's sums over the unfinished epoch, and on rank 0 the record so far (finished epochs with
// their steps, the unfinished epoch's steps), so a resumed run's file keeps its earlier epochs.
// Capture and restore move a Model's state (weights, optimizer, batch-norm statistics) between its
// device and a RankCheckpoint's host copies, and the epoch in hand (epoch_progress.h) and the
// record so far into a RankCheckpoint and back.
// What it deliberately does not do: decide when to checkpoint (epoch.cpp) or talk to other ranks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/strategy/noise_scale.h"
#include "harness/train/epoch_progress.h"
#include "harness/train/train_result.h"
#include "models/model.h"
#include "models/optimizer.h"

namespace scalebench {

struct RankCheckpoint {
  std::string config_text;        // TrainConfig::canonical_text() of the run that wrote it
  int workers = 1, rank = 0;
  int epoch = 1;                  // the epoch to continue (1-based)
  std::int64_t step = 0;          // steps of that epoch already done
  std::int64_t global_step = 0;   // optimizer steps so far (Ctx::step)
  std::vector<float> params;
  Optimizer::State optimizer;
  std::vector<std::vector<float>> buffers;  // Model::buffers() order
  // This worker's sums over the unfinished epoch (epoch_progress.h).
  double loss_sum = 0, wall_s = 0, lr = 0;
  std::int64_t loss_steps = 0, images = 0, nonfinite_skipped = 0;
  int consecutive_skips = 0;
  StepTimes time;
  NoiseScaleSums noise;           // the unfinished epoch's gradient noise scale sums
  double checkpoint_s = 0;        // the unfinished epoch's checkpoint writes before this one
  int segment = 1;                // the launch that wrote it (a resume is launch segment + 1)
  // Rank 0: the record so far.
  std::vector<EpochResult> epochs;
  std::vector<std::vector<StepRow>> epoch_steps;  // one list per finished epoch
  std::vector<StepRow> current_steps;             // the unfinished epoch's
  std::vector<RunSegment> segments;               // the launches so far, the writer's last
  std::vector<TargetCheck> target_checks;         // --target-*: the held-out checks so far (target.h)
};

inline constexpr int kCheckpointsKept = 2;

// Writes rank r's file of the checkpoint at global step `c.global_step` under dir.
void write_rank_checkpoint(const std::string& dir, const RankCheckpoint& c);
// Rank 0, after every rank's file is written: points `latest` at that step and prunes old ones.
void commit_checkpoint(const std::string& dir, std::int64_t global_step);
// Every checkpoint folder a resume may use, newest first: dir itself when it is a step folder (it
// holds rank-0.bin); else the one `latest` names and the kept ones older than it. Empty when
// there is none (no `latest`). A rank whose file of the newest is damaged makes every rank fall
// back to the next (train_rank.cpp), so a damaged file costs the steps since the previous one.
std::vector<std::string> checkpoint_candidates(const std::string& dir);
// The newest complete checkpoint folder under dir (via `latest`), or nullopt when there is none.
// dir may also be a step folder itself.
std::optional<std::string> latest_checkpoint(const std::string& dir);
// Reads and verifies rank r's file (checksum; throws scalebench::Error naming the file and the
// problem). check_compatible() then names what differs from this run, if anything.
RankCheckpoint read_rank_checkpoint(const std::string& step_dir, int rank);
void check_compatible(const RankCheckpoint& c, const std::string& step_dir, const std::string& config_text,
                      int workers);
// The model's weights, the optimizer's state and (with `buffers`) the batch-norm statistics into c,
// as host copies from the model's device. A parameter server keeps no statistics (buffers = false).
void capture_model_state(Model& m, const Optimizer& opt, bool buffers, RankCheckpoint& c);
// And back onto the model's device; throws scalebench::Error naming what does not fit this model.
void restore_model_state(const RankCheckpoint& c, Model& m, Optimizer& opt, bool buffers);

// The epoch in hand into c: its position after o.steps_done steps and this worker's sums over them
// (with `steps`, the reporting rank's part, also their rows) — or, when it was just closed, the
// next epoch at step 0, with no sums.
void capture_epoch(const EpochProgress& o, bool closed, bool steps, RankCheckpoint& c);
// The epoch c left unfinished, as it stood then (its wall time so far is c.wall_s: the runner
// continues that clock itself).
EpochProgress unfinished_epoch(const RankCheckpoint& c);
// The reporting rank's record so far into c (finished epochs with their steps, the launches, the
// target's checks), and back into a result. restore_record leaves the launches alone: the
// resuming rank appends its own launch to c.segments (train_rank.cpp).
void capture_record(const TrainResult& r, const std::vector<std::vector<StepRow>>& epoch_steps, RankCheckpoint& c);
void restore_record(const RankCheckpoint& c, TrainResult& r, std::vector<std::vector<StepRow>>& epoch_steps);

// Test hook: SCALEBENCH_CHECKPOINT_SLEEP_S=S makes every rank file's write take S seconds more
// (a slow file system), so tests can tell checkpoint time from training time without timing
// the training (tests/mpi/resume_test.sh, case segments).
// Test hook: SCALEBENCH_KILL_AFTER_STEP=N kills this process (SIGKILL) once optimizer step N is
// done (and its checkpoint, if one was due, committed): a crash at a known step.
void kill_after_step_for_tests(std::int64_t global_step);

}  // namespace scalebench
