// kernel_test_util.h — shared helpers of the CPU kernel tests: seeded random data, relative error
// against a reference, and central-difference gradients of a scalar loss. Header-only and test-only;
// it holds no assertions itself so each test states its own tolerance.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <random>
#include <vector>

namespace scalebench::cpu::test {

inline std::vector<float> random_vec(std::size_t count, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(count);
  for (auto& x : v) x = dist(gen);
  return v;
}

// max |got − want| / max |want|: error relative to the reference's largest magnitude, so values
// near zero do not blow the ratio up.
inline double max_rel_err(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return INFINITY;
  double diff = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double d = std::abs(double(got[i]) - want[i]);
    diff = std::isnan(d) ? INFINITY : std::max(diff, d);
    scale = std::max(scale, std::abs(double(want[i])));
  }
  return diff / std::max(scale, 1e-30);
}

// Σ y·r in double: the scalar loss whose gradient w.r.t. y is r.
inline double dot(const std::vector<float>& y, const std::vector<float>& r) {
  double s = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) s += double(y[i]) * r[i];
  return s;
}

// Central differences of loss() w.r.t. every element of v (v is perturbed in place and restored).
inline std::vector<float> numeric_grad(std::vector<float>& v, const std::function<double()>& loss,
                                       float step = 1e-2f) {
  std::vector<float> g(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const float keep = v[i];
    v[i] = keep + step;
    const double up = loss();
    v[i] = keep - step;
    const double down = loss();
    v[i] = keep;
    // Divide by the step actually taken in float, not the nominal one.
    g[i] = static_cast<float>((up - down) / (double(keep + step) - double(keep - step)));
  }
  return g;
}

// A buffer prefilled with NaN: a kernel that promises to overwrite must leave no NaN behind.
inline std::vector<float> poisoned(std::size_t count) { return std::vector<float>(count, NAN); }

}  // namespace scalebench::cpu::test
