// bench_ops.cpp — the non-convolution CPU kernels at U-Net sizes (batch 4, 16 channels at 128×128,
// 3 classes), so their share of a training step can be compared with the convolutions. Only the
// one implementation each op has, plus reference vs BLAS for the up-convolution. Wall time.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cpu/batchnorm.h"
#include "kernels/cpu/concat_crop.h"
#include "kernels/cpu/maxpool2x2.h"
#include "kernels/cpu/relu.h"
#include "kernels/cpu/softmax_xent.h"
#include "kernels/cpu/upconv2x2.h"

namespace scalebench::cpu {
namespace {

constexpr int kN = 4, kC = 16, kH = 128, kW = 128, kClasses = 3;
constexpr std::size_t kCount = std::size_t(kN) * kC * kH * kW;

std::vector<float> filled(std::size_t count) {
  std::mt19937 gen(2);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (auto& x : v) x = dist(gen);
  return v;
}

void set_bytes(benchmark::State& st, std::size_t floats_touched) {
  st.SetBytesProcessed(std::int64_t(st.iterations()) * std::int64_t(floats_touched * sizeof(float)));
}

void BM_relu_fwd_bwd(benchmark::State& st) {
  auto x = filled(kCount), y = filled(kCount), dx = filled(kCount);
  for (auto _ : st) {
    relu_forward(kCount, x.data(), y.data());
    relu_backward(kCount, y.data(), x.data(), dx.data());
    benchmark::DoNotOptimize(dx.data());
  }
  set_bytes(st, 5 * kCount);
}

void BM_maxpool_fwd_bwd(benchmark::State& st) {
  auto x = filled(kCount), y = filled(kCount / 4), dx = filled(kCount);
  std::vector<std::int32_t> arg(kCount / 4);
  for (auto _ : st) {
    maxpool2x2_forward(kN, kC, kH, kW, x.data(), y.data(), arg.data());
    maxpool2x2_backward(kN, kC, kH, kW, y.data(), arg.data(), dx.data());
    benchmark::DoNotOptimize(dx.data());
  }
  set_bytes(st, kCount * 2 + kCount / 2);
}

void BM_batchnorm_train_fwd_bwd(benchmark::State& st) {
  BatchNormParams p;
  p.n = kN, p.c = kC, p.hw = kH * kW;
  auto x = filled(kCount), y = filled(kCount), dx = filled(kCount), g = filled(kC), b = filled(kC);
  std::vector<float> mean(kC), invstd(kC), rm(kC, 0.0f), rv(kC, 1.0f), dg(kC), db(kC);
  for (auto _ : st) {
    batchnorm_forward_train(p, x.data(), g.data(), b.data(), y.data(), mean.data(), invstd.data(), rm.data(),
                            rv.data());
    batchnorm_backward(p, x.data(), y.data(), g.data(), mean.data(), invstd.data(), dx.data(), dg.data(),
                       db.data());
    benchmark::DoNotOptimize(dx.data());
  }
  set_bytes(st, 8 * kCount);
}

void BM_concat_crop_fwd_bwd(benchmark::State& st) {
  ConcatCropParams p;
  p.n = kN, p.c_skip = kC, p.h_skip = kH, p.w_skip = kW, p.c_up = kC, p.h = kH, p.w = kW;
  auto skip = filled(kCount), up = filled(kCount), out = filled(2 * kCount);
  for (auto _ : st) {
    concat_crop_forward(p, skip.data(), up.data(), out.data());
    concat_crop_backward(p, out.data(), skip.data(), up.data());
    benchmark::DoNotOptimize(up.data());
  }
  set_bytes(st, 8 * kCount);
}

void BM_softmax_xent(benchmark::State& st) {
  const SoftmaxXentParams p{kN, kClasses, kH * kW};
  const std::size_t count = std::size_t(kN) * kClasses * kH * kW;
  auto logits = filled(count), d = filled(count);
  std::vector<std::int32_t> labels(std::size_t(kN) * kH * kW);
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = std::int32_t(i % kClasses);
  const std::vector<float> weights{0.2f, 1.0f, 3.0f};
  for (auto _ : st) benchmark::DoNotOptimize(softmax_xent(p, logits.data(), labels.data(), weights.data(), d.data()));
  set_bytes(st, 2 * count);
}

// Up-convolution 32 -> 16 channels, 64×64 -> 128×128 (the last U-Net decoder step at base 16).
void BM_upconv(benchmark::State& st, bool blas, int which) {
  const UpConvParams p{kN, 2 * kC, kH / 2, kW / 2, kC};
  auto x = filled(std::size_t(p.n) * p.c_in * p.h_in * p.w_in), y = filled(kCount);
  auto w = filled(std::size_t(p.c_in) * p.c_out * 4), b = filled(p.c_out);
  for (auto _ : st) {
    if (which == 0) (blas ? upconv2x2_forward_blas : upconv2x2_forward_ref)(p, x.data(), w.data(), b.data(), y.data());
    if (which == 1) (blas ? upconv2x2_backward_data_blas : upconv2x2_backward_data_ref)(p, y.data(), w.data(), x.data());
    if (which == 2)
      (blas ? upconv2x2_backward_filter_blas : upconv2x2_backward_filter_ref)(p, x.data(), y.data(), w.data(),
                                                                              b.data());
    benchmark::ClobberMemory();
  }
  const double flops = 2.0 * p.c_in * p.c_out * 4 * p.h_in * p.w_in * p.n;
  st.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9 * double(st.iterations()), benchmark::Counter::kIsRate);
}

BENCHMARK(BM_relu_fwd_bwd)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_maxpool_fwd_bwd)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_batchnorm_train_fwd_bwd)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_concat_crop_fwd_bwd)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_softmax_xent)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_upconv, fwd_ref, false, 0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_upconv, fwd_blas, true, 0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_upconv, bwd_data_ref, false, 1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_upconv, bwd_data_blas, true, 1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_upconv, bwd_filter_ref, false, 2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_upconv, bwd_filter_blas, true, 2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace scalebench::cpu
