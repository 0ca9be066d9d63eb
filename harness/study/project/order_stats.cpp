// order_stats.cpp — the expected maximum of draws from an empirical distribution, a pipelined
// ring's mean step, a resampling interval, the fitted tail (order_stats.h).
#include "harness/study/project/order_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/common/check.h"

namespace scalebench::project {

namespace {
// splitmix64 from a constant seed: the same draws on every platform and run (no <random>
// distribution, whose output the standard leaves to the library).
struct Splitmix {
  std::uint64_t state = 0x5ca1eb3c4ull;
  std::uint64_t operator()() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};
}  // namespace

double expected_max(std::vector<double> samples, double n, double slow) {
  SB_REQUIRE(!samples.empty() && n > 0, "expected_max: {} samples, n = {}", samples.size(), n);
  SB_REQUIRE(slow > 0 && slow <= 1, "expected_max: slow fraction {} outside (0, 1]", slow);
  if (n == 1) slow = 1.0;  // the one draw is a plain one
  std::sort(samples.begin(), samples.end());
  // n - 1 draws x from the samples, one draw x / slow (slow = 1: n plain draws): walk the jumps of
  // both step functions in order; at each, P(max <= it) = (i/K)^(n-1) (j/K), i and j the samples
  // (plain, slowed) at or below it, and the jump's probability is that less the previous one.
  std::vector<double> slowed(samples);
  for (double& x : slowed) x /= slow;
  const double k = double(samples.size());
  std::size_t i = 0, j = 0;
  double e = 0, below = 0;
  while (i < samples.size() || j < slowed.size()) {
    const double at = j == slowed.size() || (i < samples.size() && samples[i] <= slowed[j]) ? samples[i] : slowed[j];
    while (i < samples.size() && samples[i] <= at) ++i;
    while (j < slowed.size() && slowed[j] <= at) ++j;
    const double upto = std::pow(double(i) / k, n - 1) * (double(j) / k);
    e += at * (upto - below);
    below = upto;
  }
  return e;
}

double ring_pipeline_step(const std::vector<double>& samples, int n, int walks) {
  SB_REQUIRE(!samples.empty() && n >= 1 && walks >= 1, "ring_pipeline_step: {} samples, n = {}, {} walks",
             samples.size(), n, walks);
  if (n == 1) return 0.0;
  Splitmix next;
  const int steps = 2 * (n - 1);
  std::vector<double> done(static_cast<std::size_t>(n)), was(done);  // [n] finish of each rank's last step
  double sum = 0;
  for (int w = 0; w < walks; ++w) {
    std::fill(done.begin(), done.end(), 0.0);
    for (int s = 0; s < steps; ++s) {
      was = done;
      for (int r = 0; r < n; ++r)
        done[std::size_t(r)] = std::max(was[std::size_t(r)], was[std::size_t((r + n - 1) % n)]) +
                               samples[next() % samples.size()];
    }
    sum += *std::max_element(done.begin(), done.end());
  }
  return sum / double(walks) / double(steps);
}

std::pair<double, double> bootstrap_interval(const std::vector<double>& samples,
                                             const std::function<double(const std::vector<double>&)>& stat,
                                             int resamples) {
  SB_REQUIRE(!samples.empty() && resamples >= 1, "bootstrap_interval: {} samples, {} resamples", samples.size(), resamples);
  Splitmix next;
  std::vector<double> stats, draw(samples.size());
  stats.reserve(std::size_t(resamples));
  for (int b = 0; b < resamples; ++b) {
    for (double& x : draw) x = samples[next() % samples.size()];
    stats.push_back(stat(draw));
  }
  std::sort(stats.begin(), stats.end());
  const auto at = [&](double q) { return stats[std::size_t(std::lround(q * double(stats.size() - 1)))]; };
  return {at(0.025), at(0.975)};
}

namespace {
// The semi-parametric distribution of the samples: the sorted samples up to a threshold u, above it
// a generalized Pareto tail fitted to the exceedances (tail_fit in order_stats.h).
struct SemiParametric {
  std::vector<double> sorted;  // ascending
  TailFit tail;
};

// Probability-weighted moments (Hosking & Wallis 1987, Technometrics 29(3)): for exceedances
// y_(1) <= ... <= y_(m), a0 = their mean, a1 = mean of (1 - p_i) y_(i) with p_i = (i - 0.35)/m;
// shape xi = 2 - a0/(a0 - 2 a1), scale sigma = 2 a0 a1/(a0 - 2 a1).
bool fit_pwm(const std::vector<double>& y, double& shape, double& scale) {
  const double m = double(y.size());
  double a0 = 0, a1 = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    a0 += y[i];
    a1 += (1.0 - (double(i) + 1 - 0.35) / m) * y[i];
  }
  a0 /= m, a1 /= m;
  const double d = a0 - 2 * a1;
  if (!(a0 > 0) || !(d > 0)) return false;
  shape = std::clamp(2.0 - a0 / d, kTailShapeMin, kTailShapeMax);
  scale = a0 * (1.0 - shape);  // the GPD's mean is scale / (1 - shape): the exceedances' mean kept
  return scale > 0;
}
}  // namespace

