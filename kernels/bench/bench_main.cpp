// bench_main.cpp — entry point of sb_bench_kernels; the benchmarks register themselves from the
// other files of this folder. Like `scalebench`, it first sets the CPU libraries' load-time
// environment (kernels/cpu/runtime_env.h: OpenBLAS's core type, the thread pools' idle waits) and prints the
// core type, so its GFLOP/s name their kernels.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "kernels/cpu/blas_core.h"
#include "kernels/cpu/runtime_env.h"

int main(int argc, char** argv) {
  scalebench::cpu::prepare_cpu_runtime(argv);
  std::printf("OpenBLAS core type: %s\n", scalebench::cpu::blas_core_origin().c_str());
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
