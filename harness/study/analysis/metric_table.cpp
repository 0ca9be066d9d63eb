// metric_table.cpp — metrics.def as a table (see metric_table.h).
#include "harness/study/analysis/metric_table.h"

#include <cmath>

namespace scalebench::study {

const std::vector<Metric>& metric_table() {
  static const std::vector<Metric> table = [] {
    constexpr bool higher = true, lower = false;
    constexpr MetricKind timing = MetricKind::timing, quality = MetricKind::quality, memory = MetricKind::memory;
    std::vector<Metric> t;
#define SB_METRIC(name, unit, better, tolerance, kind, source, definition) \
  t.push_back({#name, unit, better, tolerance, kind, #source, definition});
#include "harness/study/analysis/metrics.def"
#undef SB_METRIC
    return t;
  }();
  return table;
}

const Metric* find_metric(const std::string& name) {
  for (const Metric& m : metric_table())
    if (m.name == name) return &m;
  return nullptr;
}

std::string kind_name(MetricKind k) {
  switch (k) {
    case MetricKind::timing: return "timing";
    case MetricKind::quality: return "quality";
    case MetricKind::memory: return "memory";
  }
  return "?";
}

record::Table metrics_as_table() {
  record::Table t;
  for (const Metric& m : metric_table()) {
    record::Attrs r;
    r.set("name", m.name);
    r.set("unit", m.unit);
    r.set("better", std::string(m.higher_is_better ? "higher" : "lower"));
    r.set("tolerance", m.tolerance);
    r.set("kind", kind_name(m.kind));
    r.set("source", m.source);
    r.set("definition", m.definition);
    t.append(r);
  }
  return t;
}

double speedup(double throughput, double baseline_throughput) {
  return baseline_throughput > 0 ? throughput / baseline_throughput : NAN;
}

double efficiency(double speedup, double devices) { return devices > 0 ? speedup / devices : NAN; }

}  // namespace scalebench::study
