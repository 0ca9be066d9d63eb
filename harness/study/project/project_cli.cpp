// project_cli.cpp — `scalebench project` options and run (see project_cli.h).
#include "harness/study/project/project_cli.h"

#include <CLI/CLI.hpp>

#include <ostream>

#include <fmt/ranges.h>

#include "harness/record/context.h"
#include "harness/record/run_file.h"
#include "harness/study/analysis/study_file.h"
#include "harness/study/project/projection.h"
#include "kernels/common/check.h"

namespace scalebench::project {

CLI::App* add_project(CLI::App& app, ProjectCli& o) {
  auto* c = app.add_subcommand("project", "Predict step time, images/s and scaling efficiency at N = 1 … 1024 from a measured run's trace and a network model");
  c->add_option("--trace", o.trace, "Rank 0's train --trace file of the measured run (N = 1)")->required();
  c->add_option("--batch", o.batch, "Per-device batch of the measured run")->required()->check(CLI::Range(1, 1 << 20));
  c->add_option("--bucket-mb", o.bucket_mb, "Gradient bucket size (MB) to project with")->capture_default_str()->check(CLI::Range(0.0001, 1e6));
  c->add_option("--global-batch", o.global_batch, "Strong scaling: the fixed global batch (default: --batch)")->check(CLI::Range(1, 1 << 30));
  c->add_option("--max-devices", o.max_devices, "Largest N (powers of 2 from 1)")->capture_default_str()->check(CLI::Range(1, 1 << 20));
  c->add_option("--network", o.network, fmt::format("Named profile: {} (networks.def; docs/projection.md)",
                                                    fmt::join(profile_names(), ", ")))
      ->check(CLI::IsMember(profile_names()));
  c->add_option("--commbench", o.commbench, "Calibrate the network from a commbench --json file of 2+ ranks");
  c->add_option("--commbench-algo", o.commbench_algo, "Algorithm rows of --commbench to fit")->capture_default_str();
  c->add_option("--alpha-us", o.alpha_us, "Network latency per message (us), with --gbps")->check(CLI::Range(0.0, 1e7));
  c->add_option("--gbps", o.gbps, "Network bandwidth per link and direction (GB/s), with --alpha-us")->check(CLI::Range(1e-6, 1e6));
  c->add_option("--ranks-per-node", o.ranks_per_node, "Ranks sharing a node (hierarchical's groups; rings cross nodes every this many)")
      ->capture_default_str()->check(CLI::Range(1, 1 << 16));
  c->add_option("--intra-alpha-us", o.intra_alpha_us, "Latency between ranks of one node (us)")->capture_default_str()->check(CLI::Range(0.0, 1e7));
  c->add_option("--intra-gbps", o.intra_gbps, "Bandwidth between ranks of one node (GB/s)")->capture_default_str()->check(CLI::Range(1e-6, 1e6));
  c->add_flag("--no-overlap", o.no_overlap, "Predict without overlap of allreduce and backward");
  c->add_flag("--comm-cpu-shared", o.comm_cpu_shared,
              "The exchange's CPU (commbench's cpu_us, from --commbench) slows backward while they overlap: "
              "CPU training with a thread per core, or one-core emulated nodes");
  c->add_option("--compression", o.compression, "Wire type of ring and hierarchical: none | bf16 (16-bit)")
      ->check(CLI::IsMember({"none", "bf16"}))->capture_default_str();
  c->add_option("--model", o.model, "Model name for the rows (the study file's model column)")->capture_default_str();
  c->add_option("-o,--output", o.output, "Write the predictions as a study file (HDF5, study schema)");
  return c;
}

int run_project(const ProjectCli& o, std::ostream& out) {
  const int sources = !o.network.empty() + !o.commbench.empty() + (o.alpha_us >= 0 || o.gbps > 0);
  SB_REQUIRE(sources == 1, "project: give exactly one network: --network NAME, --commbench FILE, or --alpha-us and --gbps");
  Network net;
  if (!o.network.empty()) net.inter = profile(o.network);
  if (!o.commbench.empty()) net.inter = fit_commbench(o.commbench, o.commbench_algo);
  if (o.alpha_us >= 0 || o.gbps > 0) {
    SB_REQUIRE(o.alpha_us >= 0 && o.gbps > 0, "project: --alpha-us and --gbps go together");
    net.inter = {o.alpha_us * 1e-6, o.gbps * 1e9, "--alpha-us/--gbps"};
  }
  net.intra = {o.intra_alpha_us * 1e-6, o.intra_gbps * 1e9, "--intra-alpha-us/--intra-gbps"};
  net.ranks_per_node = o.ranks_per_node;
  SB_REQUIRE(!o.comm_cpu_shared || net.inter.cpu_per_msg_s > 0 || net.inter.cpu_per_byte_s > 0,
             "project: --comm-cpu-shared needs the exchange's CPU cost, which only --commbench FILE gives (its cpu_us, "
             "written by this version's commbench --json){}", o.commbench.empty() ? "" : "; " + o.commbench + " has none");
  const MeasuredStep m = read_trace(o.trace);
  const ProjectOptions po{.batch = o.batch, .global_batch = o.global_batch, .bucket_mb = o.bucket_mb,
                          .max_devices = o.max_devices, .comm_cpu_shared = o.comm_cpu_shared};
  study::StudyFile sf;
  sf.runs = project_all(m, net, po, o.model, !o.no_overlap, o.compression == "bf16", out);
  if (!o.output.empty()) {
    sf.attrs.set("schema_version", record::kSchemaVersion);
    sf.attrs.set("kind", "study");
    sf.attrs.set("writer", std::string("scalebench ") + SCALEBENCH_VERSION + " project");
    sf.attrs.set("created_utc", record::utc_now());
    sf.attrs.set("study", "projection " + o.model);
    sf.attrs.set("runs", std::int64_t(sf.runs.rows()));
    sf.attrs.set("runs_ok", std::int64_t(sf.runs.rows()));
    sf.attrs.set("speedup_definition", "predicted (scalebench project, docs/projection.md): weak efficiency = step(1) / "
                                       "step(N); strong efficiency = step(1) / (N step(N)); speedup = efficiency x N");
    sf.attrs.set("network", net.inter.source);
    sf.attrs.set("measured_trace", o.trace);
    study::write_study_file(o.output, sf);
    out << "project: " << sf.runs.rows() << " predictions -> " << o.output << "\n";
  }
  return 0;
}

}  // namespace scalebench::project
