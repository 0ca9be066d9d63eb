// device.cpp — what ComputeDevice does the same on every backend (see device.h).
#include "kernels/common/device.h"

#include <limits>

#include "kernels/common/check.h"

namespace scalebench {

void ComputeDevice::scale(Tensor& t, float s) {
  if (t.dtype() == DType::f32) return scale(t.f32(), t.numel(), s);
  Tensor f = zeros(t.shape(), DType::f32, t.layout());  // 16-bit: widen, scale, round once
  convert(t, f);
  scale(f.f32(), f.numel(), s);
  convert(f, t);
  synchronize();  // f is freed on return; the queued conversion must be done with it
}

Tensor ComputeDevice::to_host(const Tensor& t) {
  Tensor h = Tensor::zeros(t.shape());
  download(t, h);
  return h;
}

// A device without a queued loss (loss_lag() 0) has nothing pending, and no captured step to split
// its loss for.
double ComputeDevice::softmax_xent_last() { return std::numeric_limits<double>::quiet_NaN(); }
void ComputeDevice::softmax_xent_stage(const std::int32_t*, std::int64_t) {
  SB_CHECK(false, "softmax_xent_stage: this device has no captured step");
}
void ComputeDevice::softmax_xent_compute(const Tensor&, const std::vector<float>&, Tensor*) {
  SB_CHECK(false, "softmax_xent_compute: this device has no captured step");
}
double ComputeDevice::softmax_xent_publish() {
  SB_CHECK(false, "softmax_xent_publish: this device has no captured step");
  return 0;
}

}  // namespace scalebench
