// sweep.cpp — `scalebench sweep`: the spec's checks that hold for every launcher, the study-folder
// lock, then the launcher (see sweep.h).
#include "harness/study/sweep.h"

#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "harness/data/dataset.h"
#include "harness/data/particle_gen.h"
#include "harness/study/study_lock.h"
#include "kernels/common/check.h"
#include "harness/train/model_check.h"
#include "models/spec.h"

namespace scalebench::study {
namespace {

// Every model of the sweep against the sweep's data (the file's header, or the recipe's when it is
// still to be generated): its task (a vgg model on segmentation labels fails every point; the
// check train makes, model_check.h) and its options built for the data's shape, so that an
// unknown or out-of-range model option or a model of another task fails here, before a dry run
// says all is well or a real sweep starts its points (each point would fail alone).
void check_models(const SweepSpec& spec) {
  data::DatasetInfo info;
  if (std::filesystem::exists(spec.data)) {
    const data::Dataset ds(spec.data);
    info = ds.info();
  } else {
    const data::GenConfig& g = *spec.generate;
    info.task = g.task;
    info.n = g.n;
    info.height = info.width = g.size;
    info.classes = data::generated_classes(g.task);
  }
  const DataShape shape{info.channels, info.height, info.width, info.classes};
  for (const std::string& model : spec.models) try {
      const ModelSpec m = parse_model_spec(model);
      check_model_fits(m, info, spec.data);
      canonical_spec(m, shape);
    } catch (const Error& e) {
      fail_input(fmt::format("{}: sweep.models: {}", spec.source, e.what()));
    }
}

}  // namespace

void check_sweep_inputs(const SweepSpec& spec) {
  namespace fs = std::filesystem;
  SB_REQUIRE(spec.generate || fs::exists(spec.data), "{}: dataset.path: {}: no such file (paths are relative to the "
             "current folder)", spec.data_where.empty() ? spec.source : spec.data_where, spec.data);
  check_models(spec);
}

SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& opt, std::ostream& out) {
  const LauncherKind kind = opt.launcher.value_or(spec.launcher);
  SB_REQUIRE(opt.array_throttle == 0 || kind == LauncherKind::slurm, "--array-throttle {}: only --launcher slurm "
             "submits job arrays (this sweep's launcher is {})", opt.array_throttle, name_of(kind));
  check_sweep_inputs(spec);
  const auto launcher = make_launcher(kind);
  if (opt.dry_run) return launcher->run(spec, opt, out);
  const StudyLock lock(spec.output);  // local: the whole sweep; slurm: the submission
  return launcher->run(spec, opt, out);
}

}  // namespace scalebench::study
