// test_cudnn_batchnorm.cpp — cuDNN spatial batch norm (kernels/cudnn/batchnorm.h) against the
// CPU reference (kernels/cpu/batchnorm.h): training forward (y, saved mean / inverse std, running
// mean and the running variance's unbiased convention), eval forward and backward, NCHW and NHWC,
// f32 and bf16 data (statistics and parameters are f32 in both).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>

#include "kernels/cpu/batchnorm.h"
#include "kernels/cudnn/batchnorm.h"
#include "tests/common/gpu_test_util.h"

namespace scalebench::cudnn::test {
namespace {

// Per-channel statistics are f32 for every data type; with bf16 data they see bf16-rounded inputs
// the reference also sees, so they stay at f32 accuracy except for the reduction order.
double data_tol(DType t) { return t == DType::bf16 ? 2e-2 : 2e-5; }
constexpr double kStatTol = 2e-5;

using Param = std::tuple<Layout, DType>;

class CudnnBatchNorm : public ::testing::TestWithParam<Param> {};

TEST_P(CudnnBatchNorm, MatchesCpuReference) {
  const auto [layout, dt] = GetParam();
  const int n = 3, c = 5, h = 7, w = 9;
  BatchNormParams p;
  p.n = n, p.c = c, p.hw = h * w, p.eps = 1e-5f, p.momentum = 0.1f;
  const BatchNormSpec spec{p, dt, layout};
  const std::size_t nx = std::size_t(n) * c * h * w;
  auto x = random_vec(nx, 41, -1.0f, 2.0f);  // a non-zero mean per channel
  x = rounded(x, dt);
  const auto dy = rounded(random_vec(nx, 42), dt);
  const auto gamma = random_vec(c, 43, 0.5f, 1.5f), beta = random_vec(c, 44);
  const auto rm0 = random_vec(c, 45), rv0 = random_vec(c, 46, 0.5f, 2.0f);

  std::vector<float> y_ref(nx), sm_ref(c), si_ref(c), rm_ref = rm0, rv_ref = rv0, ye_ref(nx), dx_ref(nx), dg_ref(c),
      dbt_ref(c);
  cpu::batchnorm_forward_train(p, x.data(), gamma.data(), beta.data(), y_ref.data(), sm_ref.data(), si_ref.data(),
                               rm_ref.data(), rv_ref.data());
  cpu::batchnorm_forward_eval(p, x.data(), gamma.data(), beta.data(), rm0.data(), rv0.data(), ye_ref.data());
  cpu::batchnorm_backward(p, x.data(), dy.data(), gamma.data(), sm_ref.data(), si_ref.data(), dx_ref.data(),
                          dg_ref.data(), dbt_ref.data());

  CudnnEnv env;
  // x and friends are [n, c, h·w]; NHWC stores them [n, h·w, c].
  const DevBuf d_x(to_layout(layout, x, n, c, h * w, 1), dt, env.s());
  const DevBuf d_dy(to_layout(layout, dy, n, c, h * w, 1), dt, env.s());
  const DevBuf d_g(gamma, DType::f32, env.s()), d_b(beta, DType::f32, env.s());
  const DevBuf d_rm0(rm0, DType::f32, env.s()), d_rv0(rv0, DType::f32, env.s());
  DevBuf d_rm(rm0, DType::f32, env.s()), d_rv(rv0, DType::f32, env.s());
  DevBuf d_y(nx, dt, env.s()), d_ye(nx, dt, env.s()), d_dx(nx, dt, env.s());
  DevBuf d_sm(c, DType::f32, env.s()), d_si(c, DType::f32, env.s()), d_dg(c, DType::f32, env.s()),
      d_dbt(c, DType::f32, env.s());

  batchnorm_forward_train(env.handle, spec, d_x.get(), d_g.f32(), d_b.f32(), d_y.get(), d_sm.f32(), d_si.f32(),
                          d_rm.f32(), d_rv.f32());
  batchnorm_forward_eval(env.handle, spec, d_x.get(), d_g.f32(), d_b.f32(), d_rm0.f32(), d_rv0.f32(), d_ye.get());
  batchnorm_backward(env.handle, spec, d_x.get(), d_dy.get(), d_g.f32(), d_sm.f32(), d_si.f32(), d_dx.get(),
                     d_dg.f32(), d_dbt.f32());

  const double tol = data_tol(dt);
  auto back = [&](const DevBuf& b) { return from_layout(layout, b.download(env.s()), n, c, h * w, 1); };
  EXPECT_LE(max_rel_err(back(d_y), y_ref), tol) << "train forward y";
  EXPECT_LE(max_rel_err(d_sm.download(env.s()), sm_ref), kStatTol) << "saved mean";
  EXPECT_LE(max_rel_err(d_si.download(env.s()), si_ref), kStatTol) << "saved inverse std";
  EXPECT_LE(max_rel_err(d_rm.download(env.s()), rm_ref), kStatTol) << "running mean";
  EXPECT_LE(max_rel_err(d_rv.download(env.s()), rv_ref), kStatTol) << "running variance";
  EXPECT_LE(max_rel_err(back(d_ye), ye_ref), tol) << "eval forward y";
  EXPECT_LE(max_rel_err(back(d_dx), dx_ref), tol) << "backward dx";
  EXPECT_LE(max_rel_err(d_dg.download(env.s()), dg_ref), kStatTol * 10) << "backward dgamma";
  EXPECT_LE(max_rel_err(d_dbt.download(env.s()), dbt_ref), kStatTol * 10) << "backward dbeta";
}

INSTANTIATE_TEST_SUITE_P(All, CudnnBatchNorm,
                         ::testing::Combine(::testing::Values(Layout::NCHW, Layout::NHWC),
                                            ::testing::Values(DType::f32, DType::bf16)),
                         [](const ::testing::TestParamInfo<Param>& i) {
                           return std::string(layout_name(std::get<0>(i.param))) + "_" +
                                  scalebench::to_string(std::get<1>(i.param));
                         });

// The convention check on its own, where biased and unbiased differ by 4/3: momentum 1 makes the
// running variance the batch's variance, and four values per channel make count/(count − 1) = 4/3.
TEST(CudnnBatchNormConvention, RunningVarianceIsUnbiasedAndMomentumIsTheNewWeight) {
  BatchNormParams p;
  p.n = 2, p.c = 2, p.hw = 2, p.eps = 1e-5f, p.momentum = 1.0f;
  // channel 0: {1, 2, 3, 4} (mean 2.5, biased var 1.25, unbiased 5/3); channel 1: {0, 0, 2, 2}.
  const std::vector<float> x = {1, 2, 0, 0, 3, 4, 2, 2};  // [n=2, c=2, hw=2]
  const std::vector<float> gamma = {1, 1}, beta = {0, 0};
  CudnnEnv env;
  const DevBuf d_x(x, DType::f32, env.s()), d_g(gamma, DType::f32, env.s()), d_b(beta, DType::f32, env.s());
  DevBuf d_y(x.size(), DType::f32, env.s()), d_sm(2, DType::f32, env.s()), d_si(2, DType::f32, env.s());
  DevBuf d_rm(std::vector<float>{7, 7}, DType::f32, env.s()), d_rv(std::vector<float>{7, 7}, DType::f32, env.s());
  batchnorm_forward_train(env.handle, BatchNormSpec{p, DType::f32, Layout::NCHW}, d_x.get(), d_g.f32(), d_b.f32(),
                          d_y.get(), d_sm.f32(), d_si.f32(), d_rm.f32(), d_rv.f32());
  const auto rm = d_rm.download(env.s()), rv = d_rv.download(env.s()), si = d_si.download(env.s());
  EXPECT_NEAR(rm[0], 2.5f, 1e-6f);
  EXPECT_NEAR(rm[1], 1.0f, 1e-6f);
  EXPECT_NEAR(rv[0], 5.0f / 3.0f, 1e-5f) << "cuDNN's running variance is not the unbiased batch variance";
  EXPECT_NEAR(rv[1], 4.0f / 3.0f, 1e-5f);
  EXPECT_NEAR(si[0], 1.0f / std::sqrt(1.25f + 1e-5f), 1e-5f) << "saved value is not the inverse std (biased)";
}

}  // namespace
}  // namespace scalebench::cudnn::test
