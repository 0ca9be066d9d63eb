// device.cpp — device_availability, device_description, runtime_description and DeviceGuard (see device.h).
// Not here: choosing a device for a rank, device memory (device_buffer.h).
#include "kernels/cuda/device.h"

#include "kernels/cuda/check.h"

namespace scalebench::cuda {

DeviceAvailability device_availability() noexcept {
  DeviceAvailability a;
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    a.reason = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e);
    (void)cudaGetLastError();  // clear the sticky error so later calls do not see it
    return a;
  }
  a.count = n;
  if (n == 0) a.reason = "cudaGetDeviceCount reports no CUDA devices";
  return a;
}

std::string device_description(int k) {
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, k));
  return fmt::format("{} (sm_{}{}, {:.1f} GiB)", p.name, p.major, p.minor,
                     double(p.totalGlobalMem) / double(1ull << 30));
}

std::string runtime_description() noexcept {
  if (device_availability().count == 0) return "";
  int runtime = 0, driver = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess || cudaDriverGetVersion(&driver) != cudaSuccess) {
    (void)cudaGetLastError();
    return "CUDA versions unknown";
  }
  // Codes are 1000 * major + 10 * minor.
  return fmt::format("CUDA runtime {}.{}, driver API {}.{}", runtime / 1000, runtime % 1000 / 10, driver / 1000,
                     driver % 1000 / 10);
}

DeviceGuard::DeviceGuard(int device) {
  if (cudaGetDevice(&prev_) != cudaSuccess) {
    (void)cudaGetLastError();
    prev_ = -1;
  }
  if (prev_ != device) {
    CUDA_CHECK(cudaSetDevice(device));
    changed_ = true;
  }
}

DeviceGuard::~DeviceGuard() {
  if (changed_ && prev_ >= 0) (void)cudaSetDevice(prev_);
}

}  // namespace scalebench::cuda
