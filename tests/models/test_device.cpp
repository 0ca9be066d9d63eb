// test_device.cpp — what ComputeDevice builds on its ops (kernels/common/device.cpp: to_host,
// scale(Tensor&), DeviceClock) on the CPU device, and make_device's choice; in a build without the
// CUDA backend asking for a cuda device fails with the line that says so. Each op itself, with its
// refusals: test_device_ops.cpp.
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/common/check.h"
#include "models/device.h"
#include "tests/common/harness_test_util.h"

namespace scalebench {
namespace {

using sbtest::error_of;

TEST(CpuDevice, HostCopiesAndTheClock) {
  auto d = make_device({.backend = Backend::cpu});
  EXPECT_TRUE(d->where().is_cpu());  // make_device's choice
  Tensor t = d->zeros({3});
  d->fill(t.f32(), 3, 1.5f);
  d->scale(t, 2.0f);
  const Tensor h = d->to_host(t);
  EXPECT_NE(h.raw(), t.raw());  // a copy
  EXPECT_EQ(std::vector<float>(h.f32(), h.f32() + 3), (std::vector<float>{3, 3, 3}));
  DeviceClock clock(*d);
  EXPECT_GE(clock.lap(), 0.0);
}

TEST(MakeDevice, CudaNeedsTheCudaBackendInTheBuild) {
  if (cuda_backend_built()) GTEST_SKIP() << "this build has the CUDA backend (the gpu tests make cuda devices)";
  EXPECT_EQ(error_of([] { make_device({.backend = Backend::cuda}); }),
            "--backend cuda: this build has no CUDA backend (configure with nvcc on PATH)");
}

}  // namespace
}  // namespace scalebench
