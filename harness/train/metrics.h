// metrics.h — confusion counts and what the results report from them: IoU per class, mean IoU
// over the non-background classes (class 0 is background in segmentation), accuracy.
// Counts are int64 so a whole validation set of 128² images cannot overflow.
#pragma once

#include <cstdint>
#include <vector>

namespace scalebench {

class ConfusionMatrix {
 public:
  explicit ConfusionMatrix(int classes);
  void add(const std::int32_t* pred, const std::int32_t* label, std::int64_t count);
  void merge(const ConfusionMatrix& other);
  int classes() const { return classes_; }
  std::int64_t at(int label, int pred) const { return m_[std::size_t(label) * classes_ + pred]; }
  // tp / (tp + fp + fn); NaN when the class never occurs in labels or predictions.
  double iou(int c) const;
  std::vector<double> iou_all() const;
  double mean_iou_non_background() const;  // mean over classes 1..C-1 that are defined
  double accuracy() const;
  const std::vector<std::int64_t>& counts() const { return m_; }

 private:
  int classes_;
  std::vector<std::int64_t> m_;  // [label, pred]
};

}  // namespace scalebench
