// slurm/script.h — the Slurm launchers' pure part: points grouped into jobs (one job per point; the
// repetitions of a point form a job array, since an array cannot vary its size — or one allocation
// for the whole sweep, each point a step in it), the resources each job asks for, the command its step runs, and the text of the sbatch scripts. Pure functions of
// (points, profile, paths): no files, no processes — slurm/submit.h writes and submits them.
// Every value that reaches a script passes slurm/safe.h first.
//
// Resources per point (R = ranks; T = profile tasks_per_node; G = profile gpus_per_node):
//   single                      1 task
//   mirrored N                  1 task driving N devices, N GPUs (cuda) on one node
//   multiworker/ring/hierarchical  R = N tasks on ceil(R/T) nodes, at most T per node
//   ps-sync/ps-async            R = N + 1 (one server rank) likewise
//   CPUs per task: threads × the task's devices (threads = 0, "all cores": the cap), at most the
//   profile's max_cpus_per_task. GPUs per node (cuda points only): min(G, tasks on a node), asked
//   for as --gpus-per-node or --gres=gpu:N (profile gpu_request).
//   The step's srun repeats --cpus-per-task (and the script exports SRUN_CPUS_PER_TASK): since Slurm
//   22.05 srun no longer inherits it from the job, and each rank would get one CPU.
//   --exclusive (profile exclusive = "full-nodes", the default) only when the point fills its nodes:
//   T tasks on a node (so all of its T x max_cpus_per_task CPUs), or all G GPUs of a node.
// The collect and dataset jobs use the profile's [collect] resources (1 CPU, no GPU by default).
#pragma once

#include <string>
#include <vector>

#include "harness/data/particle_gen.h"
#include "harness/record/run_config.h"
#include "harness/study/launch/slurm/profile.h"

namespace scalebench::study::slurm {

struct PointGroup {
  int index = 0;                         // 1-based, in run order of the first repetition
  std::string label;                     // "unet:depth=3,base=8 ring N=2"
  std::vector<record::RunConfig> reps;   // the repetitions, repetition 1 first
};

// Groups the expanded points (study::expand) by everything but the repetition.
std::vector<PointGroup> group_points(const std::vector<record::RunConfig>& points);

struct Resources {
  int nodes = 1, ntasks = 1, tasks_per_node = 1, cpus_per_task = 1, gpus_per_node = 0;
  int gpus_per_task = 0;   // cuda points: the devices one task drives (1, or N for mirrored)
  bool fills_nodes = false;  // see the header comment: what exclusive = "full-nodes" asks about
  bool exclusive = false;    // #SBATCH --exclusive (the profile's exclusive rule applied)
};
// Throws naming the point and the profile key when the profile cannot hold the point.
Resources resources_for(const record::RunConfig& c, const Profile& p);

// The command of the point's training step inside its allocation:
//   MPI strategies, launcher srun:   srun --mpi=<srun_mpi> --ntasks=R --cpus-per-task=C [GPU binding]
//                                    --kill-on-bad-exit=1 <srun_args> exe train …
//   MPI strategies, launcher mpirun: mpirun -np R <mpirun_args> exe train …
//   single, mirrored:                srun --ntasks=1 --cpus-per-task=C [GPU binding] … exe train …
// GPU binding (cuda points only): --gpus-per-task=<devices> with the profile's gpus_per_task,
// --gpu-bind=<gpu_bind> with its gpu_bind.
// srun steps carry SCALEBENCH_LAUNCHER=srun so the ranks check SLURM_PROCID/SLURM_NTASKS against MPI:
// scalebench's --export comes after the profile's srun_args and keeps the variables of an
// --export=ALL,... there, so a profile cannot turn the rank checks off.
// In a job of its own (StepIn::point_job) the step gets the job's nodes. In the one allocation of a
// whole sweep (StepIn::allocation, K nodes) it names its own place: --nodes=<its nodes>
// --ntasks-per-node=<its tasks per node>, and for cuda points without --gpus-per-task its GPUs per
// node in the profile's form (--gpus-per-node=N or --gres=gpu:N), so a 1-GPU point gets one GPU.
// mpirun (launcher = "mpirun") places its ranks by the allocation's slots, filling node 1 first.
enum class StepIn { point_job, allocation };
std::vector<std::string> step_command(const record::RunConfig& c, const Profile& p, const std::string& exe,
                                      const std::string& runs_dir, StepIn in = StepIn::point_job);

struct ScriptPaths {
  std::string study_dir;   // the study folder as the sweep names it (relative to workdir or absolute)
  std::string workdir;     // absolute: #SBATCH --chdir, where the sweep was submitted from
  std::string exe;         // scalebench on the compute nodes (the profile's; "scalebench" = from PATH)
};

// The script of one point group. `reps` lists the repetitions this submission runs (a subset when
// some finished before): one repetition of a one-repetition study is a plain job, otherwise a job
// array whose task ids are the repetition numbers. `after_datagen`: the points wait for the dataset
// job (sbatch gets --dependency=afterok:<its id> on the command line; the script says so).
// `throttle` > 0: at most that many of its repetitions run at once (#SBATCH --array=1-6%<throttle>).
std::string point_script(const std::string& study, const PointGroup& g, const std::vector<int>& reps,
                         const Profile& p, const ScriptPaths& paths, bool after_datagen = false, int throttle = 0);

// The one allocation of a whole sweep (--launcher slurm-alloc): K = the most nodes a point needs,
// and per node the most tasks, CPUs per task and GPUs any point asks for; exclusive when a point's
// is. Throws like resources_for when the profile cannot hold a point.
Resources allocation_resources(const std::vector<record::RunConfig>& points, const Profile& p);

// Its script: those resources for the profile's allocation_time, the profile's preamble and
// preemption lines, every point group's step command as a comment (for review), then
// `scalebench slurm-sweep <study>` (slurm/alloc.h) with USR1 passed on as in a point script.
std::string allocation_script(const std::string& study, const std::vector<record::RunConfig>& points, const Profile& p,
                              const ScriptPaths& paths);

// The dataset job: `scalebench datagen` of the spec's [dataset] recipe into `data`, on the
// [collect] resources, before any point (which wait for it with afterok).
std::string datagen_script(const std::string& study, const data::GenConfig& g, const std::string& data,
                           const Profile& p, const ScriptPaths& paths);

// The collect + plot + report job, run after every point job ends (afterany: failed points are
// recorded as failed and still collected).
std::string collect_script(const std::string& study, const std::vector<std::string>& after_jobs, const Profile& p,
                           const ScriptPaths& paths);

// Script file names inside <study>/slurm/: "03-unet-ring-n2.sbatch", "collect.sbatch", "datagen.sbatch"
// (and "sweep.sbatch": allocation_script's).
std::string point_script_name(const PointGroup& g);

}  // namespace scalebench::study::slurm
