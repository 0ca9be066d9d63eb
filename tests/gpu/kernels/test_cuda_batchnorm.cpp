// test_cuda_batchnorm.cpp — our own batch norm (kernels/cuda/batchnorm.h) against the CPU reference
// (kernels/cpu/batchnorm.h, the specification): training forward (y, saved statistics, running
// statistics, the saved affine), eval forward and backward, with and without the fused ReLU, NCHW and
// NHWC, f32, bf16 and f16 storage, on odd shapes (hw = 1, n = 1, c = 3) and one of many ranges;
// reruns bit-identical; a large mean against a small spread (where Σx² − (Σx)²/n in fp32 loses the
// variance); the fused ReLU bit for bit against our batch norm then the separate ReLU; and our
// kernels against cuDNN's within tolerance.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/cpu/batchnorm.h"
#include "kernels/cuda/batchnorm.h"
#include "kernels/cuda/bias_act.h"
#include "kernels/cudnn/batchnorm.h"
#include "tests/common/gpu_test_util.h"

namespace scalebench::cuda::test {
namespace {

using cudnn::test::CudnnEnv;

constexpr double kStatTol = 2e-5;  // per-channel statistics and the affine: f32 for every data type
double data_tol(DType t) { return t == DType::f32 ? 2e-5 : 2e-2; }

struct BnShape {
  const char* name;
  int n, c, hw;
};
// 3·5·63: the plain case; hw = 1: the [n, c] of a fully connected layer; n = 1: one image;
// 4·37·4087: 8 ranges in NCHW and 128 in NHWC (row_split.h), 37 channels over two 32-channel blocks.
const BnShape kShapes[] = {{"plain", 3, 5, 63}, {"hw1", 4, 3, 1}, {"n1", 1, 3, 15}, {"ranges", 4, 37, 4087}};

// Everything one training forward + backward produced, on the host (NCHW order for tensors).
struct BnResult {
  std::vector<float> y, save_mean, save_invstd, scale, shift, running_mean, running_var, dx, dgamma, dbeta;
  std::vector<std::uint8_t> y_bits, dx_bits, dgamma_bits;
};

BnResult run_own(const BatchNormSpec& s, const std::vector<float>& x, const std::vector<float>& dy,
            const std::vector<float>& gamma, const std::vector<float>& beta, const std::vector<float>& rm0,
            const std::vector<float>& rv0, bool relu, CudnnEnv& env) {
  const int n = s.p.n, c = s.p.c, hw = s.p.hw;
  const std::size_t nx = x.size();
  const DevBuf d_x(to_layout(s.layout, x, n, c, hw, 1), s.dtype, env.s());
  const DevBuf d_dy(to_layout(s.layout, dy, n, c, hw, 1), s.dtype, env.s());
  const DevBuf d_g(gamma, DType::f32, env.s()), d_b(beta, DType::f32, env.s());
  DevBuf d_rm(rm0, DType::f32, env.s()), d_rv(rv0, DType::f32, env.s());
  DevBuf d_y(nx, s.dtype, env.s()), d_dx(nx, s.dtype, env.s());  // NaN-filled: every element must be written
  DevBuf d_sm(c, DType::f32, env.s()), d_si(c, DType::f32, env.s()), d_sc(c, DType::f32, env.s()),
      d_sh(c, DType::f32, env.s()), d_dg(c, DType::f32, env.s()), d_dbt(c, DType::f32, env.s());
  batchnorm_forward_train(s, d_x.get(), d_g.f32(), d_b.f32(), d_y.get(), d_sm.f32(), d_si.f32(), d_sc.f32(), d_sh.f32(),
                          d_rm.f32(), d_rv.f32(), relu, env.workspace, env.s());
  batchnorm_backward(s, d_x.get(), d_dy.get(), d_g.f32(), d_sm.f32(), d_si.f32(), relu ? d_sc.f32() : nullptr,
                     relu ? d_sh.f32() : nullptr, d_dx.get(), d_dg.f32(), d_dbt.f32(), env.workspace, env.s());
  auto back = [&](const DevBuf& b) { return from_layout(s.layout, b.download(env.s()), n, c, hw, 1); };
  return {back(d_y),           d_sm.download(env.s()), d_si.download(env.s()), d_sc.download(env.s()),
          d_sh.download(env.s()), d_rm.download(env.s()), d_rv.download(env.s()), back(d_dx),
          d_dg.download(env.s()), d_dbt.download(env.s()), d_y.raw(env.s()), d_dx.raw(env.s()),
          d_dg.raw(env.s())};
}

using Param = std::tuple<Layout, DType, bool>;

class OwnBatchNorm : public ::testing::TestWithParam<Param> {};

TEST_P(OwnBatchNorm, MatchesCpuReferenceAndRerunsBitForBit) {
  const auto [layout, dt, relu] = GetParam();
  for (const BnShape& sh : kShapes) {
    SCOPED_TRACE(sh.name);
    BatchNormParams p;
    p.n = sh.n, p.c = sh.c, p.hw = sh.hw, p.eps = 1e-5f, p.momentum = 0.1f;
    const BatchNormSpec s{p, dt, layout};
    const std::size_t nx = std::size_t(p.n) * p.c * p.hw;
    const auto x = rounded(random_vec(nx, 51, -1.0f, 2.0f), dt);  // a non-zero mean per channel
    const auto dy = rounded(random_vec(nx, 52), dt);
    const auto gamma = random_vec(p.c, 53, 0.5f, 1.5f), beta = random_vec(p.c, 54, -0.5f, 0.5f);
    const auto rm0 = random_vec(p.c, 55), rv0 = random_vec(p.c, 56, 0.5f, 2.0f);

    std::vector<float> y_ref(nx), sm(p.c), si(p.c), rm = rm0, rv = rv0, sc(p.c), shf(p.c);
    cpu::batchnorm_forward_train(p, x.data(), gamma.data(), beta.data(), y_ref.data(), sm.data(), si.data(), rm.data(),
                                 rv.data(), {}, relu ? cpu::FusedRelu{sc.data(), shf.data()} : cpu::FusedRelu{});
    CudnnEnv env;
    const BnResult got = run_own(s, x, dy, gamma, beta, rm0, rv0, relu, env);
    EXPECT_LE(max_rel_err(got.y, rounded(y_ref, dt)), data_tol(dt)) << "forward y";
    EXPECT_LE(max_rel_err(got.save_mean, sm), kStatTol) << "saved mean";
    EXPECT_LE(max_rel_err(got.save_invstd, si), kStatTol) << "saved inverse std";
    EXPECT_LE(max_rel_err(got.running_mean, rm), kStatTol) << "running mean";
    EXPECT_LE(max_rel_err(got.running_var, rv), kStatTol) << "running variance (unbiased)";
    if (relu) {
      EXPECT_LE(max_rel_err(got.scale, sc), kStatTol) << "saved scale";
      EXPECT_EQ(got.shift, shf) << "saved shift is beta";
    }
    // The backward from the GPU's own saved statistics and affine, so the ReLU masks of the two
    // agree element for element (statistics that differ in the last bit could flip a y near 0).
    std::vector<float> dx_ref(nx), dg_ref(p.c), db_ref(p.c);
    cpu::batchnorm_backward(p, x.data(), dy.data(), gamma.data(), got.save_mean.data(), got.save_invstd.data(),
                            dx_ref.data(), dg_ref.data(), db_ref.data(), {},
                            relu ? cpu::FusedReluSaved{got.scale.data(), got.shift.data()} : cpu::FusedReluSaved{});
    EXPECT_LE(max_rel_err(got.dx, rounded(dx_ref, dt)), data_tol(dt)) << "backward dx";
    EXPECT_LE(max_rel_err(got.dgamma, dg_ref), 1e-4) << "backward dgamma";
    EXPECT_LE(max_rel_err(got.dbeta, db_ref), 1e-4) << "backward dbeta";

    const BnResult again = run_own(s, x, dy, gamma, beta, rm0, rv0, relu, env);
    EXPECT_EQ(again.y_bits, got.y_bits) << "rerun changed y";
    EXPECT_EQ(again.dx_bits, got.dx_bits) << "rerun changed dx";
    EXPECT_EQ(again.dgamma_bits, got.dgamma_bits) << "rerun changed dgamma";
  }
}

TEST_P(OwnBatchNorm, EvalMatchesCpuReference) {
  const auto [layout, dt, relu] = GetParam();
  BatchNormParams p;
  p.n = 3, p.c = 5, p.hw = 63, p.eps = 1e-5f;
  const BatchNormSpec s{p, dt, layout};
  const std::size_t nx = std::size_t(p.n) * p.c * p.hw;
  const auto x = rounded(random_vec(nx, 61, -1.0f, 2.0f), dt);
  const auto gamma = random_vec(p.c, 62, 0.5f, 1.5f), beta = random_vec(p.c, 63);
  const auto rm = random_vec(p.c, 64), rv = random_vec(p.c, 65, 0.5f, 2.0f);
  std::vector<float> y_ref(nx);
  cpu::batchnorm_forward_eval(p, x.data(), gamma.data(), beta.data(), rm.data(), rv.data(), y_ref.data(), relu);
  CudnnEnv env;
  const DevBuf d_x(to_layout(layout, x, p.n, p.c, p.hw, 1), dt, env.s());
  const DevBuf d_g(gamma, DType::f32, env.s()), d_b(beta, DType::f32, env.s()), d_rm(rm, DType::f32, env.s()),
      d_rv(rv, DType::f32, env.s());
  DevBuf d_y(nx, dt, env.s());
  batchnorm_forward_eval(s, d_x.get(), d_g.f32(), d_b.f32(), d_rm.f32(), d_rv.f32(), d_y.get(), relu, env.workspace,
                         env.s());
  EXPECT_LE(max_rel_err(from_layout(layout, d_y.download(env.s()), p.n, p.c, p.hw, 1), rounded(y_ref, dt)),
            data_tol(dt));
}

INSTANTIATE_TEST_SUITE_P(All, OwnBatchNorm,
                         ::testing::Combine(::testing::Values(Layout::NCHW, Layout::NHWC),
                                            ::testing::Values(DType::f32, DType::bf16, DType::f16),
                                            ::testing::Bool()),
                         [](const ::testing::TestParamInfo<Param>& i) {
                           return std::string(cudnn::layout_name(std::get<0>(i.param))) + "_" +
                                  scalebench::to_string(std::get<1>(i.param)) +
                                  (std::get<2>(i.param) ? "_relu" : "");
                         });

// A mean 1700 times the spread: the variance must survive (Welford/Chan merges). Σx² − (Σx)²/n in
// fp32 would lose it to cancellation (the variance is 3·10⁻⁷ of Σx²/n, about the float epsilon
// times the accumulation's growth). The tolerances leave room for the fp32 means' rounding at this
// magnitude (ulp 6·10⁻⁵, 10⁻⁴ of the spread), which the estimate puts near 10⁻⁴ of the variance.
TEST(OwnBatchNormNumerics, LargeMeanSmallSpreadKeepsTheVariance) {
  for (const Layout layout : {Layout::NCHW, Layout::NHWC}) {
    BatchNormParams p;
    p.n = 8, p.c = 3, p.hw = 4096, p.eps = 1e-5f;
    const std::size_t nx = std::size_t(p.n) * p.c * p.hw;
    auto x = random_vec(nx, 71, -1.0f, 1.0f);
    for (auto& v : x) v += 1.0e3f;
    const auto gamma = std::vector<float>(p.c, 1.0f), beta = std::vector<float>(p.c, 0.0f);
    std::vector<float> y_ref(nx), sm(p.c), si(p.c), rm(p.c, 0.0f), rv(p.c, 1.0f);
    cpu::batchnorm_forward_train(p, x.data(), gamma.data(), beta.data(), y_ref.data(), sm.data(), si.data(), rm.data(),
                                 rv.data());
    CudnnEnv env;
    const BnResult got = run_own({p, DType::f32, layout}, x, x, gamma, beta, std::vector<float>(p.c, 0.0f),
                            std::vector<float>(p.c, 1.0f), false, env);
    EXPECT_LE(max_rel_err(got.save_invstd, si), 1e-3) << cudnn::layout_name(layout);
    EXPECT_LE(max_rel_err(got.y, y_ref), 1e-2) << cudnn::layout_name(layout);
  }
}

// The fused ReLU against our batch norm followed by the separate ReLU (kernels/cuda/bias_act.h), as
// the CPU's BatchNorm.FusedReluEqualsBatchNormThenReluBitForBit: forward, dx, dgamma and dbeta bit for
// bit (the mask recomputed from x is the forward's own decision). f32, both layouts.
TEST(OwnBatchNormFusedRelu, EqualsBatchNormThenReluBitForBit) {
  for (const Layout layout : {Layout::NCHW, Layout::NHWC}) {
    SCOPED_TRACE(cudnn::layout_name(layout));
    BatchNormParams p;
    p.n = 4, p.c = 37, p.hw = 97, p.eps = 1e-5f, p.momentum = 0.1f;
    const BatchNormSpec s{p, DType::f32, layout};
    const std::size_t nx = std::size_t(p.n) * p.c * p.hw;
    CudnnEnv env;
    const DevBuf x(random_vec(nx, 91, -1.0f, 2.0f), DType::f32, env.s()), dy(random_vec(nx, 92), DType::f32, env.s());
    const DevBuf g(random_vec(p.c, 93, 0.5f, 1.5f), DType::f32, env.s()), b(random_vec(p.c, 94), DType::f32, env.s());
    DevBuf rm(std::vector<float>(p.c, 0.0f), DType::f32, env.s()), rv(std::vector<float>(p.c, 1.0f), DType::f32, env.s());
    DevBuf sm(p.c, DType::f32, env.s()), si(p.c, DType::f32, env.s()), sc(p.c, DType::f32, env.s()),
        sh(p.c, DType::f32, env.s());
    DevBuf y_fused(nx, DType::f32, env.s()), y_then(nx, DType::f32, env.s()), g_then(nx, DType::f32, env.s());
    DevBuf dx_fused(nx, DType::f32, env.s()), dx_then(nx, DType::f32, env.s());
    DevBuf dg_fused(p.c, DType::f32, env.s()), db_fused(p.c, DType::f32, env.s()), dg_then(p.c, DType::f32, env.s()),
        db_then(p.c, DType::f32, env.s());
    batchnorm_forward_train(s, x.get(), g.f32(), b.f32(), y_fused.get(), sm.f32(), si.f32(), sc.f32(), sh.f32(),
                            rm.f32(), rv.f32(), /*relu=*/true, env.workspace, env.s());
    batchnorm_backward(s, x.get(), dy.get(), g.f32(), sm.f32(), si.f32(), sc.f32(), sh.f32(), dx_fused.get(),
                       dg_fused.f32(), db_fused.f32(), env.workspace, env.s());
    // The same batch statistics again (only the running ones move), then the separate ReLU.
    batchnorm_forward_train(s, x.get(), g.f32(), b.f32(), y_then.get(), sm.f32(), si.f32(), sc.f32(), sh.f32(),
                            rm.f32(), rv.f32(), /*relu=*/false, env.workspace, env.s());
    const ChannelParams cp{p.n, p.c, p.hw, layout, DType::f32};
    bias_act_forward(cp, y_then.get(), nullptr, Activation::relu, y_then.get(), env.s());
    relu_backward(std::int64_t(nx), DType::f32, y_then.get(), dy.get(), g_then.get(), env.s());
    batchnorm_backward(s, x.get(), g_then.get(), g.f32(), sm.f32(), si.f32(), nullptr, nullptr, dx_then.get(),
                       dg_then.f32(), db_then.f32(), env.workspace, env.s());
    EXPECT_EQ(y_fused.raw(env.s()), y_then.raw(env.s())) << "forward";
    EXPECT_EQ(dx_fused.raw(env.s()), dx_then.raw(env.s())) << "dx";
    EXPECT_EQ(dg_fused.raw(env.s()), dg_then.raw(env.s())) << "dgamma";
    EXPECT_EQ(db_fused.raw(env.s()), db_then.raw(env.s())) << "dbeta";
  }
}

// Ours against cuDNN's on the same data: the two GPU paths --gpu-kernels chooses between agree
// within twice what each is allowed against the CPU reference (this file's and
// test_cudnn_batchnorm.cpp's tolerances), forward, saved statistics and backward.
TEST(OwnBatchNormVsCudnn, AgreeWithinTolerance) {
  for (const Layout layout : {Layout::NCHW, Layout::NHWC})
    for (const DType dt : {DType::f32, DType::bf16}) {
      SCOPED_TRACE(std::string(cudnn::layout_name(layout)) + " " + to_string(dt));
      BatchNormParams p;
      p.n = 4, p.c = 37, p.hw = 97, p.eps = 1e-5f, p.momentum = 0.1f;
      const std::size_t nx = std::size_t(p.n) * p.c * p.hw;
      const auto x = rounded(random_vec(nx, 81, -1.0f, 2.0f), dt), dy = rounded(random_vec(nx, 82), dt);
      const auto gamma = random_vec(p.c, 83, 0.5f, 1.5f), beta = random_vec(p.c, 84);
      const std::vector<float> rm0(p.c, 0.0f), rv0(p.c, 1.0f);
      CudnnEnv env;
      const BnResult own = run_own({p, dt, layout}, x, dy, gamma, beta, rm0, rv0, false, env);

      const cudnn::BatchNormSpec cs{p, dt, layout, /*deterministic=*/false};
      const DevBuf d_x(to_layout(layout, x, p.n, p.c, p.hw, 1), dt, env.s());
      const DevBuf d_dy(to_layout(layout, dy, p.n, p.c, p.hw, 1), dt, env.s());
      const DevBuf d_g(gamma, DType::f32, env.s()), d_b(beta, DType::f32, env.s());
      DevBuf d_rm(rm0, DType::f32, env.s()), d_rv(rv0, DType::f32, env.s());
      DevBuf d_y(nx, dt, env.s()), d_dx(nx, dt, env.s()), d_sm(p.c, DType::f32, env.s()),
          d_si(p.c, DType::f32, env.s()), d_dg(p.c, DType::f32, env.s()), d_db(p.c, DType::f32, env.s());
      cudnn::batchnorm_forward_train(env.handle, cs, d_x.get(), d_g.f32(), d_b.f32(), d_y.get(), d_sm.f32(), d_si.f32(),
                                     d_rm.f32(), d_rv.f32());
      cudnn::batchnorm_backward(env.handle, cs, d_x.get(), d_dy.get(), d_g.f32(), d_sm.f32(), d_si.f32(), d_dx.get(),
                                d_dg.f32(), d_db.f32());
      auto back = [&](const DevBuf& b) { return from_layout(layout, b.download(env.s()), p.n, p.c, p.hw, 1); };
      EXPECT_LE(max_rel_err(own.y, back(d_y)), 2 * data_tol(dt)) << "forward y";
      EXPECT_LE(max_rel_err(own.save_mean, d_sm.download(env.s())), 2 * kStatTol) << "saved mean";
      EXPECT_LE(max_rel_err(own.save_invstd, d_si.download(env.s())), 2 * kStatTol) << "saved inverse std";
      EXPECT_LE(max_rel_err(own.running_var, d_rv.download(env.s())), 2 * kStatTol) << "running variance";
      EXPECT_LE(max_rel_err(own.dx, back(d_dx)), 2 * data_tol(dt)) << "backward dx";
      EXPECT_LE(max_rel_err(own.dgamma, d_dg.download(env.s())), 4e-4) << "dgamma";
      EXPECT_LE(max_rel_err(own.dbeta, d_db.download(env.s())), 4e-4) << "dbeta";
    }
}

}  // namespace
}  // namespace scalebench::cuda::test
