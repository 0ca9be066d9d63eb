// test_summary.cpp — /summary against hand-computed values (DESIGN §5 definitions).
#include <gtest/gtest.h>

#include <cmath>

#include "harness/record/summary.h"

using namespace scalebench::record;

namespace {

Table epochs(const std::vector<std::pair<double, double>>& wall_images) {
  Table t;
  int e = 0;
  for (auto [wall, images] : wall_images) {
    Attrs r;
    r.set("epoch", ++e);
    r.set("warmup", e == 1);
    r.set("wall_s", wall);
    r.set("images", std::int64_t(images));
    r.set("train_loss", 1.0 / e);
    r.set("val_loss", 2.0 / e);
    r.set("val_miou", 0.1 * e);
    r.set("val_accuracy", 0.5);
    t.append(r);
  }
  return t;
}

Table steps(const std::vector<std::tuple<int, double, double>>& epoch_comm_total) {
  Table t;
  for (auto [e, comm, total] : epoch_comm_total) {
    Attrs r;
    r.set("epoch", e);
    r.set("t_comm_exposed", comm);
    r.set("t_total", total);
    t.append(r);
  }
  return t;
}

}  // namespace

TEST(Summary, ExcludesWarmupEpoch) {
  // Epoch 1 (warm-up): 10 s; epochs 2 and 3: 2 s and 3 s for 100 images each.
  const Table e = epochs({{10.0, 100}, {2.0, 100}, {3.0, 100}});
  // Steps: warm-up epoch's communication must not count. Measured: comm 0.5 of total 5.
  const Table s = steps({{1, 9.0, 10.0}, {2, 0.2, 2.0}, {3, 0.3, 3.0}});
  SummaryInputs in{.train_flops_per_image = 3e9, .peak_flops = 1e12, .peak_method = "test",
                   .comm_bytes_per_step = 4096, .peak_mem_bytes = 123};
  const Attrs a = summarize(e, s, in);
  EXPECT_DOUBLE_EQ(a.num("epoch_time_s"), 2.5);             // (2 + 3) / 2
  EXPECT_DOUBLE_EQ(a.num("images_per_s"), 40.0);            // 200 images / 5 s, not mean(50, 33.3)
  EXPECT_DOUBLE_EQ(a.num("tflops"), 3e9 * 40.0 / 1e12);     // 0.12
  EXPECT_DOUBLE_EQ(a.num("mfu"), 0.12);                     // 0.12 TFLOP/s of a 1 TFLOP/s peak
  EXPECT_DOUBLE_EQ(a.num("exposed_comm_frac"), 0.1);        // 0.5 / 5
  EXPECT_EQ(a.integer("comm_bytes_per_step"), 4096);
  EXPECT_EQ(a.integer("measured_epochs"), 2);
  EXPECT_DOUBLE_EQ(a.num("final_val_loss"), 2.0 / 3);
  EXPECT_DOUBLE_EQ(a.num("final_val_miou"), 0.1 * 3);
  EXPECT_DOUBLE_EQ(a.num("final_train_loss"), 1.0 / 3);
  EXPECT_EQ(a.integer("peak_mem_bytes"), 123);
}

TEST(Summary, OneEpochIsMeasuredAndUnknownPeakIsNaN) {
  const Table e = epochs({{4.0, 100}});
  SummaryInputs in;
  in.train_flops_per_image = 1e9;
  const Attrs a = summarize(e, steps({{1, 0.0, 4.0}}), in);
  EXPECT_DOUBLE_EQ(a.num("epoch_time_s"), 4.0);
  EXPECT_DOUBLE_EQ(a.num("images_per_s"), 25.0);
  EXPECT_DOUBLE_EQ(a.num("exposed_comm_frac"), 0.0);
  EXPECT_TRUE(std::isnan(a.num("mfu")));
}

