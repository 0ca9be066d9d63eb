// point_stats.cpp — per-point intervals and flags (see point_stats.h).
#include "harness/study/analysis/point_stats.h"

#include <cmath>
#include <map>

#include "harness/study/analysis/collect.h"
#include "harness/study/analysis/intervals.h"
#include "harness/study/analysis/metric_table.h"
#include "harness/study/analysis/stats.h"

namespace scalebench::study {
namespace {

constexpr double kMinMeasuredSeconds = 1.0;
constexpr double kMinMeasuredSteps = 30;
constexpr double kMaxStepCv = 0.2;
constexpr double kMaxRepetitionSpread = 0.10;

std::vector<double> column(const record::Table& t, const std::vector<std::size_t>& rows, const std::string& c) {
  std::vector<double> v;
  for (auto r : rows)
    if (const double x = t.num(c, r); std::isfinite(x)) v.push_back(x);
  return v;
}

}  // namespace

const char* const kFlagRules[kFlagCount][2] = {
    {"short", "a run measured under 1 s or under 30 steps: too short to time"},
    {"noisy", "a run's step-time CV above 0.2, or the images/s spread over repetitions (1.4826 x MAD of log images/s) "
              "above 10 %"},
    {"efficiency>1", "efficiency above 1 beyond its 95 % interval (its lower end above 1; with no interval, the "
                     "median above 1)"},
    {"phase", "exposed communication above 0 in a run whose strategy sends nothing (comm_bytes_per_step 0): "
              "impossible by definition"},
    {"shared-gpu", "ranks shared a GPU (the staged transport): a correctness run, its timings measure contention for "
                   "one device, not scaling; compare leaves its timing out"},
};

void add_point_stats(record::Table& runs) {
  using K = record::Column::Kind;
  const auto points = group_points(runs);
  // The ok rows of each baseline, by the "baseline" name and group: "ring N=1" of group g.
  std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> n1;
  for (std::size_t r = 0; r < runs.rows(); ++r)
    if (runs.str("status", r) == "ok" && runs.integer("world_size", r) == 1)
      n1[{runs.str("group_id", r), runs.str("strategy", r) + " N=1"}].push_back(r);
  const char* cols[] = {"images_per_s_ci_lo", "images_per_s_ci_hi", "epoch_time_s_ci_lo", "epoch_time_s_ci_hi",
                        "speedup_ci_lo",      "speedup_ci_hi",      "efficiency_ci_lo",   "efficiency_ci_hi"};
  for (const char* c : cols) runs.add(c, K::f64);
  runs.add("flags", K::str);
  for (const PointRows& p : points) {
    std::map<std::string, double> v;
    for (const char* c : cols) v[c] = NAN;
    std::string flags;
    if (!p.ok_rows.empty()) {
      for (const char* m : {"images_per_s", "epoch_time_s"}) {
        const Interval iv = median_interval(column(runs, p.ok_rows, m));
        v[std::string(m) + "_ci_lo"] = iv.lo;
        v[std::string(m) + "_ci_hi"] = iv.hi;
      }
      const std::size_t r0 = p.ok_rows.front();
      const double n = double(std::max<std::int64_t>(1, runs.integer("world_size", r0)));
      const auto base = n1.find({runs.str("group_id", r0), runs.str("baseline", r0)});
      if (base != n1.end()) {
        const Interval s = shift_interval(column(runs, base->second, "images_per_s"),
                                          column(runs, p.ok_rows, "images_per_s"), true);
        v["speedup_ci_lo"] = s.lo;
        v["speedup_ci_hi"] = s.hi;
        v["efficiency_ci_lo"] = efficiency(s.lo, n);
        v["efficiency_ci_hi"] = efficiency(s.hi, n);
      }
      bool is_short = false, noisy = false, phase = false, shared = false;
      for (auto r : p.ok_rows) {
        const double seconds = runs.num("epoch_time_s", r) * runs.num("measured_epochs", r);
        const double steps = runs.num("measured_steps", r);
        is_short |= seconds < kMinMeasuredSeconds || steps < kMinMeasuredSteps;
        noisy |= runs.num("step_time_cv", r) > kMaxStepCv;
        phase |= runs.num("comm_bytes_per_step", r) == 0 && runs.num("exposed_comm_frac", r) > 0;
        shared |= runs.str("gpu_shared", r) == "1";
      }
      noisy |= robust_spread(column(runs, p.ok_rows, "images_per_s"), true) > kMaxRepetitionSpread;
      const auto eff = column(runs, p.ok_rows, "efficiency");
      const bool above = std::isfinite(v["efficiency_ci_lo"]) ? v["efficiency_ci_lo"] > 1
                                                               : !eff.empty() && median(eff) > 1 + 1e-9;
      const bool set[kFlagCount] = {is_short, noisy, above, phase, shared};
      for (int i = 0; i < kFlagCount; ++i)
        if (set[i]) flags += (flags.empty() ? "" : " ") + std::string(kFlagRules[i][0]);
    }
    for (auto r : p.rows) {
      for (const char* c : cols) runs.find(c)->f[r] = v[c];
      runs.find("flags")->s[r] = flags;
    }
  }
}

}  // namespace scalebench::study
