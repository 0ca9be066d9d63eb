// paired.h — how `scalebench ab` decides one timing metric of one point from its pairs (docs/metrics.md,
// "A/B in one run: scalebench ab"). Per pair k (the k-th run of A and of B, taken back to back), the
// paired difference d_k = log(B_k / A_k) (absolute metrics such as exposed_comm_frac: B_k − A_k);
// drift of the host between pairs cancels in d_k. Then:
//   change    the Hodges–Lehmann shift of the d_k with its 95 % interval (signed_rank.h), shown as
//             B against A (exp(shift) − 1 for ratios);
//   slower /  the two-sided Wilcoxon signed-rank test significant at alpha after the Benjamini–
//   faster    Hochberg correction over every timing test of the run (compare's correction, stats.h);
//             the direction from the metric's better side (slower: B worse than A);
//   no change the interval inside ±tolerance (the metric's compare tolerance, --threshold);
//   INCONCLUSIVE anything else, with the pairs that would likely decide (pairs_to_decide).
// No magnitude gate beyond significance: pairing removes the between-run drift compare's noise gate
// guards against, and the question ab answers is "did it change", with the size printed beside.
// Not here: running the pairs (ab.h), file reading (study_file.h), matching points by configuration.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "harness/study/analysis/compare.h"
#include "harness/study/analysis/format.h"
#include "harness/study/analysis/study_file.h"

namespace scalebench::study {

struct PairedVerdict {
  std::string point, metric;
  double a = NAN, b = NAN;                   // medians over the complete pairs
  double change = NAN, lo = NAN, hi = NAN;   // B against A: ratio − 1, or the difference (absolute)
  bool absolute = false;
  std::string band;                          // the "no change" band, "±10%"
  double p = -1;                             // signed-rank p after Benjamini–Hochberg; -1 when not tested
  int pairs = 0;                             // complete pairs (both runs ok, with a value)
  double noise = NAN;                        // robust spread of the paired differences (log scale for ratios)
  int needed = 0;                            // INCONCLUSIVE: pairs that would likely decide (0: none will)
  std::string verdict;                       // slower | faster | no change | INCONCLUSIVE
  std::string note;
};

// Fills the verdict's figures from the pairs (a[k], b[k]). Returns true when the pairs are to be
// tested (v.p holds the raw p for the correction); false when decided already: fewer than 2 pairs
// (INCONCLUSIVE) or the same value in both runs of every pair (no change).
bool measure_pairs(const MetricRule& m, const std::vector<double>& a, const std::vector<double>& b, double alpha,
                   PairedVerdict& v);
// After the correction (v.p adjusted), over `family` tests.
void decide_pairs(const MetricRule& m, double alpha, std::size_t family, PairedVerdict& v);

// Pairs after which the 95 % interval of a paired shift `shift` with spread `spread` (log or
// absolute scale) likely excludes 0 or lies inside ±tolerance, whichever comes first: the
// interval's half-width is about 1.96 · spread · √(π/3) / √n (the signed-rank test's efficiency
// against the t test is 3/π); never fewer than the test needs to reach alpha. 0: no route
// (the shift sits at the tolerance with no spread to shrink).
int pairs_to_decide(double shift, double spread, double tolerance, double alpha);

// One point of an A/B run: its label and its point id on each side (they differ when the sides'
// options do).
struct AbPoint {
  std::string label, a_id, b_id;
};

struct AbResult {
  std::vector<PairedVerdict> rows;  // by point, then metric (metrics.def order)
  int slower = 0, faster = 0, no_change = 0, inconclusive = 0, tests = 0;
  int incomplete = 0;               // runs whose partner failed or lacks the value (their pair left out)
  double alpha = 0.01;
};

// Pairs the ok runs of each point by repetition (run k of A with run k of B) and decides every
// enabled timing metric of `rules` (collect's derived speedup and efficiency left out: they are
// images_per_s over a baseline of the same side).
AbResult paired_compare(const StudyFile& a, const StudyFile& b, const std::vector<AbPoint>& points,
                        const std::vector<MetricRule>& rules, double alpha);

std::string render_ab(const AbResult& r, Format f);

}  // namespace scalebench::study
