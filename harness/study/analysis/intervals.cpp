// intervals.cpp — Hodges–Lehmann shift intervals and order-statistic median intervals (see intervals.h).
#include "harness/study/analysis/intervals.h"

#include <algorithm>
#include <cmath>

#include "harness/study/analysis/stats.h"

namespace scalebench::study {
namespace {

// The largest k ≥ 1 with P(U ≤ k − 1) ≤ (1 − level)/2, and the confidence 1 − 2 P(U ≤ k − 1) it
// gives; k = 0 when even the extreme differences do not reach the level. Exact up to 25 × 25
// values per side (the counts table stays small), else the normal approximation of U.
std::pair<int, double> u_cut(int n1, int n2, double level) {
  const double half = (1 - level) / 2;
  if (n1 <= 25 && n2 <= 25) {
    const auto counts = u_null_counts(n1, n2);
    double total = 0;
    for (double c : counts) total += c;
    double below = 0;
    int k = 0;
    double conf = 0;
    for (std::size_t u = 0; u < counts.size(); ++u) {
      below += counts[u];
      if (below / total > half) break;
      k = int(u) + 1;
      conf = 1 - 2 * below / total;
    }
    return {k, conf};
  }
  // Normal approximation: k − 1 = the (1 − level)/2 quantile of U, z found by bisection on erfc.
  double lo = 0, hi = 10;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * std::erfc(mid / std::sqrt(2.0)) > half ? lo : hi) = mid;
  }
  const double mean = double(n1) * n2 / 2, sd = std::sqrt(double(n1) * n2 * (n1 + n2 + 1) / 12.0);
  const int k = int(std::floor(mean - hi * sd));
  return {std::max(k, 0), level};
}

double value(double x, bool ratio) { return ratio ? std::log(x) : x; }
double back(double x, bool ratio) { return ratio ? std::exp(x) : x; }

}  // namespace

Interval shift_interval(const std::vector<double>& base, const std::vector<double>& now, bool ratio, double level) {
  Interval r;
  r.lo = r.hi = r.estimate = NAN;
  std::vector<double> d;
  for (double b : base)
    for (double n : now)
      if (std::isfinite(b) && std::isfinite(n) && (!ratio || (b > 0 && n > 0))) d.push_back(value(n, ratio) - value(b, ratio));
  if (d.empty()) return r;
  std::sort(d.begin(), d.end());
  r.estimate = back(median(d), ratio);
  const auto [k, conf] = u_cut(int(base.size()), int(now.size()), level);
  if (k < 1 || std::size_t(k) > d.size()) return r;
  r.lo = back(d[std::size_t(k - 1)], ratio);
  r.hi = back(d[d.size() - std::size_t(k)], ratio);
  r.confidence = conf;
  r.bounded = true;
  return r;
}

Interval median_interval(const std::vector<double>& x, double level) {
  Interval r;
  r.lo = r.hi = NAN;
  std::vector<double> v;
  for (double e : x)
    if (std::isfinite(e)) v.push_back(e);
  r.estimate = median(v);
  const int n = int(v.size());
  if (n == 0) return r;
  std::sort(v.begin(), v.end());
  // P(B ≤ j) for B ~ Binomial(n, ½), accumulated until it passes (1 − level)/2.
  const double half = (1 - level) / 2;
  double term = std::pow(0.5, n), below = 0;
  int k = 0;
  double conf = 0;
  for (int j = 0; j < n; ++j) {
    below += term;
    if (below > half) break;
    k = j + 1;
    conf = 1 - 2 * below;
    term = term * double(n - j) / double(j + 1);
  }
  if (k < 1) return r;
  r.lo = v[std::size_t(k - 1)];
  r.hi = v[std::size_t(n - k)];
  r.confidence = conf;
  r.bounded = true;
  return r;
}

double robust_spread(const std::vector<double>& x, bool ratio) {
  std::vector<double> v;
  for (double e : x)
    if (std::isfinite(e) && (!ratio || e > 0)) v.push_back(value(e, ratio));
  if (v.size() < 2) return NAN;
  const double m = median(v);
  for (double& e : v) e = std::abs(e - m);
  return 1.4826 * median(v);
}

}  // namespace scalebench::study
