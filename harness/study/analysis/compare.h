// compare.h — `scalebench compare BASE NEW`: per point and metric, NEW against BASE, with the
// metrics, directions and tolerances of metrics.def. Points are matched by point_id (every config
// field except repetition, data path and study name; record/run_config.h).
// Timing metrics (kind timing) are decided by repetitions (docs/metrics.md, "How compare decides"):
// the change is the Hodges–Lehmann ratio NEW/BASE with its 95 % interval (intervals.h); REGRESSION
// or improved needs an exact Mann–Whitney test significant at alpha after a Benjamini–Hochberg
// correction over every timing comparison of this compare, and a change beyond the larger of the
// tolerance and the measured noise; "ok" (no change) needs the interval inside ±tolerance;
// anything else is INCONCLUSIVE with the repetitions per side that would likely decide it. One
// repetition on a side is always INCONCLUSIVE for timing. Quality and memory metrics (seeded,
// deterministic) compare the medians against the tolerance.
// A point ok in BASE but failed in NEW is FAILED; a metric missing (NaN) on an ok run is MISSING
// when BASE has it and NEW's ok run lacks it, or when an ok run on either side lacks images_per_s.
// Timing is compared only between runs of one machine type (the same host fingerprint on every ok
// run of both points; files from before fingerprints, on both sides, as before): across machine
// types a speed change is the machine's, so compare gives no timing verdict there and says so in
// one line unless asked (--across-hosts); quality and memory are compared as always.
// Points are labelled by model, strategy, N, batch and every configuration field that varies
// between the two files (point_fields.h), so two points never share a label. Above the verdicts,
// the context fields (CPU, BLAS, library versions, commit, GPUs) whose values differ.
// Not here: file reading (study_file.h); the statistics (stats.h, intervals.h).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "harness/study/analysis/format.h"
#include "harness/study/analysis/study_file.h"
#include "kernels/common/exit_codes.h"

namespace scalebench::study {

struct MetricRule {
  std::string name;
  bool higher_is_better = true;
  double tolerance = 0.1;   // allowed worsening: a fraction (relative) or a value (absolute)
  bool absolute = false;    // compare differences instead of ratios (fractions such as exposed_comm_frac)
  bool enabled = true;
  bool timing = false;      // decided by repetitions (significance, magnitude, equivalence)
};

// One rule per metric of metrics.def, enabled when its default tolerance is not "off".
std::vector<MetricRule> default_rules();
// "images_per_s=-10%", "epoch_time_s=+5%", "final_val_loss=0.02" (fraction), "mfu=off". The sign,
// when given, must point in the worse direction of the metric. Throws naming the problem.
void apply_threshold(std::vector<MetricRule>& rules, const std::string& spec);

struct MetricVerdict {
  std::string point, metric;
  double base = 0, now = 0;   // medians
  // Relative (ratio − 1) or, for absolute rules, plain change of NEW against BASE: the
  // Hodges–Lehmann estimate (with one run a side, the plain change) and its 95 % interval
  // (lo/hi NaN when the repetitions cannot bound it).
  double change = 0, lo = NAN, hi = NAN;
  bool absolute = false;
  std::string limit;          // e.g. "-10%"
  double p = -1;              // Mann–Whitney p after the Benjamini–Hochberg correction, -1 when not tested
  int n_base = 0, n_new = 0;  // repetitions (ok runs with a value)
  double noise = NAN;         // the larger robust spread (relative for ratio rules) of the two samples
  int needed = 0;             // INCONCLUSIVE: repetitions per side that would likely decide (0: unknown)
  std::string verdict;        // ok | REGRESSION | improved | INCONCLUSIVE | MISSING | FAILED | fixed | not ok in both
  std::string note;
};

struct CompareResult {
  std::vector<MetricVerdict> rows;  // failures and regressions first, then improvements, then the rest; by point
  std::vector<std::string> only_base, only_new;  // point labels
  // Per unmatched point, the nearest point on the other side and the fields that differ:
  // "m d N=1 b=8: model c -> d" ("" when the other side has no point at all).
  std::vector<std::string> only_base_nearest, only_new_nearest;
  int matched = 0, regressions = 0, improvements = 0, inconclusive = 0;
  int single_run_points = 0;  // points with one repetition on a side (their timing is INCONCLUSIVE)
  int shared_gpu_points = 0;  // points whose ranks shared a GPU on a side: timing not compared
  // Points whose two sides ran on different machine types (host fingerprints, record/host_fingerprint.h):
  // timing not compared unless CompareOptions::across_hosts. host_fingerprints: BASE's and NEW's
  // ("a -> b"; "a -> a" when one machine type), "" when neither side records one.
  int other_host_points = 0;
  std::string host_fingerprints;
  // Per point with an INCONCLUSIVE timing row: "<point>: BASE <noise>; NEW <noise>" (noise_text.h),
  // when the runs recorded it.
  std::vector<std::string> inconclusive_noise;
  // "cpu_model: A -> B" for each context field whose values differ between BASE and NEW.
  std::vector<std::string> context_differences;
  // --match-ignore: "threads: 1 -> 2" for each ignored field, the values on each side.
  std::vector<std::string> ignored_differences;
};

struct CompareOptions {
  std::vector<MetricRule> rules = default_rules();
  double alpha = 0.01;  // after the Benjamini–Hochberg correction over the timing comparisons
  bool include_shared_gpu = false;  // also compare the timing of points whose ranks shared a GPU
  bool across_hosts = false;        // also compare timing between different host fingerprints
  // Configuration fields (point_fields.h) left out of matching: points that differ only in them are
  // compared ("did 2 threads beat 1?"). Error on a name that is not a configuration field, and
  // when leaving them out makes two points of one side the same.
  std::vector<std::string> match_ignore;
};

// FAILED, MISSING or REGRESSION.
bool is_regression(const MetricVerdict& v);

// What INCONCLUSIVE results make of the exit status when nothing regressed:
// code → 3, pass → 0, fail → 1.
enum class InconclusivePolicy { code, pass, fail };
inline constexpr int kExitInconclusive = exit_status(ExitCode::inconclusive);  // kernels/common/exit_codes.def
// 1 on a regression (REGRESSION, FAILED, MISSING) or when no point matched; else, with
// INCONCLUSIVE rows, what the policy says; else 0.
int compare_exit_code(const CompareResult& r, InconclusivePolicy policy);

CompareResult compare(const StudyFile& base, const StudyFile& now, const CompareOptions& opt);
// compare_render.cpp: the context fields that differ, the rows (only the failures, MISSING and
// REGRESSION rows with only_regressions), each change with its 95 % interval, then one line per
// metric (points compared, median and range of the change, regressions, improvements,
// inconclusive), the totals, why single runs are inconclusive, and the unmatched points with the
// fields that differ.
std::string render_compare(const CompareResult& r, Format f, bool only_regressions = false);

}  // namespace scalebench::study
