// micro_batch_norms.cpp — micro-batch gradient norms on the model's device (see micro_batch_norms.h).
#include "harness/strategy/micro_batch_norms.h"

namespace scalebench {
namespace {
double sq_norm(ComputeDevice& dev, const float* x, std::int64_t n) { return dev.sum_squares(x, {{0, n}}).front(); }
}  // namespace

void MicroBatchNorms::after_micro_batch(Model& model) {
  sum_sq_ += sq_norm(model.device(), model.grads().f32(), model.param_count());
  ++earlier_;
}

GradNorms MicroBatchNorms::finish(Model& model) {
  GradNorms out;
  if (earlier_ > 0) {
    ComputeDevice& dev = model.device();
    const std::int64_t n = model.param_count();
    const float* a = model.grads().f32();      // A = H + g_last / M
    const float* h = model.held_grads().f32();  // H = Σ earlier g_m / M
    const double aa = sq_norm(dev, a, n), hh = sq_norm(dev, h, n), ah = dev.dot(n, a, h);
    // |g_last / M|² = |A − H|², without a scratch copy of the arena. Each micro-batch gradient in
    // the arena is its mean-over-samples gradient / M, hence the M² below.
    const double last = std::max(0.0, aa - 2 * ah + hh);
    const double m = earlier_ + 1;
    out = {.small_sq = m * m * (sum_sq_ + last) / m, .big_sq = aa, .smalls = earlier_ + 1};
  }
  sum_sq_ = 0;
  earlier_ = 0;
  return out;
}

}  // namespace scalebench
