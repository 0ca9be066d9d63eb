// paired.cpp — ab's per-point, per-metric decision from paired runs (see paired.h).
#include "harness/study/ab/paired.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "harness/study/ab/signed_rank.h"
#include "harness/study/analysis/collect.h"
#include "harness/study/analysis/metric_table.h"
#include "harness/study/analysis/stats.h"
#include "kernels/common/json.h"

namespace scalebench::study {
namespace {

constexpr double kEps = 1e-12;
constexpr int kMaxAdvised = 200;  // ab's --pairs limit: beyond it, "more than 200"

std::string change_text(double c, bool absolute) {
  if (!std::isfinite(c)) return "-";
  return absolute ? fmt::format("{:+.4g}", c) : signed_percent(c, 1);
}

// A run's value of a metric, when it is usable: finite, and positive for a ratio (as compare's).
bool usable(double x, const MetricRule& m) { return std::isfinite(x) && (m.absolute ? x >= 0 : x > 0); }

}  // namespace

bool measure_pairs(const MetricRule& m, const std::vector<double>& a, const std::vector<double>& b, double alpha,
                   PairedVerdict& v) {
  v.metric = m.name;
  v.absolute = m.absolute;
  v.band = m.absolute ? fmt::format("±{:g}", m.tolerance) : fmt::format("±{:g}%", 100 * m.tolerance);
  v.pairs = int(std::min(a.size(), b.size()));
  v.a = median(a);
  v.b = median(b);
  std::vector<double> d;
  for (int k = 0; k < v.pairs; ++k) d.push_back(m.absolute ? b[k] - a[k] : std::log(b[k] / a[k]));
  if (v.pairs < 2) {
    v.verdict = "INCONCLUSIVE";
    v.needed = pairs_to_reach(alpha);
    v.note = fmt::format("{} complete pair{}: a difference needs pairs to be told from noise", v.pairs,
                         v.pairs == 1 ? "" : "s");
    return false;
  }
  const PairedShift s = paired_shift(d);
  const auto scale = [&](double x) { return m.absolute ? x : std::expm1(x); };
  v.change = scale(s.estimate);
  if (s.bounded) {
    v.lo = scale(s.lo);
    v.hi = scale(s.hi);
  }
  v.noise = robust_sd(d);
  if (std::all_of(d.begin(), d.end(), [](double x) { return x == 0; })) {
    v.verdict = "no change";
    v.note = "the same value in both runs of every pair";
    return false;
  }
  v.p = wilcoxon_signed_rank(d).p;
  return true;
}

int pairs_to_decide(double shift, double spread, double tolerance, double alpha) {
  const int floor_n = pairs_to_reach(alpha);
  const double s = std::isfinite(spread) && spread > 0 ? spread : 0.0;
  const double d = std::abs(shift);
  const double z = 1.959963984540054 * std::sqrt(M_PI / 3);
  // Two routes: the interval excludes 0 (half-width below |shift|), or it fits inside the band
  // (half-width below tolerance − |shift|). The nearer one decides first.
  double best = INFINITY;
  for (const double margin : {d, tolerance - d})
    if (margin > kEps) best = std::min(best, (z * s / margin) * (z * s / margin));
  if (!std::isfinite(best)) return 0;
  return std::max(floor_n, int(std::ceil(best)));
}

void decide_pairs(const MetricRule& m, double alpha, std::size_t family, PairedVerdict& v) {
  const double worse = m.higher_is_better ? -v.change : v.change;
  if (v.p >= 0 && v.p < alpha && std::isfinite(worse) && worse != 0) {
    v.verdict = worse > 0 ? "slower" : "faster";
    v.note = fmt::format("B {} A", worse > 0 ? "worse than" : "better than");
    return;
  }
  const bool bounded = std::isfinite(v.lo) && std::isfinite(v.hi);
  if (bounded && v.lo >= -m.tolerance - kEps && v.hi <= m.tolerance + kEps) {
    v.verdict = "no change";
    v.note = fmt::format("not significant, and the interval lies within {}", v.band);
    return;
  }
  v.verdict = "INCONCLUSIVE";
  const double shift = m.absolute ? v.change : std::log1p(v.change);
  const double tol = m.absolute ? m.tolerance : std::log1p(m.tolerance);
  v.needed = pairs_to_decide(shift, v.noise, tol, alpha / double(std::max<std::size_t>(1, family)));
  // The estimate is a normal approximation; where it says these pairs should have sufficed, the exact,
  // corrected test disagrees, and all that is known is "more than these".
  const bool floor_only = v.needed > 0 && v.needed <= v.pairs;
  if (floor_only) v.needed = v.pairs + 1;
  const std::string why = !bounded ? "too few pairs for a 95% interval"
                                   : fmt::format("not significant (p={:.2g}) and the interval reaches beyond {}",
                                                 v.p, v.band);
  v.note = why + (v.needed == 0            ? "; the change sits at the tolerance"
                  : v.needed > kMaxAdvised ? fmt::format("; more than {} pairs would be needed", kMaxAdvised)
                  : floor_only             ? fmt::format("; more than these {} pairs would be needed", v.pairs)
                                           : fmt::format("; about {} pairs would decide", v.needed));
}

AbResult paired_compare(const StudyFile& a, const StudyFile& b, const std::vector<AbPoint>& points,
                        const std::vector<MetricRule>& rules, double alpha) {
  AbResult r;
  r.alpha = alpha;
  // Each side's ok rows by point id and repetition.
  const auto index = [](const record::Table& t) {
    std::map<std::pair<std::string, std::int64_t>, std::size_t> m;
    for (std::size_t i = 0; i < t.rows(); ++i)
      if (t.str("status", i) == "ok") m[{t.str("point_id", i), t.integer("repetition", i)}] = i;
    return m;
  };
  const auto ia = index(a.runs), ib = index(b.runs);
  std::vector<std::pair<std::size_t, const MetricRule*>> tested;
  for (const AbPoint& pt : points) {
    for (const MetricRule& m : rules) {
      if (!m.enabled || !m.timing) continue;
      const Metric* def = find_metric(m.name);
      if (def && def->source == "collect") continue;
      if (!a.runs.find(m.name) || !b.runs.find(m.name)) continue;
      std::vector<double> va, vb;
      int lone = 0, with_value = 0;
      for (const auto& [key, row] : ia) {
        if (key.first != pt.a_id) continue;
        const auto other = ib.find({pt.b_id, key.second});
        const double x = a.runs.num(m.name, row);
        const double y = other == ib.end() ? NAN : b.runs.num(m.name, other->second);
        with_value += usable(x, m) || usable(y, m);
        if (usable(x, m) && usable(y, m)) {
          va.push_back(x);
          vb.push_back(y);
        } else {
          ++lone;
        }
      }
      for (const auto& [key, row] : ib)  // B's runs whose A run is not ok
        if (key.first == pt.b_id && !ia.count({pt.a_id, key.second})) ++lone, ++with_value;
      if (with_value == 0) continue;  // not measured at this point (a metric of another backend)
      r.incomplete += m.name == "images_per_s" ? lone : 0;
      PairedVerdict v;
      v.point = pt.label;
      if (measure_pairs(m, va, vb, alpha, v)) tested.push_back({r.rows.size(), &m});
      r.rows.push_back(std::move(v));
    }
  }
  std::vector<double> raw;
  for (const auto& [row, rule] : tested) raw.push_back(r.rows[row].p);
  const std::vector<double> adjusted = benjamini_hochberg(raw);
  for (std::size_t i = 0; i < tested.size(); ++i) {
    PairedVerdict& v = r.rows[tested[i].first];
    v.p = adjusted[i];
    decide_pairs(*tested[i].second, alpha, tested.size(), v);
  }
  r.tests = int(tested.size());
  for (const auto& v : r.rows) {
    r.slower += v.verdict == "slower";
    r.faster += v.verdict == "faster";
    r.no_change += v.verdict == "no change";
    r.inconclusive += v.verdict == "INCONCLUSIVE";
  }
  return r;
}

std::string render_ab(const AbResult& r, Format f) {
  if (f == Format::json) {
    using json::number_or_null;
    json::Json doc = {{"slower", r.slower}, {"faster", r.faster}, {"no_change", r.no_change},
                      {"inconclusive", r.inconclusive}, {"tests", r.tests}, {"alpha", r.alpha},
                      {"incomplete_runs", r.incomplete}, {"rows", json::Json::array()}};
    for (const auto& v : r.rows)
      doc["rows"].push_back({{"point", v.point}, {"metric", v.metric}, {"a", number_or_null(v.a)},
                             {"b", number_or_null(v.b)}, {"change", number_or_null(v.change)},
                             {"change_lo", number_or_null(v.lo)}, {"change_hi", number_or_null(v.hi)},
                             {"relative", !v.absolute}, {"band", v.band},
                             {"p", v.p < 0 ? json::Json(nullptr) : number_or_null(v.p)}, {"pairs", v.pairs},
                             {"pairs_needed", v.needed}, {"verdict", v.verdict}, {"note", v.note}});
    return json::layout(doc);
  }
  TextTable t;
  t.header = {"point", "metric", "A", "B", "B vs A [95% interval]", "p", "pairs", "verdict", "note"};
  for (const auto& v : r.rows) {
    const auto value = [](double x) { return std::isnan(x) ? std::string("-") : fmt::format("{:.4g}", x); };
    const std::string iv = std::isfinite(v.lo) && std::isfinite(v.hi)
                               ? fmt::format("[{}, {}]", change_text(v.lo, v.absolute), change_text(v.hi, v.absolute))
                               : "[-]";
    t.rows.push_back({v.point, v.metric, value(v.a), value(v.b),
                      std::isnan(v.change) ? "-" : change_text(v.change, v.absolute) + " " + iv,
                      v.p < 0 ? "-" : fmt::format("{:.3g}", v.p), std::to_string(v.pairs), v.verdict, v.note});
  }
  std::string out = t.rows.empty() ? "" : render(t, f) + (f == Format::markdown ? "\n" : "");
  out += fmt::format("ab: {} timing comparison{}: {} slower, {} faster, {} no change, {} INCONCLUSIVE (B against A; "
                     "Wilcoxon signed-rank over the pairs, Benjamini-Hochberg over {} test{} at alpha {:g})\n",
                     r.rows.size(), r.rows.size() == 1 ? "" : "s", r.slower, r.faster, r.no_change, r.inconclusive,
                     r.tests, r.tests == 1 ? "" : "s", r.alpha);
  if (r.incomplete > 0)
    out += fmt::format("ab: {} run{} without an ok partner: {} pair{} left out\n", r.incomplete,
                       r.incomplete == 1 ? "" : "s", r.incomplete, r.incomplete == 1 ? "" : "s");
  return out;
}

}  // namespace scalebench::study
