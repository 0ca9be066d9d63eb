// order_stats.cpp — the expected maximum of draws from an empirical distribution (order_stats.h).
#include "harness/study/project/order_stats.h"

#include <algorithm>
#include <cmath>

#include "kernels/common/check.h"

namespace scalebench::project {

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

}  // namespace scalebench::project
