// test_cudnn_pool.cpp — cuDNN 2×2 stride-2 max pooling (kernels/cudnn/pooling.h) against the
// CPU reference (kernels/cpu/maxpool2x2.h) on odd planes (floor: last row/column dropped, its
// gradient 0) and even ones, NCHW and NHWC, f32 and bf16. Max pooling moves values without
// arithmetic, so results must be exact; inputs have distinct values in every window (no ties,
// where cuDNN and the CPU may route the gradient differently).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>

#include "kernels/cpu/maxpool2x2.h"
#include "kernels/cudnn/pooling.h"
#include "tests/common/gpu_test_util.h"

namespace scalebench::cudnn::test {
namespace {

// x [n, c, h, w] of multiples of 1/8 in [-16, 16) (exact in bf16), distinct within each 2×2 window.
std::vector<float> distinct_windows(int n, int c, int h, int w, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> k(-128, 127);
  std::vector<float> x(std::size_t(n) * c * h * w);
  for (auto& v : x) v = k(gen) / 8.0f;
  for (int pl = 0; pl < n * c; ++pl)
    for (int i = 0; i + 1 < h; i += 2)
      for (int j = 0; j + 1 < w; j += 2) {
        float* at[4] = {&x[(std::size_t(pl) * h + i) * w + j], &x[(std::size_t(pl) * h + i) * w + j + 1],
                        &x[(std::size_t(pl) * h + i + 1) * w + j], &x[(std::size_t(pl) * h + i + 1) * w + j + 1]};
        for (int a = 1; a < 4; ++a)
          while (std::any_of(at, at + a, [&](float* q) { return *q == *at[a]; })) *at[a] = k(gen) / 8.0f;
      }
  return x;
}

struct PoolShape {
  const char* name;
  int n, c, h, w;
};
const PoolShape kShapes[] = {{"odd7x9", 3, 5, 7, 9}, {"even8x6", 2, 3, 8, 6}};

using Param = std::tuple<int, Layout, DType>;

class CudnnMaxPool : public ::testing::TestWithParam<Param> {};

TEST_P(CudnnMaxPool, MatchesCpuReferenceExactly) {
  const auto [si, layout, dt] = GetParam();
  const auto [name, n, c, h, w] = kShapes[si];
  const int ho = h / 2, wo = w / 2;
  const auto x = distinct_windows(n, c, h, w, 31);
  const auto dy = rounded(random_vec(std::size_t(n) * c * ho * wo, 32), dt);
  std::vector<float> y_ref(dy.size()), dx_ref(x.size());
  std::vector<std::int32_t> argmax(dy.size());
  cpu::maxpool2x2_forward(n, c, h, w, x.data(), y_ref.data(), argmax.data());
  cpu::maxpool2x2_backward(n, c, h, w, dy.data(), argmax.data(), dx_ref.data());

  CudnnEnv env;
  const Pool2x2Spec spec{n, c, h, w, dt, layout};
  const DevBuf dx_in(to_layout(layout, x, n, c, h, w), dt, env.s());
  const DevBuf ddy(to_layout(layout, dy, n, c, ho, wo), dt, env.s());
  // NaN-filled: every element must be written.
  DevBuf y(dy.size(), dt, env.s()), dx(x.size(), dt, env.s());
  maxpool2x2_forward(env.handle, spec, dx_in.get(), y.get());
  maxpool2x2_backward(env.handle, spec, dx_in.get(), y.get(), ddy.get(), dx.get());

  EXPECT_EQ(from_layout(layout, y.download(env.s()), n, c, ho, wo), y_ref) << "forward";
  EXPECT_EQ(from_layout(layout, dx.download(env.s()), n, c, h, w), dx_ref) << "backward";
}

INSTANTIATE_TEST_SUITE_P(All, CudnnMaxPool,
                         ::testing::Combine(::testing::Values(0, 1), ::testing::Values(Layout::NCHW, Layout::NHWC),
                                            ::testing::Values(DType::f32, DType::bf16)),
                         [](const ::testing::TestParamInfo<Param>& i) {
                           return std::string(kShapes[std::get<0>(i.param)].name) + "_" +
                                  layout_name(std::get<1>(i.param)) + "_" + scalebench::to_string(std::get<2>(i.param));
                         });

}  // namespace
}  // namespace scalebench::cudnn::test
