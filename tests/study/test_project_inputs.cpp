// test_project_inputs.cpp — what `scalebench project` reads: a trace written by the Trace class (the
// first step skipped, its provenance round-tripped with its types), the batch and model checked
// against that provenance, the study file's notes, and bad inputs failing with one line naming the
// file. The model itself is tested in test_project.cpp and test_project_stragglers.cpp.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>

#include <cmath>
#include <fstream>
#include <sstream>
#include <tuple>

#include "harness/study/analysis/study_file.h"
#include "harness/study/project/netmodel.h"
#include "harness/study/project/project_cli.h"
#include "harness/study/project/projection.h"
#include "harness/train/trace.h"
#include "harness/train/train_fields.h"
#include "kernels/common/check.h"
#include "kernels/common/json.h"
#include "tests/common/harness_test_util.h"
#include "tests/study/project_fixtures.h"

namespace scalebench::project {
namespace {
using fixtures::net, fixtures::three_layers, fixtures::spread_steps;

TEST(ProjectTrace, ReadsWhatTrainWritesAndSkipsTheFirstStep) {
  sbtest::TempDir d;
  const std::string path = d.path() + "/t.json";
  trace::Trace tr(path, 0);
  const auto t0 = trace::Clock::now();
  const auto ms = [](double v) { return std::chrono::duration_cast<trace::Clock::duration>(std::chrono::duration<double, std::milli>(v)); };
  for (int s = 0; s < 3; ++s) {
    const auto at = t0 + ms(100.0 * s);
    const double k = s == 0 ? 10.0 : 1.0;  // the first step is 10x slower: it must not count
    using trace::SpanCat;
    tr.add(SpanCat::step, std::to_string(s + 1), at, at + ms(50 * k));
    tr.add(SpanCat::phase, "data", at, at + ms(1 * k));
    tr.add(SpanCat::phase, "forward", at + ms(1 * k), at + ms(11 * k));
    tr.add(SpanCat::phase, "backward", at + ms(11 * k), at + ms(41 * k));
    tr.add(SpanCat::layer, "head", at + ms(11 * k), at + ms(21 * k), trace::kTrainRow, {{"begin", 100}, {"end", 300}});
    tr.add(SpanCat::layer, "enc0", at + ms(21 * k), at + ms(41 * k), trace::kTrainRow, {{"begin", 0}, {"end", 100}});
    tr.add(SpanCat::phase, "optimizer", at + ms(41 * k), at + ms(43 * k));
  }
  tr.write();
  const MeasuredStep m = read_trace(path);
  EXPECT_EQ(m.steps, 2);
  EXPECT_NEAR(m.fwd_s, 0.010, 1e-6);
  EXPECT_NEAR(m.bwd_s, 0.030, 1e-6);
  EXPECT_NEAR(m.update_s, 0.002, 1e-6);
  ASSERT_EQ(m.layers.size(), 2u);
  EXPECT_EQ(m.layers[0].name, "head");
  EXPECT_EQ(m.layers[0].elems, 200);
  EXPECT_NEAR(m.layers[1].bwd_s, 0.020, 1e-6);
  EXPECT_EQ(m.params, 300);
  // not a trace
  std::ofstream(d.path() + "/x.json") << "{}\n";
  try {
    read_trace(d.path() + "/x.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("x.json is not a trace written by train --trace"), std::string::npos) << e.what();
  }
}


// ---- the trace's provenance and the inputs checked against it ----------------------------------------

// A 3-step trace like ProjectTrace.ReadsWhatTrainWritesAndSkipsTheFirstStep's, with `prov`.
std::string write_trace(const std::string& path, trace::Provenance prov) {
  trace::Trace tr(path, 0, std::move(prov));
  const auto t0 = trace::Clock::now();
  const auto ms = [](double v) { return std::chrono::duration_cast<trace::Clock::duration>(std::chrono::duration<double, std::milli>(v)); };
  for (int s = 0; s < 3; ++s) {
    const auto at = t0 + ms(100.0 * s);
    using trace::SpanCat;
    tr.add(SpanCat::step, std::to_string(s + 1), at, at + ms(50));
    tr.add(SpanCat::phase, "forward", at, at + ms(10 + s));
    tr.add(SpanCat::phase, "backward", at + ms(10 + s), at + ms(40 + s));
    tr.add(SpanCat::layer, "head", at + ms(10 + s), at + ms(40 + s), trace::kTrainRow, {{"begin", 0}, {"end", 300}});
  }
  tr.write();
  return path;
}

trace::Provenance unet_batch(std::int64_t batch, std::int64_t accumulate) {
  trace::Provenance p;
  p.config = {{"model", std::string("unet:depth=3,base=16")}, {"batch", batch}, {"accumulate", accumulate},
              {"lr", 0.05}, {"warmup_epochs", 0.0}, {"run_id", std::string("abc123")}};
  p.context = {{"hostnames", std::string("node\"7")}, {"git_sha", std::string("0123abcd")}, {"cpu_threads", std::int64_t(2)},
               {"environment", std::string("A=1\nB=2\n")}};
  return p;
}

TEST(ProjectTrace, ProvenanceRoundTripsWithItsTypes) {
  sbtest::TempDir d;
  const trace::Provenance p = unet_batch(8, 1);
  const trace::TraceFile f = trace::read_trace_file(write_trace(d.path() + "/t.json", p), "test");
  EXPECT_EQ(f.rank, 0);
  EXPECT_EQ(f.provenance.config, p.config);  // 0.0 stays a double, 8 an integer
  EXPECT_EQ(f.provenance.context, p.context);
  // a trace without provenance (older scalebench, or a run without the recording caller)
  const trace::TraceFile old = trace::read_trace_file(write_trace(d.path() + "/old.json", {}), "test");
  EXPECT_TRUE(old.provenance.empty());
  // merge keeps the lowest rank's
  const std::string r1 = d.path() + "/t.rank1.json";
  { trace::Trace(r1, 1).write(); }
  trace::merge({r1, d.path() + "/t.json"}, d.path() + "/m.json");
  EXPECT_EQ(trace::read_trace_file(d.path() + "/m.json", "test").provenance.context, p.context);
  // a provenance value that is not a string or a number: one line naming the file and the member
  {
    json::Json doc = json::read_file(d.path() + "/t.json", "test");
    doc["otherData"]["config"]["batch"] = json::Json::array({8});
    std::ofstream(d.path() + "/bad.json") << json::layout(doc);
  }
  try {
    trace::read_trace_file(d.path() + "/bad.json", "test");
    FAIL() << "a malformed config must be refused";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "test: " + d.path() + "/bad.json: otherData.config.batch is array, expected a string or a number");
  }
  // the steps' compute for the band and the stragglers: 40 and 42 ms (forward 11/12, backward 30)
  const MeasuredStep m = read_trace(d.path() + "/t.json");
  ASSERT_EQ(m.step_compute_s.size(), 2u);
  EXPECT_NEAR(m.step_compute_s[0], 0.041, 1e-6);
  EXPECT_NEAR(m.step_compute_s[1], 0.042, 1e-6);
}

// run_project on a trace with `prov`; the table, or the error's text.
std::string project_with(const trace::Provenance& prov, ProjectCli o) {
  sbtest::TempDir d;
  o.trace = write_trace(d.path() + "/n1.json", prov);
  o.network = o.network.empty() && o.commbench.empty() ? "1gbe" : o.network;
  o.max_devices = 2;
  std::ostringstream out;
  try {
    run_project(o, out);
  } catch (const Error& e) {
    return std::string("error: ") + e.what();
  }
  return out.str();
}

TEST(ProjectInputs, BatchAndModelAreCheckedAgainstTheTrace) {
  const auto has = [](const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  };
  ProjectCli o;
  // the trace's batch and model by default, its provenance in the header
  std::string t = project_with(unet_batch(8, 1), o);
  EXPECT_TRUE(has(t, "batch 8 per device")) << t;
  EXPECT_TRUE(has(t, "abc123 (unet:depth=3,base=16, threads -, backend -) on node\"7, commit 0123abcd")) << t;
  // a named profile is all it has: said, with the way out
  EXPECT_TRUE(has(t, "profile 1gbe is a nameplate rate")) << t;
  EXPECT_TRUE(has(t, "calibrate with --commbench")) << t;
  // --batch that contradicts it: one line naming both
  o.batch = 32;
  t = project_with(unet_batch(8, 1), o);
  EXPECT_TRUE(has(t, "error: project: --batch 32 contradicts --trace")) << t;
  EXPECT_TRUE(has(t, "n1.json, whose run trained 8 images per device per step")) << t;
  EXPECT_EQ(t.find('\n'), std::string::npos) << t;
  // accumulated micro-batches: a step's images are batch x accumulate
  o.batch = 8;
  t = project_with(unet_batch(8, 4), o);
  EXPECT_TRUE(has(t, "trained 32 (--batch 8 x --accumulate 4) images per device per step")) << t;
  o.batch = 32;
  EXPECT_TRUE(has(project_with(unet_batch(8, 4), o), "batch 32 per device"));
  // the model: the same spec in another order is the same model; another is refused
  o.batch = 0;
  o.model = "unet:base=16,depth=3";
  EXPECT_TRUE(has(project_with(unet_batch(8, 1), o), "batch 8 per device"));
  o.model = "vgg16";
  t = project_with(unet_batch(8, 1), o);
  EXPECT_TRUE(has(t, "error: project: --model vgg16 contradicts --trace")) << t;
  EXPECT_TRUE(has(t, "whose run trained unet:depth=3,base=16")) << t;
  // an older trace: --batch needed, then taken with a warning
  o.model.clear();
  t = project_with({}, o);
  EXPECT_TRUE(has(t, "error: project: --trace")) << t;
  EXPECT_TRUE(has(t, "records no batch")) << t;
  o.batch = 8;
  t = project_with({}, o);
  EXPECT_TRUE(has(t, "# warning: ")) << t;
  EXPECT_TRUE(has(t, "records no batch: --batch 8 is taken unchecked")) << t;
  EXPECT_TRUE(has(t, "the trace records no provenance")) << t;
  // a slow node is part of the straggler term: said in the header; without the term, refused
  o.batch = 0;
  o.slow_node = 0.8;
  t = project_with(unet_batch(8, 1), o);
  EXPECT_TRUE(has(t, "one of them at 0.8 of the traced speed (--slow-node)")) << t;
  o.no_stragglers = true;
  t = project_with(unet_batch(8, 1), o);
  EXPECT_TRUE(has(t, "error: project: --slow-node 0.8 is part of the straggler term, which --no-stragglers turns off")) << t;
  EXPECT_EQ(t.find('\n'), std::string::npos) << t;
}

TEST(ProjectInputs, PsShardsCoverEveryNodeCountProjected) {
  ProjectCli o;
  o.ps_shards = "2:1";
  std::string t = project_with(unet_batch(8, 1), o);
  EXPECT_NE(t.find("# ps shards: between nodes, a push to and a pull from parameter-server shards on the nodes "
                   "(NODES:SERVERS 2:1)"), std::string::npos) << t;
  EXPECT_NE(t.find("# ps placement: equal shares (1/SERVERS of the gradient a server)\n"), std::string::npos) << t;
  o.ps_shards = "4:1";  // project_with projects N = 1, 2: two nodes have no server count
  t = project_with(unet_batch(8, 1), o);
  EXPECT_EQ(t, "error: project: --ps-shards 4:1 gives no server count for 2 nodes (N = 2 at 1 ranks per node)") << t;
  o.ps_shards = "2:3";
  t = project_with(unet_batch(8, 1), o);
  EXPECT_NE(t.find("error: --ps-shards '2:3': 2:3 (expected 2 or more nodes and 1 to that many servers)"),
            std::string::npos) << t;
  // a transport's connections: said on the network line and the inputs line; not several NICs
  o.ps_shards = "2:1";
  o.network = "tfgrpc";
  t = project_with(unet_batch(8, 1), o);
  EXPECT_NE(t.find("# network: inter-node alpha 115.0 us, 0.239 GB/s a connection, a node's connections together up "
                   "to 0.548 GB/s (profile tfgrpc)"), std::string::npos) << t;
  EXPECT_NE(t.find("a connection's; a node's connections together: assumed 0.8 to 24 Gbit/s (point 4.38 Gbit/s, never "
                   "below one connection's)"), std::string::npos) << t;
  o.nics_per_node = 2;
  t = project_with(unet_batch(8, 1), o);
  EXPECT_EQ(t, "error: project: --nics-per-node 2 with --network tfgrpc: a transport's rate is its connections' (its "
               "stack's), not a link's; leave --nics-per-node out") << t;
}

TEST(ProjectInputs, PsVariablesArePlacedAndSaid) {
  sbtest::TempDir d;
  ProjectCli o;
  o.ps_shards = "2:1";
  o.ps_variables = d.path() + "/v.txt";
  std::ofstream(o.ps_variables) << "kernel 8000000 trainable\nmoving_mean 4000000 fixed\n";
  std::string t = project_with(unet_batch(8, 1), o);
  EXPECT_NE(t.find("# ps placement: whole variables, greedy (each onto the server with the fewest bytes so far, "
                   "TensorFlow's GreedyLoadBalancingStrategy with byte_size_load_fn), the 2 variables of " +
                   o.ps_variables + " (12.0 MB, 8.0 MB of them trainable); the busiest server's share of the gradient, "
                   "NODES:SHARE 2:1.000\n"), std::string::npos) << t;
  o.ps_placement = PsPlacement::round_robin;
  t = project_with(unet_batch(8, 1), o);
  EXPECT_NE(t.find("# ps placement: whole variables, round-robin (the i-th onto server i mod SERVERS"), std::string::npos) << t;
  std::ofstream(o.ps_variables) << "kernel 8e6 trainable\n";
  t = project_with(unet_batch(8, 1), o);
  EXPECT_EQ(t, "error: --ps-variables " + o.ps_variables + ":1: 'kernel 8e6 trainable' is not NAME BYTES "
               "trainable|fixed (BYTES a positive integer)") << t;
  o.ps_shards.clear();
  t = project_with(unet_batch(8, 1), o);
  EXPECT_EQ(t, "error: project: --ps-variables " + o.ps_variables + " needs --ps-shards (the servers at each node count)")
      << t;
}

TEST(ProjectInputs, TheHeaderSaysWhereTheRingsStepsComeFrom) {
  sbtest::TempDir d;
  json::Json rows = json::Json::array();
  for (int k = 0; k < 3; ++k)
    rows.push_back(fixtures::ring_row(1 << (20 + k), 1000 << k, {{"cpu_us", 1.0}, {"step_us", {400 << k, 600 << k}}}));
  ProjectCli o;
  o.commbench = fixtures::commbench_file(d.path() + "/cb.json", 2, rows);
  std::string t = project_with(unet_batch(8, 1), o);
  EXPECT_NE(t.find("# ring steps: on: a ring over the network is a pipeline whose transfers are drawn from the "
                   "2 ranks' measured steps"), std::string::npos) << t;
  EXPECT_NE(t.find("(its resampling interval: x"), std::string::npos) << t;
  // a calibration of calls back to back (no gap_ms): the header says what training's calls follow
  EXPECT_NE(t.find("# network: the calibration's calls came back to back, where training's exchange follows "),
            std::string::npos) << t;
  o.no_stragglers = true;
  t = project_with(unet_batch(8, 1), o);
  EXPECT_NE(t.find("every ring step takes the calibration's mean"), std::string::npos) << t;
  EXPECT_EQ(t.find("# ring steps:"), std::string::npos) << t;
  // a named profile has no steps: said
  ProjectCli p;
  t = project_with(unet_batch(8, 1), p);
  EXPECT_NE(t.find("# ring steps: no measured steps"), std::string::npos) << t;
}

// The `# inputs:` line says which inputs were assumed and with what range: when gradients are ready
// (a trace's layers, or a described step's assumed ones), and the intra-node link (given, or assumed:
// a GPU step's with the GPU links' range, a CPU run's with none).
TEST(ProjectInputs, TheHeaderSaysWhetherReadinessAndTheIntraNodeLinkWereAssumed) {
  const auto inputs = [](const std::string& t) {
    const std::size_t at = t.find("# inputs: ");
    return at == std::string::npos ? t : t.substr(at, t.find('\n', at) - at);
  };
  ProjectCli o;
  std::string t = inputs(project_with(unet_batch(8, 1), o));  // a CPU trace (no backend recorded)
  EXPECT_NE(t.find("gradients ready: traced (1 layers)"), std::string::npos) << t;
  EXPECT_NE(t.find("intra-node link: assumed (2 us, 5 GB/s), no range"), std::string::npos) << t;
  trace::Provenance cuda = unet_batch(8, 1);
  cuda.config.push_back({"backend", std::string("cuda")});
  t = inputs(project_with(cuda, o));
  EXPECT_NE(t.find("intra-node link: assumed (GPU links, PCIe to NVLink) 3.9 to 377 GB/s, alpha 1.8 to 20 us "
                   "(point 5 GB/s, 2 us)"), std::string::npos) << t;
  o.intra_gbps = 300;
  t = inputs(project_with(cuda, o));
  EXPECT_NE(t.find("intra-node link: given (2 us, 300 GB/s), no range"), std::string::npos) << t;
  // a described step (tools/synthetic_trace.py: options recorded, no context): readiness assumed, a GPU's link
  trace::Provenance described;
  described.config = {{"model", std::string("vgg16")}, {"batch", std::int64_t(8)}};
  ProjectCli d;
  t = inputs(project_with(described, d));
  EXPECT_NE(t.find("gradients ready: assumed, from all at the end of backward to spread evenly over it (point: the "
                   "trace's 1 layers)"), std::string::npos) << t;
  EXPECT_NE(t.find("intra-node link: assumed (GPU links"), std::string::npos) << t;
  // calibrated on a measured point with the trace's layers and the stated intra-node link: the fitted
  // link absorbs what the point costs beyond it, so neither keeps a range (the calibrated band stays narrow)
  d.calibrate = {"N=2:eff=0.8"};
  t = inputs(project_with(described, d));
  EXPECT_NE(t.find("gradients ready: assumed, the trace's 1 layers, no range: the calibrated link absorbs it"),
            std::string::npos) << t;
  EXPECT_NE(t.find("intra-node link: assumed (2 us, 5 GB/s), no range: the calibrated link absorbs it"),
            std::string::npos) << t;
  // a point that needs a link past 1gbe's range (941 Mbit/s at most, at the range's middle latency) and
  // that the link at its fastest reaches: the point's other reading, which the band takes in
  d.calibrate = {"N=2:eff=0.99"};
  const std::string all = project_with(described, d);
  EXPECT_NE(all.find("the band takes in the point's other reading: the link at its fastest (0.941 Gbit/s)"),
            std::string::npos) << all;
  t = inputs(all);
  EXPECT_NE(t.find("gradients ready: assumed, the trace's 1 layers: the calibrated link absorbs it; or, the point's "
                   "other reading (the band takes in both), the link at its fastest (0.941 Gbit/s, 20 us)"),
            std::string::npos) << t;
  EXPECT_NE(all.find("and the calibration point's other reading's (the # inputs: line)"), std::string::npos) << all;
}

TEST(ProjectInputs, TheStudyFileRecordsTheProvenanceBandAndNotes) {
  sbtest::TempDir d;
  ProjectCli o;
  o.trace = write_trace(d.path() + "/n1.json", unet_batch(8, 1));
  o.network = "1gbe";
  o.max_devices = 2;
  o.output = d.path() + "/p.h5";
  std::ostringstream out;
  ASSERT_EQ(run_project(o, out), 0);
  const study::StudyFile f = study::read_study_file(o.output);
  EXPECT_EQ(f.attrs.str("measured_run_id"), "abc123");
  EXPECT_EQ(f.attrs.str("stragglers"), "on");
  EXPECT_EQ(f.attrs.str("ring_steps").rfind("no measured steps (a named profile", 0), 0u) << f.attrs.str("ring_steps");
  EXPECT_NE(f.attrs.str("network_note").find("calibrate with --commbench"), std::string::npos);
  EXPECT_EQ(f.attrs.str("warnings"), "");
  EXPECT_EQ(f.attrs.str("study"), "projection unet:depth=3,base=16");
  ASSERT_GT(f.runs.rows(), 0u);
  for (std::size_t r = 0; r < f.runs.rows(); ++r) {
    EXPECT_EQ(f.runs.str("hostnames", r), "node\"7");
    EXPECT_EQ(f.runs.str("model", r), "unet:depth=3,base=16");
    EXPECT_EQ(f.runs.integer("batch", r) * f.runs.integer("world_size", r), f.runs.integer("global_batch", r));
    EXPECT_LE(f.runs.num("efficiency_band_lo", r), f.runs.num("efficiency", r));
    EXPECT_GE(f.runs.num("efficiency_band_hi", r), f.runs.num("efficiency", r));
    EXPECT_GE(f.runs.num("straggler_factor", r), 1.0);
  }
}

TEST(ProjectInputs, RowsCarryTheTracesContext) {
  MeasuredStep m = three_layers();
  m.provenance = unet_batch(8, 1);
  std::ostringstream table;
  const ProjectOptions o{.batch = 8, .bucket_mb = 4.0, .max_devices = 2};
  const record::Table t = project_all(m, net(0, 1e8), o, "toy", true, comm::WireType::f32, table);
  ASSERT_GT(t.rows(), 0u);
  for (std::size_t r = 0; r < t.rows(); ++r) {
    EXPECT_EQ(t.str("hostnames", r), "node\"7");
    EXPECT_EQ(t.str("git_sha", r), "0123abcd");
    EXPECT_EQ(t.str("cpu_threads", r), "2");  // a string column, as collect writes it
  }
}

// `project --trace t.json ARGS` through add_project: the options, and the parse error's words ("" if none).
std::pair<ProjectCli, std::string> parse_project(std::vector<std::string> args) {
  CLI::App app;
  ProjectCli o;
  add_project(app, o);
  args.insert(args.begin(), {"project", "--trace", "t.json"});
  std::reverse(args.begin(), args.end());  // CLI11 takes a vector in reverse order
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return {o, e.what()};
  }
  return {o, ""};
}

// --calibrate takes one point an occurrence, as many occurrences as points (two or more fit the
// latency too: test_project_calibrate.cpp); a second word after one is not a point.
TEST(ProjectInputs, CalibrateTakesOnePointAnOccurrence) {
  const auto [two, ok] = parse_project({"--calibrate", "N=2:eff=0.9", "--calibrate", "N=4:eff=0.8"});
  EXPECT_EQ(ok, "");
  EXPECT_EQ(two.calibrate, (std::vector<std::string>{"N=2:eff=0.9", "N=4:eff=0.8"}));
  EXPECT_NE(parse_project({"--calibrate", "N=2:eff=0.9", "N=4:eff=0.8"}).second, "");
  // and the header names both
  trace::Provenance described;
  described.config = {{"model", std::string("vgg16")}, {"batch", std::int64_t(8)}};
  ProjectCli d;
  d.calibrate = {"N=2:eff=0.9", "N=2:eff=0.8"};
  EXPECT_NE(project_with(described, d).find("two points at N = 2"), std::string::npos);
}

// --bucket-mb and --compression are train's options, from their rows of the train table: the same
// help, default, parse and check as `train`'s (one description each).
TEST(ProjectInputs, TrainOptionsComeFromTheTrainTable) {
  for (const std::string key : {"bucket_mb", "compression"}) {
    CLI::App app;
    ProjectCli o;
    CLI::App* c = add_project(app, o);
    const Field<TrainConfig>* f = find_train_field(key);
    ASSERT_NE(f, nullptr) << key;
    const CLI::Option* opt = c->get_option(f->flag);
    EXPECT_EQ(opt->get_description(), f->help) << key;
    EXPECT_EQ(opt->get_default_str(), f->default_text()) << key;
  }
  const auto parse = parse_project;
  const auto [given, ok] = parse({"--bucket-mb", "0.5", "--compression", "fp16"});
  EXPECT_EQ(ok, "");
  EXPECT_EQ(given.train.bucket_mb, 0.5);
  EXPECT_EQ(given.train.compression, comm::WireType::f16);
  const auto [defaults, none] = parse({});
  EXPECT_EQ(none, "");
  EXPECT_EQ(defaults.train.bucket_mb, kDefaultBucketMb);
  EXPECT_EQ(defaults.train.compression, comm::WireType::f32);
  // train's checks and their words
  TrainConfig t;
  EXPECT_EQ(parse({"--bucket-mb", "0"}).second, "--bucket-mb: " + *find_train_field("bucket_mb")->parse(t, "0"));
  EXPECT_EQ(parse({"--compression", "fp8"}).second, "--compression: " + *find_train_field("compression")->parse(t, "fp8"));
}


// Issue 48, case 7: a trace whose batch is 0 made project loop forever, a batch of -8 printed NaN
// rows with exit 0, and a trace of an N = 4 run was taken as an N = 1 step. Each is one line now.
TEST(ProjectInputs, ADamagedOrMultiRankTraceIsRefused) {
  ProjectCli o;
  const auto refusal = [&](trace::Provenance p) {
    const std::string t = project_with(p, o);
    EXPECT_EQ(t.find('\n'), std::string::npos) << t;  // one line
    return t;
  };
  EXPECT_NE(refusal(unet_batch(0, 1)).find("records batch 0: a measured run trains at least one image"), std::string::npos);
  EXPECT_NE(refusal(unet_batch(-8, 1)).find("records batch -8"), std::string::npos);
  EXPECT_NE(refusal(unet_batch(8, 0)).find("records accumulate 0"), std::string::npos);
  trace::Provenance four = unet_batch(8, 1);
  four.config.push_back({"world_size", std::int64_t(4)});
  EXPECT_NE(refusal(four).find("is of a run of 4 devices: project predicts the exchange from an N = 1 run's trace"),
            std::string::npos);
  trace::Provenance one = unet_batch(8, 1);
  one.config.push_back({"world_size", std::int64_t(1)});
  EXPECT_NE(project_with(one, o).find("batch 8 per device"), std::string::npos);
}

// The spans are placed in their steps by time: a trace whose `ts` carry none (every ts 0, steps
// starting together, phases outside their steps) is refused with one line naming the file and the
// field.
// Every ts 0 used to put every span in every step and project a band ten times too narrow.
TEST(ProjectTrace, TimestampsWithoutTimeAreRefused) {
  sbtest::TempDir d;
  const std::string good = write_trace(d.path() + "/t.json", unet_batch(8, 1));
  const auto rewritten = [&](const std::string& name, const auto& change) {
    json::Json doc = json::read_file(good, "test");
    int k = 0;
    for (auto& e : doc["traceEvents"])
      if (e["ph"] == "X") change(e, k++);
    std::ofstream(d.path() + "/" + name) << json::layout(doc);
    return d.path() + "/" + name;
  };
  const auto refusal = [](const std::string& path) -> std::string {
    try {
      read_trace(path);
    } catch (const Error& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(read_trace(good).steps, 2);
  const std::string zero = rewritten("zero.json", [](json::Json& e, int) { e["ts"] = 0.0; });
  std::string t = refusal(zero);
  EXPECT_NE(t.find("--trace " + zero + ": field ts: 'step "), std::string::npos) << t;
  EXPECT_NE(t.find("the steps' timestamps carry no time"), std::string::npos) << t;
  EXPECT_EQ(t.find('\n'), std::string::npos) << t;
  // Only the steps' ts equal (their phases still in time): the same refusal.
  const std::string same = rewritten("same.json", [](json::Json& e, int) {
    if (e["cat"] == "step") e["ts"] = 1000.0;
  });
  t = refusal(same);
  EXPECT_NE(t.find("both start at ts 1000 us; the steps' timestamps carry no time"), std::string::npos) << t;
  // The steps' times right but every other span at ts 0: step 2 holds none of its phases.
  const std::string phases = rewritten("phases.json", [](json::Json& e, int) {
    if (e["cat"] != "step") e["ts"] = 0.0;
  });
  t = refusal(phases);
  EXPECT_NE(t.find("field ts: 'step 2' (ts "), std::string::npos) << t;
  EXPECT_NE(t.find("holds no forward phase span"), std::string::npos) << t;
}
}  // namespace
}  // namespace scalebench::project
