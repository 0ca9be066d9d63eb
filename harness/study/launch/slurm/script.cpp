// slurm/script.cpp — point groups, resources, step commands and script text (see slurm/script.h).
#include "harness/study/launch/slurm/script.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "harness/strategy/strategy_traits.h"
#include "harness/study/launch/command.h"
#include "harness/study/launch/slurm/safe.h"
#include "kernels/common/check.h"

namespace scalebench::study::slurm {
namespace {

int ranks_of(const record::RunConfig& c) { return launched_ranks(c.train.strategy, c.world_size); }
bool uses_mpi(const record::RunConfig& c) { return c.train.strategy_traits().processes == Processes::per_device; }

std::string point_name(const record::RunConfig& c) {
  return fmt::format("{} {} N={}", c.train.model, name_of(c.train.strategy), c.world_size);
}

// "1-3" for a run of consecutive numbers, else "1,3,4".
std::string array_spec(const std::vector<int>& reps) {
  bool consecutive = true;
  for (std::size_t i = 1; i < reps.size(); ++i) consecutive = consecutive && reps[i] == reps[i - 1] + 1;
  if (consecutive && reps.size() > 1) return fmt::format("{}-{}", reps.front(), reps.back());
  std::string s;
  for (int r : reps) {
    if (!s.empty()) s += ',';
    s += std::to_string(r);
  }
  return s;
}

// Partition/account/qos and extra #SBATCH lines of a job, and its module/env preamble.
void where_directives(std::string& s, const std::string& partition, const std::string& account, const std::string& qos,
                      const std::vector<std::string>& sbatch_args) {
  if (!partition.empty()) s += "#SBATCH --partition=" + require_word(partition, "partition") + "\n";
  if (!account.empty()) s += "#SBATCH --account=" + require_word(account, "account") + "\n";
  if (!qos.empty()) s += "#SBATCH --qos=" + require_word(qos, "qos") + "\n";
  for (const auto& a : sbatch_args) s += "#SBATCH " + require_option(a, "sbatch_args") + "\n";
}

void preamble(std::string& s, const Profile& p, const std::vector<std::string>& modules) {
  s += "set -u\n";
  for (const auto& m : modules) s += "module load " + quote(require_word(m, "modules")) + "\n";
  for (const auto& [k, v] : p.env)
    s += "export " + require_env_name(k, "cluster.env") + "=" + quote(v.empty() ? v : require_word(v, "cluster.env." + k)) +
         "\n";
}

void check_paths(const ScriptPaths& paths) {
  require_word(paths.study_dir, "the study folder");
  require_word(paths.workdir, "the working folder");
  require_word(paths.exe, "the scalebench binary path");
}

// The head of a collect or dataset job: 1 task on the [collect] resources, no GPU.
std::string small_job_head(const std::string& study, const std::string& what, const std::string& comment,
                           const Profile& p, const ScriptPaths& paths) {
  check_paths(paths);
  require_word(study, "study.name");
  const SmallJob& j = p.collect;
  std::string s = "#!/bin/bash\n" + comment;
  s += fmt::format("#SBATCH --job-name=sb-{}-{}\n", study, what);
  s += "#SBATCH --chdir=" + paths.workdir + "\n";
  s += fmt::format("#SBATCH --output={}/slurm/logs/{}-%j.out\n", paths.study_dir, what);
  s += fmt::format("#SBATCH --open-mode=append\n#SBATCH --nodes=1\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task={}\n",
                   j.cpus);
  s += "#SBATCH --time=" + require_time(j.time, "collect.time") + "\n";
  return s;
}

// "--gpus-per-node=[type:]N" or "--gres=gpu:[type:]N".
std::string gpu_directive(const Profile& p, int gpus) {
  const std::string type = p.gpu_type.empty() ? "" : require_word(p.gpu_type, "cluster.gpu_type") + ":";
  return p.gpu_request == GpuRequest::gres ? fmt::format("--gres=gpu:{}{}", type, gpus)
                                           : fmt::format("--gpus-per-node={}{}", type, gpus);
}

// The end of a job script: `command` in the background with USR1 passed on to it, its exit status
// the job's; 75 (preempted) requeues the job when the profile says so.
void usr1_forwarding(std::string& s, const std::string& command, const std::string& what, bool requeue) {
  s += "# Slurm signals only this shell (--signal=B:USR1@...); pass USR1 on, so the run finishes its\n";
  s += "# step, marks its run file preempted and exits 75. The trap is set before the launch: a USR1\n";
  s += "# that comes before the point has a pid is remembered and passed on once it has one.\n";
  s += "point=\nstop=0\n";
  s += "trap 'stop=1; [ -n \"$point\" ] && kill -USR1 \"$point\" 2>/dev/null' USR1\n";
  s += command + " &\n";
  s += "point=$!\n";
  s += "[ \"$stop\" -eq 1 ] && kill -USR1 \"$point\" 2>/dev/null\n";
  s += "while :; do\n  wait \"$point\"\n  rc=$?\n  kill -0 \"$point\" 2>/dev/null || break\ndone\n";
  s += "# Killed by the USR1 before it could catch it (138 = 128 + SIGUSR1): nothing ran, requeue as preempted.\n";
  s += "[ \"$stop\" -eq 1 ] && [ \"$rc\" -eq 138 ] && rc=75\n";
  if (requeue) {
    s += "if [ \"$rc\" -eq 75 ]; then\n";
    s += fmt::format("  echo \"scalebench: {} preempted; requeueing job $SLURM_JOB_ID\"\n", what);
    s += "  scontrol requeue \"$SLURM_JOB_ID\"\nfi\n";
  }
  s += "exit \"$rc\"\n";
}

}  // namespace

std::vector<PointGroup> group_points(const std::vector<record::RunConfig>& points) {
  std::vector<PointGroup> groups;
  std::map<std::string, std::size_t> by_key;  // canonical text without the repetition → group
  for (const auto& c : points) {
    record::RunConfig key = c;
    key.repetition = 1;
    const std::string k = record::canonical_text(key);
    auto [it, fresh] = by_key.try_emplace(k, groups.size());
    if (fresh) groups.push_back({.index = int(groups.size()) + 1, .label = point_name(c), .reps = {}});
    groups[it->second].reps.push_back(c);
  }
  for (auto& g : groups)
    std::sort(g.reps.begin(), g.reps.end(), [](const auto& a, const auto& b) { return a.repetition < b.repetition; });
  return groups;
}

Resources resources_for(const record::RunConfig& c, const Profile& p) {
  const bool gpu = c.train.backend == Backend::cuda;
  SB_REQUIRE(!gpu || p.gpus_per_node > 0, "{}: the point runs --backend cuda but the profile {} has gpus_per_node = 0",
             point_name(c), p.source);
  Resources r;
  const int devices = uses_mpi(c) ? 1 : c.world_size;  // mirrored: one process drives N devices
  const int wanted = c.train.threads == 0 ? p.max_cpus_per_task : c.train.threads * devices;
  r.cpus_per_task = std::min(wanted, p.max_cpus_per_task);
  if (!uses_mpi(c)) {
    if (gpu) {
      SB_REQUIRE(c.world_size <= p.gpus_per_node, "{}: {} needs {} GPUs on one node; the profile {} has "
                 "gpus_per_node = {}", point_name(c), name_of(c.train.strategy), c.world_size, p.source, p.gpus_per_node);
      r.gpus_per_node = c.world_size;
      r.gpus_per_task = c.world_size;
    }
  } else {
    r.ntasks = ranks_of(c);
    r.tasks_per_node = std::min(r.ntasks, p.tasks_per_node);
    r.nodes = (r.ntasks + p.tasks_per_node - 1) / p.tasks_per_node;
    if (gpu) {
      r.gpus_per_node = std::min(p.gpus_per_node, r.tasks_per_node);
      r.gpus_per_task = 1;
    }
  }
  // (A task has at most max_cpus_per_task CPUs, so only tasks_per_node tasks can take all of a node's.)
  r.fills_nodes = r.tasks_per_node >= p.tasks_per_node || (gpu && r.gpus_per_node >= p.gpus_per_node);
  r.exclusive = p.exclusive == Exclusive::always || (p.exclusive == Exclusive::full_nodes && r.fills_nodes);
  return r;
}

std::vector<std::string> step_command(const record::RunConfig& c, const Profile& p, const std::string& exe,
                                      const std::string& runs_dir, StepIn in) {
  std::vector<std::string> cmd;
  const int ranks = ranks_of(c);
  if (uses_mpi(c) && p.launcher == "mpirun") {
    cmd = {"mpirun", "-np", std::to_string(ranks)};
    cmd.insert(cmd.end(), p.mpirun_args.begin(), p.mpirun_args.end());
  } else {
    const Resources r = resources_for(c, p);
    cmd = {"srun"};
    if (uses_mpi(c) && !p.srun_mpi.empty()) cmd.push_back("--mpi=" + p.srun_mpi);
    // In a shared allocation of more nodes than the point's, the step says where it goes (in its
    // own job, the job's resources are exactly these).
    if (in == StepIn::allocation) cmd.push_back(fmt::format("--nodes={}", r.nodes));
    cmd.push_back(fmt::format("--ntasks={}", ranks));
    if (in == StepIn::allocation) cmd.push_back(fmt::format("--ntasks-per-node={}", r.tasks_per_node));
    // Slurm >= 22.05: a step no longer inherits the job's --cpus-per-task (one CPU per task otherwise).
    cmd.push_back(fmt::format("--cpus-per-task={}", r.cpus_per_task));
    if (r.gpus_per_task > 0 && p.gpus_per_task) cmd.push_back(fmt::format("--gpus-per-task={}", r.gpus_per_task));
    else if (r.gpus_per_node > 0 && in == StepIn::allocation) cmd.push_back(gpu_directive(p, r.gpus_per_node));
    if (r.gpus_per_task > 0 && !p.gpu_bind.empty()) cmd.push_back("--gpu-bind=" + p.gpu_bind);
    cmd.push_back("--kill-on-bad-exit=1");
    // The profile's --export=ALL,... is merged into scalebench's, which comes last (srun takes the
    // last one): the rank checks cannot be turned off by a profile.
    std::string exported = "ALL";
    for (const auto& a : p.srun_args) {
      if (a.rfind("--export=", 0) == 0) exported = a.substr(9);
      else cmd.push_back(a);
    }
    cmd.push_back("--export=" + exported + ",SCALEBENCH_LAUNCHER=srun");
  }
  cmd.push_back(exe);
  for (auto& a : train_args(c, runs_dir)) cmd.push_back(std::move(a));
  return cmd;
}

std::string point_script_name(const PointGroup& g) {
  const auto& c = g.reps.front();
  std::string family = c.train.model.substr(0, c.train.model.find(':'));
  return fmt::format("{:02}-{}-{}-n{}.sbatch", g.index, family, name_of(c.train.strategy), c.world_size);
}

std::string point_script(const std::string& study, const PointGroup& g, const std::vector<int>& reps,
                         const Profile& p, const ScriptPaths& paths, bool after_datagen, int throttle) {
  SB_CHECK(!reps.empty(), "point_script: no repetitions to run for {}", g.label);
  check_paths(paths);
  require_word(study, "study.name");
  const auto& c = g.reps.front();
  const Resources r = resources_for(c, p);
  const bool array = g.reps.size() > 1;
  const std::string tag = fmt::format("{:02}", g.index);
  const std::string runs = paths.study_dir + "/runs";
  // The step command is shown in the script for review; every word must be script-safe.
  const auto step = step_command(c, p, paths.exe, runs);
  for (const auto& w : step) require_arg(w, fmt::format("point {} ({}): the value", g.index, g.label));

  std::string s = "#!/bin/bash\n";
  s += fmt::format("# scalebench study {}, point {}: {}{} — written by `scalebench sweep --launcher slurm`\n", study,
                   g.index, g.label, array ? fmt::format(" (repetitions {})", array_spec(reps)) : "");
  s += fmt::format("# with the profile {} (copied to {}/slurm/profile.toml). Rewritten on every submission:\n",
                   p.name, paths.study_dir);
  s += "# change the spec or the profile, not this file.\n";
  s += fmt::format("# CPUs per task: threads {} x {} device(s) in the task, at most max_cpus_per_task {}.\n",
                   c.train.threads == 0 ? std::string("0 (all cores)") : std::to_string(c.train.threads),
                   uses_mpi(c) ? 1 : c.world_size, p.max_cpus_per_task);
  if (r.exclusive)
    s += fmt::format("# --exclusive: {}.\n", p.exclusive == Exclusive::always
                                                 ? "the profile's exclusive = \"always\""
                                                 : "the point fills its nodes (the profile's exclusive = \"full-nodes\")");
  if (after_datagen)
    s += "# Submitted with --dependency=afterok:<the dataset job> (datagen.sbatch) --kill-on-invalid-dep=yes.\n";
  s += fmt::format("#SBATCH --job-name=sb-{}-{}\n", study, tag);
  s += "#SBATCH --chdir=" + paths.workdir + "\n";
  s += fmt::format("#SBATCH --output={}/slurm/logs/{}-{}.out\n", paths.study_dir, tag, array ? "%A_%a" : "%j");
  s += "#SBATCH --open-mode=append\n";
  s += fmt::format("#SBATCH --nodes={}\n#SBATCH --ntasks={}\n#SBATCH --ntasks-per-node={}\n#SBATCH --cpus-per-task={}\n",
                   r.nodes, r.ntasks, r.tasks_per_node, r.cpus_per_task);
  if (r.gpus_per_node > 0) s += "#SBATCH " + gpu_directive(p, r.gpus_per_node) + "\n";
  s += "#SBATCH --time=" + require_time(p.time, "cluster.time") + "\n";
  if (array) s += "#SBATCH --array=" + array_spec(reps) + (throttle > 0 ? fmt::format("%{}", throttle) : "") + "\n";
  if (p.signal_seconds > 0) s += fmt::format("#SBATCH --signal=B:USR1@{}\n", p.signal_seconds);
  if (p.requeue) s += "#SBATCH --requeue\n";
  if (r.exclusive) s += "#SBATCH --exclusive\n";
  where_directives(s, p.partition, p.account, p.qos, p.sbatch_args);
  preamble(s, p, p.modules);
  // Also for an srun the profile's srun_args or a user adds by hand: since Slurm 22.05 a step does not
  // inherit the job's --cpus-per-task (the step command passes it too).
  s += fmt::format("export SRUN_CPUS_PER_TASK={}\n", r.cpus_per_task);
  s += "\n# The point's training step (scalebench runs it as an argument vector, without a shell):\n";
  s += "#   " + join_command(step) + "\n";
  s += "# slurm-point skips a repetition whose run file already says ok, runs the step, and records a\n";
  s += "# failure in the run file when the step dies without writing one.\n";
  s += array ? "rep=${SLURM_ARRAY_TASK_ID}\n" : fmt::format("rep={}\n", reps.front());
  usr1_forwarding(s, fmt::format("{} slurm-point {} --group {} --repetition \"$rep\"", quote(paths.exe),
                                  quote(paths.study_dir), g.index),
                  fmt::format("point {} repetition $rep", g.index), p.requeue);
  return s;
}

Resources allocation_resources(const std::vector<record::RunConfig>& points, const Profile& p) {
  Resources a;
  for (const auto& c : points) {
    const Resources r = resources_for(c, p);
    a.nodes = std::max(a.nodes, r.nodes);
    a.tasks_per_node = std::max(a.tasks_per_node, r.tasks_per_node);
    a.cpus_per_task = std::max(a.cpus_per_task, r.cpus_per_task);
    a.gpus_per_node = std::max(a.gpus_per_node, r.gpus_per_node);
    a.fills_nodes = a.fills_nodes || r.fills_nodes;
    a.exclusive = a.exclusive || r.exclusive;
  }
  a.ntasks = a.nodes * a.tasks_per_node;
  return a;
}

std::string allocation_script(const std::string& study, const std::vector<record::RunConfig>& points, const Profile& p,
                              const ScriptPaths& paths) {
  SB_CHECK(!points.empty(), "allocation_script: no points");
  check_paths(paths);
  require_word(study, "study.name");
  const Resources r = allocation_resources(points, p);
  const auto groups = group_points(points);
  const std::string runs = paths.study_dir + "/runs";

  std::string s = "#!/bin/bash\n";
  s += fmt::format("# scalebench study {}: the whole sweep ({} points in {} groups) in one allocation of {} node(s) "
                   "— written by\n", study, points.size(), groups.size(), r.nodes);
  s += fmt::format("# `scalebench sweep --launcher slurm-alloc` with the profile {} (copied to {}/slurm/profile.toml).\n",
                   p.name, paths.study_dir);
  s += "# Rewritten on every submission: change the spec or the profile, not this file.\n";
  s += "# Per node: the most tasks, CPUs per task and GPUs any point asks for; every point is one srun step\n";
  s += "# on its own nodes of the allocation, so N = 1 and the largest N run on the same nodes.\n";
  if (r.exclusive)
    s += fmt::format("# --exclusive: {}.\n", p.exclusive == Exclusive::always
                                                 ? "the profile's exclusive = \"always\""
                                                 : "a point fills its nodes (the profile's exclusive = \"full-nodes\")");
  s += fmt::format("#SBATCH --job-name=sb-{}-sweep\n", study);
  s += "#SBATCH --chdir=" + paths.workdir + "\n";
  s += fmt::format("#SBATCH --output={}/slurm/logs/sweep-%j.out\n", paths.study_dir);
  s += "#SBATCH --open-mode=append\n";
  s += fmt::format("#SBATCH --nodes={}\n#SBATCH --ntasks-per-node={}\n#SBATCH --cpus-per-task={}\n", r.nodes,
                   r.tasks_per_node, r.cpus_per_task);
  if (r.gpus_per_node > 0) s += "#SBATCH " + gpu_directive(p, r.gpus_per_node) + "\n";
  s += "#SBATCH --time=" + require_time(p.allocation_time, "cluster.allocation_time") + "\n";
  if (p.signal_seconds > 0) s += fmt::format("#SBATCH --signal=B:USR1@{}\n", p.signal_seconds);
  if (p.requeue) s += "#SBATCH --requeue\n";
  if (r.exclusive) s += "#SBATCH --exclusive\n";
  where_directives(s, p.partition, p.account, p.qos, p.sbatch_args);
  preamble(s, p, p.modules);
  s += "\n# The points' training steps, in the order of their first repetition (repetition 1 shown; the\n";
  s += "# repetitions run interleaved, repetition outermost). scalebench runs each as an argument vector:\n";
  for (const auto& g : groups) {
    const auto step = step_command(g.reps.front(), p, paths.exe, runs, StepIn::allocation);
    for (const auto& w : step) require_arg(w, fmt::format("point {} ({}): the value", g.index, g.label));
    s += fmt::format("#   [{}] {}\n", g.index, join_command(step));
  }
  s += "# slurm-sweep skips every point whose run file already says ok (a resubmitted or requeued\n";
  s += "# allocation runs only what is left), runs the others, and records a failure in the run file\n";
  s += "# when a step dies without writing one.\n";
  usr1_forwarding(s, fmt::format("{} slurm-sweep {}", quote(paths.exe), quote(paths.study_dir)), "the sweep",
                  p.requeue);
  return s;
}

std::string collect_script(const std::string& study, const std::vector<std::string>& after_jobs, const Profile& p,
                           const ScriptPaths& paths) {
  std::string s = small_job_head(
      study, "collect",
      fmt::format("# scalebench study {}: collect, report and plots once every point job has ended\n"
                  "# (afterany: failed points are collected as failed). Written by `scalebench sweep --launcher slurm`.\n"
                  "# Resources from the profile's [collect] table: no GPU, none of the points' sbatch_args.\n",
                  study),
      p, paths);
  if (!after_jobs.empty()) {
    std::string dep = "afterany";
    for (const auto& j : after_jobs) dep += ":" + require_word(j, "a job id");
    s += "#SBATCH --dependency=" + dep + "\n#SBATCH --kill-on-invalid-dep=no\n";
  }
  where_directives(s, p.collect.partition, p.collect.account, p.collect.qos, p.collect.sbatch_args);
  preamble(s, p, p.collect.modules);
  s += "set -e\n";
  s += fmt::format("{} collect {}\n", quote(paths.exe), quote(paths.study_dir));
  // The report first: it needs only scalebench, the plots need a Python with matplotlib and h5py
  // that a compute node may lack; a plot failure is reported and does not fail the job (the job's
  // exit status is the report's).
  s += "set +e\n";
  s += fmt::format("{} report {}\n", quote(paths.exe), quote(paths.study_dir + "/study.h5"));
  s += "rc=$?\n";
  if (p.plots.empty()) {
    s += "# The plot scripts installed beside the binary (cmake --install: <prefix>/share/scalebench/plots).\n";
    s += fmt::format("plots=\"$(dirname \"$(command -v {})\")/../share/scalebench/plots/make_all.py\"\n", quote(paths.exe));
  } else {
    s += "plots=" + quote(require_word(p.plots, "cluster.plots")) + "\n";
  }
  const std::string python = quote(require_word(p.python, "cluster.python"));
  const std::string plot_cmd =
      fmt::format("{} \"$plots\" {} -o {}", python, quote(paths.study_dir), quote(paths.study_dir + "/plots"));
  s += plot_cmd + " ||\n";
  s += fmt::format("  echo \"scalebench: the plots failed (exit $?; the report above is complete): check that {} has "
                   "matplotlib and h5py (the profile's python, modules), then rerun: {} \\\"$plots\\\" {} -o {}\" >&2\n",
                   p.python, p.python, paths.study_dir, paths.study_dir + "/plots");
  s += "exit \"$rc\"\n";
  return s;
}

std::string datagen_script(const std::string& study, const data::GenConfig& g, const std::string& data,
                           const Profile& p, const ScriptPaths& paths) {
  require_word(data, "dataset.path");
  std::string s = small_job_head(
      study, "datagen",
      fmt::format("# scalebench study {}: generates the dataset before any point runs (the point jobs wait for\n"
                  "# this one: afterok). Written by `scalebench sweep --launcher slurm`.\n",
                  study),
      p, paths);
  where_directives(s, p.collect.partition, p.collect.account, p.collect.qos, p.collect.sbatch_args);
  preamble(s, p, p.collect.modules);
  s += "set -e\n";
  const std::string dir = std::filesystem::path(data).parent_path().string();
  if (!dir.empty()) s += "mkdir -p " + quote(dir) + "\n";
  s += fmt::format("{} datagen --task {} --n {} --size {} --seed {} -o {}\n", quote(paths.exe), data::to_string(g.task),
                   g.n, g.size, g.seed, quote(data));
  return s;
}

}  // namespace scalebench::study::slurm
