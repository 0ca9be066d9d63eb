// intervals.h — distribution-free 95 % intervals for what scalebench shows, from repetitions:
//   shift_interval   the shift between two samples (NEW against BASE; a point against its N = 1
//                    baseline): the Hodges–Lehmann estimate (median of all n1·n2 pairwise
//                    differences) and the interval between the k-th smallest and k-th largest of
//                    those differences, k from the exact Mann–Whitney null distribution (Bauer 1972;
//                    Hollander & Wolfe, Nonparametric Statistical Methods, §4.3). On log values it is
//                    a ratio: the interval of NEW/BASE. It covers the true shift with at least the
//                    stated confidence for any continuous distribution of the same shape on both
//                    sides, and it is computed from both samples: never a ratio of medians shown as exact.
//   median_interval  a sample's median between two order statistics, k from Binomial(n, ½).
// With too few values no interval reaches the level (5 vs 5 reaches 96.8 %, 3 vs 3 at most 90 %;
// a median needs n ≥ 6): `bounded` is false then and lo/hi are NaN — shown as "-", never narrowed.
// Not here: decisions (compare.cpp) or flags (point_stats.h).
#pragma once

#include <vector>

namespace scalebench::study {

struct Interval {
  double estimate = 0;    // HL estimate, or the median
  double lo = 0, hi = 0;  // NaN when !bounded
  double confidence = 0;  // achieved (≥ the level asked) when bounded
  bool bounded = false;
};

// On log values when `ratio`: estimate/lo/hi are then ratios NEW/BASE (1 = no change).
Interval shift_interval(const std::vector<double>& base, const std::vector<double>& now, bool ratio,
                        double level = 0.95);
Interval median_interval(const std::vector<double>& x, double level = 0.95);

// 1.4826 × the median absolute deviation: the standard deviation for normal data, robust to
// outliers. On log values when `ratio` (then a relative spread, like a coefficient of variation).
double robust_spread(const std::vector<double>& x, bool ratio);

}  // namespace scalebench::study
