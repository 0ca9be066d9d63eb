// order_stats.h — the expected maximum of n draws from an empirical distribution: what the
// straggler term of `scalebench project` is made of, for compute (the slowest of N ranks' traced
// steps, projection.cpp) and for the ring's steps (the slowest of N transfers from a commbench's
// measured steps, netmodel.cpp). Pure arithmetic on samples; it reads and measures nothing.
#pragma once

#include <vector>

namespace scalebench::project {

// E[max of n independent draws] from the empirical distribution of `samples` (resampling with
// replacement, in closed form: the k-th smallest of K is the maximum with probability
// (k/K)^n - ((k-1)/K)^n). n = 1: their mean. n need not be whole: the distribution whose CDF is
// the samples' raised to the power n (a ring of N ranks from steps measured at k: n = N/k). With
// slow < 1, one of the n draws is divided by `slow` (a rank that computes at that fraction of the
// traced speed; n >= 2): the maximum's CDF is F(x)^(n-1) F(x slow), evaluated exactly on the union
// of the two step functions' jumps (slow = 1 is the same walk with both functions equal). Throws on
// no samples, n <= 0 or slow outside (0, 1].
double expected_max(std::vector<double> samples, double n, double slow = 1.0);

}  // namespace scalebench::project
