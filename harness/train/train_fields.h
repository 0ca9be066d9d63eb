// train_fields.h — the table of every `train` option (field.h says what a row holds). One row per
// TrainConfig member; the CLI, `--config`, sweep specs, run ids, run-file attributes,
// canonical_text and launch lines are generated from it. Adding an option: a member in
// train_config.h, a row in train_fields.cpp, and the code that uses it.
// What it deliberately does not do: rules between options (TrainConfig::validate), or the
// options of a run's recording (repetition, scaling, study: record/run_config.h's run_fields()).
#pragma once

#include <span>
#include <string_view>

#include "harness/train/field.h"
#include "harness/train/train_config.h"

namespace scalebench {

std::span<const Field<TrainConfig>> train_fields();
const Field<TrainConfig>* find_train_field(std::string_view key);  // by key; nullptr if none

}  // namespace scalebench
