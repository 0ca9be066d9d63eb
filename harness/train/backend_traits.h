// backend_traits.h — what each backend can train, one row per backend-dependent feature with a
// column per backend (as strategy_traits.h is per strategy): TrainConfig::validate refuses a run
// that uses a feature its backend lacks, with the row's reason; `train --help` lists each backend's
// features from it; docs/gpu.md's feature × backend table is generated from it and a test checks
// that the two agree (tests/train/test_backend_traits.cpp). Nothing else lists what a backend takes.
// What it deliberately does not do: check an option's own values (train_fields.cpp) or the
// strategy × backend pairs (strategy_traits.h's cpu/cuda columns, which the table also shows).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "models/ctx.h"

namespace scalebench {

struct TrainConfig;

struct BackendFeature {
  std::string_view name;    // the docs table's row
  std::string_view option;  // how a run asks for it ("" — always on)
  bool (*used)(const TrainConfig&);  // null: always on, nothing to refuse
  bool cpu, cuda;
  std::string_view why_not_cpu, why_not_cuda;  // the refusal's reason where the column is false
};

std::span<const BackendFeature> backend_features();
bool feature_on(const BackendFeature& f, Backend b);
// The option as cfg uses it, for messages: "--precision bf16" for the row "--precision tf32|bf16".
std::string as_used(const BackendFeature& f, const TrainConfig& cfg);
// Throws scalebench::Error (one line naming the option and backend) for the first feature cfg uses
// that cfg.backend lacks.
void require_backend_features(const TrainConfig& cfg);
// For `train --backend --help`: "cuda only: --precision tf32|bf16, ...; cpu only: ...".
std::string backend_help();
// docs/gpu.md's table: a markdown table of every feature row and the strategies, yes/no per backend.
std::string backend_feature_table();

}  // namespace scalebench
