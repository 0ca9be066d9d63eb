// compare_fixtures.h — study files built row by row for the compare tests (test_compare.cpp,
// test_compare_scope.cpp): a run row of point `id` with its metric values, an empty study, and the
// verdict of one point and metric. Not a fixture of real runs (those are test_collect.cpp's).
#pragma once

#include <initializer_list>
#include <string>
#include <utility>

#include "harness/study/analysis/compare.h"

namespace scalebench::study::compare_test {

using record::Attrs;

// One run row: point `id` (label "m <strategy> N=1 b=8"), with metric values.
inline void run(StudyFile& f, const std::string& id, const std::string& status, std::initializer_list<std::pair<const char*, double>> m) {
  Attrs r;
  r.set("point_id", id);
  r.set("status", status);
  r.set("error", status == "ok" ? "" : "boom");
  r.set("model", "m");
  r.set("strategy", id);
  r.set("world_size", 1);
  r.set("batch", 8);
  for (const char* k : {"images_per_s", "epoch_time_s", "final_val_loss"}) r.set(k, record::kNaN);
  for (auto [k, v] : m) r.set(k, v);
  f.runs.append(r);
}

inline StudyFile empty_study() {
  StudyFile f;
  f.attrs.set("kind", "study");
  return f;
}

inline const MetricVerdict* find(const CompareResult& r, const std::string& point, const std::string& metric) {
  for (const auto& v : r.rows)
    if (v.point == "m " + point + " N=1 b=8" && v.metric == metric) return &v;
  return nullptr;
}


}  // namespace scalebench::study::compare_test
