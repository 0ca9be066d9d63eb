// compare.cpp — per-point, per-metric verdicts between two study files (see compare.h).
#include "harness/study/analysis/compare.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/record/host_fingerprint.h"
#include "harness/study/analysis/collect.h"
#include "harness/study/analysis/metric_table.h"
#include "harness/study/analysis/noise_text.h"
#include "harness/study/analysis/point_fields.h"
#include "harness/study/analysis/stats.h"
#include "harness/study/analysis/verdict.h"
#include "kernels/common/check.h"

namespace scalebench::study {
namespace {

// Verdicts a reader must see first: the point broke, then it regressed, then it improved.
int severity(const std::string& verdict) {
  for (int i = 0; const char* v : {"FAILED", "MISSING", "REGRESSION", "INCONCLUSIVE", "improved", "fixed", "not ok in both"}) {
    if (verdict == v) return i;
    ++i;
  }
  return 7;
}


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

// A point's valid values of a metric. Every metric of metrics.def is finite and non-negative, so an
// infinite or negative value is a wrong record, counted like a missing one (MISSING, a failure) —
// it once made a ratio of +inf, "improved".
// A metric compared by ratios (relative rules: timings among them) needs positive values: an
// epoch_time_s of 0 has no ratio (it was taken as INCONCLUSIVE); absolute rules take 0.
std::vector<double> values(const record::Table& t, const PointRows& p, const MetricRule& m) {
  std::vector<double> v;
  for (auto r : p.ok_rows)
    if (double x = t.num(m.name, r); std::isfinite(x) && (m.absolute ? x >= 0 : x > 0)) v.push_back(x);
  return v;
}

constexpr const char* kNoValidValue = " (or a zero, infinite or negative one)";

// Every ok run measures its throughput: an ok row without it was recorded wrong.
constexpr const char* kAlwaysMeasured = "images_per_s";

std::string limit_text(const MetricRule& m) {
  const char sign = m.higher_is_better ? '-' : '+';
  return m.absolute ? fmt::format("{}{:g}", sign, m.tolerance) : fmt::format("{}{:g}%", sign, 100 * m.tolerance);
}

// "field: a -> b" for each context column present in both tables whose distinct values differ (a
// column an older file lacks is not a difference).
std::vector<std::string> context_differences(const record::Table& a, const record::Table& b) {
  std::vector<std::string> out;
  std::vector<std::string> keys = context_columns();
  keys.push_back("peak_method");  // MFU's denominator: a changed method moves MFU by itself
  for (const std::string& k : keys) {
    if (!a.find(k) || !b.find(k)) continue;
    const std::string va = distinct_values(a, k), vb = distinct_values(b, k);
    if (va != vb) out.push_back(k + ": " + va + " -> " + vb);
  }
  return out;
}

// One rule's tolerance from --threshold syntax (spec names the source in errors).
void set_tolerance(MetricRule& m, const std::string& value, const std::string& spec) {
  if (value == "off") {
    m.enabled = false;
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
  SB_REQUIRE(!sign || (sign == '-') == m.higher_is_better,
             "--threshold '{}': {} is better when {}, so its limit is a {}: write {}={}{}", spec, m.name,
             m.higher_is_better ? "higher" : "lower", m.higher_is_better ? "drop" : "rise", m.name,
             m.higher_is_better ? '-' : '+', num + (pct ? "%" : ""));
  m.tolerance = pct ? v / 100 : v;
  m.enabled = true;
}

// An N = 1 point whose speedup divides by its own runs ("ring N=1" for a ring point).
bool own_baseline(const record::Table& t, const PointRows& p) {
  const std::size_t r = p.rows.front();
  return t.integer("world_size", r) == 1 && t.str("baseline", r) == t.str("strategy", r) + " N=1";
}

// A point any of whose runs shared a GPU (the run file's context gpu_shared; older files lack it).
bool shared_gpu_point(const record::Table& t, const PointRows& p) {
  if (!t.find("gpu_shared")) return false;
  for (std::size_t r : p.rows)
    if (t.str("gpu_shared", r) == "1") return true;
  return false;
}

// Whether a point's timing on the two sides came from one machine type: every ok run of both points
// has the same host fingerprint. Files from before fingerprints (the column absent on both sides)
// compare as before; a fingerprint missing on one side is an unknown, so another, machine.
bool same_host(const record::Table& a, const PointRows& pa, const record::Table& b, const PointRows& pb) {
  const std::string key = record::kHostFingerprintKey;
  if (!a.find(key) && !b.find(key)) return true;
  std::string fp;
  for (const auto& [t, p] : {std::pair{&a, &pa}, std::pair{&b, &pb}})
    for (const std::size_t r : p->ok_rows) {
      const std::string v = t->str(key, r);
      if (v.empty() || (!fp.empty() && v != fp)) return false;
      fp = v;
    }
  return true;
}

// The key points are matched by: the point id, or with --match-ignore the configuration fields
// (point_fields.h) other than the ignored ones, as "key=value" lines.
std::function<std::string(const record::Table&, const PointRows&)> matching_key(const std::vector<std::string>& ignore) {
  const std::vector<std::string> keys = point_keys();
  for (const std::string& k : ignore) {
    std::string known;
    for (const auto& x : keys) known += (known.empty() ? "" : ", ") + x;
    SB_REQUIRE(std::find(keys.begin(), keys.end(), k) != keys.end(),
               "--match-ignore '{}': not a configuration field of a point (known: {})", k, known);
  }
  if (ignore.empty()) return [](const record::Table&, const PointRows& p) { return p.point_id; };
  return [keys, ignore](const record::Table& t, const PointRows& p) {
    std::string s;
    for (const std::string& k : keys)
      if (std::find(ignore.begin(), ignore.end(), k) == ignore.end()) s += k + "=" + t.str(k, p.rows.front()) + "\n";
    return s;
  };
}

// Two points of one side with the same key (the ignored fields were all that told them apart)
// cannot both meet the other side's one: an error naming them.
template <class Label>
void unique_key(std::map<std::string, const PointRows*>& by_key, const std::string& k, const PointRows& p,
                const record::Table& t, const Label& label, const char* side, const std::vector<std::string>& ignore) {
  const auto [it, fresh] = by_key.try_emplace(k, &p);
  SB_REQUIRE(fresh || ignore.empty(), "--match-ignore {}: {} has two points that differ only in it ({}; {}): compare "
             "them one study at a time", fmt::join(ignore, ","), side, label(t, it->second->rows.front()),
             label(t, p.rows.front()));
}

}  // namespace

std::vector<MetricRule> default_rules() {
  std::vector<MetricRule> rules;
  for (const Metric& m : metric_table()) {
    // metrics.def writes a relative tolerance with %, an absolute one (a difference) without.
    const bool absolute = m.tolerance != "off" && m.tolerance.back() != '%';
    MetricRule r{m.name, m.higher_is_better, 0, absolute, true, m.kind == MetricKind::timing};
    set_tolerance(rules.emplace_back(r), m.tolerance, "metrics.def " + m.name);
  }
  return rules;
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
  set_tolerance(*m, value, spec);
}

CompareResult compare(const StudyFile& base, const StudyFile& now, const CompareOptions& opt) {
  CompareResult res;
  const auto bp = group_points(base.runs), np = group_points(now.runs);
  std::vector<std::string> varied = varied_keys({&base.runs, &now.runs});
  std::erase_if(varied, [&](const std::string& k) {  // the header says what they differ in
    return std::find(opt.match_ignore.begin(), opt.match_ignore.end(), k) != opt.match_ignore.end();
  });
  const auto label = [&](const record::Table& t, std::size_t r) { return row_label(t, r, varied); };
  const auto key = matching_key(opt.match_ignore);
  std::vector<std::string> base_only_ids, new_only_ids;
  std::map<std::string, const PointRows*> in_now;
  for (const auto& p : np) unique_key(in_now, key(now.runs, p), p, now.runs, label, "NEW", opt.match_ignore);
  std::map<std::string, const PointRows*> in_base;
  for (const auto& p : bp) unique_key(in_base, key(base.runs, p), p, base.runs, label, "BASE", opt.match_ignore);
  for (const std::string& k : opt.match_ignore)
    if (const std::string a = distinct_values(base.runs, k), b = distinct_values(now.runs, k); a != b)
      res.ignored_differences.push_back(fmt::format("{}: {} -> {}", k, a, b));
  std::map<std::string, bool> matched;
  std::vector<std::pair<std::size_t, const MetricRule*>> tested;  // rows whose p joins the correction
  std::map<std::string, std::pair<const PointRows*, const PointRows*>> noise_of;  // label -> BASE, NEW rows
  for (const PointRows& b : bp) {
    const std::string name = label(base.runs, b.rows[0]);
    const auto it = in_now.find(key(base.runs, b));
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
      status.verdict = !b.ok_rows.empty() ? "FAILED" : !n.ok_rows.empty() ? "fixed" : "not ok in both";
      if (n.ok_rows.empty()) {  // what NEW says: "failed: <error>", "running"
        const std::size_t last = n.rows.back();
        const std::string err = now.runs.str("error", last);
        status.note = now.runs.str("status", last) + (err.empty() ? "" : ": " + err);
      }
      res.rows.push_back(status);
      continue;
    }
    bool single_run = false;
    // Ranks that shared a GPU timed contention for one device, not scaling: their timing is not
    // compared (counted once per point) unless asked for; quality and memory are.
    const bool shared_gpu = shared_gpu_point(base.runs, b) || shared_gpu_point(now.runs, n);
    res.shared_gpu_points += shared_gpu && !opt.include_shared_gpu;
    // Another machine type on one side: its speed says nothing about the code (issue 47).
    const bool other_host = !opt.across_hosts && !same_host(base.runs, b, now.runs, n);
    res.other_host_points += other_host;
    noise_of[name] = {&b, &n};
    for (const MetricRule& m : opt.rules) {
      if (!m.enabled || (m.timing && ((shared_gpu && !opt.include_shared_gpu) || other_host))) continue;
      const auto vb = values(base.runs, b, m), vn = values(now.runs, n, m);
      MetricVerdict v;
      v.point = name;
      v.metric = m.name;
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
        v.note = lost_new ? fmt::format("{} of NEW's {} ok run(s) have no {}{}", lost_new, n.ok_rows.size(), m.name,
                                        kNoValidValue)
                          : fmt::format("{} of BASE's {} ok run(s) have no {}{}", lost_base, b.ok_rows.size(), m.name,
                                        kNoValidValue);
        res.rows.push_back(std::move(v));
        continue;
      }
      if (vb.empty() || vn.empty()) continue;
      // Speedup and efficiency of a point that is its own baseline (N = 1 against its own N = 1
      // runs) are 1 by construction: comparing them tests nothing and would only dilute the
      // correction over the real comparisons.
      const Metric* def = find_metric(m.name);
      if (def && def->source == "collect" && own_baseline(base.runs, b)) continue;
      if (measure(m, vb, vn, opt.alpha, v)) tested.push_back({res.rows.size(), &m});
      single_run |= m.timing && v.verdict == "INCONCLUSIVE" && (v.n_base < 2 || v.n_new < 2);
      res.rows.push_back(std::move(v));
    }
    res.single_run_points += single_run;
  }
  // One correction over every tested timing comparison of this compare (docs/metrics.md says why
  // Benjamini–Hochberg and not Holm), then the verdicts.
  std::vector<double> raw;
  for (const auto& [row, rule] : tested) raw.push_back(res.rows[row].p);
  const std::vector<double> adjusted = benjamini_hochberg(raw);
  for (std::size_t i = 0; i < tested.size(); ++i) {
    MetricVerdict& v = res.rows[tested[i].first];
    v.p = adjusted[i];
    decide_timing(*tested[i].second, opt.alpha, tested.size(), v);
  }
  for (const MetricVerdict& v : res.rows) {
    res.regressions += is_regression(v);
    res.improvements += v.verdict == "improved";
    res.inconclusive += v.verdict == "INCONCLUSIVE";
  }
  res.context_differences = context_differences(base.runs, now.runs);
  if (base.runs.find(record::kHostFingerprintKey) || now.runs.find(record::kHostFingerprintKey)) {
    const auto fps = [](const record::Table& t) {
      const std::string v = distinct_values(t, record::kHostFingerprintKey);
      return v == "-" ? std::string("none recorded") : v;
    };
    res.host_fingerprints = fps(base.runs) + " -> " + fps(now.runs);
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
  // What the runs of an undecided point ran under: the reader's first "why" (noise_text.h).
  for (const MetricVerdict& v : res.rows) {
    const auto it = noise_of.find(v.point);
    if (v.verdict != "INCONCLUSIVE" || it == noise_of.end()) continue;
    const std::string nb = ran_under(base.runs, it->second.first->ok_rows);
    const std::string nn = ran_under(now.runs, it->second.second->ok_rows);
    if (!nb.empty() || !nn.empty())
      res.inconclusive_noise.push_back(fmt::format("{}: BASE {}; NEW {}", v.point, nb.empty() ? "-" : nb,
                                                   nn.empty() ? "-" : nn));
    noise_of.erase(it);  // once per point
  }
  return res;
}

bool is_regression(const MetricVerdict& v) { return severity(v.verdict) <= 2; }

int compare_exit_code(const CompareResult& r, InconclusivePolicy policy) {
  const int ok = exit_status(ExitCode::ok), failed = exit_status(ExitCode::failed);
  if (r.regressions > 0 || r.matched == 0) return failed;  // a gate that compared nothing must not pass
  if (r.inconclusive == 0) return ok;
  return policy == InconclusivePolicy::pass ? ok : policy == InconclusivePolicy::fail ? failed : kExitInconclusive;
}

}  // namespace scalebench::study
