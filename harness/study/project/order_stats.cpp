// order_stats.cpp — the expected maximum of draws from an empirical distribution, a pipelined
// ring's mean step, a resampling interval (order_stats.h).
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

}  // namespace scalebench::project
