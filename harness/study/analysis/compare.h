// compare.h — `scalebench compare BASE NEW`: per point and metric, the relative change of NEW
// against BASE and a verdict against ReFrame-style tolerances (a reference value with an allowed
// deviation per metric). Each metric knows which direction is better; a change beyond the
// tolerance in the worse direction is a REGRESSION, in the better direction "improved".
// Points are matched by point_id (every config field except repetition, data path and study name;
// record/run_config.h). With repetitions on both sides the medians are compared, and a
// Mann–Whitney U test (stats.h) must also find the difference significant (p < alpha) — unless
// the sample sizes make p < alpha impossible, in which case the verdict rests on the tolerance
// alone and says so. A point ok in BASE but failed in NEW counts as a regression, and so does a
// metric missing (NaN) on an ok run: verdict MISSING when BASE has the metric and NEW's ok run
// lacks it, or when an ok run on either side lacks images_per_s (every ok run measures it).
// Points are labelled by model, strategy, N, batch and every configuration field that varies
// between the two files (point_fields.h), so two points never share a label.
// Not here: file reading (study_file.h) or printing beyond render_compare().
#pragma once

#include <string>
#include <vector>

#include "harness/study/analysis/format.h"
#include "harness/study/analysis/study_file.h"

namespace scalebench::study {

struct MetricRule {
  std::string name;
  bool higher_is_better = true;
  double tolerance = 0.1;   // allowed worsening: a fraction (relative) or a value (absolute)
  bool absolute = false;    // compare differences instead of ratios (fractions such as exposed_comm_frac)
  bool enabled = true;
};

std::vector<MetricRule> default_rules();
// "images_per_s=-10%", "epoch_time_s=+5%", "final_val_loss=0.02" (fraction), "mfu=off". The sign,
// when given, must point in the worse direction of the metric. Throws naming the problem.
void apply_threshold(std::vector<MetricRule>& rules, const std::string& spec);

struct MetricVerdict {
  std::string point, metric;
  double base = 0, now = 0;   // medians
  double change = 0;          // relative (or, for absolute rules, plain) change of NEW against BASE
  bool absolute = false;
  std::string limit;          // e.g. "-10%"
  double p = -1;              // Mann–Whitney p, -1 when not tested
  std::string verdict;        // ok | REGRESSION | improved | MISSING | FAILED | fixed | not ok in both
  std::string note;
};

struct CompareResult {
  std::vector<MetricVerdict> rows;  // failures and regressions first, then improvements, then the rest; by point
  std::vector<std::string> only_base, only_new;  // point labels
  // Per unmatched point, the nearest point on the other side and the fields that differ:
  // "m d N=1 b=8: model c -> d" ("" when the other side has no point at all).
  std::vector<std::string> only_base_nearest, only_new_nearest;
  int matched = 0, regressions = 0, improvements = 0;
};

struct CompareOptions {
  std::vector<MetricRule> rules = default_rules();
  double alpha = 0.05;
};

CompareResult compare(const StudyFile& base, const StudyFile& now, const CompareOptions& opt);
// The rows (only the failures, MISSING and REGRESSION rows with only_regressions), then one line per
// metric (points compared, median and range of the change, regressions, improvements), the totals
// and the unmatched points with the fields that differ.
std::string render_compare(const CompareResult& r, Format f, bool only_regressions = false);

}  // namespace scalebench::study
