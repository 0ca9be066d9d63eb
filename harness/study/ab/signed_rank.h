// signed_rank.h — the statistics of paired samples that `scalebench ab` decides by: the Wilcoxon
// signed-rank test and the Hodges–Lehmann estimate of the paired shift with its distribution-free
// 95 % interval (Hollander & Wolfe, Nonparametric Statistical Methods, §3.1–3.2).
//   test      two-sided, exact for every n: the null distribution of W+ (the sum of the ranks of
//             the positive differences) is counted over all 2^n sign patterns by a recursion on the
//             ranks, midranks of tied |differences| included (in half-units, so they stay
//             integers); zero differences are dropped (Wilcoxon's rule). O(n³), so meant for the
//             tens of pairs an A/B run takes (ab caps --pairs at 200);
//   estimate  the median of the n(n+1)/2 Walsh averages (d_i + d_j)/2, i ≤ j;
//   interval  the k-th smallest to the k-th largest Walsh average, k from the exact null
//             distribution without ties; unbounded (NaN) when n is too small for 95 % (n ≤ 5).
// Boost.Math has no signed-rank distribution and the project links no statistics library, so the
// null distribution is counted here; the unit tests check it against SciPy's published values.
// Not here: what ab makes of the p-value (paired.h).
#pragma once

#include <vector>

namespace scalebench::study {

struct SignedRank {
  double w_plus = 0;  // sum of the ranks (midranks) of the positive differences
  double p = 1;       // two-sided; 1 when every difference is zero
  int n = 0;          // non-zero differences
};

SignedRank wilcoxon_signed_rank(const std::vector<double>& d);

// Smallest two-sided p the test can give with n non-zero differences, no ties: 2 / 2^n.
double smallest_signed_rank_p(int n);
// The smallest n whose exact signed-rank test can give p < alpha (8 for 0.01: 2/256).
int pairs_to_reach(double alpha);

struct PairedShift {
  double estimate = 0;
  double lo = 0, hi = 0;  // NaN when the pairs cannot bound a 95 % interval
  bool bounded = false;
};
PairedShift paired_shift(const std::vector<double>& d);

// 1.4826 × the median absolute deviation from the median (the normal's σ for normal data).
double robust_sd(const std::vector<double>& d);

}  // namespace scalebench::study
