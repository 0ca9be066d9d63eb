// slurm/script.cpp — point groups, resources, step commands and script text (see slurm/script.h).
#include "harness/study/launch/slurm/script.h"

#include <algorithm>
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

// The #SBATCH lines every job of the profile carries, and its module/env preamble.
void common_directives(std::string& s, const Profile& p) {
  if (!p.partition.empty()) s += "#SBATCH --partition=" + p.partition + "\n";
  if (!p.account.empty()) s += "#SBATCH --account=" + p.account + "\n";
  if (!p.qos.empty()) s += "#SBATCH --qos=" + p.qos + "\n";
  for (const auto& a : p.sbatch_args) s += "#SBATCH " + require_option(a, "cluster.sbatch_args") + "\n";
}

void preamble(std::string& s, const Profile& p) {
  s += "set -u\n";
  for (const auto& m : p.modules) s += "module load " + quote(require_word(m, "cluster.modules")) + "\n";
  for (const auto& [k, v] : p.env)
    s += "export " + require_env_name(k, "cluster.env") + "=" + quote(v.empty() ? v : require_word(v, "cluster.env." + k)) +
         "\n";
}

void check_paths(const ScriptPaths& paths) {
  require_word(paths.study_dir, "the study folder");
  require_word(paths.workdir, "the working folder");
  require_word(paths.exe, "the scalebench binary path");
  require_word(paths.source_dir, "the scalebench source folder");
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
  r.cpus_per_task = p.cpus_per_task;
  if (!uses_mpi(c)) {
    // One process drives N devices on one node.
    r.cpus_per_task = p.cpus_per_task * c.world_size;
    if (gpu) {
      SB_REQUIRE(c.world_size <= p.gpus_per_node, "{}: {} needs {} GPUs on one node; the profile {} has "
                 "gpus_per_node = {}", point_name(c), name_of(c.train.strategy), c.world_size, p.source, p.gpus_per_node);
      r.gpus_per_node = c.world_size;
    }
    return r;
  }
  r.ntasks = ranks_of(c);
  r.tasks_per_node = std::min(r.ntasks, p.tasks_per_node);
  r.nodes = (r.ntasks + p.tasks_per_node - 1) / p.tasks_per_node;
  if (gpu) r.gpus_per_node = std::min(p.gpus_per_node, r.tasks_per_node);
  return r;
}

