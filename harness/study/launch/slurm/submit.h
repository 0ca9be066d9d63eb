// slurm/submit.h — `scalebench sweep spec.toml --launcher slurm`: writes the study folder
// (study.toml, slurm/profile.toml, one sbatch script per point group, collect.sbatch, and datagen.sbatch
// when the spec's [dataset] recipe has no file yet: the points wait for it, afterok), then — unless
// dry_run — submits each script with `sbatch --parsable <script>` (an argument vector, never a shell)
// and appends every job id to <study>/slurm/jobs.tsv as soon as sbatch answers, so a failure halfway
// loses no record of what was submitted. Repetitions whose run file already says ok are not
// submitted again (a resubmission finishes an interrupted study).
// submit_allocation (--launcher slurm-alloc) writes and submits one job instead, slurm/sweep.sbatch,
// whose allocation runs every point not yet ok (slurm/alloc.h; a resubmission after the allocation
// ended runs only what is left), then the collect job after it (afterany); the dataset, when the
// recipe has no file yet, is generated inside the allocation. Every point ok: only the collect job.
// Not here: what runs inside a job (slurm/point.h), job states (status.h).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "harness/study/launch/slurm/profile.h"
#include "harness/study/spec/spec.h"

namespace scalebench::study::slurm {

struct SubmitOptions {
  bool dry_run = false;
  std::string exe;         // scalebench for the jobs ("" = the profile's, else this binary)
  std::string sbatch = "sbatch";
  int array_throttle = 0;  // > 0: --array=...%<this> on the point jobs (submit_study only)
};

struct SubmitOutcome {
  int groups = 0;          // point groups in the study
  int jobs = 0;            // point jobs submitted (an array counts once)
  int repetitions_ok = 0;  // repetitions skipped because their run file says ok
  std::vector<std::string> job_ids;  // the dataset job (when the spec's recipe has no file yet), point jobs, collect
};

SubmitOutcome submit_study(const SweepSpec& spec, const Profile& p, const SubmitOptions& opt, std::ostream& out);
SubmitOutcome submit_allocation(const SweepSpec& spec, const Profile& p, const SubmitOptions& opt, std::ostream& out);

// One row of <study>/slurm/jobs.tsv (tab-separated, a header line, appended per submission).
struct JobRecord {
  std::string submitted_utc, group, job_id, repetitions, script, label;  // group: "3", "sweep" (the allocation), "collect"
};
std::vector<JobRecord> read_jobs(const std::string& study_dir);  // empty when there is no jobs.tsv

}  // namespace scalebench::study::slurm
