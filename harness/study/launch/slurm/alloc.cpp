// slurm/alloc.cpp — the whole sweep inside one Slurm allocation (see slurm/alloc.h).
#include "harness/study/launch/slurm/alloc.h"

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <ostream>

#include <fmt/format.h>

#include "harness/record/context.h"
#include "harness/study/launch/launcher.h"
#include "harness/study/launch/slurm/profile.h"
#include "harness/study/launch/slurm/script.h"
#include "harness/study/launch/subprocess.h"
#include "harness/study/spec/spec.h"
#include "harness/study/study_lock.h"
#include "kernels/common/check.h"

namespace scalebench::study::slurm {
namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

// The sweep that submitted this job holds the study's lock until sbatch has answered for the
// collect job too, and the job can start before that: wait for it a while. A lock still held after
// that is another sweep's (a second allocation of the same study): refuse, naming its holder.
std::optional<StudyLock> take_lock(const std::string& study_dir) {
  constexpr int kTries = 60;
  for (int i = 1;; ++i) try {
      return std::optional<StudyLock>(std::in_place, study_dir);
    } catch (const Error&) {
      if (i == kTries) throw;
      ::sleep(1);
    }
}

}  // namespace

int run_slurm_sweep(const std::string& study_dir, std::ostream& out) {
  namespace fs = std::filesystem;
  forward_signal_to_child(SIGUSR1);  // first: a USR1 arriving during set-up must not kill us
  SweepSpec spec = load_spec((fs::path(study_dir) / "study.toml").string());
  spec.output = study_dir;
  const Profile p = load_profile((fs::path(study_dir) / "slurm" / "profile.toml").string());
  const auto lock = take_lock(study_dir);
  const std::string exe = record::self_executable();
  out << fmt::format("sweep: {} in allocation job {} on {} (profile {}): every point an srun step\n", spec.name,
                     env_or("SLURM_JOB_ID", "?"), env_or("SLURM_JOB_NODELIST", "?"), p.name)
      << std::flush;
  SweepOptions opt;
  opt.exe = exe;
  const SweepOutcome r = run_points_here(
      spec, opt,
      [&](const record::RunConfig& c, const std::string& runs) {
        return step_command(c, p, exe, runs, StepIn::allocation);
      },
      out);
  return r.exit_code();
}

}  // namespace scalebench::study::slurm