std::vector<std::string> step_command(const record::RunConfig& c, const Profile& p, const std::string& exe,
                                      const std::string& runs_dir) {
  std::vector<std::string> cmd;
  const int ranks = ranks_of(c);
  if (uses_mpi(c) && p.launcher == "mpirun") {
    cmd = {"mpirun", "-np", std::to_string(ranks)};
    cmd.insert(cmd.end(), p.mpirun_args.begin(), p.mpirun_args.end());
  } else {
    cmd = {"srun"};
    if (uses_mpi(c)) cmd.push_back("--mpi=" + p.srun_mpi);
    cmd.push_back(fmt::format("--ntasks={}", ranks));
    cmd.push_back("--kill-on-bad-exit=1");
    cmd.push_back("--export=ALL,SCALEBENCH_LAUNCHER=srun");
    cmd.insert(cmd.end(), p.srun_args.begin(), p.srun_args.end());
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
                         const Profile& p, const ScriptPaths& paths) {
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
  s += fmt::format("# with the profile {} ({}). Rewritten on every submission: change the spec or the\n", p.name,
                   p.source);
  s += "# profile, not this file.\n";
  s += fmt::format("#SBATCH --job-name=sb-{}-{}\n", study, tag);
  s += "#SBATCH --chdir=" + paths.workdir + "\n";
  s += fmt::format("#SBATCH --output={}/slurm/logs/{}-{}.out\n", paths.study_dir, tag, array ? "%A_%a" : "%j");
  s += "#SBATCH --open-mode=append\n";
  s += fmt::format("#SBATCH --nodes={}\n#SBATCH --ntasks={}\n#SBATCH --ntasks-per-node={}\n#SBATCH --cpus-per-task={}\n",
                   r.nodes, r.ntasks, r.tasks_per_node, r.cpus_per_task);
  if (r.gpus_per_node > 0) s += fmt::format("#SBATCH --gpus-per-node={}\n", r.gpus_per_node);
  s += "#SBATCH --time=" + require_time(p.time, "cluster.time") + "\n";
  if (array) s += "#SBATCH --array=" + array_spec(reps) + "\n";
  if (p.signal_seconds > 0) s += fmt::format("#SBATCH --signal=B:USR1@{}\n", p.signal_seconds);
  if (p.requeue) s += "#SBATCH --requeue\n";
  common_directives(s, p);
  preamble(s, p);
  s += "\n# The point's training step (scalebench runs it as an argument vector, without a shell):\n";
  s += "#   " + join_command(step) + "\n";
  s += "# slurm-point skips a repetition whose run file already says ok, runs the step, and records a\n";
  s += "# failure in the run file when the step dies without writing one.\n";
  s += array ? "rep=${SLURM_ARRAY_TASK_ID}\n" : fmt::format("rep={}\n", reps.front());
  s += fmt::format("{} slurm-point {} --group {} --repetition \"$rep\" &\n", quote(paths.exe), quote(paths.study_dir),
                   g.index);
  s += "point=$!\n";
  s += "# Slurm signals only this shell (--signal=B:USR1@...); pass USR1 on, so the run finishes its\n";
  s += "# step, marks its run file preempted and exits 75.\n";
  s += "trap 'kill -USR1 \"$point\" 2>/dev/null' USR1\n";
  s += "while :; do\n  wait \"$point\"\n  rc=$?\n  kill -0 \"$point\" 2>/dev/null || break\ndone\n";
  if (p.requeue) {
    s += "if [ \"$rc\" -eq 75 ]; then\n";
    s += fmt::format("  echo \"scalebench: point {} repetition $rep preempted; requeueing job $SLURM_JOB_ID\"\n", g.index);
    s += "  scontrol requeue \"$SLURM_JOB_ID\"\nfi\n";
  }
  s += "exit \"$rc\"\n";
  return s;
}

std::string collect_script(const std::string& study, const std::vector<std::string>& after_jobs, const Profile& p,
                           const ScriptPaths& paths) {
  check_paths(paths);
  require_word(study, "study.name");
  std::string s = "#!/bin/bash\n";
  s += fmt::format("# scalebench study {}: collect, plots and report once every point job has ended\n", study);
  s += "# (afterany: failed points are collected as failed). Written by `scalebench sweep --launcher slurm`.\n";
  s += fmt::format("#SBATCH --job-name=sb-{}-collect\n", study);
  s += "#SBATCH --chdir=" + paths.workdir + "\n";
  s += fmt::format("#SBATCH --output={}/slurm/logs/collect-%j.out\n", paths.study_dir);
  s += "#SBATCH --open-mode=append\n#SBATCH --nodes=1\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n";
  s += "#SBATCH --time=" + require_time(p.collect_time, "cluster.collect_time") + "\n";
  if (!after_jobs.empty()) {
    std::string dep = "afterany";
    for (const auto& j : after_jobs) dep += ":" + require_word(j, "a job id");
    s += "#SBATCH --dependency=" + dep + "\n#SBATCH --kill-on-invalid-dep=no\n";
  }
  common_directives(s, p);
  preamble(s, p);
  s += "set -e\n";
  s += fmt::format("{} collect {}\n", quote(paths.exe), quote(paths.study_dir));
  s += fmt::format("{} {} {} -o {}\n", quote(p.python), quote(paths.source_dir + "/plots/make_all.py"),
                   quote(paths.study_dir), quote(paths.study_dir + "/plots"));
  s += fmt::format("{} report {}\n", quote(paths.exe), quote(paths.study_dir + "/study.h5"));
  return s;
}

}  // namespace scalebench::study::slurm
