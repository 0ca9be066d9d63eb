// test_commbench.cpp — commbench without MPI: size-list parsing and its errors, and a small sweep
// over the threads transport whose table and JSON carry the expected rows and zero errors, and the
// gap of compute before each call (--gap-ms) recorded.
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>

#include "harness/comm/commbench.h"
#include "kernels/common/check.h"
#include "kernels/common/json.h"

using namespace scalebench;
using namespace scalebench::comm;

TEST(CommbenchSizes, RangesListsAndUnits) {
  EXPECT_EQ(parse_sizes("4K:32K"), (std::vector<std::size_t>{4096, 8192, 16384, 32768}));
  EXPECT_EQ(parse_sizes("4K:256M").size(), 17u);
  EXPECT_EQ(parse_sizes("4K:256M").back(), std::size_t{256} << 20);
  EXPECT_EQ(parse_sizes("1K:64K:4"), (std::vector<std::size_t>{1024, 4096, 16384, 65536}));
  EXPECT_EQ(parse_sizes("8,4KB,1M"), (std::vector<std::size_t>{8, 4096, 1 << 20}));
  EXPECT_EQ(parse_sizes("12:40"), (std::vector<std::size_t>{12, 24}));  // up to, not past, HI
}

TEST(CommbenchSizes, BadSpecsNameTheProblem) {
  auto msg = [](const char* s) {
    try {
      parse_sizes(s);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(msg("").find("empty"), std::string::npos);
  EXPECT_NE(msg("4X").find("unknown unit"), std::string::npos);
  EXPECT_NE(msg("6").find("not a whole number of floats"), std::string::npos);
  EXPECT_NE(msg("1M:4K").find("above the upper bound"), std::string::npos);
  EXPECT_NE(msg("4K:1M:1").find("factor"), std::string::npos);
  EXPECT_NE(msg("0").find("> 0"), std::string::npos);
  EXPECT_NE(msg("abc").find("not a size"), std::string::npos);
}

TEST(Commbench, ThreadsSweepPrintsRowsAndJson) {
  CommbenchOptions o;
  o.transport = "threads";
  o.ranks = 3;
  o.algos = {"native", "ring", "hierarchical"};
  o.ranks_per_node = 2;
  o.sizes = "4K:64K";
  o.warmup = 1;
  o.iters = 2;
  o.chunk_bytes = 4096;
  o.json_path = ::testing::TempDir() + "commbench_test.json";
  std::ostringstream out;
  EXPECT_EQ(commbench_main(o, out), 0);
  const std::string t = out.str();
  EXPECT_NE(t.find("transport threads  ranks 3"), std::string::npos) << t;
  EXPECT_NE(t.find("ring/nat"), std::string::npos) << t;
  int rows = 0;
  std::istringstream lines(t);
  for (std::string l; std::getline(lines, l);)
    if (!l.empty() && l[0] != '#') ++rows;
  EXPECT_EQ(rows, 10);  // 4K 8K 16K 32K 64K: the algorithm table, then the --coll allreduce table
  const json::Json j = json::read_file(o.json_path, "commbench --json");
  EXPECT_EQ(j["transport"], "threads") << j;
  EXPECT_EQ(j["ranks"], 3) << j;
  // every row: its size and count, no error, and what its calls cost the process in CPU; the calls
  // did work, so some is above 0; the ring's rows, and only they, list rank 0's every step:
  // 2 calls x 2(3 - 1) steps, none negative
  const json::Json& results = j["results"];
  ASSERT_EQ(results.size(), 15u) << j;  // 5 sizes x 3 algorithms
  double cpu_sum = 0;
  int step_rows = 0;
  for (const json::Json& r : results) {
    EXPECT_EQ(r["count"], r["bytes"].get<std::size_t>() / 4) << r;
    EXPECT_EQ(r["max_abs_err"], 0) << r;
    ASSERT_TRUE(r["cpu_us"].is_number()) << r;
    EXPECT_GE(r["cpu_us"].get<double>(), 0.0) << r;
    cpu_sum += r["cpu_us"].get<double>();
    if (!r.contains("step_us")) continue;
    ++step_rows;
    EXPECT_EQ(r["algo"], "ring") << r;
    ASSERT_EQ(r["step_us"].size(), 2u * 4) << r;
    for (const json::Json& v : r["step_us"]) EXPECT_GE(v.get<double>(), 0.0) << r;
  }
  EXPECT_EQ(results.back()["algo"], "hierarchical");
  EXPECT_EQ(results.back()["bytes"], 65536);
  EXPECT_GT(cpu_sum, 0.0) << j;
  EXPECT_EQ(step_rows, 5) << j;
  // after the sweep, the training step's agreement, timed: it gathered something, so above 0
  EXPECT_GT(j["agree_us"].get<double>(), 0.0) << j;
  EXPECT_NE(t.find("# agreement (a training step's one scalar collective: an allgather of 16 bytes a rank): "),
            std::string::npos) << t;
}

TEST(Commbench, AGapOfComputeBeforeEachCallIsRecordedAndNotTimed) {
  CommbenchOptions o;
  o.transport = "threads";
  o.ranks = 2;
  o.algos = {"ring"};
  o.sizes = "4K";
  o.warmup = 1;
  o.iters = 2;
  o.gap_ms = 60;  // 12 gaps: 3 ring calls, 2 x 3 in the --coll allreduce table, 3 agreement calls
  o.json_path = ::testing::TempDir() + "commbench_gap.json";
  std::ostringstream out;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(commbench_main(o, out), 0);
  // a lower bound, not a speed: every one of the 3 ring calls (1 warm-up, 2 timed) and the --coll
  // table's 6 waited for its gap
  EXPECT_GE(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 9 * 0.060);
  EXPECT_NE(out.str().find("gap 60 ms of compute before each call (not timed)"), std::string::npos) << out.str();
  EXPECT_EQ(json::read_file(o.json_path, "commbench --json")["gap_ms"], 60);
  // back to back (the default) says so with 0
  o.gap_ms = 0;
  EXPECT_EQ(commbench_main(o, out), 0);
  EXPECT_EQ(json::read_file(o.json_path, "commbench --json")["gap_ms"], 0);
}

TEST(Commbench, BadOptionsAreOneLineErrors) {
  CommbenchOptions o;
  o.transport = "carrier-pigeon";
  std::ostringstream out;
  EXPECT_THROW(commbench_main(o, out), Error);
  o.transport = "threads";
  o.algos = {"ring", "tree"};
  EXPECT_THROW(commbench_main(o, out), Error);
  o.algos = {"ring"};
  o.iters = 0;
  EXPECT_THROW(commbench_main(o, out), Error);
  o.iters = 1;
  o.gap_ms = -1;
  EXPECT_THROW(commbench_main(o, out), Error);
  EXPECT_TRUE(out.str().empty());  // validation happens before anything is printed
}
