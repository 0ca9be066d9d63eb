// stats.cpp — median, Mann–Whitney U, Holm and Benjamini–Hochberg (see stats.h).
#include "harness/study/analysis/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace scalebench::study {
namespace {

double choose(int n, int k) {
  double c = 1;
  for (int i = 1; i <= k; ++i) c = c * double(n - k + i) / double(i);
  return c;
}

// Visits every k-subset of ranks[from..] and calls f(sum of chosen ranks).
template <class F>
void subsets(const std::vector<double>& ranks, std::size_t from, int k, double sum, F& f) {
  if (k == 0) return f(sum);
  for (std::size_t i = from; i + std::size_t(k) <= ranks.size(); ++i) subsets(ranks, i + 1, k - 1, sum + ranks[i], f);
}

}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

MannWhitney mann_whitney(const std::vector<double>& a, const std::vector<double>& b) {
  MannWhitney r;
  const int n1 = int(a.size()), n2 = int(b.size()), n = n1 + n2;
  if (n1 == 0 || n2 == 0) return r;
  std::vector<std::pair<double, int>> pooled;  // value, 0 for a / 1 for b
  for (double x : a) pooled.push_back({x, 0});
  for (double x : b) pooled.push_back({x, 1});
  std::sort(pooled.begin(), pooled.end());
  std::vector<double> ranks(static_cast<std::size_t>(n));
  double tie_term = 0;  // Σ (t³ − t) over tie groups
  for (int i = 0; i < n;) {
    int j = i;
    while (j < n && pooled[std::size_t(j)].first == pooled[std::size_t(i)].first) ++j;
    for (int k = i; k < j; ++k) ranks[std::size_t(k)] = 0.5 * (i + 1 + j);  // midrank of positions i+1..j
    const double t = j - i;
    tie_term += t * t * t - t;
    i = j;
  }
  double ra = 0;
  for (int i = 0; i < n; ++i)
    if (pooled[std::size_t(i)].second == 0) ra += ranks[std::size_t(i)];
  const double offset = double(n1) * (n1 + 1) / 2, mean = double(n1) * n2 / 2;
  r.u = ra - offset;
  const double dev = std::abs(r.u - mean);
  if (choose(n, n1) <= 200000) {
    r.exact = true;
    double total = 0, extreme = 0, max_dev = 0, at_max = 0;
    auto visit = [&](double sum) {
      const double d = std::abs(sum - offset - mean);
      total += 1;
      if (d >= dev - 1e-9) extreme += 1;
      if (d > max_dev + 1e-9) max_dev = d, at_max = 0;
      if (std::abs(d - max_dev) <= 1e-9) at_max += 1;
    };
    subsets(ranks, 0, n1, 0.0, visit);
    r.p = extreme / total;
    r.min_p = at_max / total;
    return r;
  }
  const double var = double(n1) * n2 / 12.0 * ((n + 1) - tie_term / (double(n) * (n - 1)));
  if (var <= 0) return r;  // every value tied: no evidence either way
  const auto p_of = [&](double d) { return std::min(1.0, std::erfc(std::max(0.0, d - 0.5) / std::sqrt(var) / std::sqrt(2.0))); };
  r.p = p_of(dev);
  r.min_p = p_of(mean);
  return r;
}

std::vector<double> u_null_counts(int n1, int n2) {
  // dp[a][b][u] over a ≤ n1, b ≤ n2, kept as one layer per a.
  const int top = n1 * n2;
  std::vector<std::vector<std::vector<double>>> dp(std::size_t(n1 + 1),
                                                   std::vector<std::vector<double>>(std::size_t(n2 + 1)));
  for (int a = 0; a <= n1; ++a)
    for (int b = 0; b <= n2; ++b) {
      auto& cur = dp[std::size_t(a)][std::size_t(b)];
      cur.assign(std::size_t(a * b + 1), 0.0);
      if (a == 0 || b == 0) {
        cur[0] = 1;
        continue;
      }
      // The largest of the pooled values is from the first sample (it beats all b of the second)
      // or from the second (it adds nothing to U).
      const auto& first = dp[std::size_t(a - 1)][std::size_t(b)];
      const auto& second = dp[std::size_t(a)][std::size_t(b - 1)];
      for (std::size_t u = 0; u < first.size(); ++u) cur[u + std::size_t(b)] += first[u];
      for (std::size_t u = 0; u < second.size(); ++u) cur[u] += second[u];
    }
  auto out = dp[std::size_t(n1)][std::size_t(n2)];
  out.resize(std::size_t(top + 1), 0.0);
  return out;
}

double u_lower_tail(int n1, int n2, int u) {
  if (u < 0) return 0;
  const auto counts = u_null_counts(n1, n2);
  double below = 0;
  for (int i = 0; i <= u && i < int(counts.size()); ++i) below += counts[std::size_t(i)];
  return below / choose(n1 + n2, n1);
}

double smallest_p(int n) { return n < 1 ? 1.0 : std::min(1.0, 2.0 / choose(2 * n, n)); }

int repetitions_to_reach(double alpha) {
  int n = 1;
  while (smallest_p(n) >= alpha && n < 1000) ++n;
  return n;
}

namespace {

// Indices of p in increasing order of p (ties in the order given).
std::vector<std::size_t> ascending(const std::vector<double>& p) {
  std::vector<std::size_t> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return p[a] < p[b]; });
  return order;
}

}  // namespace

std::vector<double> holm(const std::vector<double>& p) {
  const std::size_t m = p.size();
  const auto order = ascending(p);
  std::vector<double> adj(m);
  double running = 0;  // step-down: adjusted p never decreases along the sorted order
  for (std::size_t i = 0; i < m; ++i) {
    running = std::max(running, std::min(1.0, double(m - i) * p[order[i]]));
    adj[order[i]] = running;
  }
  return adj;
}

std::vector<double> benjamini_hochberg(const std::vector<double>& p) {
  const std::size_t m = p.size();
  const auto order = ascending(p);
  std::vector<double> adj(m);
  double running = 1;  // step-up: from the largest p down, the running minimum of p·m/rank
  for (std::size_t i = m; i-- > 0;) {
    running = std::min(running, p[order[i]] * double(m) / double(i + 1));
    adj[order[i]] = running;
  }
  return adj;
}

}  // namespace scalebench::study
