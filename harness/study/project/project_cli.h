// project_cli.h — the `scalebench project` subcommand: its options and its run (reads the trace,
// checks --batch and --model against what the trace's run recorded, builds the network model,
// prints the table, writes the study-schema HDF5 file with the trace's provenance). The model itself
// is projection.h / netmodel.h; this file only wires options to it.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "harness/study/project/ps_placement.h"
#include "harness/train/train_config.h"

namespace CLI { class App; }

namespace scalebench::project {

struct ProjectCli {
  std::string trace, model, network, commbench, commbench_algo = "ring", output;
  int batch = 0, global_batch = 0, max_devices = 1024, ranks_per_node = 1;
  double alpha_us = -1, gbps = -1;
  // --intra-alpha-us/--intra-gbps; -1: not given (netmodel.h, assumed_intra: the stated point, with the
  // range of GPU links for a GPU step)
  double intra_alpha_us = -1, intra_gbps = -1;
  // The train options a projection prices, set through their train rows (train_fields.cpp):
  // bucket_mb (--bucket-mb) and compression (--compression); the other members stay default.
  TrainConfig train;
  bool no_overlap = false;
  bool comm_cpu_shared = false;
  bool no_stragglers = false;
  double slow_node = 1.0;  // --slow-node: one rank's speed as a fraction of the traced one
  int nics_per_node = 1;   // --nics-per-node: the inter-node rate is this many links' (profiles, --gbps)
  std::vector<std::string> calibrate;  // --calibrate N=K:eff=E, once a point (calibrate.h)
  std::string ps_shards;   // --ps-shards NODES:SERVERS,... (netmodel.h, Network::ps_shards)
  std::string ps_variables;  // --ps-variables FILE: whole variables in place of equal shares (ps_placement.h)
  PsPlacement ps_placement = PsPlacement::greedy;  // --ps-placement: how they are placed
  double compute_spread = -1;  // --compute-spread (default: 0.10 for a described step, 0 for a traced one)
};

CLI::App* add_project(CLI::App& app, ProjectCli& o);
// Throws scalebench::Error (one line) for a --batch or --model that contradicts the trace, a trace
// without a batch and no --batch, or a bad network source. A trace without provenance (older
// scalebench) is accepted with a `# warning:` line in the table that --batch and --model are unchecked.
int run_project(const ProjectCli& o, std::ostream& out);

}  // namespace scalebench::project
