// status.h — `scalebench status results/<study>`: one line per point (and repetition) with its state
// — pending, running, ok, failed, preempted, not submitted — from the run files and, for a study
// submitted to Slurm, from squeue (live jobs) and sacct (ended jobs, where the cluster keeps
// accounting; without it, an ended job is judged by its run file alone).
// Not here: submitting (slurm/submit.h). The Slurm queries go through the argument vectors below.
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace scalebench::study {

struct PointState {
  int group = 0, repetition = 1;
  std::string label;        // "unet:depth=3,base=8 ring N=2"
  std::string run_id;
  std::string job;          // Slurm job id ("" for local studies / not submitted); "123_2" for array tasks
  std::string slurm;        // the Slurm state seen (PENDING, RUNNING, COMPLETED, FAILED, ...) or ""
  std::string file;         // run file status or "" when there is none
  std::string state;        // pending | running | ok | failed | preempted | not submitted | not run
  std::string detail;       // epochs done, the error, the pending reason
};

// Slurm's view of jobs: id → state (and reason). Filled by query_slurm; tests pass their own.
struct SlurmView {
  std::map<std::string, std::pair<std::string, std::string>> jobs;  // "123" / "123_2" → {state, reason}
  std::vector<std::string> notes;   // e.g. "sacct unavailable: ..."
};
SlurmView query_slurm(const std::vector<std::string>& job_ids);

std::vector<PointState> study_status(const std::string& study_dir, const SlurmView& view);
// Prints the table and a summary line; returns the states.
std::vector<PointState> print_status(const std::string& study_dir, std::ostream& out);

}  // namespace scalebench::study
