// cpu_peak.cpp — the nominal CPU peak from /proc/cpuinfo and a short sgemm timing (see cpu_peak.h).
#include "harness/record/cpu_peak.h"

#include "kernels/cpu/blas_api.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
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

PeakMeasurement nominal_cpu_peak(const std::string& cpuinfo, int threads) {
  std::string model, flags;
  double mhz = 0;
  std::istringstream in(cpuinfo);
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model name" && model.empty()) model = value;
    if (key == "flags" && flags.empty()) flags = " " + value + " ";
    if (key == "cpu MHz" && mhz == 0) mhz = std::atof(value.c_str());
  }
  const auto has = [&](const char* f) { return flags.find(std::string(" ") + f + " ") != std::string::npos; };
  const int per_cycle = has("avx512f") ? 64 : has("avx2") && has("fma") ? 32 : has("avx") ? 16 : 8;
  const char* ext = has("avx512f") ? "avx512f" : has("avx2") && has("fma") ? "avx2+fma" : has("avx") ? "avx" : "sse";
  std::smatch m;
  double ghz = 0;
  std::string clock_source;
  if (std::regex_search(model, m, std::regex(R"(@\s*([0-9.]+)\s*GHz)"))) {
    ghz = std::atof(m[1].str().c_str());
    clock_source = "base clock from the model name";
  } else if (mhz > 0) {
    ghz = mhz / 1000;
    clock_source = "clock from cpuinfo's cpu MHz";
  }
  if (ghz <= 0 || flags.empty()) return {0, "nominal peak unknown: /proc/cpuinfo gives no clock or no flags"};
  return {per_cycle * double(threads) * ghz * 1e9,
          fmt::format("nominal: {} fp32 FLOP/cycle ({}, two FMA units assumed) x {} threads x {:.3f} GHz ({})",
                      per_cycle, ext, threads, ghz, clock_source)};
}

PeakMeasurement nominal_cpu_peak() {
  std::ifstream in("/proc/cpuinfo");
  std::stringstream ss;
  ss << in.rdbuf();
  return nominal_cpu_peak(ss.str(), cpu::blas_threads());
}

}  // namespace scalebench::record
