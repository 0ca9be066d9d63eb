// cpu_peak.cpp — a short sgemm timing (see cpu_peak.h).
#include "harness/record/cpu_peak.h"

#include <cblas.h>

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "harness/train/phase_timer.h"
#include "kernels/cpu/blas_threads.h"

namespace scalebench::record {

PeakMeasurement measure_cpu_peak(double budget_seconds) {
  // 512³: 268 MFLOP per call — long enough to time, small enough that A, B, C (3 MiB) stay near
  // the caches, as the conv GEMMs of the models do.
  constexpr int n = 512;
  std::vector<float> a(std::size_t(n) * n, 0.5f), b(a.size(), 0.25f), c(a.size(), 0.0f);
  const double flop = 2.0 * n * n * n;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
  double best = 0;
  int trials = 0;
  Stopwatch total;
  while (trials < 3 || (total.elapsed() < budget_seconds && trials < 50)) {
    Stopwatch sw;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(),
                n);
    best = std::max(best, flop / std::max(sw.elapsed(), 1e-9));
    ++trials;
  }
  return {best, fmt::format("sgemm {}x{}x{}, best of {} trials, {} BLAS threads", n, n, n, trials,
                            cpu::blas_threads())};
}

}  // namespace scalebench::record
