// parallel.h — parallel_for: split [0, n) into one contiguous range per thread of this rank's budget
// (cpu::blas_threads(), the count OpenBLAS and oneDNN's OpenMP team get: the three take turns, never
// run at once) for the memory-bound layers (ReLU, pooling, batch norm, the optimizer step). Serial
// when the budget is one thread, the work is small, or the build has no OpenMP.
// Deliberately no reductions across threads: each index is computed by exactly one thread with the
// arithmetic of the serial loop, so results do not depend on the thread count (a sum over a channel
// stays inside one thread).
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/cpu/blas_threads.h"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace scalebench::cpu {

// Whether kernels/cpu was compiled with OpenMP: false means parallel_for always runs serially.
bool layer_threads_available();

// The least work worth a thread, in values: below it a wake-up costs more than the loop. Callers
// whose unit is larger (a plane, a channel, a sample) divide it by their unit's size.
constexpr std::int64_t kValuesPerThread = 32768;

// fn(begin, end) over disjoint ranges covering [0, n); at most n / min_per_thread threads.
template <class Fn>
void parallel_for(std::int64_t n, std::int64_t min_per_thread, Fn&& fn) {
  const std::int64_t by_work = std::max<std::int64_t>(1, n / std::max<std::int64_t>(1, min_per_thread));
  const int threads = int(std::min<std::int64_t>(by_work, std::max(1, blas_threads())));
  if (threads <= 1) {
    if (n > 0) fn(std::int64_t(0), n);
    return;
  }
#if defined(_OPENMP)
#pragma omp parallel num_threads(threads)
  {
    const std::int64_t t = omp_get_thread_num(), team = omp_get_num_threads();
    const std::int64_t begin = n * t / team, end = n * (t + 1) / team;
    if (begin < end) fn(begin, end);
  }
#else
  fn(std::int64_t(0), n);
#endif
}

}  // namespace scalebench::cpu
