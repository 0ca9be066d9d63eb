// nonfinite.h — the first non-finite element (NaN or ±inf) of a host f32 array: the one loop behind
// the CPU device's gradient scan, the training input check (--check-inputs) and the held-out input
// check. Not here: device arrays (ComputeDevice::first_nonfinite scans those where they live).
#pragma once

#include <cstdint>

#include "kernels/common/device.h"

namespace scalebench::cpu {

// Scans blocks with a branch-free test of the exponent bits (all ones: inf or NaN) that vectorises,
// and looks for the exact index only inside a block that has one; a loop that returns at the first
// hit cannot vectorise, and the gradient scan runs every step over every parameter.
NonFinite first_nonfinite(const float* x, std::int64_t n);

}  // namespace scalebench::cpu
