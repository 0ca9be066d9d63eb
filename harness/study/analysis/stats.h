// stats.h — the statistics `compare` needs: median, the Mann–Whitney U test and its exact null
// distribution, and the corrections for many tests in one compare (Holm, Benjamini–Hochberg).
// Mann–Whitney (two-sided, midranks for ties):
//   exact     when the number of ways to split the pooled sample, C(n1+n2, n1), is at most 200 000
//             (n1 = n2 = 10 is 184 756): every split is enumerated, so ties are handled exactly;
//   normal    approximation otherwise, with the tie correction of the variance and a continuity
//             correction of 0.5.
// min_p is the smallest p-value the test could give for these sample sizes (and ties).
// Not here: what compare makes of the p-values (verdict.h) or intervals (intervals.h).
#pragma once

#include <vector>

namespace scalebench::study {

double median(std::vector<double> v);  // NaN when empty

struct MannWhitney {
  double u = 0;      // U of the first sample
  double p = 1;      // two-sided
  double min_p = 1;  // smallest attainable two-sided p for these sizes
  bool exact = false;
};

MannWhitney mann_whitney(const std::vector<double>& a, const std::vector<double>& b);

// Exact null distribution of U for sizes n1, n2 without ties: counts[u] = number of the C(n1+n2, n1)
// splits with U = u (u = 0 … n1·n2), by the recursion N(n1, n2, u) = N(n1−1, n2, u−n2) + N(n1, n2−1, u).
std::vector<double> u_null_counts(int n1, int n2);
// P(U ≤ u) under the null, exact (no ties).
double u_lower_tail(int n1, int n2, int u);
// Smallest two-sided p an exact U test can give for n vs n without ties: 2 / C(2n, n).
double smallest_p(int n);
// The smallest n (per side) whose exact two-sided U test can give p < alpha (5 for 0.01: 2/252).
int repetitions_to_reach(double alpha);

// Adjusted p-values, in the order given: Holm's step-down (family-wise error) and
// Benjamini–Hochberg's step-up (false discovery rate, valid under positive dependence). A test is
// rejected at level alpha when its adjusted p is below alpha.
std::vector<double> holm(const std::vector<double>& p);
std::vector<double> benjamini_hochberg(const std::vector<double>& p);

}  // namespace scalebench::study
