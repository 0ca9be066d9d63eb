// launcher.cpp — the Slurm launcher: the cluster profile named by --profile or the spec, then
// submit.h's scripts and sbatch (nothing runs on this host; `scalebench status` follows the jobs).
#include <ostream>

#include "harness/study/launch/launcher.h"
#include "harness/study/launch/slurm/profile.h"
#include "harness/study/launch/slurm/submit.h"
#include "kernels/common/check.h"

namespace scalebench::study {
namespace {

class SlurmLauncher final : public Launcher {
 public:
  SweepOutcome run(const SweepSpec& spec, const SweepOptions& opt, std::ostream& out) override {
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
};

}  // namespace

std::unique_ptr<Launcher> make_slurm_launcher() { return std::make_unique<SlurmLauncher>(); }

}  // namespace scalebench::study
