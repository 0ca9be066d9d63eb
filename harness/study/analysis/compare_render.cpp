// compare_render.cpp — compare's result as text, Markdown or JSON (see compare.h render_compare).
// Not here: any decision (compare.cpp, verdict.cpp); it prints what the rows say.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "harness/study/analysis/compare.h"
#include "harness/study/analysis/stats.h"
#include "kernels/common/json.h"

namespace scalebench::study {
namespace {

std::string change_text(double c, bool absolute) {
  if (!std::isfinite(c)) return "-";
  return absolute ? fmt::format("{:+.4g}", c) : signed_percent(c, 1);
}

// "-15.0% [-18.2%, -11.9%]"; the interval "[-]" when the runs cannot bound it.
std::string change_with_interval(const MetricVerdict& v) {
  if (v.metric == "status" || std::isnan(v.change)) return "-";
  const std::string iv = std::isfinite(v.lo) && std::isfinite(v.hi)
                             ? fmt::format("[{}, {}]", change_text(v.lo, v.absolute), change_text(v.hi, v.absolute))
                             : "[-]";
  return change_text(v.change, v.absolute) + " " + iv;
}

// One line per metric over the points it was compared on: how many, the median change and its
// range, and the verdicts.
std::string metric_summary(const CompareResult& r, Format f) {
  std::vector<std::string> metrics;
  for (const auto& v : r.rows)
    if (std::find(metrics.begin(), metrics.end(), v.metric) == metrics.end()) metrics.push_back(v.metric);
  TextTable t;
  t.header = {"metric", "points", "median change", "range", "regressions", "improved", "inconclusive"};
  for (const std::string& m : metrics) {
    std::vector<double> change;
    int points = 0, bad = 0, good = 0, open = 0;
    bool absolute = false;
    for (const auto& v : r.rows)
      if (v.metric == m) {
        ++points;
        bad += is_regression(v);
        good += v.verdict == "improved" || v.verdict == "fixed";
        open += v.verdict == "INCONCLUSIVE";
        absolute = v.absolute;
        if (m != "status" && std::isfinite(v.change)) change.push_back(v.change);
      }
    const auto [lo, hi] = std::minmax_element(change.begin(), change.end());
    t.rows.push_back({m, std::to_string(points), change.empty() ? "-" : change_text(median(change), absolute),
                      change.empty() ? "-" : change_text(*lo, absolute) + " .. " + change_text(*hi, absolute),
                      std::to_string(bad), std::to_string(good), std::to_string(open)});
  }
  return render(t, f);
}

std::string json(const CompareResult& r, bool only_regressions) {
  using json::number_or_null;
  json::Json doc = {{"matched", r.matched}, {"regressions", r.regressions}, {"improvements", r.improvements},
                    {"inconclusive", r.inconclusive}, {"context_differences", r.context_differences}, {"ignored_differences", r.ignored_differences},
                    {"only_base", r.only_base}, {"only_base_nearest", r.only_base_nearest}, {"only_new", r.only_new},
                    {"only_new_nearest", r.only_new_nearest}, {"shared_gpu_points", r.shared_gpu_points},
                    {"other_host_points", r.other_host_points}, {"host_fingerprints", r.host_fingerprints},
                    {"inconclusive_noise", r.inconclusive_noise}, {"rows", json::Json::array()}};
  for (const auto& v : r.rows) {
    if (only_regressions && !is_regression(v)) continue;
    doc["rows"].push_back({{"point", v.point}, {"metric", v.metric}, {"base", number_or_null(v.base)},
                           {"new", number_or_null(v.now)}, {"change", number_or_null(v.change)},
                           {"change_lo", number_or_null(v.lo)}, {"change_hi", number_or_null(v.hi)},
                           {"relative", !v.absolute}, {"limit", v.limit},
                           {"p", v.p < 0 ? json::Json(nullptr) : number_or_null(v.p)}, {"runs_base", v.n_base},
                           {"runs_new", v.n_new}, {"runs_needed", v.needed}, {"verdict", v.verdict}, {"note", v.note}});
  }
  return json::layout(doc);
}

}  // namespace

std::string render_compare(const CompareResult& r, Format f, bool only_regressions) {
  if (f == Format::json) return json(r, only_regressions);
  std::string out;
  if (!r.context_differences.empty()) {  // first: what else changed besides the code under test
    out += "context: BASE and NEW differ in\n";
    for (const auto& d : r.context_differences) out += (f == Format::markdown ? "- " : "  ") + d + "\n";
    out += "\n";
  }
  if (!r.ignored_differences.empty()) {  // --match-ignore: what the matched points differ in
    out += "matched ignoring (BASE -> NEW):\n";
    for (const auto& d : r.ignored_differences) out += (f == Format::markdown ? "- " : "  ") + d + "\n";
    out += "\n";
  }
  TextTable t;
  t.header = {"point", "metric", "base", "new", "change [95% interval]", "limit", "p", "verdict", "note"};
  for (const auto& v : r.rows) {
    if (only_regressions && !is_regression(v)) continue;
    const bool st = v.metric == "status";
    const auto value = [st](double x) { return st ? std::string() : std::isnan(x) ? "-" : fmt::format("{:.4g}", x); };
    t.rows.push_back({v.point, v.metric, value(v.base), value(v.now), change_with_interval(v), v.limit,
                      v.p < 0 ? "-" : fmt::format("{:.3g}", v.p), v.verdict, v.note});
  }
  if (!t.rows.empty()) out += render(t, f);
  if (!r.rows.empty()) out += (t.rows.empty() ? "" : "\n") + metric_summary(r, f) + (f == Format::markdown ? "" : "\n");
  out += fmt::format("{}compare: {} points matched: {} regression{}, {} improvement{}, {} inconclusive\n",
                     f == Format::markdown ? "\n" : "", r.matched, r.regressions, r.regressions == 1 ? "" : "s",
                     r.improvements, r.improvements == 1 ? "" : "s", r.inconclusive);
  if (r.single_run_points > 0)
    out += fmt::format("compare: {} point{} with one run on a side: their timing is INCONCLUSIVE, since one run cannot "
                       "tell a change from noise (record repetitions: sweep --repetitions 6, the fewest that also "
                       "bound a point's median)\n",
                       r.single_run_points, r.single_run_points == 1 ? "" : "s");
  if (r.shared_gpu_points > 0)
    out += fmt::format("compare: {} point{} whose ranks shared a GPU (flag shared-gpu): timing not compared, it measures "
                       "contention for one device (--include-shared-gpu compares it)\n",
                       r.shared_gpu_points, r.shared_gpu_points == 1 ? "" : "s");
  if (r.other_host_points == 0 && !r.host_fingerprints.empty())  // the machine type(s) the timing came from
    out += fmt::format("compare: host fingerprint {}\n", r.host_fingerprints);
  if (r.other_host_points > 0)
    out += fmt::format("compare: {} point{} ran on another machine type (host fingerprint {}; the context lines name "
                       "the fields): timing not compared, a speed change there would be the machine's; quality "
                       "compared as before (--across-hosts compares timing)\n",
                       r.other_host_points, r.other_host_points == 1 ? "" : "s", r.host_fingerprints);
  if (!r.inconclusive_noise.empty()) {
    out += "compare: the INCONCLUSIVE points ran under\n";
    for (const auto& x : r.inconclusive_noise) out += "  " + x + "\n";
  }
  const auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : "; ") + x;
    return s;
  };
  if (!r.only_base.empty()) out += fmt::format("only in BASE ({}): {}\n", r.only_base.size(), list(r.only_base));
  if (!r.only_new.empty()) out += fmt::format("only in NEW ({}): {}\n", r.only_new.size(), list(r.only_new));
  const auto why = [&](const std::vector<std::string>& labels, const std::vector<std::string>& near, const char* other) {
    for (std::size_t i = 0; i < labels.size() && i < near.size(); ++i)
      if (!near[i].empty()) out += fmt::format("  {}: nearest in {} is {}\n", labels[i], other, near[i]);
  };
  why(r.only_base, r.only_base_nearest, "NEW");
  why(r.only_new, r.only_new_nearest, "BASE");
  if (r.matched == 0)
    out += "compare: nothing was compared: BASE and NEW share no point (a point id hashes every result "
           "field, so the configurations differ, or the ids changed since BASE was recorded)\n";
  return out;
}

}  // namespace scalebench::study
