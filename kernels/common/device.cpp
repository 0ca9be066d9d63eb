// device.cpp — what ComputeDevice does the same on every backend (see device.h).
#include "kernels/common/device.h"

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

}  // namespace scalebench
