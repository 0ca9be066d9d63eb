// test_cuda_maxpool.cpp — our own 2×2/2 max pooling with its argmax (kernels/cuda/maxpool2x2.h)
// against the CPU reference (kernels/cpu/maxpool2x2.h, the specification), exactly: y, the argmax
// and dx, on odd planes (the last row/column in no window, its gradient 0) and even ones, NCHW and
// NHWC, f32, bf16 and f16. Inputs are drawn from few values, so most windows hold ties: the argmax
// must go to the first maximum in row-major order, as the CPU's. dx starts NaN-filled: every
// element must be written.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/cpu/maxpool2x2.h"
#include "kernels/cuda/maxpool2x2.h"
#include "tests/common/gpu_test_util.h"

namespace scalebench::cuda::test {
namespace {

// Values from {-1, -0.5, 0, 0.5, 1} (exact in every dtype): a 2×2 window ties often.
std::vector<float> tie_heavy(std::size_t count, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> k(-2, 2);
  std::vector<float> v(count);
  for (auto& x : v) x = k(gen) / 2.0f;
  return v;
}

struct PoolCase {
  const char* name;
  int n, c, h, w;
};
const PoolCase kCases[] = {{"odd7x9", 3, 5, 7, 9}, {"even8x6", 2, 3, 8, 6}, {"min2x3", 1, 3, 2, 3}};

using Param = std::tuple<Layout, DType>;

class OwnMaxPool : public CudaTest, public ::testing::WithParamInterface<Param> {};

TEST_P(OwnMaxPool, MatchesCpuReferenceExactlyTiesIncluded) {
  const auto [layout, dt] = GetParam();
  for (const PoolCase& pc : kCases) {
    SCOPED_TRACE(pc.name);
    const int n = pc.n, c = pc.c, h = pc.h, w = pc.w, ho = h / 2, wo = w / 2;
    const auto x = tie_heavy(std::size_t(n) * c * h * w, 91);
    const auto dy = rounded(random_vec(std::size_t(n) * c * ho * wo, 92), dt);
    std::vector<float> y_ref(dy.size()), dx_ref(x.size());
    std::vector<std::int32_t> am_ref(dy.size());
    cpu::maxpool2x2_forward(n, c, h, w, x.data(), y_ref.data(), am_ref.data());
    cpu::maxpool2x2_backward(n, c, h, w, dy.data(), am_ref.data(), dx_ref.data());

    const Pool2x2Shape shape{n, c, h, w, dt, layout};
    const DevBuf d_x(to_layout(layout, x, n, c, h, w), dt, s());
    const DevBuf d_dy(to_layout(layout, dy, n, c, ho, wo), dt, s());
    DevBuf d_y(dy.size(), dt, s()), d_dx(x.size(), dt, s());
    DeviceBuffer d_am(dy.size() * sizeof(std::int32_t));
    maxpool2x2_forward(shape, d_x.get(), d_y.get(), d_am.as<std::int32_t>(), s());
    maxpool2x2_backward(shape, d_dy.get(), d_am.as<std::int32_t>(), d_dx.get(), s());

    EXPECT_EQ(from_layout(layout, d_y.download(s()), n, c, ho, wo), y_ref) << "forward y";
    std::vector<std::int32_t> am = download<std::int32_t>(d_am.data(), am_ref.size(), s());
    if (layout == Layout::NHWC) am = nhwc_to_nchw(am, n, c, std::int64_t(ho) * wo);
    EXPECT_EQ(am, am_ref) << "argmax (ties to the first in row-major order)";
    EXPECT_EQ(from_layout(layout, d_dx.download(s()), n, c, h, w), dx_ref) << "backward dx";
  }
}

INSTANTIATE_TEST_SUITE_P(All, OwnMaxPool,
                         ::testing::Combine(::testing::Values(Layout::NCHW, Layout::NHWC),
                                            ::testing::Values(DType::f32, DType::bf16, DType::f16)),
                         [](const ::testing::TestParamInfo<Param>& i) {
                           return std::string(cudnn::layout_name(std::get<0>(i.param))) + "_" +
                                  scalebench::to_string(std::get<1>(i.param));
                         });

}  // namespace
}  // namespace scalebench::cuda::test
