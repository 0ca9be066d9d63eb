// test_metrics.cpp — ConfusionMatrix (harness/train/metrics.h) against counts worked out by hand:
// IoU per class, including a class only predicted (IoU 0), a class only labelled (IoU 0) and a class
// in neither (NaN, skipped by the mean); mean non-background IoU; accuracy; counts merged from
// shards (as ranks' counts would be) equal to counting everything at once; and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "harness/train/metrics.h"
#include "kernels/common/check.h"

using scalebench::ConfusionMatrix;

namespace {

// 10 pixels, 4 classes. Class 1: labelled and predicted; class 2: predicted, never labelled;
// class 3: in neither.
const std::vector<std::int32_t> kLabel = {0, 0, 0, 0, 1, 1, 1, 0, 0, 0};
const std::vector<std::int32_t> kPred = {0, 0, 1, 0, 1, 1, 0, 2, 2, 0};

ConfusionMatrix whole() {
  ConfusionMatrix m(4);
  m.add(kPred.data(), kLabel.data(), std::int64_t(kLabel.size()));
  return m;
}

}  // namespace

TEST(Metrics, ConfusionCountsByHand) {
  const ConfusionMatrix m = whole();
  // at(label, pred). Label 0 (7 pixels) → predicted 0, 0, 1, 0, 2, 2, 0; label 1 (3) → 1, 1, 0.
  EXPECT_EQ(m.at(0, 0), 4);
  EXPECT_EQ(m.at(0, 1), 1);
  EXPECT_EQ(m.at(0, 2), 2);
  EXPECT_EQ(m.at(1, 1), 2);
  EXPECT_EQ(m.at(1, 0), 1);
  std::int64_t total = 0;
  for (auto c : m.counts()) total += c;
  EXPECT_EQ(total, 10);
}

TEST(Metrics, IoUPerClassByHand) {
  const ConfusionMatrix m = whole();
  EXPECT_DOUBLE_EQ(m.iou(0), 4.0 / (4 + 1 + 3));  // tp 4, fp 1 (label 1 → 0), fn 3 (→ 1, 2, 2)
  EXPECT_DOUBLE_EQ(m.iou(1), 2.0 / (2 + 1 + 1));  // tp 2, fp 1, fn 1
  EXPECT_DOUBLE_EQ(m.iou(2), 0.0);                // predicted twice, never labelled: defined, 0
  EXPECT_TRUE(std::isnan(m.iou(3)));              // in neither labels nor predictions: undefined
  const auto all = m.iou_all();
  ASSERT_EQ(all.size(), 4u);
  EXPECT_DOUBLE_EQ(all[1], 0.5);
  EXPECT_TRUE(std::isnan(all[3]));
}

TEST(Metrics, MeanIoUSkipsBackgroundAndUndefinedClasses) {
  // Classes 1 and 2 count (0.5 and 0); background (0.5) and the undefined class 3 do not.
  EXPECT_DOUBLE_EQ(whole().mean_iou_non_background(), (0.5 + 0.0) / 2);
  // A class labelled but never predicted is 0 and counts too.
  ConfusionMatrix m(3);
  const std::int32_t label[] = {0, 1, 2, 2}, pred[] = {0, 1, 0, 0};
  m.add(pred, label, 4);
  EXPECT_DOUBLE_EQ(m.iou(2), 0.0);
  EXPECT_DOUBLE_EQ(m.mean_iou_non_background(), (1.0 + 0.0) / 2);
  // Only background anywhere: no non-background class is defined, so the mean is NaN (not 0).
  ConfusionMatrix bg(3);
  const std::int32_t zeros[] = {0, 0, 0};
  bg.add(zeros, zeros, 3);
  EXPECT_DOUBLE_EQ(bg.iou(0), 1.0);
  EXPECT_TRUE(std::isnan(bg.mean_iou_non_background()));
}

TEST(Metrics, AccuracyByHand) {
  EXPECT_DOUBLE_EQ(whole().accuracy(), 6.0 / 10);  // pixels 0, 1, 3, 4, 5, 9 are right
  EXPECT_TRUE(std::isnan(ConfusionMatrix(2).accuracy()));  // nothing counted
  ConfusionMatrix vgg(10);  // classification: one "pixel" per image
  const std::int32_t label[] = {3, 7, 7, 9}, pred[] = {3, 7, 1, 9};
  vgg.add(pred, label, 4);
  EXPECT_DOUBLE_EQ(vgg.accuracy(), 0.75);
}

TEST(Metrics, MergedShardsEqualOneCount) {
  // Two "ranks" count 6 and 4 of the pixels; merged, every count and metric equals the whole.
  ConfusionMatrix a(4), b(4);
  a.add(kPred.data(), kLabel.data(), 6);
  b.add(kPred.data() + 6, kLabel.data() + 6, 4);
  a.merge(b);
  const ConfusionMatrix w = whole();
  EXPECT_EQ(a.counts(), w.counts());
  EXPECT_DOUBLE_EQ(a.mean_iou_non_background(), w.mean_iou_non_background());
  EXPECT_DOUBLE_EQ(a.accuracy(), w.accuracy());
  // A shard's own IoU is not the whole's: rank b saw class 1 once and missed it (IoU 0, whole 0.5),
  // so ranks must merge counts, never average their IoUs.
  ConfusionMatrix only_b(4);
  only_b.add(kPred.data() + 6, kLabel.data() + 6, 4);
  EXPECT_DOUBLE_EQ(only_b.iou(1), 0.0);
  EXPECT_TRUE(std::isnan(only_b.iou(3)));
}

TEST(Metrics, BadInputsAreErrors) {
  ConfusionMatrix m(3), other(4);
  EXPECT_THROW(m.merge(other), scalebench::Error);
  const std::int32_t label[] = {3}, pred[] = {0};
  EXPECT_THROW(m.add(pred, label, 1), scalebench::Error);  // label out of range
  EXPECT_THROW(m.add(label, pred, 1), scalebench::Error);  // prediction out of range
  EXPECT_THROW(ConfusionMatrix(0), scalebench::Error);
}
