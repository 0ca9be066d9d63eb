// overrides.h — a variant of a sweep spec without copying it: `sweep --set section.key=value`
// (repeatable), `--name`, `--output`, `--repetitions`. Each override is written into the spec's text
// (the study folder's study.toml, and a Slurm point reading it back, then run the same points; ab's
// sides' study.toml too), the
// replaced line noted in a comment, and the text parsed again, so every check of a spec applies to
// the variant with its line and column.
// What it does not do: merge tables or arrays (a value replaces the key's whole value), or set keys
// outside a section (a spec has none).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/study/spec/spec.h"

namespace scalebench::study {

struct SpecOverride {
  std::string section;  // "train", "sweep", "sweep.strategy_devices"
  std::string key;      // "lr"
  std::string value;    // TOML text of the value: 0.1, [1, 2], "x" (a bare word is taken as a string)
  std::string flag;     // what the user typed, for the comment and messages: "--set train.lr=0.1"
  std::string command = "sweep";  // the command that applied it, for the comment: sweep or ab
};

// "train.lr=0.1" → {train, lr, 0.1}; a value that is no TOML value (`dataset.path=data/a.h5`) is
// taken as a string. Throws one line naming the argument when it is not section.key=value.
SpecOverride parse_set(std::string_view arg);

// `--name X`, `--output DIR`: a string value whatever it looks like.
SpecOverride string_override(std::string section, std::string key, std::string_view value, std::string flag);

// The spec with every override applied in order (a later one for the same key wins). Each key's line
// (all its lines, for a value over several) is replaced by `key = value  # COMMAND FLAG (the spec
// said OLD)`, a missing key is added at the top of its section, a missing section at the end.
SweepSpec with_overrides(const SweepSpec& spec, const std::vector<SpecOverride>& overrides);

// `sweep --repetitions K`: [study] repetitions = K (1-1000). The run order stays interleaved
// (repetition outermost, see expand()).
SweepSpec with_repetitions(const SweepSpec& spec, int k);

// One line per override for the sweep's header: "train.lr = 0.1 (the spec said 0.05)".
std::string describe_overrides(const SweepSpec& before, const std::vector<SpecOverride>& overrides);

}  // namespace scalebench::study
