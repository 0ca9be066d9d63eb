// compare.cpp — per-point, per-metric verdicts between two study files (see compare.h).
#include "harness/study/analysis/compare.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "harness/study/analysis/collect.h"
#include "harness/study/analysis/point_fields.h"
#include "harness/study/analysis/stats.h"
#include "kernels/common/check.h"

namespace scalebench::study {
namespace {

// Verdicts a reader must see first: the point broke, then it regressed, then it improved.
int severity(const std::string& verdict) {
  for (int i = 0; const char* v : {"FAILED", "MISSING", "REGRESSION", "improved", "fixed", "not ok in both"}) {
    if (verdict == v) return i;
    ++i;
  }
  return 6;
}

bool is_regression(const MetricVerdict& v) { return severity(v.verdict) <= 2; }

// For each point of `from` not in `to`: "<label of the nearest point of to>: <fields that differ>".
std::vector<std::string> nearest(const record::Table& from, const std::vector<PointRows>& points,
                                 const std::vector<std::string>& ids, const record::Table& to,
                                 const std::vector<PointRows>& to_points, const std::vector<std::string>& varied) {
  std::vector<std::string> out;
  for (const std::string& id : ids) {
    const auto p = std::find_if(points.begin(), points.end(), [&](const PointRows& x) { return x.point_id == id; });
    std::string best;
    std::size_t fewest = SIZE_MAX;
    for (const PointRows& q : to_points) {
      const std::string d = field_differences(from, p->rows[0], to, q.rows[0]);
      const auto n = std::size_t(std::count(d.begin(), d.end(), ',')) + (d.empty() ? 0 : 1);
      if (n < fewest) {
        fewest = n;
        best = row_label(to, q.rows[0], varied) + ": " + (d.empty() ? "no configuration field (the ids were computed differently)" : d);
      }
    }
    out.push_back(best);
  }
  return out;
}

std::vector<double> values(const record::Table& t, const PointRows& p, const std::string& col) {
  std::vector<double> v;
  for (auto r : p.ok_rows)
    if (double x = t.num(col, r); !std::isnan(x)) v.push_back(x);
  return v;
}

// Every ok run measures its throughput: an ok row without it was recorded wrong.
constexpr const char* kAlwaysMeasured = "images_per_s";

std::string limit_text(const MetricRule& m) {
  const char sign = m.higher_is_better ? '-' : '+';
  return m.absolute ? fmt::format("{}{:g}", sign, m.tolerance) : fmt::format("{}{:g}%", sign, 100 * m.tolerance);
}

}  // namespace

std::vector<MetricRule> default_rules() {
  return {{"images_per_s", true, 0.10},       {"epoch_time_s", false, 0.10},
          {"efficiency", true, 0.10},         {"tflops", true, 0.10},
          {"mfu", true, 0.15},                {"exposed_comm_frac", false, 0.05, true},
          {"final_val_loss", false, 0.10},    {"final_val_miou", true, 0.05},
          {"final_val_accuracy", true, 0.05}, {"peak_mem_bytes", false, 0.20}};
}

void apply_threshold(std::vector<MetricRule>& rules, const std::string& spec) {
  const auto eq = spec.find('=');
  SB_REQUIRE(eq != std::string::npos && eq > 0, "--threshold '{}' is not metric=value (e.g. images_per_s=-10%)", spec);
  const std::string name = spec.substr(0, eq), value = spec.substr(eq + 1);
  MetricRule* m = nullptr;
  std::string known;
  for (auto& r : rules) {
    if (r.name == name) m = &r;
    known += (known.empty() ? "" : ", ") + r.name;
  }
  SB_REQUIRE(m, "--threshold '{}': unknown metric '{}' (known: {})", spec, name, known);
  if (value == "off") {
    m->enabled = false;
    return;
  }
  std::string num = value;
  const char sign = !num.empty() && (num[0] == '-' || num[0] == '+') ? num[0] : 0;
  if (sign) num = num.substr(1);
  const bool pct = !num.empty() && num.back() == '%';
  if (pct) num.pop_back();
  double v = 0;
  const auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
  SB_REQUIRE(ec == std::errc() && p == num.data() + num.size() && std::isfinite(v) && v >= 0,
             "--threshold '{}': '{}' is not a tolerance such as -10%, +5% or 0.1 (or off)", spec, value);
  SB_REQUIRE(!sign || (sign == '-') == m->higher_is_better,
             "--threshold '{}': {} is better when {}, so its limit is a {}: write {}={}{}", spec, name,
             m->higher_is_better ? "higher" : "lower", m->higher_is_better ? "drop" : "rise", name,
             m->higher_is_better ? '-' : '+', num + (pct ? "%" : ""));
  m->tolerance = pct ? v / 100 : v;
  m->enabled = true;
}

CompareResult compare(const StudyFile& base, const StudyFile& now, const CompareOptions& opt) {
  CompareResult res;
  const auto bp = group_points(base.runs), np = group_points(now.runs);
  const std::vector<std::string> varied = varied_keys({&base.runs, &now.runs});
  const auto label = [&](const record::Table& t, std::size_t r) { return row_label(t, r, varied); };
  std::vector<std::string> base_only_ids, new_only_ids;
  std::map<std::string, const PointRows*> in_now;
  for (const auto& p : np) in_now[p.point_id] = &p;
  std::map<std::string, bool> matched;
  for (const PointRows& b : bp) {
    const std::string name = label(base.runs, b.rows[0]);
    const auto it = in_now.find(b.point_id);
    if (it == in_now.end()) {
      res.only_base.push_back(name);
      base_only_ids.push_back(b.point_id);
      continue;
    }
    const PointRows& n = *it->second;
    matched[n.point_id] = true;
    ++res.matched;
    MetricVerdict status;
    status.point = name;
    status.metric = "status";
    status.limit = "-";
    if (b.ok_rows.empty() || n.ok_rows.empty()) {
      const bool regress = !b.ok_rows.empty();
      status.verdict = regress ? "FAILED" : !n.ok_rows.empty() ? "fixed" : "not ok in both";
      if (n.ok_rows.empty()) {  // what NEW says: "failed: <error>", "running"
        const std::size_t last = n.rows.back();
        const std::string err = now.runs.str("error", last);
        status.note = now.runs.str("status", last) + (err.empty() ? "" : ": " + err);
      }
      res.regressions += regress;
      res.rows.push_back(status);
      continue;
    }
    for (const MetricRule& m : opt.rules) {
      if (!m.enabled) continue;
      const auto vb = values(base.runs, b, m.name), vn = values(now.runs, n, m.name);
      MetricVerdict v;
      v.point = name;
      v.metric = m.name;
      v.base = median(vb);
      v.now = median(vn);
      v.absolute = m.absolute;
      v.limit = limit_text(m);
      // An ok run without a value: a failure when BASE has the metric (NEW lost it) or every ok run
      // must have it (kAlwaysMeasured); else the metric is not measured for this point (mIoU of a
      // classifier, a metric newer than BASE) and not compared.
      const bool always = m.name == kAlwaysMeasured;
      const std::size_t lost_new = n.ok_rows.size() - vn.size(), lost_base = b.ok_rows.size() - vb.size();
      if ((lost_new && (always || !vb.empty())) || (lost_base && always)) {
        v.verdict = "MISSING";
        v.change = NAN;
        v.note = lost_new ? fmt::format("{} of NEW's {} ok run(s) have no {}", lost_new, n.ok_rows.size(), m.name)
                          : fmt::format("{} of BASE's {} ok run(s) have no {}", lost_base, b.ok_rows.size(), m.name);
        ++res.regressions;
        res.rows.push_back(std::move(v));
        continue;
      }
      if (vb.empty() || vn.empty()) continue;
      v.change = m.absolute ? v.now - v.base
                 : v.base != 0 ? (v.now - v.base) / std::abs(v.base)
                 : v.now == v.base ? 0.0
                                   : std::copysign(INFINITY, v.now);
      const double worse = m.higher_is_better ? -v.change : v.change;
      const double eps = 1e-12;  // a change exactly at the limit is within it
      v.verdict = worse > m.tolerance + eps ? "REGRESSION" : -worse > m.tolerance + eps ? "improved" : "ok";
      if (vb.size() >= 2 && vn.size() >= 2) {
        const MannWhitney mw = mann_whitney(vb, vn);
        v.p = mw.p;
        if (v.verdict != "ok" && mw.min_p < opt.alpha && mw.p >= opt.alpha) {
          v.note = fmt::format("{} but not significant (p={:.3g} >= {})", v.verdict == "improved" ? "better" : "worse",
                               mw.p, opt.alpha);
          v.verdict = "ok";
        } else if (v.verdict != "ok" && mw.min_p >= opt.alpha) {
          v.note = fmt::format("too few repetitions for the U test (smallest possible p {:.3g})", mw.min_p);
        }
      }
      res.regressions += v.verdict == "REGRESSION";
      res.improvements += v.verdict == "improved";
      res.rows.push_back(std::move(v));
    }
  }
  for (const PointRows& n : np)
    if (!matched.count(n.point_id)) {
      res.only_new.push_back(label(now.runs, n.rows[0]));
      new_only_ids.push_back(n.point_id);
    }
  res.only_base_nearest = nearest(base.runs, bp, base_only_ids, now.runs, np, varied);
  res.only_new_nearest = nearest(now.runs, np, new_only_ids, base.runs, bp, varied);
  // Rows in the order a reader needs them, not the study table's (run-id hash) order.
  std::stable_sort(res.rows.begin(), res.rows.end(), [](const MetricVerdict& a, const MetricVerdict& b) {
    return std::pair(severity(a.verdict), a.point) < std::pair(severity(b.verdict), b.point);
  });
  return res;
}

namespace {

// One line per metric over the points it was compared on: how many, the median change and its
// range, and the verdicts.
std::string metric_summary(const CompareResult& r, Format f) {
  std::vector<std::string> metrics;
  for (const auto& v : r.rows)
    if (std::find(metrics.begin(), metrics.end(), v.metric) == metrics.end()) metrics.push_back(v.metric);
  TextTable t;
  t.header = {"metric", "points", "median change", "range", "regressions", "improved"};
  for (const std::string& m : metrics) {
    std::vector<double> change;
    int points = 0, bad = 0, good = 0;
    bool absolute = false;
    for (const auto& v : r.rows)
      if (v.metric == m) {
        ++points;
        bad += is_regression(v);
        good += v.verdict == "improved" || v.verdict == "fixed";
        absolute = v.absolute;
        if (m != "status" && std::isfinite(v.change)) change.push_back(v.change);
      }
    const auto text = [absolute](double c) {
      return absolute ? fmt::format("{:+.4g}", c) : fmt::format("{:+.1f}%", 100 * c);
    };
    const auto [lo, hi] = std::minmax_element(change.begin(), change.end());
    t.rows.push_back({m, std::to_string(points), change.empty() ? "-" : text(median(change)),
                      change.empty() ? "-" : text(*lo) + " .. " + text(*hi), std::to_string(bad), std::to_string(good)});
  }
  return render(t, f);
}

}  // namespace

std::string render_compare(const CompareResult& r, Format f, bool only_regressions) {
  const auto change_text = [](const MetricVerdict& v) {
    if (v.metric == "status" || std::isnan(v.change)) return std::string("-");
    return v.absolute ? fmt::format("{:+.4g}", v.change) : fmt::format("{:+.1f}%", 100 * v.change);
  };
  if (f == Format::json) {
    const auto strings = [](const std::vector<std::string>& v) {
      std::string s;
      for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + json_string(v[i]);
      return "[" + s + "]";
    };
    std::string out = fmt::format("{{\"matched\": {}, \"regressions\": {}, \"improvements\": {}, \"only_base\": {}, "
                                  "\"only_base_nearest\": {}, \"only_new\": {}, \"only_new_nearest\": {}, \"rows\": [",
                                  r.matched, r.regressions, r.improvements, strings(r.only_base),
                                  strings(r.only_base_nearest), strings(r.only_new), strings(r.only_new_nearest));
    bool first = true;
    for (const auto& v : r.rows) {
      if (only_regressions && !is_regression(v)) continue;
      out += fmt::format("{}\n  {{\"point\": {}, \"metric\": {}, \"base\": {}, \"new\": {}, \"change\": {}, "
                         "\"relative\": {}, \"limit\": {}, \"p\": {}, \"verdict\": {}, \"note\": {}}}",
                         first ? "" : ",", json_string(v.point), json_string(v.metric), json_number(v.base),
                         json_number(v.now), json_number(v.change), v.absolute ? "false" : "true",
                         json_string(v.limit), v.p < 0 ? "null" : json_number(v.p), json_string(v.verdict),
                         json_string(v.note));
      first = false;
    }
    return out + "\n]}\n";
  }
  TextTable t;
  t.header = {"point", "metric", "base", "new", "change", "limit", "p", "verdict", "note"};
  for (const auto& v : r.rows) {
    if (only_regressions && !is_regression(v)) continue;
    const bool st = v.metric == "status";
    const auto value = [st](double x) { return st ? std::string() : std::isnan(x) ? "-" : fmt::format("{:.4g}", x); };
    t.rows.push_back({v.point, v.metric, value(v.base), value(v.now),
                      change_text(v), v.limit, v.p < 0 ? "-" : fmt::format("{:.3g}", v.p), v.verdict, v.note});
  }
  std::string out = t.rows.empty() ? std::string() : render(t, f);
  if (!r.rows.empty()) out += (out.empty() ? "" : "\n") + metric_summary(r, f) + (f == Format::markdown ? "" : "\n");
  out += fmt::format("{}compare: {} points matched: {} regression{}, {} improvement{}\n",
                     f == Format::markdown ? "\n" : "", r.matched, r.regressions, r.regressions == 1 ? "" : "s",
                     r.improvements, r.improvements == 1 ? "" : "s");
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
