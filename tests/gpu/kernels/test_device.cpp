// test_device.cpp — the device this gpu test binary runs on answers its properties, the runtime
// description names the runtime we built against, and the loaded cuDNN is the major version we built
// against.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "kernels/cuda/device.h"
#include "kernels/cudnn/version.h"

TEST(GpuDevice, DescribesDeviceZero) {
  const auto a = scalebench::cuda::device_availability();
  ASSERT_GT(a.count, 0) << a.reason;
  const std::string d = scalebench::cuda::device_description(0);
  EXPECT_NE(d.find("sm_"), std::string::npos) << d;
}

TEST(GpuDevice, LoadedCudnnMatchesHeaders) {
  const std::string v = scalebench::cudnn::loaded_version();
  EXPECT_EQ(v.substr(0, v.find('.')), std::to_string(CUDNN_MAJOR)) << v;
}

TEST(GpuDevice, RuntimeDescriptionNamesTheLinkedRuntime) {
  const std::string d = scalebench::cuda::runtime_description();
  // CUDART_VERSION is 1000 * major + 10 * minor of the runtime we built against (and linked).
  const std::string want = "CUDA runtime " + std::to_string(CUDART_VERSION / 1000) + "." +
                           std::to_string(CUDART_VERSION % 1000 / 10) + ", driver API ";
  EXPECT_EQ(d.rfind(want, 0), 0u) << d;
}
