// slurm/profile.h — a cluster profile (slurm/profiles/*.toml, docs/slurm.md): what a Slurm cluster
// needs in every job script — partition, account, time limits, tasks and GPUs per node, how ranks
// are launched (srun --mpi=pmix, or mpirun), modules and environment, preemption. Every value is
// validated on load (slurm/safe.h), so a profile cannot smuggle lines or commands into a script.
// The [collect] table gives the small jobs (collect + report + plots, dataset generation) their own
// resources: one CPU, no GPU, none of the points' sbatch_args (--exclusive) unless it says so.
// Not here: which resources one point asks for (slurm/script.h computes that from the profile).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace scalebench::study::slurm {

// How a job asks for GPUs: `#SBATCH --gpus-per-node=[type:]N` or `#SBATCH --gres=gpu:[type:]N`.
enum class GpuRequest { gpus_per_node, gres };

// When a point job takes its nodes whole (#SBATCH --exclusive): only when the point fills them (the
// default: a 1-GPU point on a 4-GPU node leaves the rest to others), on every point, or never.
enum class Exclusive { full_nodes, always, never };

// The collect and dataset jobs: 1 task on 1 node. Partition, account, qos and modules default to
// the [cluster] ones when [collect] leaves them out; sbatch_args default to none.
struct SmallJob {
  std::string partition, account, qos;
  std::string time = "00:15:00";
  int cpus = 1;
  std::vector<std::string> sbatch_args;
  std::vector<std::string> modules;    // [collect] modules (default: the cluster's), then more_modules
};

struct Profile {
  std::string source;                  // the profile file (for messages)
  std::string text;                    // as read (copied into the study folder)
  std::string name;                    // [cluster] name
  std::string partition, account, qos; // optional ("" = the cluster's default)
  std::string time = "01:00:00";       // per point job
  std::string allocation_time;         // the whole sweep's job of --launcher slurm-alloc ("" = time)
  int tasks_per_node = 1;              // ranks per node (on GPU clusters: = GPUs per node)
  int gpus_per_node = 0;               // 0 on CPU clusters; GPUs are requested only for --backend cuda points
  int max_cpus_per_task = 1;           // a task asks for threads × its devices cores, at most this many
  GpuRequest gpu_request = GpuRequest::gpus_per_node;
  std::string gpu_type;                // "" or a GRES type ("a100"): --gres=gpu:a100:N / --gpus-per-node=a100:N
  std::string launcher = "srun";       // srun | mpirun: how MPI ranks start inside the allocation
  std::string srun_mpi = "pmix";       // srun --mpi=<this>; "" leaves the site's MpiDefault
  std::vector<std::string> srun_args;  // extra options of the training step (--cpu-bind=cores, ...); an
                                       // --export=ALL,... here is merged into scalebench's own --export
  std::vector<std::string> mpirun_args;
  std::vector<std::string> sbatch_args;  // extra #SBATCH options (--constraint=a100, ...)
  Exclusive exclusive = Exclusive::full_nodes;  // #SBATCH --exclusive: see Exclusive
  bool gpus_per_task = false;          // cuda points: srun --gpus-per-task=<the task's devices>
  std::string gpu_bind;                // cuda points: srun --gpu-bind=<this> ("" = the site's default)
  std::vector<std::string> modules;    // `module load` in every job script
  std::vector<std::pair<std::string, std::string>> env;  // exported in every job script
  int signal_seconds = 0;              // > 0: #SBATCH --signal=B:USR1@<this> (preemption, see docs/slurm.md)
  bool requeue = false;                // #SBATCH --requeue, and a preempted point requeues its own job
  std::string scalebench = "scalebench";  // the binary on the compute nodes (default: found on PATH there)
  std::string plots;                   // plots/make_all.py ("" = <scalebench's dir>/../share/scalebench/plots/)
  std::string python = "python3";      // runs the plots in the collect job (matplotlib, h5py)
  SmallJob collect;                    // [collect]
};

// Throws "<file>:<line>:<column>: <section.key>: <problem>" on a bad value, unknown key or section.
Profile parse_profile(std::string_view text, const std::string& source);
Profile load_profile(const std::string& path);

}  // namespace scalebench::study::slurm
