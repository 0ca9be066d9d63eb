// dataset_prep.h — before a sweep runs or submits its points: generate the spec's [dataset] recipe
// when its file is missing (a given path that is missing was refused when the spec was read).
#pragma once

#include <iosfwd>

#include "harness/study/spec/spec.h"

namespace scalebench::study {

// dry_run: only says what it would generate.
void prepare_dataset(const SweepSpec& spec, bool dry_run, std::ostream& out);

}  // namespace scalebench::study
