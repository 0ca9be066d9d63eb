// stager.h — the CUDA DeviceStager's maker (models/cuda/stager.cpp), for the CUDA ComputeDevice.
// CUDA builds only. What it deliberately does not do: anything but make one.
#pragma once

#include <cuda_runtime.h>

#include <memory>

#include "kernels/common/device.h"

namespace scalebench {

// Copies for `device`, each ordered after the work queued on `compute` when it was asked for.
std::unique_ptr<DeviceStager> make_cuda_stager(int device, cudaStream_t compute, double timeout_s);

}  // namespace scalebench