TEST(Summary, NoEpochsGivesNaN) {
  const Attrs a = summarize(epochs({}), steps({}), SummaryInputs{});
  EXPECT_TRUE(std::isnan(a.num("images_per_s")));
  EXPECT_TRUE(std::isnan(a.num("final_val_loss")));
}

// The step-time distribution over the measured steps only (the warm-up epoch's 10 s step is left
// out): t_total 1, 2, 3, 4 (epoch 2) and 10 (epoch 3). Median 3; quartiles (numpy's default,
// linear) 2 and 4, so IQR 2; mean 4, sample sd sqrt((9+4+1+0+36)/4) = sqrt(12.5), CV sqrt(12.5)/4.
TEST(Summary, StepTimeDistributionAfterWarmup) {
  const Table e = epochs({{10.0, 100}, {10.0, 100}, {10.0, 100}});
  const Table s = steps({{1, 0.0, 10.0}, {2, 0.0, 1.0}, {2, 0.0, 2.0}, {2, 0.0, 3.0}, {2, 0.0, 4.0}, {3, 0.0, 10.0}});
  const Attrs a = summarize(e, s, SummaryInputs{});
  EXPECT_EQ(a.integer("measured_steps"), 5);
  EXPECT_DOUBLE_EQ(a.num("step_time_median_s"), 3.0);
  EXPECT_DOUBLE_EQ(a.num("step_time_iqr_s"), 2.0);
  EXPECT_NEAR(a.num("step_time_cv"), std::sqrt(12.5) / 4, 1e-12);
  const Attrs one = summarize(epochs({{4.0, 100}}), steps({{1, 0.0, 4.0}}), SummaryInputs{});
  EXPECT_TRUE(std::isnan(one.num("step_time_cv")));  // one step: no spread to speak of
}

// The target's attributes (summarize_target): where it was first reached, or NaN and the best.
TEST(Summary, TargetReachedAndNot) {
  const auto check = [](std::int64_t g, double v) {
    return scalebench::TargetCheck{.epoch = int(g / 10) + 1, .step = g % 10, .global_step = g, .epochs = double(g) / 10,
                                   .images = g * 8, .seconds = 0.5 * double(g), .value = v};
  };
  scalebench::TargetTracker t("val_miou", 0.5);
  for (auto [g, v] : {std::pair{5, 0.2}, {15, 0.5}, {20, 0.7}}) t.observe(check(g, v));
  Attrs s;
  summarize_target(t, s);
  EXPECT_EQ(s.str("target_metric"), "val_miou");
  EXPECT_EQ(s.num("target_value"), 0.5);
  EXPECT_EQ(s.integer("target_reached"), 1);
  EXPECT_EQ(s.num("steps_to_target"), 15);
  EXPECT_EQ(s.num("epochs_to_target"), 1.5);
  EXPECT_EQ(s.num("images_to_target"), 120);
  EXPECT_EQ(s.num("seconds_to_target"), 7.5);
  EXPECT_EQ(s.num("target_best"), 0.7);
  EXPECT_EQ(s.num("target_best_step"), 20);
  EXPECT_EQ(s.integer("target_checks"), 3);
  scalebench::TargetTracker never("val_accuracy", 0.9);
  for (auto [g, v] : {std::pair{4, 0.3}, {8, 0.8}, {12, 0.8}}) never.observe(check(g, v));
  Attrs n;
  summarize_target(never, n);
  EXPECT_EQ(n.integer("target_reached"), 0);
  EXPECT_TRUE(std::isnan(n.num("steps_to_target")));
  EXPECT_TRUE(std::isnan(n.num("epochs_to_target")));
  EXPECT_TRUE(std::isnan(n.num("seconds_to_target")));
  EXPECT_EQ(n.num("target_best"), 0.8);
  EXPECT_EQ(n.num("target_best_step"), 8);
  EXPECT_EQ(n.num("target_best_epochs"), 0.8);
  Attrs none;
  summarize_target(scalebench::TargetTracker(), none);
  EXPECT_TRUE(none.empty());
}