TailFit fit_tail(std::vector<double> samples) {
  SB_REQUIRE(!samples.empty(), "fit_tail: no samples");
  std::sort(samples.begin(), samples.end());
  TailFit t;
  const std::size_t k = samples.size();
  if (k < std::size_t(kTailMinSamples)) return t;
  const std::size_t m = std::max<std::size_t>(kTailMinExceedances, std::size_t(std::ceil(kTailFraction * double(k))));
  t.threshold = samples[k - m - 1];
  std::vector<double> y;
  for (std::size_t i = k - m; i < k; ++i) y.push_back(samples[i] - t.threshold);
  double shape = 0, scale = 0;
  if (!fit_pwm(y, shape, scale)) return t;
  t.shape = shape, t.scale = scale, t.above = double(m) / double(k), t.exceedances = int(m);
  return t;
}

double expected_max_tail(std::vector<double> samples, double n) {
  SB_REQUIRE(!samples.empty() && n > 0, "expected_max_tail: {} samples, n = {}", samples.size(), n);
  const TailFit t = fit_tail(samples);
  if (t.exceedances == 0) return expected_max(std::move(samples), n);
  std::sort(samples.begin(), samples.end());
  const double k = double(samples.size());
  const std::size_t body = samples.size() - std::size_t(t.exceedances);
  // the body: the k-th smallest is the maximum with probability (k/K)^n - ((k-1)/K)^n
  double e = 0;
  for (std::size_t i = 1; i <= body; ++i)
    e += samples[i - 1] * (std::pow(double(i) / k, n) - std::pow(double(i - 1) / k, n));
  // the tail: p from p0 = 1 - above to 1, as t = -log((1 - p) / above) from 0 up; the quantile there
  // is u + scale g(t), g(t) = (e^{shape t} - 1) / shape (t at shape 0), and d(p^n) = n p^(n-1) (1 - p) dt
  const double p0 = 1.0 - t.above;
  e += t.threshold * (1.0 - std::pow(p0, n));
  const auto g = [&](double s) { return std::fabs(t.shape) < 1e-9 ? s : std::expm1(t.shape * s) / t.shape; };
  const auto f = [&](double s) {
    const double q = t.above * std::exp(-s);  // 1 - p
    return g(s) * n * std::exp((n - 1) * std::log1p(-q)) * q;
  };
  // the weight peaks near t = log(n above) and falls as e^{-(1 - shape) t} past it: Simpson's rule
  // over [0, log(1 + n above) + 60], step 0.05
  const double end = std::log1p(n * t.above) + 60.0, h = 0.05;
  const int steps = 2 * int(std::ceil(end / h / 2));
  double sum = f(0) + f(steps * h);
  for (int i = 1; i < steps; ++i) sum += (i % 2 ? 4.0 : 2.0) * f(i * h);
  return e + t.scale * sum * h / 3.0;
}

}  // namespace scalebench::project
