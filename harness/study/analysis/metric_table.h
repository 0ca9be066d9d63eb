// metric_table.h — the metrics of metrics.def as data: name, unit, direction, default tolerance,
// kind, source and definition; plus the two derived quantities every reader computes the same way
// (speedup and efficiency: one function each). compare's rules, collect's columns, report's fields
// and the study file's /metrics table are made from metric_table(); nothing else lists metrics.
// Not here: how a metric is measured (record/summary.cpp, collect.cpp) or judged (compare.cpp).
#pragma once

#include <string>
#include <vector>

#include "harness/record/table.h"

namespace scalebench::study {

enum class MetricKind { timing, quality, memory };

struct Metric {
  std::string name, unit;
  bool higher_is_better = true;
  std::string tolerance;  // --threshold syntax: "-10%", "+0.05", "off"
  MetricKind kind = MetricKind::timing;
  std::string source;     // "summary" | "collect"
  std::string definition;
};

const std::vector<Metric>& metric_table();
const Metric* find_metric(const std::string& name);  // nullptr when unknown
std::string kind_name(MetricKind k);

// The /metrics table of a study file: one row per metric with every field above (as strings).
record::Table metrics_as_table();

// DESIGN §5, the one place each is computed: speedup(N) = throughput(N) / throughput(1) and
// efficiency(N) = speedup(N) / N. NaN in, NaN out; a non-positive baseline gives NaN.
double speedup(double throughput, double baseline_throughput);
double efficiency(double speedup, double devices);

}  // namespace scalebench::study
