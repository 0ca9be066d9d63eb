// test_project.cpp — `scalebench project`'s model on hand-computed cases: the alpha-beta allreduce
// costs per strategy, the bucket formation and overlap simulation, strong and weak scaling,
// compression, the commbench fit recovering known parameters, reading a trace written by the
// Trace class (its provenance included), the straggler term against distributions whose expected
// maximum is known in closed form, the band by hand, the inputs checked against the trace's
// provenance, and bad inputs failing with one line naming the file. All run in well under a second.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <tuple>

#include "harness/study/analysis/study_file.h"
#include "harness/study/project/netmodel.h"
#include "harness/study/project/project_cli.h"
#include "harness/study/project/projection.h"
#include "harness/train/trace.h"
#include "kernels/common/check.h"
#include "tests/common/harness_test_util.h"

namespace scalebench::project {
namespace {

Network net(double alpha, double bw, int ppn = 1) {
  return {.inter = {alpha, bw, "test"}, .intra = {1e-6, 1e9, "test intra"}, .ranks_per_node = ppn};
}

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

MeasuredStep three_layers() {
  MeasuredStep m;
  m.data_s = 0.005, m.fwd_s = 0.015, m.bwd_s = 0.040, m.update_s = 0.005;
  m.layers = {{"a", 0.010, 1'000'000}, {"b", 0.020, 1'000'000}, {"c", 0.010, 2'000'000}};
  m.params = 4'000'000;
  return m;
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
  // overlap: 30 -> 110 ms, 110 -> 190 ms; exposed 150 ms after backward's 40
  const Prediction p = predict(m, n, o, {StrategyKind::ring, 2});
  EXPECT_NEAR(p.exposed_s, 0.150, 1e-12);
  EXPECT_NEAR(p.comm_s, 0.160, 1e-12);
  EXPECT_NEAR(p.step_s, 0.215, 1e-12);
  EXPECT_NEAR(p.images_per_s, 16 / 0.215, 1e-9);
  // no overlap: both after backward, 160 ms exposed
  EXPECT_NEAR(predict(m, n, o, {StrategyKind::ring, 2, false, false}).exposed_s, 0.160, 1e-12);
  // 16-bit wire: 40 ms each, 30 -> 70, 70 -> 110: 70 ms exposed
  EXPECT_NEAR(predict(m, n, o, {StrategyKind::ring, 2, false, true, true}).exposed_s, 0.070, 1e-12);
  // strong scaling, global batch 8 on 2 ranks: compute halves (30 ms, backward 20 ms), buckets ready at
  // 15 and 20 ms: 15 -> 95, 95 -> 175; exposed 155; step 30 + 155 + 5 (the optimizer does not shrink)
  const Prediction s = predict(m, n, o, {StrategyKind::ring, 2, true});
  EXPECT_NEAR(s.device_batch, 4.0, 0);
  EXPECT_NEAR(s.exposed_s, 0.155, 1e-12);
  EXPECT_NEAR(s.step_s, 0.190, 1e-12);
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
  const Prediction p = predict(m, n, shared, {StrategyKind::ring, 2});
  EXPECT_NEAR(p.exposed_s, 0.140, 1e-12);
  EXPECT_NEAR(p.step_s, 0.215, 1e-12);
  // the same end of the last bucket as without CPU costs: here the wire, not backward, is the bound
  EXPECT_NEAR(predict(m, n, plain, {StrategyKind::ring, 2}).step_s, 0.215, 1e-12);
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
  const record::Table t = project_all(three_layers(), net(0, 1e8), o, "toy", true, false, table);
  // 4 strategies x N = 1, 2, 4 x weak and strong (global batch 8 allows N up to 4)
  EXPECT_EQ(t.rows(), 24u);
  for (std::size_t r = 0; r < t.rows(); ++r) {
    EXPECT_EQ(t.str("status", r), "ok");
    EXPECT_EQ(t.str("source", r), "projection");
    if (t.integer("world_size", r) == 1) EXPECT_NEAR(t.num("efficiency", r), 1.0, 1e-12) << t.str("point_id", r);
    EXPECT_NEAR(t.num("speedup", r), t.num("efficiency", r) * double(t.integer("world_size", r)), 1e-9);
  }
  EXPECT_NE(table.str().find("215.00"), std::string::npos) << table.str();  // ring, weak, N = 2 (above)
}

TEST(ProjectNet, CommbenchFitRecoversAlphaBeta) {
  sbtest::TempDir d;
  const std::string path = d.path() + "/cb.json";
  {
    std::ofstream f(path);
    f << "{\n  \"benchmark\": \"allreduce\",\n  \"ranks\": 2,\n  \"results\": [\n";
    for (int k = 0; k < 4; ++k) {
      const double bytes = double(1 << (16 + 2 * k)), t_us = (2 * 100e-6 + bytes / 1e8) * 1e6;
      f << fmt::format("    {{\"algo\": \"ring\", \"bytes\": {}, \"count\": {}, \"time_us\": {:.3f}, \"algbw_GBps\": 0}},\n",
                       bytes, bytes / 4, t_us);
    }
    f << "    {\"algo\": \"native\", \"bytes\": 4096, \"count\": 1024, \"time_us\": 5.000, \"algbw_GBps\": 0}\n  ]\n}\n";
  }
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
  const std::string path = d.path() + "/cb.json";
  {
    std::ofstream f(path);
    f << "{\n  \"ranks\": 4,\n  \"results\": [\n";
    for (int k = 0; k < 4; ++k) {
      // 4 ranks: 6 messages and 1.5 x bytes each way; CPU 50 us per message, 20 ns per wire byte
      const double bytes = double(1 << (16 + 2 * k)), wire = 1.5 * bytes;
      const double t_us = (6 * 10e-6 + wire / 1e8) * 1e6, cpu_us = (6 * 50e-6 + wire * 20e-9) * 1e6;
      f << fmt::format("    {{\"algo\": \"ring\", \"bytes\": {}, \"count\": {}, \"time_us\": {:.3f}, \"algbw_GBps\": 0, "
                       "\"busbw_GBps\": 0, \"max_abs_err\": 0, \"cpu_us\": {:.3f}}}{}\n",
                       bytes, bytes / 4, t_us, cpu_us, k < 3 ? "," : "");
    }
    f << "  ]\n}\n";
  }
  const AlphaBeta ab = fit_commbench(path, "ring");
  EXPECT_NEAR(ab.alpha_s, 10e-6, 1e-8);
  EXPECT_NEAR(ab.cpu_per_msg_s, 50e-6, 1e-8);
  EXPECT_NEAR(ab.cpu_per_byte_s, 20e-9, 1e-13);
}

TEST(ProjectNet, CommbenchFitKeepsTheMeasuredCurve) {
  sbtest::TempDir d;
  const std::string path = d.path() + "/cb.json";
  {
    // 2 ranks, a curve that is not a line: 64K 5 ms, 128K 10 ms, 256K 30 ms, 512K 70 ms
    std::ofstream f(path);
    f << "{\n  \"ranks\": 2,\n  \"results\": [\n";
    const double kb[] = {64, 128, 256, 512}, ms[] = {5, 10, 30, 70};
    for (int k = 0; k < 4; ++k)
      f << fmt::format("    {{\"algo\": \"ring\", \"bytes\": {}, \"count\": {}, \"time_us\": {:.3f}, \"algbw_GBps\": 0, "
                       "\"busbw_GBps\": 0, \"max_abs_err\": 0, \"cpu_us\": {:.3f}}}{}\n",
                       kb[k] * 1024, kb[k] * 256, ms[k] * 1e3, ms[k] * 500, k < 3 ? "," : "");
    f << "  ]\n}\n";
  }
  Network n = net(0, 1);
  n.inter = fit_commbench(path, "ring");
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
    tr.add(SpanCat::layer, "head", at + ms(11 * k), at + ms(21 * k), trace::kTrainRow, "\"begin\": 100, \"end\": 300");
    tr.add(SpanCat::layer, "enc0", at + ms(21 * k), at + ms(41 * k), trace::kTrainRow, "\"begin\": 0, \"end\": 100");
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


// ---- stragglers ------------------------------------------------------------------------------------

TEST(ProjectStragglers, ExpectedMaxOfASmallSampleByHand) {
  // {1, 2}: the max of n draws is 1 only when every draw is 1, probability (1/2)^n
  EXPECT_DOUBLE_EQ(expected_max({2.0, 1.0}, 1), 1.5);
  EXPECT_DOUBLE_EQ(expected_max({2.0, 1.0}, 2), 1 * 0.25 + 2 * 0.75);
  EXPECT_DOUBLE_EQ(expected_max({2.0, 1.0}, 3), 1 * 0.125 + 2 * 0.875);
  EXPECT_DOUBLE_EQ(expected_max({3.0, 3.0, 3.0}, 64), 3.0);
  EXPECT_THROW(expected_max({}, 2), Error);
}

// K samples at the quantiles (i - 1/2)/K of a distribution: their empirical expected maximum tends
// to the distribution's (checked beforehand: K = 100 000 is within 5e-5 relative for the exponential
// at N <= 64, within 2e-9 absolute for the uniform).
std::vector<double> quantiles(int k, double (*inverse_cdf)(double)) {
  std::vector<double> v;
  for (int i = 1; i <= k; ++i) v.push_back(inverse_cdf((i - 0.5) / k));
  return v;
}

TEST(ProjectStragglers, ExpectedMaxMatchesTheClosedForms) {
  constexpr int k = 100000;
  // exponential with mean 0.05 s: E[max of N] = mean x H_N
  const auto exp = quantiles(k, [](double u) { return -0.05 * std::log(1 - u); });
  // uniform on [0.04, 0.06] s: E[max of N] = a + (b - a) N / (N + 1)
  const auto uni = quantiles(k, [](double u) { return 0.04 + 0.02 * u; });
  for (int n : {2, 4, 8, 64}) {
    double h = 0;
    for (int j = 1; j <= n; ++j) h += 1.0 / j;
    EXPECT_NEAR(expected_max(exp, n) / (0.05 * h), 1.0, 1e-4) << n;
    EXPECT_NEAR(expected_max(uni, n), 0.04 + 0.02 * n / (n + 1.0), 1e-8) << n;
  }
  // the straggler factor is that over the mean
  MeasuredStep m;
  m.step_compute_s = uni;
  EXPECT_NEAR(straggler_factor(m, 8), (0.04 + 0.02 * 8 / 9.0) / 0.05, 1e-7);
  EXPECT_DOUBLE_EQ(straggler_factor(m, 1), 1.0);
  EXPECT_DOUBLE_EQ(straggler_factor(MeasuredStep{}, 8), 1.0);  // no samples: no spread known
}

// E[max] with one rank slowed, against the K^n equally likely draws enumerated one by one.
double brute_expected_max(const std::vector<double>& v, int n, double slow) {
  const std::size_t k = v.size();
  std::size_t combos = 1;
  for (int r = 0; r < n; ++r) combos *= k;
  double sum = 0;
  for (std::size_t c = 0; c < combos; ++c) {
    std::size_t rest = c;
    double mx = 0;
    for (int r = 0; r < n; ++r, rest /= k) mx = std::max(mx, v[rest % k] / (r == 0 ? slow : 1.0));  // rank 0 is slow
    sum += mx;
  }
  return sum / double(combos);
}

TEST(ProjectStragglers, ASlowNodeIsTheSlowestOfNWhenItsLeadIsLarge) {
  // {1, 2}, n = 2, one rank at half speed draws {2, 4}: max (1,2) 2, (1,4) 4, (2,2) 2, (2,4) 4 -> 3
  EXPECT_DOUBLE_EQ(expected_max({1.0, 2.0}, 2, 0.5), 3.0);
  // identical steps: the slow rank's own, 1/0.8 of them, at every N >= 2; N = 1 is the traced rank
  EXPECT_DOUBLE_EQ(expected_max({3.0, 3.0, 3.0}, 8, 0.8), 3.75);
  EXPECT_DOUBLE_EQ(expected_max({3.0, 1.0}, 1, 0.8), 2.0);
  // a spread of steps, ties and overlapping ranges included: the union of jumps, exactly
  const std::vector<double> v{0.50, 0.52, 0.52, 0.55, 0.61, 0.70};
  for (int n : {2, 3, 4, 5})
    for (double slow : {0.95, 0.8, 0.52 / 0.61, 0.5}) EXPECT_NEAR(expected_max(v, n, slow), brute_expected_max(v, n, slow), 1e-12)
        << n << " " << slow;
  EXPECT_NEAR(expected_max(v, 4, 1.0), brute_expected_max(v, 4, 1.0), 1e-12);  // the plain term is the slow = 1 case
  EXPECT_THROW(expected_max(v, 2, 0.0), Error);
  EXPECT_THROW(expected_max(v, 2, 1.5), Error);
  MeasuredStep m;
  EXPECT_DOUBLE_EQ(straggler_factor(m, 4, 0.8), 1.25);  // no spread known: the slow rank alone
  EXPECT_DOUBLE_EQ(straggler_factor(m, 1, 0.8), 1.0);
  m.step_compute_s = v;
  EXPECT_GT(straggler_factor(m, 4, 0.8), straggler_factor(m, 4));
}

// three_layers() whose two traced steps computed 60 and 70 ms (mean 65, as its phases sum to)
MeasuredStep spread_steps() {
  MeasuredStep m = three_layers();
  m.step_compute_s = {0.060, 0.070};
  return m;
}

TEST(ProjectStragglers, SynchronousStepsComputeAtTheSlowestRanksPace) {
  const MeasuredStep m = spread_steps();
  // E[max of 2] = 60/4 + 70 x 3/4 = 67.5 ms: factor 67.5 / 65
  const double g = 67.5 / 65;
  EXPECT_NEAR(straggler_factor(m, 2), g, 1e-12);
  const Network n = net(0, 1e8);
  const ProjectOptions on{.batch = 8, .bucket_mb = 4.0};
  ProjectOptions off = on;
  off.stragglers = false;
  // 2 ranks, 8 MB buckets of 80 ms (ProjectStep.BucketsAndOverlapByHand) with every compute phase
  // x g: bucket 0 ready at 30g, the last ends at 30g + 160; step 20g + (30g + 160) + 5g
  const Prediction p = predict(m, n, on, {StrategyKind::ring, 2});
  EXPECT_NEAR(p.straggler, g, 1e-12);
  EXPECT_NEAR(p.step_s, 0.055 * g + 0.160, 1e-12);
  EXPECT_NEAR(predict(m, n, off, {StrategyKind::ring, 2}).step_s, 0.215, 1e-12);  // without: as before
  EXPECT_NEAR(predict(m, n, on, {StrategyKind::ring, 1}).step_s, 0.065, 1e-12);   // N = 1 waits for no one
  // the synchronous parameter server waits too; the asynchronous one and single do not
  EXPECT_NEAR(predict(m, n, on, {StrategyKind::ps_sync, 2}).straggler, g, 1e-12);
  EXPECT_TRUE(synchronous(StrategyKind::multiworker));
  EXPECT_TRUE(synchronous(StrategyKind::hierarchical));
  EXPECT_FALSE(synchronous(StrategyKind::ps_async));
  EXPECT_FALSE(synchronous(StrategyKind::single));
}

// ---- the band --------------------------------------------------------------------------------------

TEST(ProjectBand, ComputeSpreadAndFitResidualByHand) {
  const MeasuredStep m = spread_steps();
  // steps 60 and 70 ms: sd 7.071 ms, standard error 5 ms, relative 5/65; the band's compute factor
  // 1 -/+ 2 x 5/65
  EXPECT_NEAR(compute_rel_se(m), 5.0 / 65, 1e-12);
  const double c = 10.0 / 65;
  Network n = net(0, 1e8);
  n.inter.fit_residual = 0.1;
  ProjectOptions o{.batch = 8, .bucket_mb = 4.0, .max_devices = 2};
  o.stragglers = false;
  // ring, 2 ranks (above): step = 55 ms x compute + 160 ms x communication
  const Band b = band(m, n, o, {StrategyKind::ring, 2});
  EXPECT_NEAR(b.step_lo, 0.055 * (1 - c) + 0.160 * 0.9, 1e-12);
  EXPECT_NEAR(b.step_hi, 0.055 * (1 + c) + 0.160 * 1.1, 1e-12);
  // N = 1: 65 ms x compute; efficiency's band pairs N = 2's slow end with N = 1's fast one
  std::ostringstream table;
  const record::Table t = project_all(m, n, o, "toy", true, false, table);
  bool found = false;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    if (t.str("point_id", r) != "project-toy-weak-ring-n2") continue;
    found = true;
    EXPECT_NEAR(t.num("efficiency", r), 0.065 / 0.215, 1e-12);
    EXPECT_NEAR(t.num("efficiency_band_lo", r), 0.065 * (1 - c) / b.step_hi, 1e-12);
    EXPECT_NEAR(t.num("efficiency_band_hi", r), 0.065 * (1 + c) / b.step_lo, 1e-12);
    EXPECT_NEAR(t.num("step_time_s_band_hi", r), b.step_hi, 1e-12);
    EXPECT_NEAR(t.num("images_per_s_band_lo", r), 16 / b.step_hi, 1e-9);
    EXPECT_DOUBLE_EQ(t.num("straggler_factor", r), 1.0);
  }
  EXPECT_TRUE(found) << table.str();
  // no spread and no residual: the band is the point
  const Band point = band(three_layers(), net(0, 1e8), o, {StrategyKind::ring, 2});
  EXPECT_DOUBLE_EQ(point.step_lo, 0.215);
  EXPECT_DOUBLE_EQ(point.step_hi, 0.215);
}

TEST(ProjectBand, CommbenchFitReportsItsResidual) {
  sbtest::TempDir d;
  const std::string path = d.path() + "/cb.json";
  {
    // 2 ranks, alpha 0, 100 MB/s, the middle two rows 10 % off the line in opposite directions
    std::ofstream f(path);
    f << "{\n  \"ranks\": 2,\n  \"results\": [\n";
    const double off[] = {1.0, 1.1, 0.9, 1.0};
    for (int k = 0; k < 4; ++k) {
      const double bytes = double(1 << (16 + k)), t_us = bytes / 1e8 * 1e6 * off[k];
      f << fmt::format("    {{\"algo\": \"ring\", \"bytes\": {}, \"count\": {}, \"time_us\": {:.6f}, \"algbw_GBps\": 0}}{}\n",
                       bytes, bytes / 4, t_us, k < 3 ? "," : "");
    }
    f << "  ]\n}\n";
  }
  const AlphaBeta ab = fit_commbench(path, "ring");
  // each inner row against the line between its neighbours (times in units of the first row's):
  // 128K: between 1 (64K) and 3.6 (256K) at a third of the way, 1.8667, measured 2.2: +0.15152;
  // 256K: between 2.2 (128K) and 8 (512K), 4.1333, measured 3.6: -0.14815; RMS 0.14984 (an exact
  // line gives 0: ProjectNet.CommbenchFitRecoversAlphaBeta)
  const double plus = (2.2 - (1 + 2.6 / 3)) / 2.2, minus = (3.6 - (2.2 + 5.8 / 3)) / 3.6;
  EXPECT_NEAR(ab.fit_residual, std::sqrt((plus * plus + minus * minus) / 2), 1e-6);
  EXPECT_NEAR(ab.fit_residual, 0.14984, 1e-5);
  EXPECT_FALSE(ab.nameplate);
  EXPECT_TRUE(profile("10gbe").nameplate);
  EXPECT_EQ(profile("10gbe").fit_residual, 0.0);
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
    tr.add(SpanCat::layer, "head", at + ms(10 + s), at + ms(40 + s), trace::kTrainRow, "\"begin\": 0, \"end\": 300");
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
  // a provenance line that is not an object of strings and numbers: one line naming file and line
  {
    std::ifstream in(d.path() + "/t.json");
    std::stringstream text;
    text << in.rdbuf();
    std::string s = text.str();
    const std::string batch = "\"batch\": 8";
    s.replace(s.find(batch), batch.size(), "\"batch\": [8]");
    std::ofstream(d.path() + "/bad.json") << s;
  }
  try {
    trace::read_trace_file(d.path() + "/bad.json", "test");
    FAIL() << "a malformed config line must be refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json line "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("otherData.config is not an object of strings and numbers"), std::string::npos)
        << e.what();
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
  const record::Table t = project_all(m, net(0, 1e8), o, "toy", true, false, table);
  ASSERT_GT(t.rows(), 0u);
  for (std::size_t r = 0; r < t.rows(); ++r) {
    EXPECT_EQ(t.str("hostnames", r), "node\"7");
    EXPECT_EQ(t.str("git_sha", r), "0123abcd");
    EXPECT_EQ(t.str("cpu_threads", r), "2");  // a string column, as collect writes it
  }
}

}  // namespace
}  // namespace scalebench::project
