// launcher.cpp — the Slurm launchers (slurm: one job per point; slurm-alloc: one allocation for the
// sweep): the cluster profile named by --profile or the spec, then submit.h's scripts and sbatch
// (nothing runs on this host; `scalebench status` follows the jobs).
#include <ostream>

#include "harness/study/launch/launcher.h"
#include "harness/study/launch/slurm/profile.h"
#include "harness/study/launch/slurm/submit.h"
#include "kernels/common/check.h"

namespace scalebench::study {
namespace {

const std::string& profile_of(const SweepSpec& spec, const SweepOptions& opt) {
  const std::string& profile = opt.profile.empty() ? spec.profile : opt.profile;
  SB_REQUIRE(!profile.empty(), "--launcher slurm needs a cluster profile: --profile slurm/profiles/<cluster>.toml or "
             "[study] profile in {} (docs/slurm.md)", spec.source);
  return profile;
}

// One job per point (`alloc` false) or one allocation for the whole sweep.
class SlurmLauncher final : public Launcher {
 public:
  explicit SlurmLauncher(bool alloc) : alloc_(alloc) {}
  SweepOutcome run(const SweepSpec& spec, const SweepOptions& opt, std::ostream& out) override {
    const slurm::Profile p = slurm::load_profile(profile_of(spec, opt));
    const slurm::SubmitOptions so{.dry_run = opt.dry_run, .exe = opt.exe, .array_throttle = opt.array_throttle};
    const auto sub = alloc_ ? slurm::submit_allocation(spec, p, so, out) : slurm::submit_study(spec, p, so, out);
    SweepOutcome r;
    r.points = int(expand(spec).size());
    r.skipped = sub.repetitions_ok;
    r.submitted = !opt.dry_run;
    return r;
  }

 private:
  bool alloc_;
};

}  // namespace

std::unique_ptr<Launcher> make_slurm_launcher() { return std::make_unique<SlurmLauncher>(false); }
std::unique_ptr<Launcher> make_slurm_alloc_launcher() { return std::make_unique<SlurmLauncher>(true); }

}  // namespace scalebench::study
