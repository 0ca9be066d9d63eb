// order_stats.h — the expected maximum of n draws from an empirical distribution, and the mean step
// of a pipelined ring whose transfers are such draws: what the straggler term of `scalebench project`
// is made of, for compute (the slowest of N ranks' traced steps, projection.cpp) and for the ring's
// steps (a ring of N from a commbench's measured steps, netmodel.cpp), and how far such an estimate
// from few samples can be trusted (a resampling interval, for the band), and the slowest of N past the
// samples' count (a fitted tail). Pure arithmetic on samples;
// it reads and measures nothing.
#pragma once

#include <functional>
#include <utility>
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

// The mean time per step of a ring of n ranks through its 2(n - 1) steps when every transfer is an
// independent draw from `samples` and rank r's step s starts once its own step s - 1 and its left
// neighbour's step s - 1 are done (the segment it reduces or forwards next): a ring is a pipeline,
// not a barrier per step, so a slow transfer delays only the steps that depend on it. E[the last
// rank's finish] / (2(n - 1)), estimated from `walks` simulated rings, seeded by a constant (the same
// samples give the same value). n = 1: 0 (no steps). Throws on no samples, n < 1 or walks < 1.
double ring_pipeline_step(const std::vector<double>& samples, int n, int walks);

// A 95 % interval of a statistic of `samples`: the 2.5th and 97.5th percentiles of stat() over
// `resamples` resamples of them with replacement (the percentile bootstrap). The resampling is
// seeded by a constant, so the same samples give the same interval. Throws on no samples or
// resamples < 1. It says how far an estimate from K samples moves with the samples, nothing about
// whether the samples are like the runs predicted.
std::pair<double, double> bootstrap_interval(const std::vector<double>& samples,
                                             const std::function<double(const std::vector<double>&)>& stat,
                                             int resamples = 400);

// The straggler term past the sample. The empirical expected maximum above cannot exceed the largest
// sample, so from N about the sample count on it stops growing where the slowest of N real ranks does
// not. A peaks-over-threshold fit (Pickands 1975; Davison & Smith 1990) keeps it growing: the top
// kTailFraction of the samples (at least kTailMinExceedances) are taken as exceedances over the
// largest sample below them, u, and fitted with a generalized Pareto distribution by
// probability-weighted moments (Hosking & Wallis 1987), its shape clamped to [kTailShapeMin,
// kTailShapeMax] (the estimator needs shape < 1/2, and below -1 the tail would rise toward its end:
// -1 is the uniform's).
// exceedances 0: no fit (fewer than kTailMinSamples samples, or no spread in the tail).
constexpr int kTailMinSamples = 8, kTailMinExceedances = 5;
constexpr double kTailFraction = 0.3, kTailShapeMin = -1.0, kTailShapeMax = 0.5;
struct TailFit {
  double threshold = 0, scale = 0, shape = 0;
  double above = 0;  // the share of the samples above the threshold: P(X > u)
  int exceedances = 0;
};
// Throws on no samples.
TailFit fit_tail(std::vector<double> samples);
// E[max of n independent draws] from the samples' distribution with its tail replaced by the fitted
// one: the sorted samples up to u (the k-th smallest the maximum with probability (k/K)^n -
// ((k-1)/K)^n), above u the fitted tail (a quadrature over its quantiles). It keeps growing with n
// past K (for shape >= 0 without bound). Without a fit (exceedances 0), expected_max(samples, n).
// Throws on no samples or n <= 0.
double expected_max_tail(std::vector<double> samples, double n);

}  // namespace scalebench::project
