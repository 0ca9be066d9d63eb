// bench_conv2d.cpp — conv2d forward / backward-data / backward-filter, reference vs im2col+BLAS,
// with a GFLOP/s counter (2·K²·Cin·Cout·Hout·Wout·N per direction, as DESIGN.md §5 counts FLOPs).
// The BLAS path runs on U-Net and VGG-like shapes; the reference only on a small shape (it is the
// specification, not a contender) so the whole binary finishes in about a minute. Wall time, not
// CPU time: OpenBLAS runs its own threads.
#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/conv2d.h"

namespace scalebench::cpu {
namespace {

enum class Dir { forward, backward_data, backward_filter };
enum class Impl { ref, blas };

struct Shape {
  const char* label;
  int n, c_in, hw, c_out, k, stride, pad;
};

std::vector<float> filled(std::size_t count) {
  std::mt19937 gen(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (auto& x : v) x = dist(gen);
  return v;
}

void run(benchmark::State& state, Dir dir, Impl impl, Shape s) {
  Conv2dParams p;
  p.n = s.n, p.c_in = s.c_in, p.h_in = p.w_in = s.hw, p.c_out = s.c_out;
  p.k_h = p.k_w = s.k, p.stride = s.stride, p.pad = s.pad;
  const std::size_t nx = std::size_t(p.n) * p.c_in * p.h_in * p.w_in;
  const std::size_t ny = std::size_t(p.n) * p.c_out * p.h_out() * p.w_out();
  const std::size_t nw = std::size_t(p.c_out) * p.c_in * p.k_h * p.k_w;
  auto x = filled(nx), y = filled(ny), w = filled(nw), b = filled(p.c_out);
  const bool blas = impl == Impl::blas;
  for (auto _ : state) {
    switch (dir) {
      case Dir::forward:
        (blas ? conv2d_forward_blas : conv2d_forward_ref)(p, x.data(), w.data(), b.data(), y.data());
        benchmark::DoNotOptimize(y.data());
        break;
      case Dir::backward_data:
        (blas ? conv2d_backward_data_blas : conv2d_backward_data_ref)(p, y.data(), w.data(), x.data());
        benchmark::DoNotOptimize(x.data());
        break;
      case Dir::backward_filter:
        (blas ? conv2d_backward_filter_blas : conv2d_backward_filter_ref)(p, x.data(), y.data(), w.data(),
                                                                          b.data());
        benchmark::DoNotOptimize(w.data());
        break;
    }
    benchmark::ClobberMemory();
  }
  const double flops = 2.0 * p.k_h * p.k_w * p.c_in * p.c_out * p.h_out() * p.w_out() * p.n;
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * 1e-9 * double(state.iterations()), benchmark::Counter::kIsRate);
}

const bool registered = [] {
  const Shape small{"small_n1_16x16_32", 1, 16, 32, 16, 3, 1, 1};
  const Shape blas_shapes[] = {
      small,
      {"unet_n4_16x16_128", 4, 16, 128, 16, 3, 1, 1},
      {"unet_n4_64x64_32", 4, 64, 32, 64, 3, 1, 1},
      {"unet_n4_16x3_128_k1", 4, 16, 128, 3, 1, 1, 0},
      {"vgg_n8_64x128_56", 8, 64, 56, 128, 3, 1, 1},
  };
  const std::pair<Dir, const char*> dirs[] = {
      {Dir::forward, "fwd"}, {Dir::backward_data, "bwd_data"}, {Dir::backward_filter, "bwd_filter"}};
  for (const auto& [dir, dname] : dirs) {
    benchmark::RegisterBenchmark(fmt::format("conv2d_{}/ref/{}", dname, small.label).c_str(),
                                 [dir = dir, small](benchmark::State& st) { run(st, dir, Impl::ref, small); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    for (const Shape& s : blas_shapes)
      benchmark::RegisterBenchmark(fmt::format("conv2d_{}/blas/{}", dname, s.label).c_str(),
                                   [dir = dir, s](benchmark::State& st) { run(st, dir, Impl::blas, s); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
  }
  return true;
}();

}  // namespace
}  // namespace scalebench::cpu
