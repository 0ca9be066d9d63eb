// calibrate.cpp — parse a measured point and fit the link's bandwidth to it (calibrate.h).
#include "harness/study/project/calibrate.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

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

Calibration calibrate(const MeasuredStep& m, const Network& net, const ProjectOptions& o, const CalibrationPoint& c,
                      std::string& warning) {
  SB_REQUIRE(net.inter.measured_ranks == 0, "--calibrate {}: the link was measured by commbench already ({}); "
             "calibrate a --network profile or --alpha-us/--gbps", c.text, net.inter.source);
  const Scenario at_k{c.strategy, c.n, false, traits(c.strategy).overlap, false};
  const Scenario at_1{c.strategy, 1, false, traits(c.strategy).overlap, false};
  // larger is faster for both figures: the efficiency, and the step's inverse
  const auto figure_of = [&](const MeasuredStep& step, const Network& x) {
    const Prediction pk = predict(step, x, o, at_k);
    if (c.step_s > 0) return 1.0 / pk.step_s;
    return study::efficiency(study::speedup(pk.images_per_s, predict(step, x, o, at_1).images_per_s), c.n);
  };
  const auto figure = [&](double bw, double alpha) {
    Network x = net;
    x.inter.alpha_s = alpha, x.inter.bytes_per_s = bw;
    return figure_of(m, x);
  };
  const double lowest = 1e3, highest = 1e13;
  warning.clear();
  // `end`: nullptr for the point's link, else which end of the range the point's spread leaves open
  const auto solve = [&](double target, double alpha, const char* end) {
    const auto say = [&](const std::string& w) { warning += (warning.empty() ? "" : "; ") + w; };
    const std::string figure_is = end ? fmt::format("the figure's {} side", end) : "the measured figure";
    const std::string taken = end ? fmt::format("the band's {} end", end) : "the link";
    if (figure(highest, alpha) < target) {
      say(fmt::format("--calibrate {}: the model at N = {} is slower than {} even over a 10 TB/s link (its compute or "
                      "the agreement alone cost more); {} is taken as 10 TB/s", c.text, c.n, figure_is, taken));
      return highest;
    }
    if (figure(lowest, alpha) > target) {
      say(fmt::format("--calibrate {}: {} at N = {} is slower than a 1 kB/s link gives; {} is taken as 1 kB/s", c.text,
                      figure_is, c.n, taken));
      return lowest;
    }
    double lo = std::log(lowest), hi = std::log(highest);
    for (int i = 0; i < 80; ++i) {
      const double mid = 0.5 * (lo + hi);
      (figure(std::exp(mid), alpha) < target ? lo : hi) = mid;
    }
    return std::exp(0.5 * (lo + hi));
  };
  const AlphaBeta& l = net.inter;
  const double a_lo = l.ranged() ? l.alpha_lo : l.alpha_s, a_hi = l.ranged() ? l.alpha_hi : l.alpha_s;
  const double target = c.step_s > 0 ? 1.0 / c.step_s : c.efficiency;
  const double slow = c.step_s > 0 ? 1.0 / (c.step_s * (1 + c.spread)) : c.efficiency - c.spread;
  const double fast = c.step_s > 0 ? 1.0 / (c.step_s * std::max(1e-9, 1 - c.spread)) : c.efficiency + c.spread;
  Calibration out;
  AlphaBeta& fit = out.link;
  fit = l;
  fit.alpha_s = 0.5 * (a_lo + a_hi);
  fit.bytes_per_s = solve(target, fit.alpha_s, nullptr);
  fit.alpha_lo = a_lo, fit.alpha_hi = a_hi;
  fit.bw_lo = solve(slow, a_hi, "slow");
  fit.bw_hi = fast > 1 && c.step_s == 0 ? highest : solve(fast, a_lo, "fast");
  fit.nameplate = false;
  const std::string figure_text = fmt::format("{} {}, +/- {:g}{}", c.step_s > 0 ? "step" : "efficiency",
                                              c.step_s > 0 ? fmt::format("{:g} ms", c.step_s * 1e3) : fmt::format("{:g}", c.efficiency),
                                              c.spread, c.step_s > 0 ? " of it" : "");
  fit.source = fmt::format("{}, calibrated at N = {} ({}): delivered {:.3g} Gbit/s", l.source, c.n, figure_text,
                           fit.bytes_per_s * 8e-9);
  if (!l.ranged() || fit.bytes_per_s <= l.bw_hi) return out;
  warning += (warning.empty() ? "" : "; ") +
             fmt::format("--calibrate {}: the fitted link ({:.3g} Gbit/s) is faster than the link's assumed range allows "
                         "(up to {:.3g} Gbit/s): the measured point costs less than the model's other assumed inputs "
                         "(the intra-node link, when gradients are ready, compute) say; the larger N then grow from the "
                         "wrong term", c.text, fit.bytes_per_s * 8e-9, l.bw_hi * 8e-9);
  if (!o.ready_assumed) return out;  // when gradients are ready was traced: not a reading of this point
  // The other reading: the link no faster than its range allows, and the gradients ready sooner than
  // the described step put them — the fraction of backward they are spread over is what the point fits
  // (one number, as the link was). A point that even an even spread at the link's fastest does not
  // reach has no such reading.
  AlphaBeta top = l;
  top.bytes_per_s = l.bw_hi, top.alpha_s = l.alpha_lo;
  top.bw_lo = top.bw_hi = top.alpha_lo = top.alpha_hi = 0;
  top.nameplate = false;
  Network x = net;
  x.inter = top;
  const auto ready_figure = [&](double f) { return figure_of(ready_over(m, o, f), x); };
  if (ready_figure(1.0) < target) {
    warning += fmt::format("; nor does the link at its fastest with every gradient spread evenly over backward reach it");
    return out;
  }
  const auto solve_ready = [&](double want) {  // the figure grows with the fraction: every bucket ready sooner
    if (ready_figure(1.0) <= want) return 1.0;
    if (ready_figure(0.0) >= want) return 0.0;
    double lo = 0, hi = 1;
    for (int i = 0; i < 50; ++i) {
      const double mid = 0.5 * (lo + hi);
      (ready_figure(mid) < want ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
  };
  ReadyReading& r = out.other;
  r.present = true;
  r.ready = solve_ready(target), r.ready_lo = solve_ready(slow), r.ready_hi = solve_ready(fast);
  top.source = fmt::format("{} at its fastest, calibrated at N = {} ({}): gradients ready over the last {:.3g} of "
                           "backward", l.source, c.n, figure_text, r.ready);
  r.link = top;
  warning += fmt::format("; the band takes in the point's other reading: the link at its fastest ({:.3g} Gbit/s), "
                         "gradients ready over the last {:.3g} ({:.3g} to {:.3g}) of backward",
                         l.bw_hi * 8e-9, r.ready, r.ready_lo, r.ready_hi);
  return out;
}

}  // namespace scalebench::project
