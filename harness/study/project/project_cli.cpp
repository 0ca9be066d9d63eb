// project_cli.cpp — `scalebench project` options and run (see project_cli.h).
#include "harness/study/project/project_cli.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <ostream>
#include <variant>
#include <vector>

#include <fmt/ranges.h>

#include "harness/record/context.h"
#include "harness/record/run_file.h"
#include "harness/study/analysis/study_file.h"
#include "harness/study/project/calibrate.h"
#include "harness/study/project/projection.h"
#include "harness/train/field_cli.h"
#include "harness/train/train_fields.h"
#include "kernels/common/check.h"
#include "models/spec.h"

namespace scalebench::project {

namespace {
// A described step's stated spread when --compute-spread is not given: a step time read off another
// source's table (tools/synthetic_trace.py) is taken as good to 10 %, this project's stated choice.
constexpr double kDescribedStepSpread = 0.10;

// A train option the projection prices, from its row of the train table: the same flag, help,
// default, parse and check as `train`'s (one description per option).
void add_train_option(CLI::App* c, ProjectCli& o, std::string_view key) {
  const Field<TrainConfig>* f = find_train_field(key);
  SB_CHECK(f != nullptr, "project: no train option '{}'", key);
  add_field_option(c, o.train, *f);
}
}  // namespace

// CLI11's Range passes NaN (every comparison with it is false): a number must also be finite.
const CLI::Validator kFinite(
    [](std::string& v) -> std::string {
      char* end = nullptr;
      const double x = std::strtod(v.c_str(), &end);
      return std::isfinite(x) ? std::string() : "must be a finite number, not " + v;
    },
    "FINITE");

CLI::App* add_project(CLI::App& app, ProjectCli& o) {
  auto* c = app.add_subcommand("project", "Predict step time, images/s and scaling efficiency at N = 1 … 1024 from a measured run's trace and a network model");
  c->add_option("--trace", o.trace, "Rank 0's train --trace file of the measured run (N = 1)")->required();
  c->add_option("--batch", o.batch, "Per-device batch of the measured run (default: the trace's; refused when it differs)")
      ->check(CLI::Range(1, 1 << 20));
  add_train_option(c, o, "bucket_mb");
  c->add_option("--global-batch", o.global_batch, "Strong scaling: the fixed global batch (default: --batch)")->check(CLI::Range(1, 1 << 30));
  c->add_option("--max-devices", o.max_devices, "Largest N (powers of 2 from 1)")->capture_default_str()->check(CLI::Range(1, 1 << 20));
  c->add_option("--network", o.network, fmt::format("Named profile: {} (networks.def; docs/projection.md)",
                                                    fmt::join(profile_names(), ", ")))
      ->check(CLI::IsMember(profile_names()));
  c->add_option("--commbench", o.commbench, "Calibrate the network from a commbench --json file of 2+ ranks");
  c->add_option("--commbench-algo", o.commbench_algo, "Algorithm rows of --commbench to fit")->capture_default_str();
  c->add_option("--alpha-us", o.alpha_us, "Network latency per message (us), with --gbps")->check(kFinite)->check(CLI::Range(0.0, 1e7));
  c->add_option("--gbps", o.gbps, "Network bandwidth per link and direction (GB/s), with --alpha-us")->check(kFinite)->check(CLI::Range(1e-6, 1e6));
  c->add_option("--ranks-per-node", o.ranks_per_node, "Ranks sharing a node (hierarchical's groups; rings cross nodes every this many)")
      ->capture_default_str()->check(CLI::Range(1, 1 << 16));
  const std::string assumed = fmt::format(
      "; not given: {:g} us and {:g} GB/s, assumed, and for a GPU step (described, or traced on cuda) the band takes "
      "GPU links' range, {:g} to {:g} us and {:g} to {:g} GB/s (docs/projection.md)",
      kIntraAlphaUs, kIntraGBps, kGpuIntraAlphaUsLo, kGpuIntraAlphaUsHi, kGpuIntraGBpsLo, kGpuIntraGBpsHi);
  c->add_option("--intra-alpha-us", o.intra_alpha_us, "Latency between ranks of one node (us)" + assumed)
      ->check(kFinite)->check(CLI::Range(0.0, 1e7));
  c->add_option("--intra-gbps", o.intra_gbps, "Bandwidth between ranks of one node (GB/s)" + assumed)
      ->check(kFinite)->check(CLI::Range(1e-6, 1e6));
  c->add_flag("--no-overlap", o.no_overlap, "Predict without overlap of allreduce and backward");
  c->add_flag("--no-stragglers", o.no_stragglers,
              "Every rank computes the traced mean (default: a synchronous step waits for the slowest of N, "
              "from the traced steps' spread)");
  c->add_option("--slow-node", o.slow_node,
                 "One of the N ranks computes at this fraction of the traced speed (a node or card known to be "
                 "slower, e.g. 0.8): the straggler term takes it into the slowest of N")
      ->check(kFinite)->check(CLI::Range(0.01, 1.0));
  c->add_flag("--comm-cpu-shared", o.comm_cpu_shared,
              "The exchange's CPU (commbench's cpu_us, from --commbench) slows backward while they overlap: "
              "CPU training with a thread per core, or one-core emulated nodes");
  c->add_option("--nics-per-node", o.nics_per_node,
                 "Network links a node has (Perlmutter, JUWELS Booster: 4): the inter-node rate of --network or --gbps "
                 "times this (the library stripes a node's traffic over them, as NCCL's channels do)")
      ->capture_default_str()->check(CLI::Range(1, 64));
  c->add_option("--ps-shards", o.ps_shards,
                "Parameter servers on the workers' nodes instead of a ring between nodes: NODES:SERVERS for every "
                "node count projected, e.g. 2:1,4:3,8:2 (TensorFlow's parameter_server and distributed_replicated; "
                "costs hierarchical's exchange between nodes, and ring's at one rank a node; docs/projection.md)");
  auto* vars = c->add_option("--ps-variables", o.ps_variables,
                             "With --ps-shards: the model's variables in the order the placement sees them, a line each, NAME "
                             "BYTES trainable|fixed (tools/tf_cnn_variables.py writes tf_cnn_benchmarks' models'); "
                             "whole variables are placed on the servers by --ps-placement and the busiest server's share "
                             "of the gradient sets the load, in place of equal shares");
  c->add_option("--ps-placement", o.ps_placement,
                "How --ps-variables are placed: greedy (each onto the server with the fewest bytes so far: TensorFlow's "
                "GreedyLoadBalancingStrategy with byte_size_load_fn, tf_cnn_benchmarks' parameter_server) or "
                "round-robin (replica_device_setter's default: its distributed_replicated)")
      ->transform(CLI::CheckedTransformer(ps_placement_names()))->default_str(ps_placement_name(o.ps_placement))->needs(vars);
  c->add_option("--calibrate", o.calibrate,
                "A measured point at a small N fits the link's delivered bandwidth: N=2:eff=0.81 (weak-scaling "
                "efficiency), N=2:step_ms=250 or N=2:study=FILE (a study of the measured runs), optionally :spread=0.02 "
                "and :strategy=ring; given again for another N (N=4:...), the points fit the latency too "
                "(docs/projection.md)")
      ->allow_extra_args(false);
  c->add_option("--compute-spread", o.compute_spread,
                "The step's stated relative uncertainty (default 0.10 for a described step, tools/synthetic_trace.py; "
                "0 for a traced one, whose steps' spread is measured)")
      ->check(kFinite)->check(CLI::Range(0.0, 0.9));
  add_train_option(c, o, "compression");
  c->add_option("--model", o.model, "Model for the rows (the study file's model column; default: the trace's, else "
                                    "\"model\"; refused when it differs from the trace's)");
  c->add_option("-o,--output", o.output, "Write the predictions as a study file (HDF5, study schema)");
  return c;
}

namespace {

// Two model specs name the same model: the same family and options in any order ("unet:base=16,depth=3"
// is "unet:depth=3,base=16"); defaults are not filled in (that needs the data's shape), and text that
// is no spec compares as text.
bool same_model(const std::string& a, const std::string& b) {
  try {
    const ModelSpec x = parse_model_spec(a), y = parse_model_spec(b);
    return x.family == y.family && x.options == y.options;
  } catch (const Error&) {
    return a == b;
  }
}

// The batch and model to project with: the trace's, checked against --batch and --model. The
// per-device images of a step are batch x accumulate (the trace's phases are sums over the
// accumulated micro-batches). `warnings` gets a line for each input the trace cannot check.
std::pair<int, std::string> checked_inputs(const ProjectCli& o, const MeasuredStep& m, std::vector<std::string>& warnings) {
  using trace::Provenance;
  const Provenance::Items& config = m.provenance.config;
  const auto integer = [&](std::string_view key) -> std::optional<std::int64_t> {
    const auto* v = Provenance::find(config, key);
    if (const auto* i = v ? std::get_if<std::int64_t>(v) : nullptr) return *i;
    return std::nullopt;
  };
  const auto batch = integer("batch"), accumulate = integer("accumulate"), world = integer("world_size");
  // A damaged or hand-made trace must not reach the model: batch 0 made it loop forever, a negative
  // one printed NaN rows with exit 0, and a trace of an N > 1 run holds its exchange in its steps.
  SB_REQUIRE(!batch || *batch >= 1, "project: --trace {} records batch {}: a measured run trains at least one image "
             "per device per step", o.trace, batch.value_or(0));
  SB_REQUIRE(!accumulate || *accumulate >= 1, "project: --trace {} records accumulate {}: at least 1 micro-batch a step",
             o.trace, accumulate.value_or(0));
  SB_REQUIRE(!world || *world == 1, "project: --trace {} is of a run of {} devices: project predicts the exchange from "
             "an N = 1 run's trace (train --trace with one device)", o.trace, world.value_or(0));
  int projected_batch = o.batch;
  if (batch) {
    const std::int64_t per_step = *batch * accumulate.value_or(1);
    const std::string what = accumulate.value_or(1) > 1 ? fmt::format("{} (--batch {} x --accumulate {})", per_step, *batch,
                                                                      *accumulate)
                                                        : fmt::format("{}", per_step);
    SB_REQUIRE(o.batch == 0 || o.batch == per_step,
               "project: --batch {} contradicts --trace {}, whose run trained {} images per device per step; leave "
               "--batch out to take the trace's", o.batch, o.trace, what);
    projected_batch = int(per_step);
  } else {
    SB_REQUIRE(o.batch > 0, "project: --trace {} records no batch (a trace from before scalebench recorded it): give "
                            "--batch, the per-device batch of its run", o.trace);
    warnings.push_back(fmt::format("{} records no batch: --batch {} is taken unchecked", o.trace, o.batch));
  }
  const auto* traced = Provenance::find(config, "model");
  const auto* traced_model = traced ? std::get_if<std::string>(traced) : nullptr;
  std::string model = o.model;
  if (traced_model) {
    SB_REQUIRE(o.model.empty() || same_model(o.model, *traced_model),
               "project: --model {} contradicts --trace {}, whose run trained {}; leave --model out to take the trace's",
               o.model, o.trace, *traced_model);
    if (model.empty()) model = *traced_model;
  } else {
    if (!o.model.empty()) warnings.push_back(fmt::format("{} records no model: --model {} is taken unchecked", o.trace, o.model));
    if (model.empty()) model = "model";
  }
  return {projected_batch, model};
}

}  // namespace

int run_project(const ProjectCli& o, std::ostream& out) {
  const int sources = !o.network.empty() + !o.commbench.empty() + (o.alpha_us >= 0 || o.gbps > 0);
  SB_REQUIRE(sources == 1, "project: give exactly one network: --network NAME, --commbench FILE, or --alpha-us and --gbps");
  Network net;
  // a profile's point is the middle of its delivered range; the nameplate bounds it (networks.def)
  if (!o.network.empty()) net.inter = profile(o.network).at_middle();
  if (!o.commbench.empty()) net.inter = fit_commbench(o.commbench, o.commbench_algo);
  if (o.alpha_us >= 0 || o.gbps > 0) {
    SB_REQUIRE(o.alpha_us >= 0 && o.gbps > 0, "project: --alpha-us and --gbps go together");
    net.inter = {o.alpha_us * 1e-6, o.gbps * 1e9, "--alpha-us/--gbps"};
  }
  if (o.nics_per_node > 1) {
    SB_REQUIRE(o.commbench.empty(), "project: --nics-per-node {} with --commbench: a commbench between two nodes "
               "measured what the library made of their links already; leave --nics-per-node out", o.nics_per_node);
    AlphaBeta& l = net.inter;
    SB_REQUIRE(!l.per_connection(), "project: --nics-per-node {} with --network {}: a transport's rate is its "
               "connections' (its stack's), not a link's; leave --nics-per-node out", o.nics_per_node, o.network);
    const double k = o.nics_per_node;
    l.bytes_per_s *= k, l.bw_lo *= k, l.bw_hi *= k;
    l.source += fmt::format(" x {} links a node", o.nics_per_node);
  }
  net.ranks_per_node = o.ranks_per_node;
  SB_REQUIRE(o.ps_variables.empty() || !o.ps_shards.empty(),
             "project: --ps-variables {} needs --ps-shards (the servers at each node count)", o.ps_variables);
  if (!o.ps_shards.empty()) {
    const std::map<int, int> servers = parse_ps_shards(o.ps_shards);
    // every node count the sweep reaches, checked before anything is printed
    for (int n = 2; n <= o.max_devices; n *= 2)
      if (const int nodes = (n + o.ranks_per_node - 1) / o.ranks_per_node; nodes >= 2)
        SB_REQUIRE(servers.count(nodes), "project: --ps-shards {} gives no server count for {} nodes (N = {} at "
                   "{} ranks per node)", o.ps_shards, nodes, n, o.ranks_per_node);
    const std::vector<PsVariable> vars = o.ps_variables.empty() ? std::vector<PsVariable>{}
                                                                : read_ps_variables(o.ps_variables);
    PsShares shares = ps_shares(servers, vars, o.ps_placement, o.ps_variables);
    net.ps_shards = std::move(shares.by_nodes);
    net.ps_placement = std::move(shares.placement);
  }
  SB_REQUIRE(!o.comm_cpu_shared || net.inter.cpu_per_msg_s > 0 || net.inter.cpu_per_byte_s > 0,
             "project: --comm-cpu-shared needs the exchange's CPU cost, which only --commbench FILE gives (its cpu_us, "
             "written by this version's commbench --json){}", o.commbench.empty() ? "" : "; " + o.commbench + " has none");
  SB_REQUIRE(!(o.no_stragglers && o.slow_node < 1),
             "project: --slow-node {} is part of the straggler term, which --no-stragglers turns off", o.slow_node);
  const MeasuredStep m = read_trace(o.trace);
  std::vector<std::string> warnings;
  const auto [batch, model] = checked_inputs(o, m, warnings);
  for (const auto& w : warnings) out << "# warning: " << w << "\n";
  const bool described = !m.provenance.empty() && m.provenance.context.empty();  // tools/synthetic_trace.py
  const double spread = o.compute_spread >= 0 ? o.compute_spread : described ? kDescribedStepSpread : 0.0;
  // The intra-node link: as given, else the stated point, ranged for a GPU step (a described step is
  // of published GPU runs; a trace says its backend).
  if (o.intra_alpha_us >= 0 || o.intra_gbps > 0) {
    net.intra = {(o.intra_alpha_us >= 0 ? o.intra_alpha_us : kIntraAlphaUs) * 1e-6,
                 (o.intra_gbps > 0 ? o.intra_gbps : kIntraGBps) * 1e9, "--intra-alpha-us/--intra-gbps"};
  } else {
    const auto* backend = trace::Provenance::find(m.provenance.config, "backend");
    const auto* name = backend ? std::get_if<std::string>(backend) : nullptr;
    // --calibrate's fitted link absorbs what the point costs beyond it (docs/projection.md): no range then
    net.intra = assumed_intra(o.calibrate.empty() && (described || (name != nullptr && *name == "cuda")));
  }
  // a described step's layers are an assumption about when its gradients are ready: the band brackets
  // it, unless --calibrate fitted the link to a measured point with the trace's layers
  ProjectOptions po{.batch = batch, .global_batch = o.global_batch, .bucket_mb = o.train.bucket_mb,
                    .max_devices = o.max_devices, .comm_cpu_shared = o.comm_cpu_shared,
                    .stragglers = !o.no_stragglers, .slow_node = o.slow_node, .stated_spread = spread,
                    .ready_assumed = described};
  if (!o.calibrate.empty()) {
    std::vector<CalibrationPoint> points;
    for (const std::string& spec : o.calibrate) {
      points.push_back(parse_calibration(spec));
      const int nodes = (points.back().n + o.ranks_per_node - 1) / o.ranks_per_node;
      SB_REQUIRE(net.ps_shards.empty() || nodes < 2 || net.ps_shards.count(nodes),
                 "project: --ps-shards {} gives no server count for {} nodes, where --calibrate {} was measured",
                 o.ps_shards, nodes, spec);
    }
    std::string warning;
    Calibration cal = calibrate(m, net, po, std::move(points), warning);
    net.inter = std::move(cal.link);
    // the fitted link absorbs when the described step's gradients are ready (its layers are the point's);
    // where it is past its range, the point's other reading is the band's too
    po.ready_assumed = false;
    po.ready_reading = std::move(cal.other);
    if (!warning.empty()) out << "# warning: " << warning << "\n", warnings.push_back(warning);
  }
  study::StudyFile sf;
  sf.runs = project_all(m, net, po, model, !o.no_overlap, o.train.compression, out);
  if (!o.output.empty()) {
    sf.attrs.set("schema_version", record::kSchemaVersion);
    sf.attrs.set("kind", "study");
    sf.attrs.set("writer", std::string("scalebench ") + SCALEBENCH_VERSION + " project");
    sf.attrs.set("created_utc", record::utc_now());
    sf.attrs.set("study", "projection " + model);
    sf.attrs.set("runs", std::int64_t(sf.runs.rows()));
    sf.attrs.set("runs_ok", std::int64_t(sf.runs.rows()));
    sf.attrs.set("speedup_definition", "predicted (scalebench project, docs/projection.md): weak efficiency = step(1) / "
                                       "step(N); strong efficiency = step(1) / (N step(N)); speedup = efficiency x N");
    sf.attrs.set("network", net.inter.source);
    if (net.inter.nameplate)
      sf.attrs.set("network_note", "a nameplate rate and a stated latency, not a measurement: calibrate with --commbench");
    sf.attrs.set("measured_trace", o.trace);
    const auto* run_id = trace::Provenance::find(m.provenance.config, "run_id");
    sf.attrs.set("measured_run_id", run_id && std::holds_alternative<std::string>(*run_id) ? std::get<std::string>(*run_id) : "");
    sf.attrs.set("stragglers", o.no_stragglers ? "off" : "on");
    sf.attrs.set("slow_node", o.slow_node);
    sf.attrs.set("ring_steps", ring_steps_note(m, net, po));
    sf.attrs.set("band_definition", "each prediction recomputed with compute x (1 -/+ 2 relative standard errors of the "
                                    "traced mean step) and communication x (1 -/+ the commbench curve's leave-one-out "
                                    "residual; 0 without a commbench fit of 3+ sizes), the links at the two ends of their "
                                    "assumed ranges (a profile's delivered range and a transport's connections together, "
                                    "what --calibrate leaves open, a GPU node's unstated intra-node link), a described "
                                    "step's gradients all ready at the end of backward (slow) and spread evenly over it "
                                    "(fast), a calibration past its link's range: its other reading too (the link at its "
                                    "fastest, the gradients ready over the fraction of backward the point fits), and a "
                                    "described step's stated "
                                    "spread; efficiency pairs the N = 1 step's opposite extreme "
                                    "(docs/projection.md)");
    sf.attrs.set("inputs", inputs_note(m, net, po));
    sf.attrs.set("calibration", fmt::format("{}", fmt::join(o.calibrate, " ")));
    sf.attrs.set("ps_shards", o.ps_shards);
    sf.attrs.set("ps_placement", net.ps_placement);
    std::string w;
    for (const auto& x : warnings) w += (w.empty() ? "" : "; ") + x;
    sf.attrs.set("warnings", w);
    study::write_study_file(o.output, sf);
    out << "project: " << sf.runs.rows() << " predictions -> " << o.output << "\n";
  }
  return 0;
}

}  // namespace scalebench::project
