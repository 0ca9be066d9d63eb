// status.h — `scalebench status results/<study>`: one line per point (and repetition) with its state
// — pending, running, ok, failed, preempted, dead, not submitted — from the run files and, for a
// study submitted to Slurm, from squeue (live jobs) and sacct (ended jobs, where the cluster keeps
// accounting; without it, an ended job is judged by its run file alone).
// dead: a run file that says running, but whose writer is gone (running_liveness below): the pid on
// its own host, else the Slurm job the file names, else the file's heartbeat (record/liveness.h).
// Not here: submitting (slurm/submit.h). The Slurm queries go through the argument vectors below.
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "harness/record/run_file.h"

namespace scalebench::study {

struct PointState {
  int group = 0, repetition = 1;
  std::string label;        // "unet:depth=3,base=8 ring N=2", + the swept values (" b=4 compression=bf16")
  std::string run_id;
  std::string job;          // Slurm job id ("" for local studies / not submitted); "123_2" for array tasks
  std::string slurm;        // the Slurm state seen (PENDING, RUNNING, COMPLETED, FAILED, ...) or ""
  std::string file;         // run file status or "" when there is none
  std::string state;        // pending | running | ok | failed | preempted | dead | not submitted | not run
  std::string detail;       // epochs done, the error, the pending reason
};

// Slurm's view of jobs: id → state (and reason). Filled by query_slurm; tests pass their own.
struct SlurmView {
  std::map<std::string, std::pair<std::string, std::string>> jobs;  // "123" / "123_2" → {state, reason}
  std::vector<std::string> notes;   // e.g. "sacct unavailable: ..."
  bool queue_known = false;         // squeue answered: a job it does not list is no longer queued
};
SlurmView query_slurm(const std::vector<std::string>& job_ids);
bool slurm_queued(const std::string& state);  // PENDING, REQUEUED, SUSPENDED, ...
bool slurm_live(const std::string& state);    // RUNNING, COMPLETING, ...

// A run file that says running, judged: by its pid when it was written on this host; else by the
// Slurm job it names, when the view knows (queued or live: alive; ended or no longer queued:
// dead); else by its heartbeat (record/liveness.h).
record::LivenessCheck running_liveness(const record::RunFile& f, const std::string& path, const SlurmView& view);
// The Slurm jobs named by `files` that say running (for query_slurm), without repeats.
std::vector<std::string> running_slurm_jobs(const std::vector<record::RunFile>& files);

std::vector<PointState> study_status(const std::string& study_dir, const SlurmView& view);
// One line for each of the study's jobs that are not points, from the latest submission of each in
// slurm/jobs.tsv, with the view's state: the dataset job ("dataset job 4710: COMPLETED — dataset
// data/x.h5"; when it ended otherwise, that its waiting points will not start and where its log is)
// the allocation of --launcher slurm-alloc ("allocation job 4720: RUNNING (log: …)") and the collect
// job ("collect job 4716: PENDING"). None for a local study. A point of an allocation is pending
// while the allocation is queued, or runs and has not reached the point's step yet; not run when
// the allocation ended before it.
std::vector<std::string> side_job_lines(const std::string& study_dir, const SlurmView& view);
// Prints the table and a summary line (and a note naming the run files in runs/ made on other data
// than the spec's dataset holds now: no point counts them, run_filter.h); returns the states.
std::vector<PointState> print_status(const std::string& study_dir, std::ostream& out);

}  // namespace scalebench::study
