// test_project.cpp — `scalebench project`'s network and step model on hand-computed cases: the
// alpha-beta allreduce costs per strategy, the bucket formation and overlap simulation, strong and
// weak scaling, compression, and the commbench fit recovering known parameters. The straggler term
// and the band are in test_project_stragglers.cpp, the trace and the inputs checked against it in
// test_project_inputs.cpp. All run in well under a second.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>
#include <vector>

#include "harness/study/analysis/study_file.h"
#include "harness/study/project/netmodel.h"
#include "harness/study/project/project_cli.h"
#include "harness/study/project/projection.h"
#include "harness/train/trace.h"
#include "kernels/common/check.h"
#include "tests/common/harness_test_util.h"
#include "tests/study/project_fixtures.h"

namespace scalebench::project {
namespace {
using fixtures::net, fixtures::three_layers, fixtures::spread_steps;

TEST(ProjectNet, AllreduceCostsByHand) {
  const Network n1 = net(10e-6, 1e8);
  // ring, 4 ranks on 4 nodes: 2*3*10us + 2*3/4 * 1 MB / 100 MB/s
  EXPECT_NEAR(allreduce_time(StrategyKind::ring, 4, 1e6, n1), 6e-5 + 0.015, 1e-12);
  EXPECT_DOUBLE_EQ(allreduce_time(StrategyKind::ring, 1, 1e6, n1), 0.0);
  // all 4 ranks in one node: the intra-node link
  EXPECT_NEAR(allreduce_time(StrategyKind::ring, 4, 1e6, net(10e-6, 1e8, 4)), 6e-6 + 0.0015, 1e-12);
  // hierarchical, 8 ranks, 4 per node: chains 2*(3*1us + 1 MB/1 GB/s) + ring of 2 leaders 2*10us + 1 MB/100 MB/s
  EXPECT_NEAR(allreduce_time(StrategyKind::hierarchical, 8, 1e6, net(10e-6, 1e8, 4)), 0.002006 + 0.01002, 1e-12);
  // native is costed as the ring
  EXPECT_DOUBLE_EQ(allreduce_time(StrategyKind::multiworker, 4, 1e6, n1), allreduce_time(StrategyKind::ring, 4, 1e6, n1));
  // parameter server: 4 workers' 1 MB through the server's link + 2 alpha
  EXPECT_NEAR(ps_step_time(4, 1e6, n1), 2e-5 + 0.04, 1e-12);
}


TEST(ProjectNet, ParameterServerShardsByHand) {
  // the busiest link, in gradients a phase: max((L-1)/P, P < L ? 1 : (P-1)/P)
  EXPECT_DOUBLE_EQ(ps_shard_load(2, 1), 1.0);            // in 1/1; out 1 (the node without a shard)
  EXPECT_DOUBLE_EQ(ps_shard_load(8, 2), 3.5);            // in 7/2
  EXPECT_DOUBLE_EQ(ps_shard_load(8, 6), 7.0 / 6.0);      // in 7/6 over out 1
  EXPECT_DOUBLE_EQ(ps_shard_load(8, 8), 0.875);          // P = L: 7/8 each way, a ring's bytes over two phases
  EXPECT_DOUBLE_EQ(ps_shard_load(128, 116), 127.0 / 116.0);
  EXPECT_THROW(ps_shard_load(4, 5), Error);
  // 8 ranks, one a node, 2 shards: a push and a pull of 3.5 x 1 MB at 100 MB/s, 10 us each;
  // the ring it replaces: 2*7*10 us + 2*7/8 * 1 MB / 100 MB/s = 0.01764
  Network n = net(10e-6, 1e8);
  n.ps_shards = {{8, fixtures::equal_shares(2)}, {2, fixtures::equal_shares(1)}};
  EXPECT_NEAR(allreduce_time(StrategyKind::ring, 8, 1e6, n), 2 * (10e-6 + 0.035), 1e-12);
  EXPECT_NEAR(allreduce_time(StrategyKind::multiworker, 2, 1e6, n), 2 * (10e-6 + 0.01), 1e-12);
  EXPECT_EQ(network_ring_ranks(StrategyKind::ring, 8, n), 0);  // no ring crosses the network: no ring steps
  EXPECT_THROW(allreduce_time(StrategyKind::ring, 4, 1e6, n), Error);  // 4 nodes: no server count given
  // hierarchical, 16 ranks at 4 a node: the chains 2*(3*1 us + 1 MB / 1 GB/s), then 4 nodes to 1 shard:
  // in 3/1 a phase
  Network h = net(10e-6, 1e8, 4);
  h.ps_shards = {{4, fixtures::equal_shares(1)}};
  EXPECT_NEAR(allreduce_time(StrategyKind::hierarchical, 16, 1e6, h), 0.002006 + 2 * (10e-6 + 0.03), 1e-12);
  // a flat ring of 4 ranks a node has no exchange between nodes alone to replace: it stays a ring
  EXPECT_DOUBLE_EQ(allreduce_time(StrategyKind::ring, 16, 1e6, h),
                   allreduce_time(StrategyKind::ring, 16, 1e6, net(10e-6, 1e8, 4)));
  EXPECT_EQ(parse_ps_shards("2:1,4:3,128:116"), (std::map<int, int>{{2, 1}, {4, 3}, {128, 116}}));
  for (const char* bad : {"2:3", "1:1", "8:0", "2:1,2:1", "2-1", "2:1,", "2:1x"})
    EXPECT_THROW(parse_ps_shards(bad), Error) << bad;
}

TEST(ProjectNet, ATransportsConnectionsAddUpAtTheServers) {
  // a transport (networks.def's tfgrpc): 100 MB/s a connection, a node's connections together 250 MB/s
  Network t = net(10e-6, 1e8);
  t.inter.node_bytes_per_s = 2.5e8;
  t.ps_shards = {{8, fixtures::equal_shares(2)}, {2, fixtures::equal_shares(1)}};
  // 8 nodes, 2 shards: the busiest node takes 3.5 x 1 MB a phase over 7 connections, at 250 MB/s
  // (a link's 100 MB/s: 0.035 s); no connection carries more than one share, 0.5 MB at 100 MB/s
  EXPECT_NEAR(allreduce_time(StrategyKind::ring, 8, 1e6, t), 2 * (10e-6 + 3.5e6 / 2.5e8), 1e-12);
  // 2 nodes, 1 shard: one connection carries the whole gradient; the node's rate does not help it
  EXPECT_NEAR(allreduce_time(StrategyKind::ring, 2, 1e6, t), 2 * (10e-6 + 0.01), 1e-12);
  // connections together as fast as 1 GB/s: one connection's share sets the phase, 0.5 MB at 100 MB/s
  t.inter.node_bytes_per_s = 1e9;
  EXPECT_NEAR(allreduce_time(StrategyKind::ring, 8, 1e6, t), 2 * (10e-6 + 0.005), 1e-12);
  // a node is never slower than one connection: a node rate below it is the connection's (a link's cost)
  t.inter.node_bytes_per_s = 5e7;
  Network link = t;
  link.inter.node_bytes_per_s = 0;
  EXPECT_DOUBLE_EQ(allreduce_time(StrategyKind::ring, 8, 1e6, t), allreduce_time(StrategyKind::ring, 8, 1e6, link));
  EXPECT_NEAR(allreduce_time(StrategyKind::ring, 8, 1e6, link), 2 * (10e-6 + 0.035), 1e-12);
  // a ring's rank has one connection each way: the node's rate does not enter
  t.inter.node_bytes_per_s = 1e9;
  t.ps_shards.clear();
  EXPECT_DOUBLE_EQ(allreduce_time(StrategyKind::ring, 8, 1e6, t), allreduce_time(StrategyKind::ring, 8, 1e6, net(10e-6, 1e8)));
  // ps-sync: the server's 4 connections together (4 MB at 1 GB/s) or one connection's 1 MB at 100 MB/s
  EXPECT_NEAR(ps_step_time(4, 1e6, t), 2e-5 + 0.01, 1e-12);
  t.inter.node_bytes_per_s = 2e8;
  EXPECT_NEAR(ps_step_time(4, 1e6, t), 2e-5 + 0.02, 1e-12);
}

TEST(ProjectStep, BucketsAndOverlapByHand) {
  const MeasuredStep m = three_layers();
  // 4 MB buckets = 1 048 576 elements: a+b close one at 30 ms, c the last at 40 ms
  const auto b = buckets_of(m, 1.0, 1 << 20);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_NEAR(b[0].first, 0.030, 1e-12);
  EXPECT_EQ(b[0].second, 2'000'000);
  EXPECT_NEAR(b[1].first, 0.040, 1e-12);
  EXPECT_EQ(b[1].second, 2'000'000);
  // 2 ranks, alpha 0, 100 MB/s: each 8 MB bucket takes 80 ms
  const Network n = net(0, 1e8);
  const ProjectOptions o{.batch = 8, .bucket_mb = 4.0};
  const Prediction one = predict(m, n, o, {StrategyKind::ring, 1});
  EXPECT_NEAR(one.step_s, 0.065, 1e-12);
  // overlap: 30 -> 110 ms, 110 -> 190 ms; exposed 150 ms after backward's 40, and the step's
  // agreement after them (one round at N = 2: 16 bytes at 100 MB/s, 0.16 us)
  const double agree = agreement_time(StrategyKind::ring, 2, n);
  EXPECT_NEAR(agree, 1.6e-7, 1e-15);
  const Prediction p = predict(m, n, o, {StrategyKind::ring, 2});
  EXPECT_NEAR(p.exposed_s, 0.150 + agree, 1e-12);
  EXPECT_NEAR(p.comm_s, 0.160 + agree, 1e-12);
  EXPECT_NEAR(p.step_s, 0.215 + agree, 1e-12);
  EXPECT_NEAR(p.images_per_s, 16 / (0.215 + agree), 1e-9);
  // no overlap: both after backward, 160 ms exposed
  EXPECT_NEAR(predict(m, n, o, {StrategyKind::ring, 2, false, false}).exposed_s, 0.160 + agree, 1e-12);
  // 16-bit wire: 40 ms each, 30 -> 70, 70 -> 110: 70 ms exposed
  EXPECT_NEAR(predict(m, n, o, {StrategyKind::ring, 2, false, true, true}).exposed_s, 0.070 + agree, 1e-12);
  // strong scaling, global batch 8 on 2 ranks: compute halves (30 ms, backward 20 ms), buckets ready at
  // 15 and 20 ms: 15 -> 95, 95 -> 175; exposed 155; step 30 + 155 + 5 (the optimizer does not shrink)
  const Prediction s = predict(m, n, o, {StrategyKind::ring, 2, true});
  EXPECT_NEAR(s.device_batch, 4.0, 0);
  EXPECT_NEAR(s.exposed_s, 0.155 + agree, 1e-12);
  EXPECT_NEAR(s.step_s, 0.190 + agree, 1e-12);
}

TEST(ProjectStep, OverlapTimelineTakesTheExchangesCpuFromBackward) {
  // backward 100 ms; bucket 0 ready at 40 ms, bucket 1 at the end; each 20 ms on the wire
  const std::vector<std::pair<double, std::int64_t>> b = {{0.040, 1}, {0.100, 1}};
  // no CPU: 40 -> 60, backward ends at 100, 100 -> 120
  auto [bwd, end] = overlap_timeline(b, 0.100, {0.020, 0.020}, {0.0, 0.0});
  EXPECT_NEAR(bwd, 0.100, 1e-12);
  EXPECT_NEAR(end, 0.120, 1e-12);
  // 10 ms CPU each: during 40 -> 60 backward runs at half speed (10 ms of its work), so it ends at
  // 110; bucket 1 (its CPU no longer meets backward) 110 -> 130
  std::tie(bwd, end) = overlap_timeline(b, 0.100, {0.020, 0.020}, {0.010, 0.010});
  EXPECT_NEAR(bwd, 0.110, 1e-12);
  EXPECT_NEAR(end, 0.130, 1e-12);
  // a bucket as CPU-bound as its wire time (share 1) stops backward: ready at 90, 90 -> 140 with
  // backward stalled, then its last 10 ms -> 150; bucket 1 150 -> 170
  std::tie(bwd, end) = overlap_timeline({{0.090, 1}, {0.100, 1}}, 0.100, {0.050, 0.020}, {0.080, 0.0});
  EXPECT_NEAR(bwd, 0.150, 1e-12);
  EXPECT_NEAR(end, 0.170, 1e-12);
  // buckets queue: 3 ready at 10, 20, 30 ms, 30 ms each, 15 ms CPU each (share 1/2), backward 40 ms:
  // 10 -> 40 (backward does 15 ms of work in 30: at 25 ms of its 40), 40 -> 70 (the last 15 ms of
  // work take 30 ms: backward ends at 70), 70 -> 100
  std::tie(bwd, end) = overlap_timeline({{0.010, 1}, {0.020, 1}, {0.030, 1}}, 0.040, {0.030, 0.030, 0.030}, {0.015, 0.015, 0.015});
  EXPECT_NEAR(bwd, 0.070, 1e-12);
  EXPECT_NEAR(end, 0.100, 1e-12);
}

TEST(ProjectStep, CommCpuSharedSlowsOnlyOverlappedBackward) {
  const MeasuredStep m = three_layers();
  // 100 MB/s and 5 ms of CPU per wire MB: each 8 MB bucket 80 ms on the wire, 40 ms of CPU (share 1/2)
  Network n = net(0, 1e8);
  n.inter.cpu_per_byte_s = 5e-9;
  EXPECT_NEAR(allreduce_cpu(StrategyKind::ring, 2, 8e6, n), 0.040, 1e-12);
  EXPECT_DOUBLE_EQ(allreduce_cpu(StrategyKind::ring, 2, 8e6, net(0, 1e8)), 0.0);
  const ProjectOptions plain{.batch = 8, .bucket_mb = 4.0};
  ProjectOptions shared = plain;
  shared.comm_cpu_shared = true;
  // overlap: bucket 0 ready at 30 ms; backward's last 10 ms run at half speed: it ends at 50 ms
  // (not 40); bucket 0 30 -> 110, bucket 1 110 -> 190: exposed 140, step 20 + 50 + 140 + 5
  const double agree = agreement_time(StrategyKind::ring, 2, n);  // after the buckets (above)
  const Prediction p = predict(m, n, shared, {StrategyKind::ring, 2});
  EXPECT_NEAR(p.exposed_s, 0.140 + agree, 1e-12);
  EXPECT_NEAR(p.step_s, 0.215 + agree, 1e-12);
  // the same end of the last bucket as without CPU costs: here the wire, not backward, is the bound
  EXPECT_NEAR(predict(m, n, plain, {StrategyKind::ring, 2}).step_s, 0.215 + agree, 1e-12);
  // (overlap_timeline's cases above are the hand-checked ones) shared CPU never makes a step faster,
  // and without overlap (compute idle during the exchange) it changes nothing
  ProjectOptions small = plain, small_shared = shared;
  small.bucket_mb = small_shared.bucket_mb = 1.0;
  EXPECT_GE(predict(m, n, small_shared, {StrategyKind::ring, 2}).step_s, predict(m, n, small, {StrategyKind::ring, 2}).step_s);
  EXPECT_DOUBLE_EQ(predict(m, n, shared, {StrategyKind::ring, 2, false, false}).step_s,
                   predict(m, n, plain, {StrategyKind::ring, 2, false, false}).step_s);
}

TEST(ProjectStep, RowsInTheStudySchema) {
  std::ostringstream table;
  const ProjectOptions o{.batch = 8, .bucket_mb = 4.0, .max_devices = 4};
  const record::Table t = project_all(three_layers(), net(0, 1e8), o, "toy", true, comm::WireType::f32, table);
  // 4 strategies x N = 1, 2, 4 x weak and strong (global batch 8 allows N up to 4)
  EXPECT_EQ(t.rows(), 24u);
  for (std::size_t r = 0; r < t.rows(); ++r) {
    EXPECT_EQ(t.str("status", r), "ok");
    EXPECT_EQ(t.str("source", r), "projection");
    if (t.integer("world_size", r) == 1) {
      EXPECT_NEAR(t.num("efficiency", r), 1.0, 1e-12) << t.str("point_id", r);
    }
    EXPECT_NEAR(t.num("speedup", r), t.num("efficiency", r) * double(t.integer("world_size", r)), 1e-9);
  }
  EXPECT_NE(table.str().find("215.00"), std::string::npos) << table.str();  // ring, weak, N = 2 (above)
  // the projected strategies (StrategyTraits::project_row) in the table's order since it was written
  std::vector<std::string> order;
  for (std::size_t r = 0; r < t.rows(); ++r)
    if (std::find(order.begin(), order.end(), t.str("strategy", r)) == order.end()) order.push_back(t.str("strategy", r));
  EXPECT_EQ(order, (std::vector<std::string>{"ring", "hierarchical", "multiworker", "ps-sync"}));
}

// The step's agreement: ceil(log2 N) rounds, a round with a rank on the same node an intra-node
// message, any other the calibration's measured agreement over its rounds (or a message of the link).
TEST(ProjectNet, AgreementRoundsByHand) {
  // 10 us, 100 MB/s between nodes; 1 us, 1 GB/s inside: one round of 16 x 2^i bytes each
  const Network n = net(10e-6, 1e8);
  const auto inter = [](int i) { return 10e-6 + 16.0 * (1 << i) / 1e8; };
  EXPECT_DOUBLE_EQ(agreement_time(StrategyKind::ring, 1, n), 0.0);
  EXPECT_NEAR(agreement_time(StrategyKind::ring, 2, n), inter(0), 1e-15);
  EXPECT_NEAR(agreement_time(StrategyKind::ring, 8, n), inter(0) + inter(1) + inter(2), 1e-15);
  EXPECT_NEAR(agreement_time(StrategyKind::ring, 5, n), inter(0) + inter(1) + inter(2), 1e-15);  // ceil(log2 5) = 3
  EXPECT_NEAR(agreement_time(StrategyKind::multiworker, 8, n), agreement_time(StrategyKind::ring, 8, n), 1e-15);
  // parameter servers agree on nothing
  EXPECT_DOUBLE_EQ(agreement_time(StrategyKind::ps_sync, 8, n), 0.0);
  // 8 ranks, 2 per node: round 0's partner shares the node (1 us + 16 B at 1 GB/s), rounds 1, 2 cross
  EXPECT_NEAR(agreement_time(StrategyKind::hierarchical, 8, net(10e-6, 1e8, 2)), 1e-6 + 16e-9 + inter(1) + inter(2), 1e-15);
  // measured: 6 ms over a calibration of 2 ranks (1 round) is 6 ms a network round; of 4 (2 rounds), 3 ms
  Network cal = n;
  cal.inter.agree_s = 0.006, cal.inter.measured_ranks = 2;
  EXPECT_NEAR(agreement_time(StrategyKind::ring, 8, cal), 0.018, 1e-15);
  EXPECT_NEAR(agreement_time(StrategyKind::ring, 2, cal), 0.006, 1e-15);
  cal.inter.measured_ranks = 4;
  EXPECT_NEAR(agreement_time(StrategyKind::ring, 8, cal), 0.009, 1e-15);
}

TEST(ProjectNet, CommbenchFitRecoversAlphaBeta) {
  sbtest::TempDir d;
  json::Json rows = json::Json::array();
  for (int k = 0; k < 4; ++k) {
    const std::int64_t bytes = std::int64_t{1} << (16 + 2 * k);
    rows.push_back(fixtures::ring_row(bytes, json::rounded((2 * 100e-6 + double(bytes) / 1e8) * 1e6, 3)));
  }
  rows.push_back({{"algo", "native"}, {"bytes", 4096}, {"count", 1024}, {"time_us", 5.0}});
  const std::string path = fixtures::commbench_file(d.path() + "/cb.json", 2, rows, {{"benchmark", "allreduce"}});
  const AlphaBeta ab = fit_commbench(path, "ring");
  EXPECT_NEAR(ab.alpha_s, 100e-6, 1e-8);
  EXPECT_NEAR(ab.bytes_per_s, 1e8, 1e3);
  EXPECT_EQ(ab.cpu_per_msg_s, 0.0);  // a file without cpu_us: no CPU costs
  EXPECT_EQ(ab.cpu_per_byte_s, 0.0);
  EXPECT_NEAR(ab.fit_residual, 0.0, 1e-5);  // the rows lie on the line (time_us rounded to 1 ns)
  try {
    fit_commbench(path, "native");
    FAIL() << "one size must not fit";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("1 size(s) of algorithm native"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(ProjectNet, NamedNetworksComeFromNetworksDef) {
  // networks.def: SB_NETWORK(1gbe, 1000, 50) -> 1e9 bit/s = 1.25e8 B/s, α = 50 µs.
  const AlphaBeta g = profile("1gbe");
  EXPECT_DOUBLE_EQ(g.bytes_per_s, 1.25e8);
  EXPECT_DOUBLE_EQ(g.alpha_s, 50e-6);
  EXPECT_EQ(g.source, "profile 1gbe");
  const auto names = profile_names();
  ASSERT_GE(names.size(), 5u);
  EXPECT_EQ(names.front(), "100mbe");
  for (const auto& n : names) EXPECT_GT(profile(n).bytes_per_s, 0) << n;
  try {
    profile("5gbe");
    FAIL() << "an unknown profile must be refused";
  } catch (const Error& e) {
    for (const auto& n : names) EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << e.what();
  }
}

TEST(ProjectNet, CommbenchFitRecoversTheExchangesCpu) {
  sbtest::TempDir d;
  json::Json rows = json::Json::array();
  for (int k = 0; k < 4; ++k) {
    // 4 ranks: 6 messages and 1.5 x bytes each way; CPU 50 us per message, 20 ns per wire byte
    const std::int64_t bytes = std::int64_t{1} << (16 + 2 * k);
    const double wire = 1.5 * double(bytes);
    const double t_us = (6 * 10e-6 + wire / 1e8) * 1e6, cpu_us = (6 * 50e-6 + wire * 20e-9) * 1e6;
    rows.push_back(fixtures::ring_row(bytes, json::rounded(t_us, 3), {{"cpu_us", json::rounded(cpu_us, 3)}}));
  }
  const AlphaBeta ab = fit_commbench(fixtures::commbench_file(d.path() + "/cb.json", 4, rows), "ring");
  EXPECT_NEAR(ab.alpha_s, 10e-6, 1e-8);
  EXPECT_NEAR(ab.cpu_per_msg_s, 50e-6, 1e-8);
  EXPECT_NEAR(ab.cpu_per_byte_s, 20e-9, 1e-13);
}

TEST(ProjectNet, CommbenchFitKeepsTheMeasuredCurve) {
  sbtest::TempDir d;
  // 2 ranks, a curve that is not a line: 64K 5 ms, 128K 10 ms, 256K 30 ms, 512K 70 ms
  json::Json rows = json::Json::array();
  const std::int64_t kb[] = {64, 128, 256, 512};
  const double ms[] = {5, 10, 30, 70};
  for (int k = 0; k < 4; ++k) rows.push_back(fixtures::ring_row(kb[k] * 1024, ms[k] * 1e3, {{"cpu_us", ms[k] * 500}}));
  Network n = net(0, 1);
  n.inter = fit_commbench(fixtures::commbench_file(d.path() + "/cb.json", 2, rows), "ring");
  // a call of m bytes at 2 ranks = 2 messages of m/2: a measured size costs what was measured
  EXPECT_NEAR(allreduce_time(StrategyKind::ring, 2, 131072, n), 0.010, 1e-12);
  EXPECT_NEAR(allreduce_time(StrategyKind::ring, 2, 524288, n), 0.070, 1e-12);
  // between 128K (10 ms) and 256K (30 ms): messages of 96K lie halfway between 64K (5) and 128K (15)
  EXPECT_NEAR(allreduce_time(StrategyKind::ring, 2, 196608, n), 0.020, 1e-12);
  // beyond the largest: its message (256K, 35 ms) plus the fitted line's slope
  EXPECT_NEAR(allreduce_time(StrategyKind::ring, 2, 1048576, n), 2 * (0.035 + 262144 / n.inter.bytes_per_s), 1e-12);
  // 4 ranks on 4 nodes: 6 messages of m/4; m = 256K -> messages of 64K (5 ms each)
  EXPECT_NEAR(allreduce_time(StrategyKind::ring, 4, 262144, n), 0.030, 1e-12);
  // the CPU follows its own curve (here half the time)
  EXPECT_NEAR(allreduce_cpu(StrategyKind::ring, 2, 196608, n), 0.010, 1e-12);
  // without samples, the line
  n.inter.samples.clear();
  EXPECT_NEAR(allreduce_time(StrategyKind::ring, 2, 131072, n), 2 * n.inter.alpha_s + 131072 / n.inter.bytes_per_s, 1e-12);
}

}  // namespace
}  // namespace scalebench::project
