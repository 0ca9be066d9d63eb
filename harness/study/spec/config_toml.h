// config_toml.h — run options from TOML, through the field tables (harness/train/field.h): a sweep
// spec's [train] table and `train --config FILE` (flat keys, or the same keys under [train]).
// Keys are the fields' keys (lr_scaling, comm_timeout, ...); each value must have its field's TOML
// type; every error is one line "<file>:<line>:<column>: train.<key>: <problem>".
// What it deliberately does not do: decide precedence beyond "skip these keys" (the CLI's flags win
// over a config file: harness/main.cpp passes the keys it was given).
#pragma once

#include <functional>
#include <set>
#include <string>

#include "harness/record/run_config.h"
#include "harness/study/spec/toml_section.h"

namespace scalebench::study {

// Sets every key of `s` (a [train] table) that names a train field allowed by `allowed` (sweep
// specs: in_spec fields; --config: every field with a flag) or, with `run`, a run field (repetition,
// scaling, study). Unknown or disallowed keys fail, listing the keys that are allowed there.
// Keys in `skip` are checked but not applied.
void read_train_table(const Section& s, TrainConfig& train, record::RunConfig* run,
                      const std::function<bool(const Field<TrainConfig>&)>& allowed,
                      const std::set<std::string>& skip = {});

// One TOML value of train field `f` (a [train] value, or one element of a [sweep] list) as the
// field's text form, checked by the field against a copy of `train`; a wrong type or a failed check
// fails at the node, naming `field` ("sweep.compression").
std::string field_text(const Section& s, const std::string& field, const toml::node& n, const Field<TrainConfig>& f,
                       const TrainConfig& train);

// `train --config FILE`: the file's options into train and run, except the keys in `skip`.
void apply_config_file(const std::string& path, TrainConfig& train, record::RunConfig& run,
                       const std::set<std::string>& skip);

}  // namespace scalebench::study
