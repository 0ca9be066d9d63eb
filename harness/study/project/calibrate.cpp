// calibrate.cpp — parse a measured point and fit the link's bandwidth to it (calibrate.h).
#include "harness/study/project/calibrate.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/study/analysis/metric_table.h"
#include "harness/study/analysis/study_file.h"
#include "kernels/common/check.h"
#include "kernels/common/enum_names.h"

namespace scalebench::project {

namespace {
double number(const std::string& spec, const std::string& key, const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  SB_REQUIRE(!v.empty() && end == v.c_str() + v.size() && std::isfinite(x),
             "--calibrate {}: field {}: '{}' is not a number", spec, key, v);
  return x;
}
}  // namespace

CalibrationPoint parse_calibration(const std::string& spec) {
  CalibrationPoint c;
  c.text = spec;
  std::size_t at = 0;
  while (at <= spec.size()) {
    const std::size_t colon = std::min(spec.find(':', at), spec.size());
    const std::string item = spec.substr(at, colon - at);
    const std::size_t eq = item.find('=');
    SB_REQUIRE(eq != std::string::npos, "--calibrate {}: '{}' is not KEY=VALUE (N=2:eff=0.81 or N=2:step_ms=250)", spec, item);
    const std::string key = item.substr(0, eq), v = item.substr(eq + 1);
    if (key == "N") {
      const double n = number(spec, key, v);
      SB_REQUIRE(n >= 2 && n <= (1 << 20) && n == std::floor(n), "--calibrate {}: field N: {} (a measured run of 2 or more devices)", spec, v);
      c.n = int(n);
    } else if (key == "eff") {
      c.efficiency = number(spec, key, v);
      SB_REQUIRE(c.efficiency > 0 && c.efficiency <= 1, "--calibrate {}: field eff: {} (a weak-scaling efficiency in (0, 1])", spec, v);
    } else if (key == "step_ms") {
      c.step_s = number(spec, key, v) * 1e-3;
      SB_REQUIRE(c.step_s > 0, "--calibrate {}: field step_ms: {} (a step time above 0)", spec, v);
    } else if (key == "study") {
      c.study = v;
    } else if (key == "spread") {
      c.spread = number(spec, key, v);
      SB_REQUIRE(c.spread >= 0 && c.spread <= 0.5, "--calibrate {}: field spread: {} (0 to 0.5)", spec, v);
    } else if (key == "strategy") {
      const auto kind = find_enum<StrategyKind>(v);
      SB_REQUIRE(kind && traits(*kind).exchange == Exchange::allreduce,
                 "--calibrate {}: field strategy: '{}' (an allreduce strategy: ring, hierarchical, native)", spec, v);
      c.strategy = *kind;
    } else {
      SB_REQUIRE(false, "--calibrate {}: unknown field '{}' (N, eff, step_ms, study, spread, strategy)", spec, key);
    }
    at = colon + 1;
  }
  SB_REQUIRE(c.n >= 2, "--calibrate {}: no N=K (the measured run's devices)", spec);
  if (!c.study.empty()) {  // the measured efficiency: the study's weak-scaling rows at N, their mean
    SB_REQUIRE(c.efficiency == 0 && c.step_s == 0, "--calibrate {}: study= gives the efficiency; leave eff and step_ms out", spec);
    const study::StudyFile f = study::read_study_file(c.study);
    const std::string name(traits(c.strategy).name);
    double sum = 0;
    int rows = 0;
    for (std::size_t r = 0; r < f.runs.rows(); ++r) {
      const double e = f.runs.num("efficiency", r);
      if (f.runs.str("status", r) != "ok" || f.runs.str("scaling", r) != "weak" || f.runs.str("strategy", r) != name ||
          f.runs.num("world_size", r) != c.n || !(e > 0))
        continue;
      sum += e, ++rows;
    }
    SB_REQUIRE(rows > 0, "--calibrate {}: {} has no ok weak-scaling row of {} at world_size {} with an efficiency", spec,
               c.study, name, c.n);
    c.efficiency = std::min(1.0, sum / rows);
  }
  SB_REQUIRE((c.efficiency > 0) != (c.step_s > 0), "--calibrate {}: give exactly one of eff=E and step_ms=S", spec);
  return c;
}

namespace {
// A point's figure, larger is faster for both kinds: the efficiency at its N, or its step's inverse.
double figure_of(const MeasuredStep& step, const Network& x, const ProjectOptions& o, const CalibrationPoint& c) {
  const Scenario at_k{c.strategy, c.n, false, traits(c.strategy).overlap, false};
  const Prediction pk = predict(step, x, o, at_k);
  if (c.step_s > 0) return 1.0 / pk.step_s;
  const Scenario at_1{c.strategy, 1, false, traits(c.strategy).overlap, false};
  return study::efficiency(study::speedup(pk.images_per_s, predict(step, x, o, at_1).images_per_s), c.n);
}
double target_of(const CalibrationPoint& c) { return c.step_s > 0 ? 1.0 / c.step_s : c.efficiency; }
// the figure's slow side (efficiency - spread, or step x (1 + spread)) and its fast side
double slow_of(const CalibrationPoint& c) {
  return c.step_s > 0 ? 1.0 / (c.step_s * (1 + c.spread)) : c.efficiency - c.spread;
}
double fast_of(const CalibrationPoint& c) {
  return c.step_s > 0 ? 1.0 / (c.step_s * std::max(1e-9, 1 - c.spread)) : c.efficiency + c.spread;
}
// How far a figure lies from the point's measurement, in spreads (relative for a step time).
double misfit(const CalibrationPoint& c, double figure) {
  const double off = c.step_s > 0 ? std::fabs(figure * c.step_s - 1.0) : std::fabs(figure - c.efficiency);
  return off / std::max(c.spread, 1e-9);
}
std::string point_text(const CalibrationPoint& c) {
  return fmt::format("N = {} ({} {}, +/- {:g}{})", c.n, c.step_s > 0 ? "step" : "efficiency",
                     c.step_s > 0 ? fmt::format("{:g} ms", c.step_s * 1e3) : fmt::format("{:g}", c.efficiency), c.spread,
                     c.step_s > 0 ? " of it" : "");
}
// x in [lo, hi] at which an increasing f reaches `want` (bisection, `steps` halvings).
template <class F>
double bisect(F f, double lo, double hi, double want, int steps) {
  for (int i = 0; i < steps; ++i) {
    const double mid = 0.5 * (lo + hi);
    (f(mid) < want ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}
constexpr double kLowestBw = 1e3, kHighestBw = 1e13;  // bytes/s: what a bandwidth fit may take
// The latencies a fit of several points tries: 0.1 us to 100 ms, 40 a decade.
constexpr double kAlphaMin = 1e-7, kAlphaMax = 1e-1;
constexpr int kAlphaPerDecade = 40;
}  // namespace

Calibration calibrate(const MeasuredStep& m, const Network& net, const ProjectOptions& o,
                      std::vector<CalibrationPoint> points, std::string& warning) {
  SB_REQUIRE(!points.empty(), "--calibrate: no point");
  std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.n < b.n; });
  for (std::size_t i = 1; i < points.size(); ++i)
    SB_REQUIRE(points[i].n != points[i - 1].n, "--calibrate {} and {}: two points at N = {}: give each N once",
               points[i - 1].text, points[i].text, points[i].n);
  std::vector<std::string> specs, described;  // as given; as the link's source says them
  for (const auto& p : points) specs.push_back(p.text), described.push_back(point_text(p));
  const std::string texts = fmt::format("{}", fmt::join(specs, " "));
  const std::string points_text = fmt::format("{}", fmt::join(described, " and "));
  SB_REQUIRE(net.inter.measured_ranks == 0, "--calibrate {}: the link was measured by commbench already ({}); "
             "calibrate a --network profile or --alpha-us/--gbps", texts, net.inter.source);
  const CalibrationPoint& c = points.front();  // the smallest N: its figure fixes the bandwidth
  const auto figure = [&](const CalibrationPoint& p, double bw, double alpha) {
    Network x = net;
    x.inter.alpha_s = alpha, x.inter.bytes_per_s = bw;
    return figure_of(m, x, o, p);
  };
  // The bandwidth at which the first point's figure is `target` at this latency (bisection on a log
  // scale); `bound` -1 or +1 where none between the bounds reaches it and the bound is taken.
  const auto bandwidth = [&](double target, double alpha, int& bound) {
    bound = 0;
    if (figure(c, kHighestBw, alpha) < target) return bound = 1, kHighestBw;
    if (figure(c, kLowestBw, alpha) > target) return bound = -1, kLowestBw;
    return std::exp(bisect([&](double x) { return figure(c, std::exp(x), alpha); }, std::log(kLowestBw),
                           std::log(kHighestBw), target, 60));
  };
  warning.clear();
  const auto say = [&](const std::string& w) { warning += (warning.empty() ? "" : "; ") + w; };
  // `end`: nullptr for the point's link, else which end of the range the spread leaves open
  const auto solve = [&](double target, double alpha, const char* end) {
    int bound = 0;
    const double bw = bandwidth(target, alpha, bound);
    const std::string figure_is = end ? fmt::format("the figure's {} side", end) : "the measured figure";
    const std::string taken = end ? fmt::format("the band's {} end", end) : "the link";
    if (bound > 0)
      say(fmt::format("--calibrate {}: the model at N = {} is slower than {} even over a 10 TB/s link (its compute or "
                      "the agreement alone cost more); {} is taken as 10 TB/s", c.text, c.n, figure_is, taken));
    if (bound < 0)
      say(fmt::format("--calibrate {}: {} at N = {} is slower than a 1 kB/s link gives; {} is taken as 1 kB/s", c.text,
                      figure_is, c.n, taken));
    return bw;
  };
  const AlphaBeta& l = net.inter;
  // The latency: one point leaves it where the link was assumed (its range's middle, the range kept);
  // two or more fit it: at each latency on the grid the first point fixes the bandwidth, and the
  // worst miss over the points (in spreads; the first's too, where a bound took its bandwidth) is
  // that latency's; the point is the least, the range every latency at which each point lies within
  // its spread.
  double a_lo = l.ranged() ? l.alpha_lo : l.alpha_s, a_hi = l.ranged() ? l.alpha_hi : l.alpha_s;
  double a_mid = 0.5 * (a_lo + a_hi);
  std::string latency_text;
  if (points.size() >= 2) {
    const auto worst = [&](double alpha) {
      int bound = 0;
      const double bw = bandwidth(target_of(c), alpha, bound);
      double w = 0;  // the first point too: where no bandwidth reaches its figure, the bound misses it
      for (const auto& p : points) w = std::max(w, misfit(p, figure(p, bw, alpha)));
      return w;
    };
    const int steps = int(std::lround(std::log10(kAlphaMax / kAlphaMin) * kAlphaPerDecade));
    double best = INFINITY, lo = INFINITY, hi = 0;
    for (int i = 0; i <= steps; ++i) {
      const double alpha = kAlphaMin * std::pow(10.0, double(i) / kAlphaPerDecade), w = worst(alpha);
      if (w < best) best = w, a_mid = alpha;
      if (w <= 1) lo = std::min(lo, alpha), hi = std::max(hi, alpha);
    }
    if (hi == 0) {
      say(fmt::format("--calibrate {}: no latency puts every point within its spread (the best, {:.3g} us, misses by {:.2g} "
                      "spreads): the points disagree with the model or with each other; the link is fitted at that "
                      "latency", texts, a_mid * 1e6, best));
      lo = hi = a_mid;
    }
    a_lo = lo, a_hi = hi;
    if (l.ranged() && (a_mid < l.alpha_lo || a_mid > l.alpha_hi))
      say(fmt::format("--calibrate {}: the fitted latency ({:.3g} us) lies outside the link's assumed range ({:.3g} to "
                      "{:.3g} us)", texts, a_mid * 1e6, l.alpha_lo * 1e6, l.alpha_hi * 1e6));
    latency_text = fmt::format(", latency {:.3g} us ({:.3g} to {:.3g})", a_mid * 1e6, a_lo * 1e6, a_hi * 1e6);
  }
  const double target = target_of(c), slow = slow_of(c), fast = fast_of(c);
  Calibration out;
  AlphaBeta& fit = out.link;
  fit = l;
  fit.alpha_s = a_mid;
  fit.bytes_per_s = solve(target, fit.alpha_s, nullptr);
  fit.alpha_lo = a_lo, fit.alpha_hi = a_hi;
  fit.bw_lo = solve(slow, a_hi, "slow");
  fit.bw_hi = fast > 1 && c.step_s == 0 ? kHighestBw : solve(fast, a_lo, "fast");
  fit.nameplate = false;
  fit.source = fmt::format("{}, calibrated at {}: delivered {:.3g} Gbit/s{}", l.source, points_text,
                           fit.bytes_per_s * 8e-9, latency_text);
  if (!l.ranged() || fit.bytes_per_s <= l.bw_hi) return out;
  say(fmt::format("--calibrate {}: the fitted link ({:.3g} Gbit/s) is faster than the link's assumed range allows "
                  "(up to {:.3g} Gbit/s): the measured point costs less than the model's other assumed inputs (the "
                  "intra-node link, when gradients are ready, compute) say; the larger N then grow from the wrong term",
                  texts, fit.bytes_per_s * 8e-9, l.bw_hi * 8e-9));
  if (!o.ready_assumed) return out;  // when gradients are ready was traced: not a reading of this point
  // The other reading: the link no faster than its range allows, and the gradients ready sooner than
  // the described step put them — the fraction of backward they are spread over is what the first
  // point fits (one number, as the link was); every other point must lie within its spread of it. A
  // point that even an even spread at the link's fastest does not reach has no such reading.
  // (not at_fast_end(): a transport's connections together stay where they were, no point here is of them)
  AlphaBeta top = l;
  top.bytes_per_s = l.bw_hi, top.alpha_s = l.alpha_lo;
  top.bw_lo = top.bw_hi = top.alpha_lo = top.alpha_hi = 0;
  top.nameplate = false;
  Network x = net;
  x.inter = top;
  const auto ready_figure = [&](const CalibrationPoint& p, double f) { return figure_of(ready_over(m, o, f), x, o, p); };
  if (ready_figure(c, 1.0) < target) {
    say("nor does the link at its fastest with every gradient spread evenly over backward reach it");
    return out;
  }
  const auto solve_ready = [&](double want) {  // the figure grows with the fraction: every bucket ready sooner
    if (ready_figure(c, 1.0) <= want) return 1.0;
    if (ready_figure(c, 0.0) >= want) return 0.0;
    return bisect([&](double f) { return ready_figure(c, f); }, 0.0, 1.0, want, 50);
  };
  ReadyReading r;
  r.ready = solve_ready(target), r.ready_lo = solve_ready(slow), r.ready_hi = solve_ready(fast);
  for (std::size_t i = 1; i < points.size(); ++i)
    if (const double w = misfit(points[i], ready_figure(points[i], r.ready)); w > 1) {
      say(fmt::format("the other reading (the link at its fastest, gradients ready over the last {:.3g} of backward) "
                      "misses the point at N = {} by {:.2g} spreads: not taken", r.ready, points[i].n, w));
      return out;
    }
  r.present = true;
  top.source = fmt::format("{} at its fastest, calibrated at {}: gradients ready over the last {:.3g} of backward",
                           l.source, points_text, r.ready);
  r.link = top;
  out.other = r;
  say(fmt::format("the band takes in the point's other reading: the link at its fastest ({:.3g} Gbit/s), gradients "
                  "ready over the last {:.3g} ({:.3g} to {:.3g}) of backward", l.bw_hi * 8e-9, r.ready, r.ready_lo,
                  r.ready_hi));
  return out;
}

}  // namespace scalebench::project
