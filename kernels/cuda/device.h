// device.h — what CUDA devices this process can use, asked without throwing: a machine with the
// toolkit but no driver or no GPU (this build machine, CI) answers 0 with the runtime's reason, so
// callers can say "skipped: <reason>" instead of failing; and DeviceGuard, which makes a device
// current for a scope. Plain C++ (no CUDA header). Not here: choosing a device for a rank (the
// transports do), resetting devices.
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

// "CUDA runtime 13.0, driver API 13.0": the runtime linked in and what the installed driver
// supports; "" when no device is usable (then nothing about the GPU is worth recording). Never throws.
std::string runtime_description() noexcept;

// Makes `device` current for the scope and restores the previous current device on exit (nothing
// changes when it is already current). Throws scalebench::Error when `device` cannot be made current;
// the restore never throws.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int prev_ = -1;
  bool changed_ = false;
};

}  // namespace scalebench::cuda
