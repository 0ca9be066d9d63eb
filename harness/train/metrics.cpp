// metrics.cpp — IoU and accuracy from confusion counts.
#include "harness/train/metrics.h"

#include <cmath>
#include <limits>

#include "kernels/common/check.h"

namespace scalebench {

ConfusionMatrix::ConfusionMatrix(int classes) : classes_(classes), m_(std::size_t(classes) * classes, 0) {
  SB_CHECK(classes >= 1, "confusion matrix needs >= 1 class");
}

void ConfusionMatrix::add(const std::int32_t* pred, const std::int32_t* label, std::int64_t count) {
  for (std::int64_t i = 0; i < count; ++i) {
    SB_CHECK(label[i] >= 0 && label[i] < classes_ && pred[i] >= 0 && pred[i] < classes_,
             "class out of range: label {} pred {}", label[i], pred[i]);
    ++m_[std::size_t(label[i]) * classes_ + pred[i]];
  }
}

void ConfusionMatrix::merge(const ConfusionMatrix& o) {
  SB_CHECK(o.classes_ == classes_, "merging {}-class and {}-class matrices", o.classes_, classes_);
  for (std::size_t i = 0; i < m_.size(); ++i) m_[i] += o.m_[i];
}

double ConfusionMatrix::iou(int c) const {
  std::int64_t tp = at(c, c), fp = 0, fn = 0;
  for (int k = 0; k < classes_; ++k) {
    if (k == c) continue;
    fp += at(k, c);
    fn += at(c, k);
  }
  const std::int64_t denom = tp + fp + fn;
  return denom == 0 ? std::numeric_limits<double>::quiet_NaN() : double(tp) / double(denom);
}

std::vector<double> ConfusionMatrix::iou_all() const {
  std::vector<double> out;
  for (int c = 0; c < classes_; ++c) out.push_back(iou(c));
  return out;
}

double ConfusionMatrix::mean_iou_non_background() const {
  double sum = 0;
  int n = 0;
  for (int c = 1; c < classes_; ++c) {
    const double v = iou(c);
    if (!std::isnan(v)) sum += v, ++n;
  }
  return n ? sum / n : std::numeric_limits<double>::quiet_NaN();
}

double ConfusionMatrix::accuracy() const {
  std::int64_t correct = 0, total = 0;
  for (int c = 0; c < classes_; ++c)
    for (int k = 0; k < classes_; ++k) (c == k ? correct : total) += at(c, k);
  total += correct;
  return total ? double(correct) / double(total) : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace scalebench
