// slurm/point.cpp — one point inside its Slurm allocation (see slurm/point.h).
#include "harness/study/launch/slurm/point.h"

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <ostream>

#include <fmt/format.h>

#include "harness/record/context.h"
#include "harness/record/run_config.h"
#include "harness/study/launch/command.h"
#include "harness/study/launch/run_point.h"
#include "harness/study/launch/slurm/profile.h"
#include "harness/study/launch/slurm/script.h"
#include "harness/study/spec/spec.h"
#include "harness/study/launch/subprocess.h"
#include "kernels/common/check.h"

namespace scalebench::study::slurm {
namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

}  // namespace

int run_slurm_point(const std::string& study_dir, int group, int repetition, std::ostream& out) {
  namespace fs = std::filesystem;
  forward_signal_to_child(SIGUSR1);  // first: a USR1 arriving during set-up must not kill us
  SweepSpec spec = load_spec((fs::path(study_dir) / "study.toml").string());
  spec.output = study_dir;
  const Profile p = load_profile((fs::path(study_dir) / "slurm" / "profile.toml").string());
  const auto groups = group_points(expand(spec));
  SB_REQUIRE(group >= 1 && group <= int(groups.size()), "slurm-point: --group {} is not a point of {} (1..{})", group,
             study_dir, groups.size());
  const PointGroup& g = groups[std::size_t(group - 1)];
  const record::RunConfig* found = nullptr;
  for (const auto& r : g.reps)
    if (r.repetition == repetition) found = &r;
  SB_REQUIRE(found, "slurm-point: --repetition {} is not a repetition of point {} ({}: 1..{})", repetition, group, g.label,
             g.reps.size());

  record::RunConfig named = *found;
  record::identify_data(named);  // as the train below will: its run file's name
  const record::RunConfig* c = &named;
  const std::string runs = (fs::path(study_dir) / "runs").string();
  const std::string path = (fs::path(runs) / (record::run_id(*c) + ".h5")).string();
  const std::string prefix = fmt::format("[{}/{}] {}{}", group, groups.size(), g.label,
                                         g.reps.size() > 1 ? fmt::format(" rep {}/{}", repetition, g.reps.size()) : "");
  if (run_file_ok(path)) {
    out << prefix << " ok already (" << path << "), skipped\n" << std::flush;
    return 0;
  }
  const auto cmd = step_command(*c, p, record::self_executable(), runs);
  out << fmt::format("{} job {} on {} (profile {}): {}\n", prefix, env_or("SLURM_JOB_ID", "?"),
                     env_or("SLURM_JOB_NODELIST", "?"), p.name, join_command(cmd))
      << std::flush;
  switch (run_point(*c, cmd, path, prefix, out)) {
    case PointResult::ok: return 0;
    case PointResult::failed: return 1;
    case PointResult::preempted: return 75;
  }
  return 1;
}

}  // namespace scalebench::study::slurm
