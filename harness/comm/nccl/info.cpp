// info.cpp — what the nccl transport reports about this process's GPU side (comm.h): the visible
// CUDA device count and the loaded NCCL library's version. Not here: choosing a device for a rank
// (world.cpp) or device memory (kernels/cuda/device_buffer.h).
#include <fmt/format.h>

#include "harness/comm/nccl/check.h"
#include "harness/comm/nccl/comm.h"
#include "kernels/cuda/device.h"

namespace scalebench::comm {

int cuda_device_count() noexcept { return cuda::device_availability().count; }

std::string nccl_version() {
  int v = 0;
  NCCL_CHECK(ncclGetVersion(&v));
  // Codes since 2.9 are MAJOR*10000 + MINOR*100 + PATCH; before, MAJOR*1000 + MINOR*100 + PATCH.
  if (v >= 10000) return fmt::format("{}.{}.{}", v / 10000, v / 100 % 100, v % 100);
  return fmt::format("{}.{}.{}", v / 1000, v / 100 % 10, v % 100);
}

}  // namespace scalebench::comm
