// device.h — what CUDA devices this process can use, asked without throwing: a machine with the
// toolkit but no driver or no GPU (this build machine, CI) answers 0 with the runtime's reason, so
// callers can say "skipped: <reason>" instead of failing. Not here: selecting or resetting devices.
#pragma once

#include <string>

namespace scalebench::cuda {

struct DeviceAvailability {
  int count = 0;        // usable CUDA devices (0 when the driver or the devices are missing)
  std::string reason;   // why count is 0, from the CUDA runtime; empty when count > 0
};

DeviceAvailability device_availability() noexcept;

// "NVIDIA H100 80GB HBM3 (sm_90, 79.1 GiB)" for device k; throws scalebench::Error on a bad index.
std::string device_description(int k);

}  // namespace scalebench::cuda
