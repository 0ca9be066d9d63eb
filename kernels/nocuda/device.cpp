// device.cpp — kernels/cuda/device.h in a build without the CUDA backend (CMake compiles this folder
// only then): no CUDA device is usable, and the reason says why, so run-context capture and the GPU
// peak table need no build-time branch.
// What it deliberately does not do: pretend — naming or selecting a device fails with the reason.
#include "kernels/common/check.h"
#include "kernels/cuda/device.h"

namespace scalebench::cuda {

namespace {
constexpr const char* kNoCuda = "this build has no CUDA backend (configure with nvcc on PATH)";
}

DeviceAvailability device_availability() noexcept { return {0, kNoCuda}; }

std::string device_description(int) { fail_input(kNoCuda); }

std::string runtime_description() noexcept { return ""; }

DeviceGuard::DeviceGuard(int) { fail_input(kNoCuda); }
DeviceGuard::~DeviceGuard() = default;

}  // namespace scalebench::cuda
