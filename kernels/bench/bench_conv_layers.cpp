// bench_conv_layers.cpp — one training step's convolution work per layer (forward, weight gradient
// and data gradient) of the two models tools/cpu_step_bench.py times, im2col + OpenBLAS against
// oneDNN's direct and (3x3) Winograd kernels: the measurement behind --cpu-kernels auto's per-layer
// rules (models/conv2d_cpu.cpp,
// docs/cpu.md). U-Net depth 4 base 16 on 128x128, batch 8; VGG16 width 0.25 on 64x64, batch 16;
// every distinct 3x3 layer shape once, named by its first layer. Wall time; run with
// --benchmark_filter=layer/ --benchmark_repetitions=5 for medians. Without oneDNN only im2col runs.
#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/conv2d.h"
#include "kernels/onednn/conv2d.h"

namespace scalebench {
namespace {

struct LayerShape {
  const char* name;
  int n, c_in, c_out, hw, k, pad;
};

std::vector<float> filled(std::size_t count, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (auto& x : v) x = dist(gen);
  return v;
}

void run(benchmark::State& state, const LayerShape& s, bool onednn_impl, bool winograd = false) {
  Conv2dParams p;
  p.n = s.n, p.c_in = s.c_in, p.h_in = p.w_in = s.hw, p.c_out = s.c_out, p.k_h = p.k_w = s.k, p.stride = 1,
  p.pad = s.pad;
  const std::size_t nx = std::size_t(p.n) * p.c_in * p.h_in * p.w_in;
  const std::size_t ny = std::size_t(p.n) * p.c_out * p.h_out() * p.w_out();
  const std::size_t nw = std::size_t(p.c_out) * p.c_in * p.k_h * p.k_w;
  auto x = filled(nx, 1), y = filled(ny, 2), dy = filled(ny, 3), dx = filled(nx, 4), w = filled(nw, 5),
       dw = filled(nw, 6), b = filled(p.c_out, 7), db = filled(p.c_out, 8);
  onednn::Conv2d conv(true, false, winograd);
  for (auto _ : state) {
    if (onednn_impl) {
      conv.forward(p, x.data(), w.data(), b.data(), y.data());
      conv.backward(p, x.data(), w.data(), dy.data(), dw.data(), db.data(), dx.data());
    } else {
      cpu::conv2d_forward_blas(p, x.data(), w.data(), b.data(), y.data());
      cpu::conv2d_backward_filter_blas(p, x.data(), dy.data(), dw.data(), db.data());
      cpu::conv2d_backward_data_blas(p, dy.data(), w.data(), dx.data());
    }
    benchmark::DoNotOptimize(dx.data());
    benchmark::ClobberMemory();
  }
  const double flops = 3 * 2.0 * p.k_h * p.k_w * p.c_in * p.c_out * p.h_out() * p.w_out() * p.n;
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9 * double(state.iterations()), benchmark::Counter::kIsRate);
}

const bool registered = [] {
  const LayerShape shapes[] = {
      {"unet_enc0_conv0", 8, 1, 16, 128, 3, 1},    {"unet_enc0_conv1", 8, 16, 16, 128, 3, 1},
      {"unet_enc1_conv0", 8, 16, 32, 64, 3, 1},    {"unet_enc1_conv1", 8, 32, 32, 64, 3, 1},
      {"unet_enc2_conv0", 8, 32, 64, 32, 3, 1},    {"unet_enc2_conv1", 8, 64, 64, 32, 3, 1},
      {"unet_enc3_conv0", 8, 64, 128, 16, 3, 1},   {"unet_enc3_conv1", 8, 128, 128, 16, 3, 1},
      {"unet_bottleneck_conv0", 8, 128, 256, 8, 3, 1}, {"unet_bottleneck_conv1", 8, 256, 256, 8, 3, 1},
      {"unet_dec3_conv0", 8, 256, 128, 16, 3, 1},  {"unet_dec2_conv0", 8, 128, 64, 32, 3, 1},
      {"unet_dec1_conv0", 8, 64, 32, 64, 3, 1},    {"unet_dec0_conv0", 8, 32, 16, 128, 3, 1},
      {"unet_head_1x1", 8, 16, 3, 128, 1, 0},
      {"vgg16_conv0", 16, 1, 16, 64, 3, 1},        {"vgg16_conv1", 16, 16, 16, 64, 3, 1},
      {"vgg16_conv2", 16, 16, 32, 32, 3, 1},       {"vgg16_conv3", 16, 32, 32, 32, 3, 1},
      {"vgg16_conv4", 16, 32, 64, 16, 3, 1},       {"vgg16_conv5", 16, 64, 64, 16, 3, 1},
      {"vgg16_conv7", 16, 64, 128, 8, 3, 1},       {"vgg16_conv8", 16, 128, 128, 8, 3, 1},
      {"vgg16_conv10", 16, 128, 128, 4, 3, 1},
      // Below auto's measured range (the rule's 8 <= c_in < 16): the CPU default U-Net's
      // (depth 4, base 8, 128x128, batch 8) and studies/smoke.toml's (depth 2, base 4, 64x64, batch 4).
      {"unet8_enc0_conv1", 8, 8, 8, 128, 3, 1},    {"unet8_enc1_conv0", 8, 8, 16, 64, 3, 1},
      {"unet8_dec0_conv0", 8, 16, 8, 128, 3, 1},
      {"smoke_enc0_conv1", 4, 4, 4, 64, 3, 1},     {"smoke_enc1_conv0", 4, 4, 8, 32, 3, 1},
      {"smoke_enc1_conv1", 4, 8, 8, 32, 3, 1},     {"smoke_bottleneck_conv0", 4, 8, 16, 16, 3, 1},
      {"smoke_bottleneck_conv1", 4, 16, 16, 16, 3, 1}, {"smoke_dec1_conv0", 4, 16, 8, 32, 3, 1},
      {"smoke_dec0_conv0", 4, 8, 4, 64, 3, 1},
  };
  for (const auto& s : shapes) {
    const std::string base = fmt::format("layer/{}_n{}_{}x{}_{}", s.name, s.n, s.c_in, s.c_out, s.hw);
    benchmark::RegisterBenchmark((base + "/im2col").c_str(), [s](benchmark::State& st) { run(st, s, false); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    if (onednn::available())
      benchmark::RegisterBenchmark((base + "/onednn").c_str(), [s](benchmark::State& st) { run(st, s, true); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    if (onednn::available() && s.k == 3)
      benchmark::RegisterBenchmark((base + "/winograd").c_str(), [s](benchmark::State& st) { run(st, s, true, true); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
  }
  return true;
}();

}  // namespace
}  // namespace scalebench
