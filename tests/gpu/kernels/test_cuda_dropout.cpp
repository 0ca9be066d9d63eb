// test_cuda_dropout.cpp — GPU dropout draws kernels/cpu/dropout.h's mask bit for bit: same mask and
// output for several p, with an index offset (a rank's slice of a global batch), a bf16 activation
// variant, and the backward.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/cpu/dropout.h"
#include "kernels/cuda/dropout.h"
#include "tests/common/gpu_test_util.h"

namespace scalebench::cuda::test {
namespace {

using DropoutTest = CudaTest;

constexpr std::int64_t kCount = 3 * 5 * 7 * 9;

TEST_F(DropoutTest, MaskAndOutputAreBitIdenticalToCpu) {
  const std::vector<float> x = random_vec(kCount, 81);
  DeviceBuffer dx = upload(x, s()), dy(kCount * 4), dmask(kCount * 4);
  for (const float p : {0.0f, 0.1f, 0.5f, 0.9f})
    for (const std::int64_t offset : {std::int64_t(0), std::int64_t(12345), std::int64_t(1) << 40}) {
      const std::uint64_t seed = 0x5eed0000ull + std::uint64_t(p * 100);
      std::vector<float> y(kCount), mask(kCount);
      cpu::dropout_forward(kCount, p, seed, x.data(), y.data(), mask.data(), offset);
      dropout_forward(kCount, p, seed, DType::f32, dx.data(), dy.data(), dmask.as<float>(), offset, s());
      EXPECT_EQ(download<float>(dmask.data(), kCount, s()), mask) << "p " << p << " offset " << offset;
      EXPECT_EQ(download<float>(dy.data(), kCount, s()), y) << "p " << p << " offset " << offset;
    }
}

TEST_F(DropoutTest, OffsetSliceEqualsTheWholeBatchMask) {
  const std::vector<float> x = random_vec(kCount, 82);
  DeviceBuffer dx = upload(x, s()), dy(kCount * 4), whole(kCount * 4), part(kCount * 4);
  dropout_forward(kCount, 0.3f, 99, DType::f32, dx.data(), dy.data(), whole.as<float>(), 0, s());
  const std::int64_t k = 100;  // rank holding elements [k, count)
  dropout_forward(kCount - k, 0.3f, 99, DType::f32, dx.as<float>() + k, dy.data(), part.as<float>(), k, s());
  const auto w = download<float>(whole.data(), kCount, s());
  const auto pt = download<float>(part.data(), kCount - k, s());
  EXPECT_EQ(std::vector<float>(w.begin() + k, w.end()), pt);
}

TEST_F(DropoutTest, Bf16ActivationsUseTheSameMask) {
  const std::vector<float> x = rounded(random_vec(kCount, 83), DType::bf16);
  std::vector<float> y(kCount), mask(kCount);
  cpu::dropout_forward(kCount, 0.25f, 7, x.data(), y.data(), mask.data());
  DeviceBuffer dx = to_device(x, DType::bf16, s()), dy(kCount * 2), dmask(kCount * 4);
  dropout_forward(kCount, 0.25f, 7, DType::bf16, dx.data(), dy.data(), dmask.as<float>(), 0, s());
  EXPECT_EQ(download<float>(dmask.data(), kCount, s()), mask);
  EXPECT_EQ(to_host(dy.data(), kCount, DType::bf16, s()), rounded(y, DType::bf16));
}

TEST_F(DropoutTest, BackwardMatchesCpu) {
  const std::vector<float> dy = random_vec(kCount, 84);
  std::vector<float> x(kCount, 1.0f), y(kCount), mask(kCount), want(kCount);
  cpu::dropout_forward(kCount, 0.4f, 3, x.data(), y.data(), mask.data());
  cpu::dropout_backward(kCount, dy.data(), mask.data(), want.data());
  DeviceBuffer ddy = upload(dy, s()), dmask = upload(mask, s()), ddx(kCount * 4);
  dropout_backward(kCount, DType::f32, ddy.data(), dmask.as<float>(), ddx.data(), s());
  EXPECT_EQ(download<float>(ddx.data(), kCount, s()), want);
}

}  // namespace
}  // namespace scalebench::cuda::test
