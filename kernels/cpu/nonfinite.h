// nonfinite.h — the first non-finite element (NaN or ±inf) of a host f32 array: the one loop behind
// the CPU device's gradient scan, the training input check (--check-inputs) and the held-out input
// check. Not here: device arrays (ComputeDevice::first_nonfinite scans those where they live).
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/common/device.h"

namespace scalebench::cpu {

inline NonFinite first_nonfinite(const float* x, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return {i, x[i]};
  return {};
}

}  // namespace scalebench::cpu
