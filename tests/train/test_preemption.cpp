// test_preemption.cpp — SIGUSR1 handling (harness/train/preemption.h): the handler only sets a flag
// (the process survives), and where the trainer stops: single and mirrored after the next step
// (mirrored: every thread after the same one, the stop carried by the step's own scalar
// allreduce), and a stop on the run's very last step being the ordinary end. The signal is raised from the observer after
// epoch 1, so the stopping step is exact, not a matter of timing.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <sstream>

#include "harness/data/particle_gen.h"
#include "harness/train/preemption.h"
#include "harness/train/trainer.h"
#include "tests/common/harness_test_util.h"

using namespace scalebench;

namespace {

class RaiseAfterEpoch : public TrainObserver {
 public:
  explicit RaiseAfterEpoch(int epoch) : epoch_(epoch) {}
  void on_epoch(const EpochResult& e, const std::vector<StepRow>&) override {
    if (e.epoch == epoch_) std::raise(SIGUSR1);
  }

 private:
  int epoch_;
};

class Preemption : public ::testing::Test {
 protected:
  void SetUp() override {
    clear_preemption_signal();
    data::GenConfig g;
    g.n = 48, g.size = 32, g.seed = 3;
    data_ = dir_ / "seg.h5";
    data::write_dataset(g, data_, 0);
  }
  void TearDown() override {
    clear_preemption_signal();
  }
  TrainConfig config(const std::string& strategy, int devices, int epochs) const {
    TrainConfig c;
    c.model = "unet:depth=2,base=4";
    c.data = data_;
    c.strategy = parse_enum<StrategyKind>(strategy, "strategy");
    c.devices = devices;
    c.epochs = epochs;
    c.batch = 2;
    c.max_steps = 4;
    c.threads = 1;
    c.progress_seconds = 1e9;
    return c;
  }
  TrainResult run(const TrainConfig& c, int raise_after_epoch) {
    RaiseAfterEpoch obs(raise_after_epoch);
    std::ostringstream log;
    TrainResult r = train(c, log, &obs);
    log_ = log.str();
    return r;
  }
  sbtest::TempDir dir_;
  std::string data_, log_;
};

}  // namespace

TEST_F(Preemption, HandlerSetsAFlagAndTheProcessSurvives) {
  install_preemption_handler();
  EXPECT_FALSE(preemption_signalled());
  std::raise(SIGUSR1);  // the default action would end this test binary
  EXPECT_TRUE(preemption_signalled());
  clear_preemption_signal();
  EXPECT_FALSE(preemption_signalled());
}

TEST_F(Preemption, SingleStopsAfterTheNextStep) {
  const TrainResult r = run(config("single", 1, 3), 1);
  ASSERT_TRUE(r.preempted) << log_;
  EXPECT_EQ(r.preempted_epoch, 2);
  EXPECT_EQ(r.preempted_step, 1);
  EXPECT_EQ(r.epoch_steps, 4);
  EXPECT_EQ(r.epochs.size(), 1u);  // the unfinished epoch has no EpochResult ...
  ASSERT_EQ(r.partial_steps.size(), 1u);  // ... but its step is kept
  EXPECT_EQ(r.partial_steps[0].epoch, 2);
  EXPECT_EQ(describe_preemption(r), "SIGUSR1 at epoch 2 step 1 of 4");
  EXPECT_EQ(log_.find("final:"), std::string::npos) << log_;
}

TEST_F(Preemption, MirroredStopsEveryThreadAfterTheNextStep) {
  const TrainResult r = run(config("mirrored", 2, 4), 1);
  ASSERT_TRUE(r.preempted) << log_;
  EXPECT_EQ(r.preempted_epoch, 2);
  EXPECT_EQ(r.preempted_step, 1);
  EXPECT_EQ(r.epochs.size(), 1u);
  EXPECT_EQ(r.partial_steps.size(), 1u);
}

TEST_F(Preemption, AStopOnTheLastStepIsTheOrdinaryEnd) {
  // One step per epoch: the signal after epoch 1 is agreed on epoch 2's only step, the run's last.
  TrainConfig c = config("mirrored", 2, 2);
  c.max_steps = 1;
  const TrainResult r = run(c, 1);
  EXPECT_FALSE(r.preempted);
  EXPECT_EQ(r.epochs.size(), 2u);
  EXPECT_NE(log_.find("final:"), std::string::npos) << log_;
}

TEST_F(Preemption, NoSignalNoStop) {
  const TrainResult r = run(config("single", 1, 2), 99);
  EXPECT_FALSE(r.preempted);
  EXPECT_EQ(r.epochs.size(), 2u);
}
