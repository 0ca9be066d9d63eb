// spec.h — the sweep spec (TOML, docs/sweep-spec.md): parsing with validation that points at the
// offending line:column and field, and expansion into points (a RunConfig each).
// Every expanded point is validated like `train` validates its options, so a spec that combines
// options no point can run (compression with mirrored, say) fails before anything runs.
// What it does not do: run anything.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/data/particle_gen.h"
#include "harness/record/run_config.h"
#include "harness/study/analysis/tuning.h"
#include "harness/study/launch/launcher_kind.h"

namespace scalebench::study {

// A run option swept in [sweep] (`compression = ["none", "bf16"]`): the key of its train field
// (harness/train/train_fields.cpp) and its values in the field's text form, checked while parsed.
struct SweepAxis {
  std::string key;
  std::vector<std::string> values;
};

// Whether a strategy uses a run option: the options its traits name (compression; bucket_mb and
// no_overlap for overlapping strategies; staleness; ranks_per_node for hierarchical) are used only
// where the traits say so, every other option by every strategy. A point of a strategy that does
// not use a swept option runs once, at the [train] value, instead of once per value.
bool strategy_uses(const StrategyTraits& st, std::string_view key);

struct SweepSpec {
  std::string source;                 // the spec file (for messages)
  std::string text;                   // the spec as read (kept in the study folder)
  std::string name;                   // [study] name
  std::string description;
  std::string output;                 // results folder; default results/<name>
  LauncherKind launcher = LauncherKind::local;
  std::string profile;                // Slurm cluster profile (slurm/profiles/*.toml); --profile overrides
  int repetitions = 1;
  std::string data;                   // the dataset path (given, or where the recipe writes it)
  std::string data_where;             // "file:line:column" of dataset.path, for messages
  std::optional<data::GenConfig> generate;  // [dataset] recipe, when no path is given
  std::vector<std::string> models;
  std::vector<StrategyKind> strategies;
  std::vector<int> devices;           // sorted; every strategy's device counts unless listed below
  // [sweep.strategy_devices]: a multi-device strategy's own counts (sorted), in place of `devices`.
  std::vector<std::pair<StrategyKind, std::vector<int>>> strategy_devices;
  record::Scaling scaling = record::Scaling::weak;
  std::vector<int> batches;           // per device (weak): `batch = 8` or `batch = [4, 8]`
  std::vector<int> global_batches;    // fixed global batch (strong)
  std::vector<SweepAxis> axes;        // every other [sweep] key: a run option swept over its values
  TrainConfig train;                  // the [train] template (model, strategy, batch, data set per point)
  SelectSpec select;                  // [select]: the per-cell tuning collect and report apply (tuning.h)
};

// Throws scalebench::Error: "<file>:<line>:<column>: <section.field>: <problem>".
SweepSpec parse_spec(std::string_view text, const std::string& source);
SweepSpec load_spec(const std::string& path);
// What tells a point apart beyond model, strategy and N: " b=8" when several batches are swept,
// then " key=value" for each [sweep] axis the point's strategy uses (" compression=bf16 bucket_mb=1").
std::string axes_label(const SweepSpec& spec, const record::RunConfig& c);

// The device counts a strategy's points run at: its [sweep.strategy_devices] list, else `devices`
// (a one-device strategy runs at devices.front() only; expand() sees to that).
const std::vector<int>& devices_of(const SweepSpec& spec, StrategyKind strategy);

// What the header of a sweep says about its points, with the product that makes their number:
// "18 points (1 model x 3 strategies (single at N=1; mirrored at 1, 2, 4; ring at 1, 2, 4, 8) x 2
// batches x 2 compression x 2 repetitions; compression only for ring)". `points` is expand()'s size.
std::string points_summary(const SweepSpec& spec, std::size_t points);

// "1:8:*2" → 1 2 4 8; "2:8:+2" or "2:8:2" → 2 4 6 8; "1:4" → 1 2 3 4; "4" → 4. Throws a message
// without location (the caller adds it).
std::vector<int> parse_device_range(const std::string& text);

// Points in run order: repetition outermost (so a slow drift of the machine spreads over all points
// instead of biasing one), then model, batch, the [sweep] axes (the cartesian product; axes in key
// order, as a TOML table has no order of its own, each axis's values in the order written),
// strategy, devices. `single` runs only at N = 1.
std::vector<record::RunConfig> expand(const SweepSpec& spec);

}  // namespace scalebench::study
