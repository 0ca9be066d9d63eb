// signed_rank.cpp — Wilcoxon signed-rank test, Hodges–Lehmann paired shift (see signed_rank.h).
#include "harness/study/ab/signed_rank.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "harness/study/analysis/stats.h"

namespace scalebench::study {
namespace {

// counts[s]: how many of the 2^n sign patterns give a positive-rank sum of s, for integer scores
// (ranks, or midranks doubled). Subset-sum recursion: each score is in the sum or not.
std::vector<double> null_counts(const std::vector<std::int64_t>& scores) {
  std::int64_t total = 0;
  for (auto s : scores) total += s;
  std::vector<double> c(std::size_t(total) + 1, 0.0);
  c[0] = 1;
  std::int64_t reach = 0;
  for (auto s : scores) {
    for (std::int64_t v = reach; v >= 0; --v)
      if (c[std::size_t(v)] != 0) c[std::size_t(v + s)] += c[std::size_t(v)];
    reach += s;
  }
  return c;
}

}  // namespace

SignedRank wilcoxon_signed_rank(const std::vector<double>& d) {
  SignedRank r;
  std::vector<double> nz;
  for (double x : d)
    if (x != 0 && std::isfinite(x)) nz.push_back(x);
  r.n = int(nz.size());
  if (nz.empty()) return r;
  std::sort(nz.begin(), nz.end(), [](double a, double b) { return std::abs(a) < std::abs(b); });
  // Doubled midranks: a tie group over positions i+1..j gets i+1+j (twice its midrank), an integer.
  std::vector<std::int64_t> twice(nz.size());
  for (std::size_t i = 0; i < nz.size();) {
    std::size_t j = i;
    while (j < nz.size() && std::abs(nz[j]) == std::abs(nz[i])) ++j;
    for (std::size_t k = i; k < j; ++k) twice[k] = std::int64_t(i + 1 + j);
    i = j;
  }
  std::int64_t w2 = 0, total = 0;
  for (std::size_t i = 0; i < nz.size(); ++i) {
    total += twice[i];
    if (nz[i] > 0) w2 += twice[i];
  }
  r.w_plus = double(w2) / 2;
  const std::vector<double> c = null_counts(twice);
  // Two-sided: patterns at least as far from the mean (total / 2) as the observed sum.
  const double mean = double(total) / 2, dev = std::abs(double(w2) - mean);
  double all = 0, extreme = 0;
  for (std::size_t s = 0; s < c.size(); ++s) {
    all += c[s];
    if (std::abs(double(s) - mean) >= dev - 1e-9) extreme += c[s];
  }
  r.p = std::min(1.0, extreme / all);
  return r;
}

double smallest_signed_rank_p(int n) { return n <= 0 ? 1.0 : std::min(1.0, 2.0 / std::ldexp(1.0, n)); }

int pairs_to_reach(double alpha) {
  int n = 1;
  while (smallest_signed_rank_p(n) >= alpha && n < 1000) ++n;
  return n;
}

PairedShift paired_shift(const std::vector<double>& d) {
  PairedShift r;
  r.lo = r.hi = std::numeric_limits<double>::quiet_NaN();
  const std::size_t n = d.size();
  if (n == 0) {
    r.estimate = r.lo;
    return r;
  }
  std::vector<double> walsh;
  walsh.reserve(n * (n + 1) / 2);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i; j < n; ++j) walsh.push_back(0.5 * (d[i] + d[j]));
  std::sort(walsh.begin(), walsh.end());
  r.estimate = median(walsh);
  // k: one more than the largest c with P(W+ ≤ c) ≤ 2.5 % under the no-ties null distribution;
  // the interval [W_(k), W_(M+1-k)] then covers at least 95 %.
  std::vector<std::int64_t> ranks(n);
  for (std::size_t i = 0; i < n; ++i) ranks[i] = std::int64_t(i + 1);
  const std::vector<double> c = null_counts(ranks);
  const double all = std::ldexp(1.0, int(n));
  double cum = 0;
  std::int64_t k = 0;
  for (std::size_t s = 0; s < c.size(); ++s) {
    cum += c[s];
    if (cum / all > 0.025) break;
    k = std::int64_t(s) + 1;
  }
  if (k == 0) return r;
  r.lo = walsh[std::size_t(k - 1)];
  r.hi = walsh[walsh.size() - std::size_t(k)];
  r.bounded = true;
  return r;
}

double robust_sd(const std::vector<double>& d) {
  if (d.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double m = median(d);
  std::vector<double> dev;
  for (double x : d) dev.push_back(std::abs(x - m));
  return 1.4826 * median(dev);
}

}  // namespace scalebench::study
