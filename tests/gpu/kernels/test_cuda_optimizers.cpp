// test_cuda_optimizers.cpp — fused SGD-momentum and AdamW steps against kernels/cpu/optimizers.h over
// several steps on an arena whose size is not a multiple of 32. The kernels mirror the CPU's fp32
// operation order without FMA contraction, so the results should be identical; the bound is the
// 1e-6 relative error the spec asks for, and the number of differing elements is printed.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/cpu/optimizers.h"
#include "kernels/cuda/optimizers.h"
#include "tests/common/gpu_test_util.h"

namespace scalebench::cuda::test {
namespace {

using OptimizerTest = CudaTest;

constexpr std::int64_t kCount = 10007;

std::int64_t differing(const std::vector<float>& a, const std::vector<float>& b) {
  std::int64_t k = 0;
  for (std::size_t i = 0; i < a.size(); ++i) k += a[i] != b[i];
  return k;
}

TEST_F(OptimizerTest, SgdMomentumMatchesCpuIncludingFirstStep) {
  std::vector<float> w = random_vec(kCount, 31), m(kCount, 0.0f);
  DeviceBuffer dw = upload(w, s()), dm = upload(m, s());
  for (int step = 0; step < 4; ++step) {
    const std::vector<float> g = random_vec(kCount, 40 + step, -0.1f, 0.1f);
    DeviceBuffer dg = upload(g, s());
    cpu::sgd_momentum_step(kCount, w.data(), g.data(), m.data(), 0.05f, 0.9f, 1e-4f, step == 0);
    sgd_momentum_step(kCount, dw.as<float>(), dg.as<float>(), dm.as<float>(), 0.05f, 0.9f, 1e-4f, step == 0, s());
    const auto got_w = download<float>(dw.data(), kCount, s()), got_m = download<float>(dm.data(), kCount, s());
    EXPECT_LE(max_rel_err(got_w, w), 1e-6) << "step " << step << ", " << differing(got_w, w) << " differ";
    EXPECT_LE(max_rel_err(got_m, m), 1e-6) << "step " << step << ", " << differing(got_m, m) << " differ";
  }
}

TEST_F(OptimizerTest, AdamWMatchesCpu) {
  std::vector<float> w = random_vec(kCount, 32), m(kCount, 0.0f), v(kCount, 0.0f);
  DeviceBuffer dw = upload(w, s()), dm = upload(m, s()), dv = upload(v, s());
  for (std::int64_t t = 1; t <= 4; ++t) {
    const std::vector<float> g = random_vec(kCount, 50 + int(t), -0.1f, 0.1f);
    DeviceBuffer dg = upload(g, s());
    cpu::adamw_step(kCount, w.data(), g.data(), m.data(), v.data(), 1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, t);
    adamw_step(kCount, dw.as<float>(), dg.as<float>(), dm.as<float>(), dv.as<float>(), 1e-3f, 0.9f, 0.999f, 1e-8f,
               0.01f, t, s());
    const auto got_w = download<float>(dw.data(), kCount, s());
    const auto got_m = download<float>(dm.data(), kCount, s()), got_v = download<float>(dv.data(), kCount, s());
    EXPECT_LE(max_rel_err(got_w, w), 1e-6) << "t " << t << ", " << differing(got_w, w) << " differ";
    EXPECT_LE(max_rel_err(got_m, m), 1e-6) << "t " << t << ", " << differing(got_m, m) << " differ";
    EXPECT_LE(max_rel_err(got_v, v), 1e-6) << "t " << t << ", " << differing(got_v, v) << " differ";
  }
}

TEST_F(OptimizerTest, RejectsStepZero) {
  DeviceBuffer b(4 * sizeof(float));
  EXPECT_THROW(adamw_step(1, b.as<float>(), b.as<float>() + 1, b.as<float>() + 2, b.as<float>() + 3, 1e-3f, 0.9f,
                          0.999f, 1e-8f, 0.0f, 0, s()),
               Error);
}

}  // namespace
}  // namespace scalebench::cuda::test
