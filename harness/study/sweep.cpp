// sweep.cpp — `scalebench sweep`: the spec's checks that hold for every launcher, then the
// launcher (see sweep.h).
#include "harness/study/sweep.h"

#include <filesystem>

#include "kernels/common/check.h"

namespace scalebench::study {

SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& opt, std::ostream& out) {
  namespace fs = std::filesystem;
  SB_REQUIRE(spec.generate || fs::exists(spec.data), "{}: dataset.path: {}: no such file (paths are relative to the "
             "current folder)", spec.data_where.empty() ? spec.source : spec.data_where, spec.data);
  return make_launcher(opt.launcher.value_or(spec.launcher))->run(spec, opt, out);
}

}  // namespace scalebench::study
