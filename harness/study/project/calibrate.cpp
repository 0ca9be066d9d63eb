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

AlphaBeta calibrate(const MeasuredStep& m, const Network& net, const ProjectOptions& o, const CalibrationPoint& c,
                    std::string& warning) {
  SB_REQUIRE(net.inter.measured_ranks == 0, "--calibrate {}: the link was measured by commbench already ({}); "
             "calibrate a --network profile or --alpha-us/--gbps", c.text, net.inter.source);
  const Scenario at_k{c.strategy, c.n, false, traits(c.strategy).overlap, false};
  const Scenario at_1{c.strategy, 1, false, traits(c.strategy).overlap, false};
  // larger is faster for both figures: the efficiency, and the step's inverse
  const auto figure = [&](double bw, double alpha) {
    Network x = net;
    x.inter.alpha_s = alpha, x.inter.bytes_per_s = bw;
    const Prediction pk = predict(m, x, o, at_k);
    if (c.step_s > 0) return 1.0 / pk.step_s;
    return study::efficiency(study::speedup(pk.images_per_s, predict(m, x, o, at_1).images_per_s), c.n);
  };
  const double lowest = 1e3, highest = 1e13;
  warning.clear();
  const auto solve = [&](double target, double alpha) {
    if (figure(highest, alpha) < target) {
      if (!warning.empty()) return highest;  // said once
      warning = fmt::format("--calibrate {}: the model at N = {} is slower than the measured figure even over a "
                            "10 TB/s link (its compute or the agreement alone cost more); the link is taken as 10 TB/s",
                            c.text, c.n);
      return highest;
    }
    if (figure(lowest, alpha) > target) {
      if (!warning.empty()) return lowest;
      warning = fmt::format("--calibrate {}: the measured figure at N = {} is slower than a 1 kB/s link gives; the "
                            "link is taken as 1 kB/s", c.text, c.n);
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
  AlphaBeta out = l;
  out.alpha_s = 0.5 * (a_lo + a_hi);
  out.bytes_per_s = solve(target, out.alpha_s);
  out.alpha_lo = a_lo, out.alpha_hi = a_hi;
  out.bw_lo = solve(slow, a_hi);
  out.bw_hi = fast > 1 && c.step_s == 0 ? highest : solve(fast, a_lo);
  if (l.ranged() && out.bytes_per_s > l.bw_hi)
    warning += (warning.empty() ? "" : "; ") + fmt::format("--calibrate {}: the fitted link ({:.3g} Gbit/s) is faster than the link's assumed range "
                          "allows (up to {:.3g} Gbit/s): the measured point costs less than the model's other "
                          "assumed inputs (the intra-node link, when gradients are ready, compute) say; the larger N "
                          "then grow from the wrong term", c.text, out.bytes_per_s * 8e-9, l.bw_hi * 8e-9);
  out.nameplate = false;
  out.source = fmt::format("{}, calibrated at N = {} ({} {}, +/- {:g}{}): delivered {:.3g} Gbit/s", l.source, c.n,
                           c.step_s > 0 ? "step" : "efficiency",
                           c.step_s > 0 ? fmt::format("{:g} ms", c.step_s * 1e3) : fmt::format("{:g}", c.efficiency),
                           c.spread, c.step_s > 0 ? " of it" : "", out.bytes_per_s * 8e-9);
  return out;
}

}  // namespace scalebench::project
