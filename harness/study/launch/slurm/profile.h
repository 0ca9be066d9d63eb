// slurm/profile.h — a cluster profile (slurm/profiles/*.toml, docs/slurm.md): what a Slurm cluster
// needs in every job script — partition, account, time limits, tasks and GPUs per node, how ranks
// are launched (srun --mpi=pmix, or mpirun), modules and environment, preemption. Every value is
// validated on load (slurm/safe.h), so a profile cannot smuggle lines or commands into a script.
// Not here: which resources one point asks for (slurm/script.h computes that from the profile).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace scalebench::study::slurm {

struct Profile {
  std::string source;                  // the profile file (for messages)
  std::string text;                    // as read (copied into the study folder)
  std::string name;                    // [cluster] name
  std::string partition, account, qos; // optional ("" = the cluster's default)
  std::string time = "01:00:00";       // per point job
  std::string collect_time = "00:15:00";
  int tasks_per_node = 1;              // ranks per node (on GPU clusters: = GPUs per node)
  int gpus_per_node = 0;               // 0 on CPU clusters; GPUs are requested only for --backend cuda points
  int cpus_per_task = 1;               // per rank (mirrored asks for cpus_per_task × N in one task)
  std::string launcher = "srun";       // srun | mpirun: how MPI ranks start inside the allocation
  std::string srun_mpi = "pmix";       // srun --mpi=<this>
  std::vector<std::string> srun_args;  // extra options of the training step (--cpu-bind=cores, ...)
  std::vector<std::string> mpirun_args;
  std::vector<std::string> sbatch_args;  // extra #SBATCH options (--exclusive, --constraint=a100, ...)
  std::vector<std::string> modules;    // `module load` in every job script
  std::vector<std::pair<std::string, std::string>> env;  // exported in every job script
  int signal_seconds = 0;              // > 0: #SBATCH --signal=B:USR1@<this> (preemption, see docs/slurm.md)
  bool requeue = false;                // #SBATCH --requeue, and a preempted point requeues its own job
  std::string scalebench;              // the binary on the compute nodes ("" = the one that submits)
  std::string python = "/usr/bin/python3";  // runs plots/make_all.py in the collect job
};

// Throws "<file>:<line>:<column>: <section.key>: <problem>" on a bad value, unknown key or section.
Profile parse_profile(std::string_view text, const std::string& source);
Profile load_profile(const std::string& path);

}  // namespace scalebench::study::slurm
