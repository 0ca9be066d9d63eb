// test_target.cpp — training to a target (harness/train/target.h): reached at the first check at or
// above it, not reached with the best value and where, a resumed run continuing from its
// checkpoint's checks. (The run file's target_* summary: tests/record/test_summary.cpp.)
#include <gtest/gtest.h>

#include <cmath>

#include "harness/train/target.h"

using namespace scalebench;

namespace {

TargetCheck at(std::int64_t global_step, double value) {
  return {.epoch = int(global_step / 10) + 1, .step = global_step % 10, .global_step = global_step,
          .epochs = double(global_step) / 10, .images = global_step * 8, .seconds = 0.5 * double(global_step),
          .value = value};
}

}  // namespace

TEST(Target, ReachedAtTheFirstCheckAtOrAboveIt) {
  TargetTracker t("val_miou", 0.5);
  EXPECT_TRUE(t.active());
  EXPECT_FALSE(t.observe(at(5, 0.2)));
  EXPECT_FALSE(t.observe(at(10, 0.49)));
  EXPECT_FALSE(t.reached());
  EXPECT_TRUE(t.observe(at(15, 0.5)));  // equal counts
  EXPECT_FALSE(t.observe(at(20, 0.7)));  // reached once: later checks do not reach it again
  ASSERT_TRUE(t.reached());
  EXPECT_EQ(t.first_reached()->global_step, 15);
  EXPECT_EQ(t.best()->global_step, 20);
  EXPECT_EQ(t.checks().size(), 4u);
}

TEST(Target, NotReachedKeepsTheBestAndWhere) {
  TargetTracker t("val_accuracy", 0.9);
  for (auto [step, v] : {std::pair{4, 0.3}, {8, 0.8}, {12, 0.8}, {16, NAN}, {20, 0.6}}) EXPECT_FALSE(t.observe(at(step, v)));
  EXPECT_FALSE(t.reached());
  EXPECT_EQ(t.first_reached(), nullptr);
  ASSERT_NE(t.best(), nullptr);
  EXPECT_EQ(t.best()->global_step, 8);  // the earliest of equal bests; NaN is never best
  EXPECT_NE(describe_target(t).find("not reached (0.9): best 0.8000 at step 8"), std::string::npos) << describe_target(t);
}

TEST(Target, TheSameStepIsOneCheck) {
  TargetTracker t("val_miou", 0.5);
  EXPECT_FALSE(t.observe(at(10, 0.4)));
  EXPECT_FALSE(t.observe(at(10, 0.4)));  // an epoch closed right after a mid-epoch check
  EXPECT_EQ(t.checks().size(), 1u);
}

// A resumed run gets its checkpoint's checks back: the best so far and the verdict continue, so the
// run reaches the target where an uninterrupted run does.
TEST(Target, ResumedContinuesTheBestAndTheTarget) {
  TargetTracker whole("val_miou", 0.6), first("val_miou", 0.6);
  const std::vector<TargetCheck> checks = {at(5, 0.3), at(10, 0.55), at(15, 0.5), at(20, 0.65), at(25, 0.7)};
  for (const auto& c : checks) whole.observe(c);
  for (std::size_t i = 0; i < 3; ++i) first.observe(checks[i]);
  TargetTracker resumed("val_miou", 0.6);
  resumed.restore(first.checks());
  EXPECT_EQ(resumed.best()->global_step, 10);  // before any new check: the checkpoint's best
  for (std::size_t i = 3; i < checks.size(); ++i) resumed.observe(checks[i]);
  EXPECT_EQ(resumed.first_reached()->global_step, whole.first_reached()->global_step);
  EXPECT_EQ(resumed.first_reached()->global_step, 20);
  // A checkpoint that already holds the reaching check restores it as reached, not again.
  TargetTracker again("val_miou", 0.6);
  again.restore(whole.checks());
  EXPECT_TRUE(again.reached());
  EXPECT_FALSE(again.observe(at(30, 0.9)));
}

TEST(Target, NoTargetIsInactive) {
  TargetTracker t;
  EXPECT_FALSE(t.active());
  EXPECT_FALSE(t.observe(at(5, 1.0)));
  EXPECT_FALSE(t.reached());
}
