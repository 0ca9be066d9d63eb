// recorded_run.h — the run policy of `scalebench train` around train() (harness/train/trainer.h):
// the device count scaling divides by (workers, not a parameter server's extra rank), the run's
// checkpoint folder <base>/<run_id>.ckpt (base: --checkpoint-dir, else the runs folder beside the
// run file), keyed by the run id so that a rerun of the point finds it and runs of other options
// sharing a base never meet, recording on rank 0 (the run marked failed with the error before it
// propagates), a preempted run's exit code, and removing the run's checkpoint folder once it
// finished, before it is recorded ok, so that a finished run is never "resumed".
// What it deliberately does not do: parse options (main.cpp) or train (trainer.h).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "harness/record/run_config.h"

namespace scalebench::record {

// rc.train is the run's training configuration; output: the runs folder (-o; empty: nothing is
// recorded). Returns the process's exit code: 0, or kExitPreempted (75) from the rank that records
// a preempted run — the other ranks return 0, so that mpirun (which ends the job when a rank exits
// non-zero) cannot kill the recording rank mid-write; mpirun and srun still report 75.
int run_recorded(RunConfig rc, const std::string& output, const std::vector<std::string>& argv, std::ostream& out);

}  // namespace scalebench::record
