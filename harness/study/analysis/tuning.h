// tuning.h — seeds and the per-batch tuning of a study, derived by collect from the run rows:
//   seeds     the runs of one configuration (every point field but `seed`, repetitions included)
//             summarised: steps to target as an olympic mean (drop the lowest and the highest when
//             there are 3 or more, mean of the rest) with the range of the runs as its interval; a
//             run that did not reach its target counts as infinitely many steps, so one such run
//             among 3 or more is dropped as the highest, two make the mean "not reached" — they
//             are counted (target_not_reached), never dropped silently;
//   selection a spec's [select] (docs/sweep-spec.md): within each cell (a configuration less the
//             tuned fields: one global batch, N and recipe), each candidate (one value of every
//             tuned field) is scored by the objective over its seeds, and the best eligible one is
//             marked selected — eligible: every run of it ended ok and it has as many runs as the
//             cell's fullest candidate (a candidate that won on the one seed of three that did not
//             fail would be luck); a cell with none eligible has no winner. /selection lists every
//             candidate with its score, runs not ok, eligibility, the grid and the winner.
// What it deliberately does not do: read or write files, or print (report.cpp, collect.cpp).
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "harness/record/table.h"

namespace scalebench::study {

// [select] objective = one of these (the one list: the spec check, docs and scoring use it).
struct Objective {
  std::string_view name;
  std::string_view column;  // the study-table column it summarises per run
  bool lower_is_better;
};
inline constexpr std::array<Objective, 3> kObjectives = {{{"steps_to_target", "steps_to_target", true},
                                                          {"final_miou", "final_val_miou", false},
                                                          {"final_accuracy", "final_val_accuracy", false}}};
const Objective* find_objective(std::string_view name);
std::string objective_names();  // "steps_to_target, final_miou, final_accuracy"

struct SelectSpec {
  std::string objective;            // "" when the spec has no [select]
  std::vector<std::string> tuned;   // [sweep] axes the selection tunes over (lr, warmup_epochs, ...)
  bool active() const { return !objective.empty(); }
};

// The olympic mean of one configuration's runs (+inf: a run that never reached its target).
struct Olympic {
  double mean = 0, lo = 0, hi = 0;  // NaN when there are no values; mean +inf when "not reached"
  int runs = 0;                     // values given
  int not_reached = 0;              // of them, +inf
};
Olympic olympic_mean(std::vector<double> v);

// Adds per row its configuration's seed summary: config_id (the configuration's point fields but
// seed, as text), config_runs (ok runs), config_seeds (their distinct seeds), and with a target
// steps_to_target_olympic with _lo/_hi and target_not_reached. Needs collect's columns.
void add_seed_stats(record::Table& runs);

// Marks the selected candidate of each cell: adds the row columns tuned_values ("lr=0.05
// warmup_epochs=1") and selected (1/0), and returns the /selection table (one row per candidate:
// cell, global_batch, world_size, strategy, candidate, grid, objective, score, score_lo, score_hi,
// runs, not_reached, not_ok, eligible, selected). Needs add_seed_stats' columns. Without a [select]: every row
// selected, no table.
record::Table select_best(record::Table& runs, const SelectSpec& spec);

}  // namespace scalebench::study
