// verdict.cpp — one metric of one point: measure, then decide (see verdict.h).
#include "harness/study/analysis/verdict.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "harness/study/analysis/intervals.h"
#include "harness/study/analysis/stats.h"

namespace scalebench::study {
namespace {

constexpr double kEps = 1e-12;  // a change exactly at the limit is within it
constexpr int kMaxAdvised = 50; // beyond this, "more than 50": a shared machine will not get there

std::string amount(const MetricRule& m, double x) {
  return m.absolute ? fmt::format("{:.3g}", x) : percent(x, 1);
}

}  // namespace

bool measure(const MetricRule& m, const std::vector<double>& vb, const std::vector<double>& vn, double alpha,
             MetricVerdict& v) {
  v.base = median(vb);
  v.now = median(vn);
  v.absolute = m.absolute;
  v.n_base = int(vb.size());
  v.n_new = int(vn.size());
  const bool ratio = !m.absolute;
  if (ratio && (v.base <= 0 || v.now <= 0)) {  // a ratio of non-positive values means nothing
    v.change = v.base == v.now ? 0.0 : NAN;
  } else {
    const Interval iv = shift_interval(vb, vn, ratio);
    v.change = ratio ? iv.estimate - 1 : iv.estimate;
    if (iv.bounded) {
      v.lo = ratio ? iv.lo - 1 : iv.lo;
      v.hi = ratio ? iv.hi - 1 : iv.hi;
    }
  }
  const double worse = m.higher_is_better ? -v.change : v.change;
  if (!m.timing) {
    v.verdict = worse > m.tolerance + kEps ? "REGRESSION" : -worse > m.tolerance + kEps ? "improved" : "ok";
    return false;
  }
  v.noise = std::max(robust_spread(vb, ratio), robust_spread(vn, ratio));
  // The same value in every run on both sides (no communication: exposed_comm_frac 0; a
  // prediction compared with itself): nothing varies, so there is nothing to test.
  const auto same = [&](double x) { return x == vb.front(); };
  if (std::all_of(vb.begin(), vb.end(), same) && std::all_of(vn.begin(), vn.end(), same)) {
    v.verdict = "ok";
    v.note = "the same value in every run on both sides";
    return false;
  }
  if (v.n_base < 2 || v.n_new < 2) {
    v.verdict = "INCONCLUSIVE";
    v.needed = repetitions_to_reach(alpha);
    v.note = std::string("1 run in ") + (v.n_base < 2 ? "BASE" : "NEW") + ": one run cannot tell a change from noise";
    return false;
  }
  v.p = mann_whitney(vb, vn).p;
  return true;
}

int repetitions_to_decide(double shift, double spread, double tolerance, double alpha) {
  const int floor_n = repetitions_to_reach(alpha);
  const double s = std::isfinite(spread) && spread > 0 ? spread : 0.0;
  const double d = std::abs(shift);
  // Aim at equivalence when the shift is inside the band, at significance when beyond it; a shift
  // exactly at the tolerance is neither beyond it nor inside an interval around it.
  const double margin = d < tolerance - kEps ? tolerance - d : d > tolerance + kEps ? d : 0.0;
  if (margin <= kEps) return 0;
  // 95 % half-width of the HL interval ≈ 1.96 · s · sqrt(2/n) · sqrt(π/3) (the U test's efficiency
  // against the t test is 3/π on normal data).
  const double z = 1.959963984540054 * std::sqrt(M_PI / 3);
  const double n = 2 * (z * s / margin) * (z * s / margin);
  return std::max(floor_n, int(std::ceil(n)));
}

void decide_timing(const MetricRule& m, double alpha, std::size_t family, MetricVerdict& v) {
  const double worse = m.higher_is_better ? -v.change : v.change;
  const double noise = std::isfinite(v.noise) ? v.noise : 0.0;
  const double limit = std::max(m.tolerance, noise);
  const bool significant = v.p >= 0 && v.p < alpha;
  if (significant && std::abs(worse) > limit + kEps) {
    v.verdict = worse > 0 ? "REGRESSION" : "improved";
    if (noise > m.tolerance) v.note = fmt::format("beyond the measured noise ({})", amount(m, noise));
    return;
  }
  const bool bounded = std::isfinite(v.lo) && std::isfinite(v.hi);
  if (bounded && v.lo >= -m.tolerance - kEps && v.hi <= m.tolerance + kEps) {
    v.verdict = "ok";
    v.note = "no change: the interval lies within the tolerance";
    return;
  }
  v.verdict = "INCONCLUSIVE";
  v.needed = repetitions_to_decide(v.change, noise, m.tolerance, alpha / double(std::max<std::size_t>(1, family)));
  const int have = std::min(v.n_base, v.n_new);
  if (v.needed > 0 && v.needed <= have) v.needed = have + 1;  // more than these, at least
  std::string why = !bounded ? "too few runs for a 95% interval"
                    : significant ? fmt::format("significant but within the measured noise ({})", amount(m, noise))
                                  : fmt::format("not significant (p={:.2g}) and the interval reaches beyond {}{}", v.p,
                                                m.higher_is_better ? "-" : "+", amount(m, m.tolerance));
  v.note = why + (v.needed == 0           ? "; the change sits at the tolerance"
                  : v.needed > kMaxAdvised ? fmt::format("; more than {} runs a side would be needed", kMaxAdvised)
                                           : fmt::format("; about {} runs a side would decide", v.needed));
}

}  // namespace scalebench::study
