// test_preempt.cpp — a preempted run's file (harness/train/preemption.h): status preempted, the
// reason in `error`, every finished epoch kept, the unfinished epoch's steps appended to /steps
// (nothing lost), no /summary; and a collect over it treats it as not ok.
#include <gtest/gtest.h>

#include <csignal>

#include <cmath>

#include "harness/record/recorder.h"
#include "harness/record/run_file.h"
#include "kernels/common/check.h"
#include "tests/common/harness_test_util.h"

using namespace scalebench;
using namespace scalebench::record;

namespace {

std::vector<StepRow> rows(int e, int n) {
  std::vector<StepRow> v;
  for (int s = 1; s <= n; ++s) v.push_back({.epoch = e, .step = s, .loss = 1.0 / s, .time = {.data = 0.001}});
  return v;
}

EpochResult epoch(int e) {
  EpochResult r;
  r.epoch = e;
  r.warmup = e == 1;
  r.wall_s = 1.0;
  r.images = 40;
  r.images_per_s = 40;
  r.val_iou = {0.9, 0.5, 0.4};
  return r;
}

}  // namespace

TEST(Recorder, PreemptKeepsEpochsAndPartialSteps) {
  sbtest::TempDir dir;
  RunConfig cfg;
  cfg.train.data = "d.h5";
  cfg.train.epochs = 4;
  Recorder rec(cfg, dir / "runs", {"scalebench", "train"});
  TrainResult meta;
  meta.task = "segmentation";
  meta.class_names = {"background", "shower", "track"};
  meta.steps_per_epoch = 5;
  rec.on_start(meta);
  rec.on_epoch(epoch(1), rows(1, 5));

  TrainResult r = meta;
  r.preempted = true;
  r.preempted_signal = SIGUSR1;
  r.preempted_epoch = 2;
  r.preempted_step = 3;
  r.epoch_steps = 5;
  r.partial_steps = rows(2, 3);
  rec.preempt(r);

  const RunFile f = read_run_file(rec.path());
  EXPECT_EQ(f.status, "preempted");
  EXPECT_EQ(f.error, "preempted by SIGUSR1 at epoch 2 step 3 of 5");
  EXPECT_EQ(f.epochs.rows(), 1u);
  ASSERT_EQ(f.steps.rows(), 8u);  // 5 of the finished epoch + 3 of the unfinished one
  EXPECT_EQ(f.steps.integer("epoch", 7), 2);
  EXPECT_EQ(f.steps.integer("step", 7), 3);
  EXPECT_FALSE(f.summary.has("images_per_s"));  // a summary is for runs that ended ok

  // Stopped on an epoch's last step: that epoch is complete and says so.
  r.preempted_step = 5;
  r.partial_steps.clear();
  EXPECT_EQ(describe_preemption(r), "SIGUSR1 at epoch 2 step 5 of 5 (epoch complete)");

  // Only a preempted result may be recorded as one.
  r.preempted = false;
  EXPECT_THROW(rec.preempt(r), Error);
}

TEST(Recorder, MarkFailedAfterPreemptionRecordsTheNewFailure) {
  // A rerun of a preempted point that fails before its recorder starts: the launcher's failure
  // replaces the old preempted status (it describes the latest attempt).
  sbtest::TempDir dir;
  RunConfig cfg;
  cfg.train.data = "d.h5";
  Recorder rec(cfg, dir / "runs", {"scalebench", "train"});
  TrainResult r;
  r.preempted = true, r.preempted_epoch = 1, r.preempted_step = 1, r.epoch_steps = 2;
  rec.preempt(r);
  mark_failed(rec.path(), cfg, "mpirun: not enough slots", {"mpirun"});
  const RunFile f = read_run_file(rec.path());
  EXPECT_EQ(f.status, "failed");
  EXPECT_EQ(f.error, "mpirun: not enough slots");
}
