// sweep.cpp — the local launcher loop (see sweep.h).
#include "harness/study/sweep.h"

#include <csignal>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <set>

#include "harness/record/context.h"
#include "harness/record/recorder.h"
#include "harness/study/dataset_prep.h"
#include "harness/study/launch.h"
#include "harness/study/run_point.h"
#include "harness/study/slurm_profile.h"
#include "harness/study/slurm_submit.h"
#include "harness/study/subprocess.h"
#include "kernels/common/check.h"

namespace scalebench::study {
namespace {

namespace fs = std::filesystem;

std::string family(const std::string& model) { return model.substr(0, model.find(':')); }

// "[3/12] unet ring N=4" (+ " rep 2/3"); the full model spec when two models share a family.
std::string prefix(const SweepSpec& spec, const record::RunConfig& c, std::size_t i, std::size_t n) {
  std::set<std::string> families;
  for (const auto& m : spec.models) families.insert(family(m));
  const std::string model = families.size() == spec.models.size() ? family(c.train.model) : c.train.model;
  std::string p = fmt::format("[{}/{}] {} {} N={}", i, n, model, name_of(c.train.strategy), c.world_size);
  if (spec.repetitions > 1) p += fmt::format(" rep {}/{}", c.repetition, spec.repetitions);
  return p;
}

}  // namespace

SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& opt, std::ostream& out) {
  const std::string launcher = opt.launcher.empty() ? spec.launcher : opt.launcher;
  SB_REQUIRE(launcher == "local" || launcher == "slurm", "--launcher '{}' is unknown (local or slurm)", launcher);
  SB_REQUIRE(spec.generate || fs::exists(spec.data), "{}: dataset.path: {}: no such file (paths are relative to the "
             "current folder)", spec.data_where.empty() ? spec.source : spec.data_where, spec.data);
  if (launcher == "slurm") {
    const std::string profile = opt.profile.empty() ? spec.profile : opt.profile;
    SB_REQUIRE(!profile.empty(), "--launcher slurm needs a cluster profile: --profile slurm/profiles/<cluster>.toml or "
               "[study] profile in {} (docs/slurm.md)", spec.source);
    const auto sub = slurm::submit_study(spec, slurm::load_profile(profile), {.dry_run = opt.dry_run, .exe = opt.exe}, out);
    SweepOutcome r;
    r.points = int(expand(spec).size());
    r.skipped = sub.repetitions_ok;
    r.submitted = !opt.dry_run;
    return r;
  }
  const auto points = expand(spec);
  const std::string runs = (fs::path(spec.output) / "runs").string();
  const std::string exe = opt.exe.empty() ? record::self_executable() : opt.exe;
  out << fmt::format("sweep: {}: {} points ({} models x {} strategies x {} device counts x {} repetitions) -> {}\n",
                     spec.name, points.size(), spec.models.size(), spec.strategies.size(), spec.devices.size(),
                     spec.repetitions, runs)
      << std::flush;
  prepare_dataset(spec, opt.dry_run, out);
  if (!opt.dry_run) {
    std::error_code ec;
    fs::create_directories(runs, ec);
    SB_REQUIRE(!ec, "{}: cannot create the folder: {}", runs, ec.message());
    std::ofstream(fs::path(spec.output) / "study.toml", std::ios::binary) << spec.text;
  }

  // SIGUSR1 (the allocation is ending) is passed on to the running point, which stops and is
  // recorded preempted, and the sweep ends after it; one arriving between points is dropped
  // (subprocess.h) rather than ending this process.
  if (!opt.dry_run) forward_signal_to_child(SIGUSR1);
  SweepOutcome r;
  r.points = int(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const record::RunConfig& c = points[i];
    const std::string pre = prefix(spec, c, i + 1, points.size());
    const std::string id = record::run_id(c);
    const std::string path = (fs::path(runs) / (id + ".h5")).string();
    const bool done = run_file_ok(path);
    const auto cmd = launch_command(c, exe, runs);
    if (done) {
      ++r.skipped;
      out << pre << " ok already (" << path << "), skipped\n" << std::flush;
      continue;
    }
    out << pre << " run " << id << ": " << join_command(cmd) << "\n" << std::flush;
    if (opt.dry_run) continue;

    const PointResult res = run_point(c, cmd, path, pre, out);
    r.ok += res == PointResult::ok;
    r.failed += res == PointResult::failed;
    if (res == PointResult::preempted) {
      ++r.preempted;
      out << fmt::format("sweep: point {} was preempted: the allocation is ending, so the {} point(s) after it are "
                         "not launched; rerun the sweep to finish the study\n", i + 1, points.size() - i - 1);
      break;
    }
  }
  if (!opt.dry_run)
    out << fmt::format("sweep: {} points: {} ok, {} skipped (ok before), {} failed{}; next: {} {}\n", r.points, r.ok,
                       r.skipped, r.failed, r.preempted ? fmt::format(", {} preempted", r.preempted) : "",
                       r.preempted ? "scalebench sweep" : "scalebench collect",
                       r.preempted ? spec.source : spec.output)
        << std::flush;
  return r;
}

}  // namespace scalebench::study
