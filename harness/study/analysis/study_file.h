// study_file.h — the study file (`scalebench collect` writes it, report/compare/plots read it):
//   /      attrs schema_version, kind = "study", writer, created_utc, study, runs, runs_ok,
//                speedup_definition
//   /runs  table, one row per run file: config fields, summary fields, status/error, context
//          facts, and the derived baseline, speedup and efficiency (docs/results-schema.md);
//          per point, the 95 % intervals and flags of point_stats.h
//   /metrics table, one row per metric of metrics.def (name, unit, better, tolerance, kind,
//          source, definition): how readers such as the plots label and judge the columns
//          (absent from files written before it existed and from project's predictions)
//   /selection table, a study with [select] only: one row per candidate of each cell (tuning.h)
// Written atomically like run files. Not here: how the rows are computed (collect.h).
#pragma once

#include <string>

#include "harness/record/table.h"

namespace scalebench::study {

struct StudyFile {
  record::Attrs attrs;
  record::Table runs;
  record::Table metrics;  // empty when the file has none
  record::Table selection;  // a tuned study's candidates (tuning.h select_best); empty when none
};

void write_study_file(const std::string& path, const StudyFile& f);
// Throws naming the file when it is missing, not HDF5, or not a study file.
StudyFile read_study_file(const std::string& path);

}  // namespace scalebench::study
