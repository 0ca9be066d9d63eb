// launch.cpp — strategy → command line (see launch.h).
#include "harness/study/launch.h"

#include <unistd.h>

#include <fmt/format.h>

#include "harness/strategy/strategy.h"

namespace scalebench::study {
namespace {

std::string num(double v) { return fmt::format("{}", v); }  // shortest text that parses back exactly

}  // namespace

// One definition of which strategies run as MPI ranks: harness/strategy's.
bool uses_mpirun(const std::string& strategy) { return strategy_uses_mpi(strategy); }

std::vector<std::string> train_args(const record::RunConfig& c, const std::string& runs_dir) {
  const TrainConfig& t = c.train;
  std::vector<std::string> a = {
      "train",
      "--model", t.model,
      "--data", t.data,
      "--strategy", t.strategy,
      "--backend", t.backend,
      "--precision", t.precision,
      "--epochs", std::to_string(t.epochs),
      "--batch", std::to_string(t.batch),
      "--lr", num(t.lr),
      "--lr-scaling", t.lr_scaling,
      "--warmup-epochs", num(t.warmup_epochs),
      "--lr-decay", t.lr_decay,
      "--optimizer", t.optimizer,
      "--momentum", num(t.momentum),
      "--weight-decay", num(t.weight_decay),
      "--val-fraction", num(t.val_fraction),
      "--class-weights", t.class_weights,
      "--seed", std::to_string(t.seed),
      "--threads", std::to_string(t.threads),
      "--max-steps", std::to_string(t.max_steps),
      "--progress-seconds", num(t.progress_seconds),
      "--scaling", c.scaling,
      "--repetition", std::to_string(c.repetition),
      "--study", c.study,
      "-o", runs_dir,
      "--bucket-mb", num(t.bucket_mb),
      "--ranks-per-node", std::to_string(t.ranks_per_node),
      "--staleness", std::to_string(t.staleness),
      "--compression", t.compression,
      "--comm-timeout", num(t.comm_timeout_s),
  };
  if (t.no_overlap) a.push_back("--no-overlap");
  if (t.reference_kernels) a.push_back("--reference-kernels");
  if (t.layout != "NCHW") a.insert(a.end(), {"--layout", t.layout});  // GPU options: only when set
  if (t.deterministic) a.push_back("--deterministic");
  if (t.cudnn_workspace_mib != TrainConfig::kDefaultCudnnWorkspaceMib)
    a.insert(a.end(), {"--cudnn-workspace-mib", std::to_string(t.cudnn_workspace_mib)});
  if (t.strategy == "mirrored") {
    a.push_back("--devices");
    a.push_back(std::to_string(c.world_size));
  }
  return a;
}

std::vector<std::string> launch_command(const record::RunConfig& c, const std::string& exe,
                                        const std::string& runs_dir) {
  std::vector<std::string> cmd;
  if (uses_mpirun(c.train.strategy)) {
    // Parameter-server strategies add one server rank to the N workers the point counts.
    const int servers = strategy_is_parameter_server(c.train.strategy) ? 1 : 0;
    cmd = {"mpirun", "-np", std::to_string(c.world_size + servers), "--oversubscribe"};
    if (::geteuid() == 0) cmd.push_back("--allow-run-as-root");
  }
  cmd.push_back(exe);
  for (auto& a : train_args(c, runs_dir)) cmd.push_back(std::move(a));
  return cmd;
}

std::string join_command(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& w : argv) {
    const bool plain = !w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                         "0123456789_-+=:,./@%") == std::string::npos;
    s += (s.empty() ? "" : " ") + (plain ? w : "'" + w + "'");
  }
  return s;
}

}  // namespace scalebench::study
