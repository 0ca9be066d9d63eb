// spec.h — the sweep spec (TOML, docs/sweep-spec.md): parsing with validation that points at the
// offending line:column and field, and expansion into points (a RunConfig each).
// Every expanded point is validated like `train` validates its options, so a spec that combines
// options no point can run (compression with mirrored, say) fails before anything runs.
// What it does not do: run anything.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/data/particle_gen.h"
#include "harness/record/run_config.h"
#include "harness/study/launch/launcher_kind.h"

namespace scalebench::study {

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
  std::vector<int> devices;
  record::Scaling scaling = record::Scaling::weak;
  int batch = 0;                      // per device (weak)
  int global_batch = 0;               // fixed global batch (strong)
  TrainConfig train;                  // the [train] template (model, strategy, batch, data set per point)
};

// Throws scalebench::Error: "<file>:<line>:<column>: <section.field>: <problem>".
SweepSpec parse_spec(std::string_view text, const std::string& source);
SweepSpec load_spec(const std::string& path);

// "1:8:*2" → 1 2 4 8; "2:8:+2" or "2:8:2" → 2 4 6 8; "1:4" → 1 2 3 4; "4" → 4. Throws a message
// without location (the caller adds it).
std::vector<int> parse_device_range(const std::string& text);

// Points in run order: repetition outermost (so a slow drift of the machine spreads over all points
// instead of biasing one), then model, strategy, devices. `single` runs only at N = 1.
std::vector<record::RunConfig> expand(const SweepSpec& spec);

}  // namespace scalebench::study
