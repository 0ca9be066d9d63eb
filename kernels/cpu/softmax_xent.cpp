// softmax_xent.cpp — softmax cross-entropy over NCHW logits [n, classes, hw] with int32 labels
// [n, hw], optionally class-weighted (PyTorch CrossEntropyLoss(weight=...), reduction 'mean').
// Works one image at a time with per-pixel max / log-sum-exp in double, looping over class rows so
// every inner loop is contiguous in hw; the exponentials are kept for the gradient. No ignore_index and no label smoothing.
// If every target has class weight 0 the weighted mean is 0/0 (PyTorch gives NaN); here the loss
// and the gradient are 0 so one such batch cannot poison training.
#include "kernels/cpu/softmax_xent.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <vector>

#include "kernels/common/check.h"

namespace scalebench::cpu {

double softmax_xent(const SoftmaxXentParams& p, const float* logits, const std::int32_t* labels,
                    const float* class_weights, float* dlogits) {
  SB_CHECK(p.n > 0 && p.classes > 0 && p.hw > 0, "softmax_xent: bad sizes n={} classes={} hw={}", p.n, p.classes,
           p.hw);
  const std::size_t hw = std::size_t(p.hw), img = std::size_t(p.classes) * hw;
  const std::size_t total = std::size_t(p.n) * hw;

  // Pass 1: validate labels and sum the weights that form the mean's denominator.
  double weight_sum = 0.0;
  for (std::size_t i = 0; i < total; ++i) {
    const std::int32_t y = labels[i];
    SB_CHECK(y >= 0 && y < p.classes, "softmax_xent: label {} at position {} (sample {}, pixel {}) outside [0, {})",
             y, i, i / hw, i % hw, p.classes);
    weight_sum += class_weights ? class_weights[y] : 1.0;
  }
  if (weight_sum == 0.0) {
    if (dlogits) std::memset(dlogits, 0, sizeof(float) * p.n * img);
    return 0.0;
  }

  thread_local std::vector<double> mx;   // [hw] per image: max over classes
  thread_local std::vector<double> sum;  // [hw] Σ_c exp(x_c − max)
  thread_local std::vector<double> e;    // [classes, hw] exp(x_c − max), reused by the gradient
  mx.resize(hw);
  sum.resize(hw);
  e.resize(img);
  double loss = 0.0;
  for (int n = 0; n < p.n; ++n) {
    const float* x = logits + n * img;
    const std::int32_t* lab = labels + n * hw;
    for (std::size_t s = 0; s < hw; ++s) mx[s] = x[s];
    for (int c = 1; c < p.classes; ++c)
      for (std::size_t s = 0; s < hw; ++s) mx[s] = std::max(mx[s], double(x[c * hw + s]));
    std::fill(sum.begin(), sum.end(), 0.0);
    for (int c = 0; c < p.classes; ++c)
      for (std::size_t s = 0; s < hw; ++s) {
        e[c * hw + s] = std::exp(x[c * hw + s] - mx[s]);
        sum[s] += e[c * hw + s];
      }
    for (std::size_t s = 0; s < hw; ++s) {
      // nll = log Σ exp(x_c) − x_y = max + log(sum) − x_y
      const double w = class_weights ? class_weights[lab[s]] : 1.0;
      loss += w * (mx[s] + std::log(sum[s]) - x[lab[s] * hw + s]);
    }
    if (!dlogits) continue;
    // d loss / d x_c = w_y / Σw · (softmax_c − [c == y]); sum[s] becomes the per-pixel scale.
    for (std::size_t s = 0; s < hw; ++s) sum[s] = 1.0 / sum[s];
    float* d = dlogits + n * img;
    for (int c = 0; c < p.classes; ++c)
      for (std::size_t s = 0; s < hw; ++s) {
        const double w = class_weights ? class_weights[lab[s]] : 1.0;
        const double g = e[c * hw + s] * sum[s] - (lab[s] == c ? 1.0 : 0.0);
        d[c * hw + s] = static_cast<float>(g * w / weight_sum);
      }
  }
  return loss / weight_sum;
}

void argmax_classes(const SoftmaxXentParams& p, const float* logits, std::int32_t* pred) {
  SB_CHECK(p.n > 0 && p.classes > 0 && p.hw > 0, "argmax_classes: bad sizes n={} classes={} hw={}", p.n,
           p.classes, p.hw);
  const std::size_t hw = std::size_t(p.hw), img = std::size_t(p.classes) * hw;
  for (int n = 0; n < p.n; ++n) {
    const float* x = logits + n * img;
    std::int32_t* out = pred + n * hw;
    for (std::size_t s = 0; s < hw; ++s) {
      float best = x[s];
      std::int32_t arg = 0;
      for (int c = 1; c < p.classes; ++c)
        if (x[c * hw + s] > best) {  // strict: ties stay with the lower class
          best = x[c * hw + s];
          arg = c;
        }
      out[s] = arg;
    }
  }
}

}  // namespace scalebench::cpu
