// noise_text.cpp — the noise some runs ran under, as one line (see noise_text.h).
#include "harness/study/analysis/noise_text.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "harness/study/analysis/collect.h"

namespace scalebench::study {
namespace {

struct Range {
  double lo = INFINITY, hi = -INFINITY;
  void add(double x) {
    if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
  }
  bool known() const { return lo <= hi; }
};

}  // namespace

std::string ran_under(const record::Table& t, const std::vector<std::size_t>& rows) {
  Range load, running, others, steal, mhz, cpus;
  for (const std::size_t r : rows) {
    load.add(t.num("noise_load1_start", r));
    load.add(t.num("noise_load1_end", r));
    running.add(t.num("noise_running_start", r));
    running.add(t.num("noise_running_end", r));
    others.add(t.num("noise_others_cpu_frac", r));
    steal.add(t.num("noise_steal_frac", r));
    mhz.add(t.num("noise_mhz_start", r));
    mhz.add(t.num("noise_mhz_end", r));
    cpus.add(t.num("noise_cpus", r));
  }
  std::vector<std::string> parts;
  if (load.known())
    parts.push_back(fmt::format("load {:.1f}..{:.1f}{}", load.lo, load.hi,
                                cpus.known() ? fmt::format(" on {:.0f} CPUs", cpus.hi) : ""));
  if (running.known()) parts.push_back(fmt::format("{:.0f}..{:.0f} runnable", running.lo, running.hi));
  if (others.known()) parts.push_back(fmt::format("others' CPU <={:.0f}%", 100 * others.hi));
  if (steal.known()) parts.push_back(fmt::format("steal <={:.0f}%", 100 * steal.hi));
  if (mhz.known()) parts.push_back(fmt::format("clock {:.0f}..{:.0f} MHz", mhz.lo, mhz.hi));
  if (parts.empty()) return "";
  if (t.find("cgroup_cpu_limit"))
    for (const std::size_t r : rows)
      if (const std::string c = t.str("cgroup_cpu_limit", r); !c.empty()) {
        parts.push_back("cgroup limit " + c);
        break;
      }
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

}  // namespace scalebench::study
