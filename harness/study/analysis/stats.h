// stats.h — the little statistics `compare` needs: median and the Mann–Whitney U test.
// Mann–Whitney (two-sided, midranks for ties):
//   exact     when the number of ways to split the pooled sample, C(n1+n2, n1), is at most 200 000
//             (n1 = n2 = 10 is 184 756): every split is enumerated, so ties are handled exactly;
//   normal    approximation otherwise, with the tie correction of the variance and a continuity
//             correction of 0.5.
// min_p is the smallest p-value the test could give for these sample sizes (and ties); when it is
// not below alpha the test cannot detect anything and `compare` says so instead of trusting it.
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

}  // namespace scalebench::study
