// test_lr_schedule.cpp — LrSchedule (models/lr_schedule.h) at every phase against values worked out
// by hand: the scaling rules none / linear / sqrt in N, warm-up start and end (whole and fractional
// epochs), cosine decay's midpoint and its end value (1% of the peak), constant after warm-up, and
// the checks.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/common/check.h"
#include "models/lr_schedule.h"

using namespace scalebench;

namespace {
LrSchedule sched(LrScaling s, int world, double warmup, LrDecay d = LrDecay::cosine) {
  return {.base_lr = 0.1, .scaling = s, .world = world, .warmup_epochs = warmup, .decay = d,
          .steps_per_epoch = 4, .epochs = 3};
}
}  // namespace

TEST(LrSchedule, ScalingRulesInN) {
  EXPECT_DOUBLE_EQ(sched(LrScaling::none, 8, 0).peak_lr(), 0.1);
  EXPECT_DOUBLE_EQ(sched(LrScaling::linear, 1, 0).peak_lr(), 0.1);
  EXPECT_DOUBLE_EQ(sched(LrScaling::linear, 4, 0).peak_lr(), 0.4);
  EXPECT_DOUBLE_EQ(sched(LrScaling::linear, 8, 0).peak_lr(), 0.8);
  EXPECT_DOUBLE_EQ(sched(LrScaling::sqrt, 4, 0).peak_lr(), 0.2);
  EXPECT_DOUBLE_EQ(sched(LrScaling::sqrt, 2, 0).peak_lr(), 0.1 * std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(sched(LrScaling::sqrt, 1, 0).peak_lr(), 0.1);
}

TEST(LrSchedule, WarmupStartAndEnd) {
  // One epoch of 4 steps to a linear-rule peak of 0.4: 0.1, 0.2, 0.3, 0.4, then decay begins at the peak.
  const LrSchedule s = sched(LrScaling::linear, 4, 1.0);
  EXPECT_DOUBLE_EQ(s.at(0), 0.4 / 4);  // never 0: the first step already learns
  EXPECT_DOUBLE_EQ(s.at(1), 0.4 * 2 / 4);
  EXPECT_DOUBLE_EQ(s.at(3), 0.4);      // the last warm-up step reaches the peak
  EXPECT_DOUBLE_EQ(s.at(4), 0.4);      // cosine at t = 0
}

TEST(LrSchedule, FractionalWarmup) {
  // 0.5 epoch × 4 steps = 2 warm-up steps; 0.625 × 4 = 2.5 → 3 steps of peak/3 each.
  const LrSchedule half = sched(LrScaling::none, 1, 0.5);
  EXPECT_DOUBLE_EQ(half.at(0), 0.05);
  EXPECT_DOUBLE_EQ(half.at(1), 0.1);
  LrSchedule odd = sched(LrScaling::none, 1, 0.625);
  EXPECT_DOUBLE_EQ(odd.at(0), 0.1 / 3);
  EXPECT_DOUBLE_EQ(odd.at(1), 0.1 * 2 / 3);
  EXPECT_DOUBLE_EQ(odd.at(2), 0.1);
  // Decay counts from the fractional end: step 3 is 0.5 step into 12 - 2.5 = 9.5 steps of cosine.
  EXPECT_DOUBLE_EQ(odd.at(3), 0.1 * (0.01 + 0.99 * 0.5 * (1 + std::cos(M_PI * 0.5 / 9.5))));
}

TEST(LrSchedule, CosineMidpointAndEnd) {
  // 12 steps, 4 of warm-up: the cosine runs over 8. Midpoint (step 8) = 0.01 + 0.99 / 2 of the peak.
  const LrSchedule s = sched(LrScaling::sqrt, 4, 1.0);  // peak 0.2
  EXPECT_DOUBLE_EQ(s.at(8), 0.2 * (0.01 + 0.99 * 0.5));
  EXPECT_DOUBLE_EQ(s.at(11), 0.2 * (0.01 + 0.99 * 0.5 * (1 + std::cos(M_PI * 7 / 8))));  // last step
  EXPECT_DOUBLE_EQ(s.at(12), 0.2 * 0.01);  // the end value: 1% of the peak, not 0
  EXPECT_DOUBLE_EQ(s.at(100), 0.2 * 0.01);
  // Without warm-up the first step is the peak and the cosine spans all 12 steps.
  const LrSchedule nw = sched(LrScaling::none, 1, 0);
  EXPECT_DOUBLE_EQ(nw.at(0), 0.1);
  EXPECT_DOUBLE_EQ(nw.at(6), 0.1 * (0.01 + 0.99 * 0.5));
  for (int i = 1; i < 12; ++i) EXPECT_LT(nw.at(i), nw.at(i - 1)) << i;
}

TEST(LrSchedule, ConstantAfterWarmup) {
  const LrSchedule s = sched(LrScaling::linear, 2, 0.5, LrDecay::constant);  // peak 0.2, 2 warm-up steps
  EXPECT_DOUBLE_EQ(s.at(0), 0.1);
  EXPECT_DOUBLE_EQ(s.at(1), 0.2);
  for (int i = 2; i < 20; ++i) EXPECT_DOUBLE_EQ(s.at(i), 0.2) << i;
}

TEST(LrSchedule, ValidateNamesTheOption) {
  LrSchedule s = sched(LrScaling::none, 1, 0);
  s.base_lr = 0;
  EXPECT_THROW(s.validate(), Error);
  s = sched(LrScaling::none, 1, -1);
  EXPECT_THROW(s.validate(), Error);
  s = sched(LrScaling::none, 1, 0);
  s.base_lr = NAN;
  try {
    s.validate();
    FAIL() << "NaN lr accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--lr"), std::string::npos) << e.what();
  }
}
