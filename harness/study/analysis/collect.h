// collect.h — `scalebench collect <study folder>`: one row per run file of <folder>/runs into
// <folder>/study.h5, with speedup and efficiency derived (DESIGN §5):
//   group     the runs that differ only in strategy, world size and repetition (group_id, see
//             record/run_config.h; in strong scaling the global batch is what stays fixed);
//   baseline  the N = 1 run(s) of the same group and strategy; when that strategy has no N = 1
//             point, the group's `single` run(s). With repetitions, the median of their images/s.
//   speedup   images_per_s / baseline images/s;  efficiency = speedup / world_size.
// Only runs with status ok enter a baseline or get a speedup (others: NaN). Also the per-point
// grouping (repetitions of one point) that report and compare aggregate over.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "harness/record/run_file.h"
#include "harness/study/analysis/study_file.h"

namespace scalebench::study {

// The study-table row of one run file ("file" is the path as given).
record::Attrs study_row(const record::RunFile& f, const std::string& file);

// Adds/overwrites the columns baseline, baseline_images_per_s, speedup, efficiency. Needs the
// columns status, group_id, strategy, world_size, images_per_s.
void add_speedup(record::Table& runs);

struct CollectOptions {
  bool skip_unreadable = false;  // a file that is not a readable run file: a warning line, not an error
};

// Reads every <dir>/runs/*.h5 (or <dir>/*.h5 when there is no runs/ folder) and writes the study
// file to `out` (default <dir>/study.h5). An unreadable file is an error naming it (nothing is
// written) unless opt.skip_unreadable. Copies of a run count once, and runs on a dataset other
// than the one the study's path holds now are left out when the runs disagree about their data
// (run_filter.h; a line each, counted in the attributes runs_duplicate and runs_other_data). A run file that says running but whose writer is gone
// (status.h running_liveness: pid, Slurm job, heartbeat) becomes a row with status failed and the
// error "dead: <why>"; a live one stays running.
StudyFile collect(const std::string& dir, const std::string& out, std::ostream& log, const CollectOptions& opt = {});

// The /context fields a study row carries (report's provenance, compare's context differences).
const std::vector<std::string>& context_columns();
// The distinct non-empty values of a column over all rows, in order of appearance: "a, b" ("-" when none).
std::string distinct_values(const record::Table& t, const std::string& column);

// Rows of one point (its repetitions), in order of first appearance; ok_rows have status ok.
struct PointRows {
  std::string point_id;
  std::vector<std::size_t> rows, ok_rows;
};
std::vector<PointRows> group_points(const record::Table& runs);

// The median over a point's ok rows of a numeric column (NaN when none).
double point_median(const record::Table& runs, const PointRows& p, const std::string& column);

}  // namespace scalebench::study
