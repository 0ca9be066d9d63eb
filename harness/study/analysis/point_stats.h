// point_stats.h — per point (the repetitions of one point_id), what a reader needs to trust its
// figures, added to the study table by collect (every row of a point carries its point's values):
//   <m>_ci_lo, <m>_ci_hi   for m = images_per_s, epoch_time_s: the 95 % interval of the median over
//                          the ok repetitions (order statistics; NaN below 6 repetitions);
//   speedup_ci_lo/hi       the 95 % interval of images/s(point) / images/s(its N = 1 baseline), from
//                          both points' repetitions (intervals.h shift_interval on log values);
//   efficiency_ci_lo/hi    the same / world_size;
//   flags                  space-separated, "" when none (rules in kFlagRules, docs/metrics.md):
//     short        a run measured under 1 s or under 30 steps: too short to time;
//     noisy        a run's step-time CV above 0.2, or images/s spread over repetitions above 10 %;
//     efficiency>1 efficiency above 1 beyond its interval (lower end > 1; with no interval, the
//                  median above 1): super-linear scaling is almost always a timing artefact here;
//     phase        exposed communication above 0 in a run whose strategy sends nothing
//                  (comm_bytes_per_step 0): impossible by definition, so the time is misattributed;
//     shared-gpu   ranks shared a GPU (context gpu_shared, the staged transport): a correctness run.
// Not here: the per-run step distribution (record/summary.h) or printing (report.cpp).
#pragma once

#include "harness/record/table.h"

namespace scalebench::study {

// Needs the columns add_speedup needs and writes, and the summary columns.
void add_point_stats(record::Table& runs);

// The flag names and their rules, one line each, for reports and docs.
inline constexpr int kFlagCount = 5;
extern const char* const kFlagRules[kFlagCount][2];

}  // namespace scalebench::study
