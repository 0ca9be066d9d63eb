// test_device.cpp — the CPU ComputeDevice (kernels/common/device.h), the specification the CUDA one
// is tested against (tests/gpu/models/test_training_cuda.cpp): its reductions and scan, its refusals
// (one line each), the 16-bit path of scale(Tensor&), and make_device's choice; in a build without
// the CUDA backend asking for a cuda device fails with the line that says so.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/common/check.h"
#include "models/device.h"
#include "tests/common/harness_test_util.h"

namespace scalebench {
namespace {

using sbtest::error_of;

TEST(CpuDevice, ReductionsAndScanOverSegments) {
  auto d = make_device({.backend = Backend::cpu});
  EXPECT_TRUE(d->where().is_cpu());
  EXPECT_EQ(d->gpu(), nullptr);
  std::vector<float> x{1, 2, 3, 4, 5};
  EXPECT_EQ(d->dot(5, x.data(), x.data()), 55.0);
  EXPECT_EQ(d->sum_squares(x.data(), {{0, 2}, {2, 3}}), (std::vector<double>{5.0, 50.0}));
  EXPECT_EQ(d->first_nonfinite(x.data(), 5).index, -1);
  x[3] = std::numeric_limits<float>::quiet_NaN();
  x[4] = std::numeric_limits<float>::infinity();
  const NonFinite nf = d->first_nonfinite(x.data(), 5);
  EXPECT_EQ(nf.index, 3);
  EXPECT_TRUE(std::isnan(nf.value));
  std::vector<float> y{1, 1, 1};
  d->axpy(3, 2.0f, x.data(), y.data());
  EXPECT_EQ(y, (std::vector<float>{3, 5, 7}));
}

TEST(CpuDevice, RefusesWhatTheCpuDoesNotComputeInOneLine) {
  auto d = make_device({.backend = Backend::cpu});
  EXPECT_NE(error_of([&] { d->zeros({1, 2, 3, 4}, DType::f32, Layout::NHWC); }).find("NCHW only"), std::string::npos);
  Tensor a = d->zeros({4}), b = d->zeros({4}, DType::bf16);
  EXPECT_NE(error_of([&] { d->convert(a, b); }).find("f32 NCHW only"), std::string::npos);
  Tensor c = d->zeros({5});
  EXPECT_NE(error_of([&] { d->copy(a, c); }).find("copy"), std::string::npos);
}

TEST(CpuDevice, HostCopiesAndTheClock) {
  auto d = make_device({.backend = Backend::cpu});
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
