// test_cudnn_conv2d.cpp — cuDNN convolution (kernels/cudnn/conv2d.h) against the CPU
// reference (kernels/cpu/conv2d.h, no bias: the layers add it with kernels/cuda/bias_act.h, tested
// in test_cuda_bias_act.cpp) on odd shapes, for NCHW and NHWC (compared after transposing
// back) at fp32 (FMA math), tf32 and bf16; plus the algorithm cache (a second call does not run
// Find again), deterministic mode (two backward-filter runs bit-identical) and a zero workspace cap.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "kernels/cpu/conv2d.h"
#include "kernels/cudnn/conv2d.h"
#include "tests/common/gpu_test_util.h"

namespace scalebench::cudnn::test {
namespace {

struct Shape {
  const char* name;
  Conv2dParams p;
};
// n=3, c_in=5, 7×9, c_out=6, 3×3 pad 1 (the brief's odd shape); and a strided one with odd sizes.
const Shape kShapes[] = {
    {"k3pad1", {3, 5, 7, 9, 6, 3, 3, 1, 1}},
    {"k3stride2", {2, 3, 9, 7, 4, 3, 3, 2, 1}},
};

using Param = std::tuple<int, Layout, Precision>;  // shape index, layout, precision

class CudnnConv2d : public ::testing::TestWithParam<Param> {};

TEST_P(CudnnConv2d, MatchesCpuReference) {
  const auto [si, layout, prec] = GetParam();
  const Conv2dParams p = kShapes[si].p;
  const DType dt = data_dtype(prec);
  const Conv2dSpec spec{p, dt, layout, prec, false};
  const int ho = p.h_out(), wo = p.w_out();
  const std::size_t nx = std::size_t(p.n) * p.c_in * p.h_in * p.w_in;
  const std::size_t nw = std::size_t(p.c_out) * p.c_in * p.k_h * p.k_w;
  const std::size_t ny = std::size_t(p.n) * p.c_out * ho * wo;
  // The reference sees exactly the values the device buffers hold.
  const auto x = rounded(random_vec(nx, 1), dt), w = rounded(random_vec(nw, 2), dt),
             dy = rounded(random_vec(ny, 4), dt);
  std::vector<float> y_ref(ny), dx_ref(nx), dw_ref(nw);
  cpu::conv2d_forward_ref(p, x.data(), w.data(), nullptr, y_ref.data());
  cpu::conv2d_backward_data_ref(p, dy.data(), w.data(), dx_ref.data());
  cpu::conv2d_backward_filter_ref(p, x.data(), dy.data(), dw_ref.data(), nullptr);

  CudnnEnv env;
  const DevBuf dx_in(to_layout(layout, x, p.n, p.c_in, p.h_in, p.w_in), dt, env.s());
  const DevBuf dw_in(to_layout(layout, w, p.c_out, p.c_in, p.k_h, p.k_w), dt, env.s());  // KCRS or KRSC
  const DevBuf ddy(to_layout(layout, dy, p.n, p.c_out, ho, wo), dt, env.s());
  DevBuf y(ny, dt, env.s()), dx(nx, dt, env.s()), dw(nw, dt, env.s());

  conv2d_forward(env.ctx(), spec, dx_in.get(), dw_in.get(), y.get());
  conv2d_backward_data(env.ctx(), spec, ddy.get(), dw_in.get(), dx.get());
  conv2d_backward_filter(env.ctx(), spec, dx_in.get(), ddy.get(), dw.get());

  const double tol = tolerance(prec);
  EXPECT_LE(max_rel_err(from_layout(layout, y.download(env.s()), p.n, p.c_out, ho, wo), y_ref), tol) << "forward";
  EXPECT_LE(max_rel_err(from_layout(layout, dx.download(env.s()), p.n, p.c_in, p.h_in, p.w_in), dx_ref), tol)
      << "backward data";
  EXPECT_LE(max_rel_err(from_layout(layout, dw.download(env.s()), p.c_out, p.c_in, p.k_h, p.k_w), dw_ref), tol)
      << "backward filter";
  EXPECT_EQ(env.algos.find_calls(), 3u);
}

INSTANTIATE_TEST_SUITE_P(All, CudnnConv2d,
                         ::testing::Combine(::testing::Values(0, 1), ::testing::Values(Layout::NCHW, Layout::NHWC),
                                            ::testing::Values(Precision::fp32, Precision::tf32, Precision::bf16)),
                         [](const ::testing::TestParamInfo<Param>& i) {
                           return std::string(kShapes[std::get<0>(i.param)].name) + "_" +
                                  layout_name(std::get<1>(i.param)) + "_" + to_string(std::get<2>(i.param));
                         });

// A small fp32 problem on the device, for the cache and determinism tests.
struct Problem {
  Conv2dParams p;
  Conv2dSpec spec;
  DevBuf x, w, y, dy;
  Problem(CudnnEnv& env, Conv2dParams pp, bool deterministic, Precision prec = Precision::fp32)
      : p(pp),
        spec{pp, data_dtype(prec), Layout::NCHW, prec, deterministic},
        x(random_vec(std::size_t(pp.n) * pp.c_in * pp.h_in * pp.w_in, 11), data_dtype(prec), env.s()),
        w(random_vec(std::size_t(pp.c_out) * pp.c_in * pp.k_h * pp.k_w, 12), data_dtype(prec), env.s()),
        y(std::size_t(pp.n) * pp.c_out * pp.h_out() * pp.w_out(), data_dtype(prec), env.s()),
        dy(random_vec(std::size_t(pp.n) * pp.c_out * pp.h_out() * pp.w_out(), 13), data_dtype(prec), env.s()) {}
  std::size_t nw() const { return std::size_t(p.c_out) * p.c_in * p.k_h * p.k_w; }
};

TEST(CudnnConvAlgoCache, SecondCallReusesTheChoiceWithoutFind) {
  CudnnEnv env;
  Problem pr(env, {3, 5, 7, 9, 6, 3, 3, 1, 1}, false);
  EXPECT_EQ(env.algos.find_calls(), 0u);
  EXPECT_FALSE(env.algos.lookup(ConvDir::forward, conv_key(pr.spec)).has_value());

  conv2d_forward(env.ctx(), pr.spec, pr.x.get(), pr.w.get(), pr.y.get());
  ASSERT_EQ(env.algos.find_calls(), 1u);
  const auto first = env.algos.lookup(ConvDir::forward, conv_key(pr.spec));
  ASSERT_TRUE(first.has_value());
  const auto y1 = pr.y.download(env.s());

  conv2d_forward(env.ctx(), pr.spec, pr.x.get(), pr.w.get(), pr.y.get());
  EXPECT_EQ(env.algos.find_calls(), 1u) << "the second call ran Find again";
  EXPECT_EQ(env.algos.lookup(ConvDir::forward, conv_key(pr.spec)), first);
  EXPECT_EQ(pr.y.download(env.s()), y1);
  EXPECT_EQ(env.algos.size(), 1u);

  // Another direction or precision is another entry; a fresh cache starts empty.
  DevBuf dx(std::size_t(3) * 5 * 7 * 9, DType::f32, env.s());
  conv2d_backward_data(env.ctx(), pr.spec, pr.dy.get(), pr.w.get(), dx.get());
  EXPECT_EQ(env.algos.find_calls(), 2u);
  Conv2dSpec tf32 = pr.spec;
  tf32.precision = Precision::tf32;
  conv2d_forward(env.ctx(), tf32, pr.x.get(), pr.w.get(), pr.y.get());
  EXPECT_EQ(env.algos.find_calls(), 3u);
  EXPECT_EQ(env.algos.size(), 3u);
  env.algos.clear();
  EXPECT_EQ(env.algos.size(), 0u);
  conv2d_forward(env.ctx(), pr.spec, pr.x.get(), pr.w.get(), pr.y.get());
  EXPECT_EQ(env.algos.find_calls(), 4u);
}

// Large enough that cuDNN has non-deterministic (atomic-accumulating) backward-filter candidates.
TEST(CudnnConvDeterministic, BackwardFilterTwiceIsBitIdentical) {
  CudnnEnv env;
  Problem pr(env, {8, 32, 33, 31, 32, 3, 3, 1, 1}, true);
  DevBuf dw1(pr.nw(), DType::f32, env.s()), dw2(pr.nw(), DType::f32, env.s());
  conv2d_backward_filter(env.ctx(), pr.spec, pr.x.get(), pr.dy.get(), dw1.get());
  conv2d_backward_filter(env.ctx(), pr.spec, pr.x.get(), pr.dy.get(), dw2.get());
  const auto choice = env.algos.lookup(ConvDir::backward_filter, conv_key(pr.spec));
  ASSERT_TRUE(choice.has_value());
  EXPECT_TRUE(choice->deterministic) << "algo " << choice->algo;
  EXPECT_EQ(dw1.raw(env.s()), dw2.raw(env.s()));
  EXPECT_EQ(env.algos.find_calls(), 1u);
}

// With no workspace at all cuDNN still has a zero-workspace forward (implicit GEMM); the choice
// must respect the cap and still compute the right answer.
TEST(CudnnWorkspace, ZeroCapStillConvolvesCorrectly) {
  CudnnEnv env(0);
  const Conv2dParams p{3, 5, 7, 9, 6, 3, 3, 1, 1};
  Problem pr(env, p, false);
  conv2d_forward(env.ctx(), pr.spec, pr.x.get(), pr.w.get(), pr.y.get());
  const auto choice = env.algos.lookup(ConvDir::forward, conv_key(pr.spec));
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(choice->workspace_bytes, 0u);
  std::vector<float> ref(std::size_t(p.n) * p.c_out * p.h_out() * p.w_out());
  const auto x = random_vec(std::size_t(p.n) * p.c_in * p.h_in * p.w_in, 11);
  const auto w = random_vec(std::size_t(p.c_out) * p.c_in * p.k_h * p.k_w, 12);
  cpu::conv2d_forward_ref(p, x.data(), w.data(), nullptr, ref.data());
  EXPECT_LE(max_rel_err(pr.y.download(env.s()), ref), tolerance(Precision::fp32));
}

TEST(CudnnConv2dSpec, RejectsPrecisionDtypeMismatch) {
  const Conv2dSpec bad{{1, 1, 4, 4, 1, 3, 3, 1, 1}, DType::f32, Layout::NCHW, Precision::bf16, false};
  EXPECT_THROW(conv_key(bad), Error);
}

}  // namespace
}  // namespace scalebench::cudnn::test
