// test_thread_count.cpp — the memory-bound layers split over the rank's threads (kernels/cpu/
// parallel.h) give the same bits at 1, 2 and 3 threads: ReLU, 2x2 max pooling, batch norm (train,
// eval, backward), the U-Net's skip join, the CPU device's scale/axpy and the SGD and AdamW steps, on sizes large enough to be split. Skipped where
// kernels/cpu was built without OpenMP (every count then runs the same serial loop).
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/cpu/batchnorm.h"
#include "kernels/common/device.h"
#include "kernels/cpu/blas_threads.h"
#include "kernels/cpu/concat_crop.h"
#include "kernels/cpu/maxpool2x2.h"
#include "kernels/cpu/optimizers.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/relu.h"
#include "tests/kernels/kernel_test_util.h"

namespace scalebench::cpu {
namespace {

using test::random_vec;

// Runs `fill` (which writes every output into the returned vectors) at each thread count and
// expects identical bits.
void expect_same_at_every_thread_count(const std::function<std::vector<std::vector<float>>()>& fill) {
  if (!layer_threads_available()) GTEST_SKIP() << "kernels/cpu built without OpenMP: every thread count runs serially";
  const int saved = blas_threads();
  set_blas_threads(1);
  const auto one = fill();
  for (int t : {2, 3}) {
    set_blas_threads(t);
    const auto many = fill();
    ASSERT_EQ(many.size(), one.size());
    for (std::size_t k = 0; k < one.size(); ++k) {
      ASSERT_EQ(many[k].size(), one[k].size());
      for (std::size_t i = 0; i < one[k].size(); ++i) ASSERT_EQ(many[k][i], one[k][i]) << t << " threads, output " << k << " [" << i << "]";
    }
  }
  set_blas_threads(saved);
}

TEST(ThreadCount, ReluAndMaxPoolAreUnchanged) {
  const int n = 4, c = 8, h = 66, w = 64;  // 135168 values: split at 2 and 3 threads
  const auto x = random_vec(std::size_t(n) * c * h * w, 11);
  const auto dy = random_vec(x.size(), 12);
  const auto dyp = random_vec(std::size_t(n) * c * (h / 2) * (w / 2), 13);
  expect_same_at_every_thread_count([&] {
    std::vector<float> y(x.size()), dx(x.size()), py(dyp.size()), pdx(x.size());
    std::vector<std::int32_t> arg(dyp.size());
    relu_forward(std::int64_t(x.size()), x.data(), y.data());
    relu_backward(std::int64_t(x.size()), y.data(), dy.data(), dx.data());
    maxpool2x2_forward(n, c, h, w, x.data(), py.data(), arg.data());
    maxpool2x2_backward(n, c, h, w, dyp.data(), arg.data(), pdx.data());
    std::vector<float> args(arg.begin(), arg.end());
    return std::vector<std::vector<float>>{y, dx, py, pdx, args};
  });
}

TEST(ThreadCount, BatchNormIsUnchanged) {
  BatchNormParams p;
  p.n = 4, p.c = 12, p.hw = 48 * 48;
  const auto x = random_vec(std::size_t(p.n) * p.c * p.hw, 21, -2.0f, 3.0f);
  const auto dy = random_vec(x.size(), 22);
  const auto gamma = random_vec(std::size_t(p.c), 23, 0.5f, 1.5f), beta = random_vec(std::size_t(p.c), 24);
  expect_same_at_every_thread_count([&] {
    std::vector<float> y(x.size()), ye(x.size()), dx(x.size()), mean(std::size_t(p.c)), invstd(std::size_t(p.c)),
        rm(std::size_t(p.c), 0.0f), rv(std::size_t(p.c), 1.0f), dg(std::size_t(p.c)), db(std::size_t(p.c));
    batchnorm_forward_train(p, x.data(), gamma.data(), beta.data(), y.data(), mean.data(), invstd.data(), rm.data(),
                            rv.data());
    batchnorm_forward_eval(p, x.data(), gamma.data(), beta.data(), rm.data(), rv.data(), ye.data());
    batchnorm_backward(p, x.data(), dy.data(), gamma.data(), mean.data(), invstd.data(), dx.data(), dg.data(),
                       db.data());
    return std::vector<std::vector<float>>{y, ye, dx, mean, invstd, rm, rv, dg, db};
  });
}

TEST(ThreadCount, SkipJoinAndDeviceSumsAreUnchanged) {
  ConcatCropParams p;
  p.n = 6, p.c_skip = 4, p.h_skip = 66, p.w_skip = 70, p.c_up = 4, p.h = 64, p.w = 64;  // cropped
  const auto skip = random_vec(std::size_t(p.n) * p.c_skip * p.h_skip * p.w_skip, 41);
  const auto up = random_vec(std::size_t(p.n) * p.c_up * p.h * p.w, 42);
  const auto dout = random_vec(std::size_t(p.n) * (p.c_skip + p.c_up) * p.h * p.w, 43);
  auto dev = make_cpu_device();
  expect_same_at_every_thread_count([&] {
    std::vector<float> out(dout.size()), dskip(skip.size(), 7.0f), dup(up.size());
    concat_crop_forward(p, skip.data(), up.data(), out.data());
    concat_crop_backward(p, dout.data(), dskip.data(), dup.data());
    auto y = dout;
    dev->axpy(std::int64_t(y.size()), 1.0f, out.data(), y.data());
    dev->axpy(std::int64_t(y.size()), -0.3f, out.data(), y.data());
    dev->scale(y.data(), std::int64_t(y.size()), 0.7f);
    return std::vector<std::vector<float>>{out, dskip, dup, y};
  });
}

TEST(ThreadCount, OptimizerStepsAreUnchanged) {
  const std::int64_t count = 100003;
  const auto w0 = random_vec(std::size_t(count), 31), g = random_vec(std::size_t(count), 32);
  expect_same_at_every_thread_count([&] {
    auto w = w0, m = std::vector<float>(w0.size(), 0.0f);
    sgd_momentum_step(count, w.data(), g.data(), m.data(), 0.1f, 0.9f, 1e-4f, true);
    sgd_momentum_step(count, w.data(), g.data(), m.data(), 0.1f, 0.9f, 1e-4f, false);
    auto wa = w0, ma = std::vector<float>(w0.size(), 0.0f), va = ma;
    adamw_step(count, wa.data(), g.data(), ma.data(), va.data(), 1e-3f, 0.9f, 0.999f, 1e-8f, 1e-2f, 1);
    return std::vector<std::vector<float>>{w, m, wa, ma, va};
  });
}

}  // namespace
}  // namespace scalebench::cpu
