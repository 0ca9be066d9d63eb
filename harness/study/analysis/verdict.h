// verdict.h — how compare decides one metric of one point (docs/metrics.md, "How compare decides"):
//   measure()         medians, the change (Hodges–Lehmann) with its 95 % interval, the noise and
//                     the raw Mann–Whitney p of a timing metric; the tolerance verdict of the others;
//   decide_timing()   after the Benjamini–Hochberg correction over all `family` timing comparisons
//                     of the compare (v.p then holds the adjusted p): REGRESSION / improved / ok /
//                     INCONCLUSIVE, with the repetitions per side that would likely decide (for a
//                     change alone in its family: the test must then reach alpha / family).
// Not here: matching points, MISSING/FAILED rows or printing (compare.cpp, compare_render.cpp).
#pragma once

#include <cstddef>
#include <vector>

#include "harness/study/analysis/compare.h"

namespace scalebench::study {

// Fills v.base/now/change/lo/hi/n_base/n_new/noise; a non-timing rule also gets its verdict. A
// timing rule with ≥ 2 runs a side gets v.p (raw, to be corrected) and returns true (it joins the
// correction); with one run on a side it is INCONCLUSIVE at once; with the same value in every run
// on both sides it is ok at once (nothing varies, nothing to test).
bool measure(const MetricRule& m, const std::vector<double>& vb, const std::vector<double>& vn, double alpha,
             MetricVerdict& v);

void decide_timing(const MetricRule& m, double alpha, std::size_t family, MetricVerdict& v);

// Repetitions per side after which a 95 % Hodges–Lehmann interval of a shift `shift` with spread
// `spread` (both on the change scale) is likely narrow enough to tell it from `tolerance` (or, for
// a shift beyond it, from zero); never fewer than the test needs to reach alpha. 0: none will
// (the shift sits at the tolerance).
int repetitions_to_decide(double shift, double spread, double tolerance, double alpha);

}  // namespace scalebench::study
