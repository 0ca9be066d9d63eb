// test_project_ring_steps.cpp — the ring's straggler term of `scalebench project` by hand: the
// expected maximum at a fractional power, a pipelined ring's mean step (small cases worked out, and
// where it must lie: between the calibration's ring and a barrier per step), ring_step_factor's
// choice of measured size, which parts of an allreduce it scales (the network ring, not the chains
// inside a node, not the CPU), and commbench's step_us read back by the fit.
// The compute side of the straggler term is test_project_stragglers.cpp; commbench writing step_us
// is tests/comm/test_commbench.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "harness/study/project/netmodel.h"
#include "harness/study/project/order_stats.h"
#include "kernels/common/check.h"
#include "kernels/common/read_file.h"
#include "tests/common/harness_test_util.h"
#include "tests/study/project_fixtures.h"

namespace scalebench::project {
namespace {

TEST(ProjectRingSteps, ExpectedMaxAtAFractionalPower) {
  // {1, 2} under F^0.5: P(max <= 1) = sqrt(1/2) — a ring of 2 ranks from steps measured at 4
  const double below = std::sqrt(0.5);
  EXPECT_NEAR(expected_max({2.0, 1.0}, 0.5), 1 * below + 2 * (1 - below), 1e-12);
  // F^1.5 on {1, 2, 4}: jumps at 1/3, 2/3, 1 raised to 1.5
  const double a = std::pow(1.0 / 3, 1.5), b = std::pow(2.0 / 3, 1.5);
  EXPECT_NEAR(expected_max({4.0, 1.0, 2.0}, 1.5), 1 * a + 2 * (b - a) + 4 * (1 - b), 1e-12);
  EXPECT_THROW(expected_max({1.0}, 0.0), Error);
  EXPECT_THROW(expected_max({1.0}, -1.0), Error);
}

TEST(ProjectRingSteps, APipelinedRingsMeanStep) {
  // identical transfers: every step takes one, whatever the ring
  EXPECT_NEAR(ring_pipeline_step({0.5}, 8, 50), 0.5, 1e-12);
  EXPECT_EQ(ring_pipeline_step({0.5}, 1, 50), 0.0);
  // a ring of 2 from {1, 3}: both ranks' second step starts after the slower first one, and the
  // ring ends with the slower second one: 2 E[max of 2] = 2 (1/4 + 3 x 3/4) = 5 over 2 steps
  EXPECT_NEAR(ring_pipeline_step({1.0, 3.0}, 2, 200000), 2.5, 0.01);
  // a ring of 4 waits on more paths than a ring of 2, yet less than a barrier per step would make
  // it (the slowest of 4 each step: 1/16 + 3 x 15/16 = 2.875): a slow transfer holds up only the
  // steps that need its segment
  const double four = ring_pipeline_step({1.0, 3.0}, 4, 50000);
  EXPECT_GT(four, 2.5 + 0.05);
  EXPECT_LT(four, 2.875 - 0.05);
  EXPECT_DOUBLE_EQ(ring_pipeline_step({1.0, 3.0}, 4, 50000), four);  // seeded: the same value again
  EXPECT_THROW(ring_pipeline_step({}, 4, 10), Error);
  EXPECT_THROW(ring_pipeline_step({1.0}, 0, 10), Error);
  EXPECT_THROW(ring_pipeline_step({1.0}, 4, 0), Error);
}

// A link measured at 2 ranks: per-step messages of 1 KB (steps of 10 and 20 ms) and 100 KB (three
// identical steps of 100 ms). Its curve (the samples' times) is not what these tests are about.
AlphaBeta measured_link() {
  AlphaBeta link{5e-3, 1e7, "test commbench"};
  link.measured_ranks = 2;
  link.samples = {{1e3, 0.0051, 0, {0.010, 0.020}}, {1e5, 0.015, 0, {0.1, 0.1, 0.1}}};
  return link;
}

TEST(ProjectRingSteps, FactorFromTheNearestMeasuredSize) {
  const AlphaBeta link = measured_link();
  // the calibration's own ring size is what it measured
  EXPECT_DOUBLE_EQ(ring_step_factor(link, 2, 1e3), 1.0);
  // a ring of 4 and of 8 from {10, 20} ms: longer than the calibration's ring of 2, more so at 8,
  // and short of a barrier per step (F^2 and F^4 of the measured steps, the model before the fifth round)
  const double four = ring_step_factor(link, 4, 1e3), eight = ring_step_factor(link, 8, 1e3);
  EXPECT_GT(four, 1.01);
  EXPECT_GT(eight, four);
  EXPECT_LT(four, (0.010 * 0.25 + 0.020 * 0.75) / 0.015);
  EXPECT_LT(eight, (0.010 / 16 + 0.020 * 15 / 16) / 0.015);
  // the same as the pipelines' ratio
  EXPECT_NEAR(four, ring_pipeline_step({0.010, 0.020}, 4, 20000) / ring_pipeline_step({0.010, 0.020}, 2, 20000), 0.01);
  // the nearest size on a log scale: 5 KB is nearer 1 KB (x5) than 100 KB (x20) ...
  EXPECT_DOUBLE_EQ(ring_step_factor(link, 4, 5e3), four);
  // ... 20 KB nearer 100 KB (x5 against x20), whose identical steps have no spread
  EXPECT_NEAR(ring_step_factor(link, 8, 2e4), 1.0, 1e-9);  // (sums of thousands of walks round)
  // past 32 ranks the ring is simulated at 32
  EXPECT_DOUBLE_EQ(ring_step_factor(link, 256, 1e3), ring_step_factor(link, 32, 1e3));
  // nothing measured: no term
  EXPECT_DOUBLE_EQ(ring_step_factor(profile("10gbe"), 8, 1e3), 1.0);
  AlphaBeta no_steps = link;
  for (auto& s : no_steps.samples) s.steps_s.clear();
  EXPECT_DOUBLE_EQ(ring_step_factor(no_steps, 8, 1e3), 1.0);
  // a calibration of 4 ranks projected to 2: fewer paths to wait on than measured
  AlphaBeta at4 = link;
  at4.measured_ranks = 4;
  EXPECT_LT(ring_step_factor(at4, 2, 1e3), 1.0);
  EXPECT_DOUBLE_EQ(ring_step_factor(at4, 4, 1e3), 1.0);
}

TEST(ProjectRingSteps, ScalesOnlyTheRingOverTheNetwork) {
  Network n = fixtures::net(5e-3, 1e7);
  n.inter = measured_link();
  const double bytes = 4e3;  // a ring of 4: per-step messages of 1 KB
  const double plain = allreduce_time(StrategyKind::ring, 4, bytes, n);
  const double four = ring_step_factor(n.inter, 4, 1e3);
  EXPECT_GT(four, 1.01);
  EXPECT_NEAR(allreduce_time(StrategyKind::ring, 4, bytes, n, true), plain * four, 1e-15);
  // (allreduce_cpu has no straggler flag: a rank waiting for a transfer spends no CPU)
  // the calibration's own ring: as measured
  EXPECT_DOUBLE_EQ(allreduce_time(StrategyKind::ring, 2, 2e3, n, true), allreduce_time(StrategyKind::ring, 2, 2e3, n));
  // hierarchical, 8 ranks 2 per node: the chains inside the nodes as they were, the ring of the 4
  // leaders (per-step messages of 1 KB) scaled
  n.ranks_per_node = 2;
  const double chain = 2.0 * (1 * n.intra.alpha_s + bytes / n.intra.bytes_per_s);
  const double h_plain = allreduce_time(StrategyKind::hierarchical, 8, bytes, n);
  EXPECT_NEAR(allreduce_time(StrategyKind::hierarchical, 8, bytes, n, true) - chain, (h_plain - chain) * four,
              1e-15);
  // every rank on one node: no ring crosses the network, nothing scaled
  n.ranks_per_node = 8;
  EXPECT_DOUBLE_EQ(allreduce_time(StrategyKind::ring, 8, bytes, n, true), allreduce_time(StrategyKind::ring, 8, bytes, n));
}

// Two ring rows, the first (2048 bytes) with these steps.
std::string write_commbench(const std::string& path, const json::Json& steps) {
  return fixtures::commbench_file(path, 2,
                                  {fixtures::ring_row(2048, 20000.0, {{"cpu_us", 5.0}, {"step_us", steps}}),
                                   fixtures::ring_row(200000, 30000.0, {{"cpu_us", 9.0}})});
}

TEST(ProjectRingSteps, CommbenchFitReadsTheSteps) {
  sbtest::TempDir d;
  AlphaBeta ab = fit_commbench(write_commbench(d.path() + "/cb.json", {10000.0, 20000.0}), "ring");
  EXPECT_EQ(ab.measured_ranks, 2);
  ASSERT_EQ(ab.samples.size(), 2u);
  EXPECT_EQ(ab.samples[0].bytes, 1024.0);  // a 2-rank call of 2 KB: steps of 1 KB
  EXPECT_EQ(ab.samples[0].steps_s, (std::vector<double>{0.010, 0.020}));
  EXPECT_TRUE(ab.samples[1].steps_s.empty());  // a row without step_us
  EXPECT_DOUBLE_EQ(ring_step_factor(ab, 4, 1024), ring_step_factor(measured_link(), 4, 1e3));
  // many steps (a long run at 8 ranks) read in full
  json::Json many = json::Json::array();
  for (int i = 0; i < 5000; ++i) many.push_back(100 + i % 7);
  ab = fit_commbench(write_commbench(d.path() + "/many.json", many), "ring");
  EXPECT_EQ(ab.samples[0].steps_s.size(), 5000u);
  // a bad entry: one line naming the file, the member and the value (x1 and inf: not JSON at all)
  const std::pair<const char*, const char*> bad_entries[] = {
      {"-3", "bad.json: results[0].step_us[1] holds -3 at size 2048 (expected microseconds, 0 or more)"},
      {"\"x1\"", "bad.json: results[0].step_us[1] is string (\"x1\"), expected a number"},
      {"null", "bad.json: results[0].step_us[1] is null (null), expected a number"},
      {"x1", "bad.json: not JSON (parse error at line "},
      {"inf", "bad.json: not JSON (parse error at line "}};
  for (const auto& [bad, want] : bad_entries) {
    const std::string path = write_commbench(d.path() + "/bad.json", {10.0, 12345.0});
    std::string text = read_text_file(path, "test");
    text.replace(text.find("12345.0"), 7, bad);
    std::ofstream(path) << text;
    try {
      fit_commbench(path, "ring");
      FAIL() << bad;
    } catch (const Error& e) {
      const std::string w = e.what();
      EXPECT_NE(w.find(want), std::string::npos) << w;
      EXPECT_EQ(w.rfind("--commbench " + d.path() + "/bad.json: ", 0), 0u) << w;
      EXPECT_EQ(w.find('\n'), std::string::npos) << w;
    }
  }
}

// The commbench file is parsed and read by name: any layout reads the same, and a file that is not
// JSON, or lacks a member, or holds one of the wrong type, is one line naming the file and the member.
TEST(ProjectRingSteps, CommbenchFileErrorsNameTheFileAndTheMember) {
  sbtest::TempDir d;
  const auto fit = [&](const std::string& text) {  // these files are written by hand: their JSON is the point
    std::ofstream(d.path() + "/cb.json") << text;
    return fit_commbench(d.path() + "/cb.json", "ring");
  };
  const std::string rows = R"("results": [{"time_us": 2.5, "bytes": 4096, "algo": "ring"},
                                          {"algo": "native", "bytes": "other algorithms are not read"},
                                          {"algo": "ring", "bytes": 8192, "time_us": 4.5}])";
  EXPECT_EQ(fit("{" + rows + R"(, "ranks": 2})").measured_ranks, 2);  // keys in any order, rows on one line
  const std::string at = "--commbench " + d.path() + "/cb.json: ";
  const auto error = [&](const std::string& text) { return sbtest::error_of([&] { fit(text); }); };
  EXPECT_EQ(error(R"({"ranks": 2})"), at + "no \"results\"");
  EXPECT_EQ(error(R"({"results": []})"), at + "no \"ranks\" (not a commbench --json file)");
  EXPECT_EQ(error(R"({"ranks": "2", )" + rows + "}"), at + "ranks is string (\"2\"), expected an integer");
  EXPECT_EQ(error(R"({"ranks": 2, "results": [{"algo": "ring", "bytes": 4096}]})"), at + "results[0] has no \"time_us\"");
  EXPECT_EQ(error(R"({"ranks": 2, "results": [{"algo": "ring", "bytes": 4096.5, "time_us": 1}]})"),
            at + "results[0].bytes is number (4096.5), expected an integer");
  EXPECT_EQ(error(R"({"ranks": 2, "agree_us": "fast", )" + rows + "}"), at + "agree_us is string (\"fast\"), expected a number");
  EXPECT_EQ(error(R"({"ranks": 2, "results": {}})"), at + "results is object ({}), expected an array");
  EXPECT_EQ(error("ranks = 2\n").rfind(at + "not JSON (parse error at line 1, column 1: ", 0), 0u) << error("ranks = 2\n");
}

}  // namespace
}  // namespace scalebench::project
