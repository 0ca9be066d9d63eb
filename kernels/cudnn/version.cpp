// version.cpp — the cuDNN version this process loaded (for run files' /context), e.g. "9.19.0".
// Not here: the header version checks (tests/gpu/kernels/test_device.cpp compares the two).
#include "kernels/cudnn/version.h"

#include <cudnn.h>

#include <fmt/format.h>

namespace scalebench::cudnn {

std::string loaded_version() {
  const std::size_t v = cudnnGetVersion();  // major*10000 + minor*100 + patch (cuDNN 9)
  return fmt::format("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100);
}

}  // namespace scalebench::cudnn
