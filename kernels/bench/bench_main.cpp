// bench_main.cpp — entry point of sb_bench_kernels; the benchmarks register themselves from the
// other files of this folder. Nothing else lives here.
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
