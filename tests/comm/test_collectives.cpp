// test_collectives.cpp — the typed collectives (collective.h) on the threads transport against a
// written-out reference (collective_check.h), the 16-bit conversions and "accumulate in float,
// round once", argument checks, and commbench's --coll tables (nccl-tests' summary lines, JSON).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "collective_check.h"
#include "harness/comm/commbench.h"
#include "harness/comm/threads_comm.h"
#include "kernels/common/check.h"
#include "kernels/common/json.h"

using namespace scalebench;
using namespace scalebench::comm;

TEST(Collectives, EveryCollectiveTypeAndPlaceOnThreads) {
  for (int n : {1, 2, 3})
    ThreadsWorld::run(n, [](Communicator& c) { collcheck::check_every_collective(c); }, CommOptions{30.0});
}

TEST(Collectives, SixteenBitConversionsRoundToNearestEven) {
  std::uint16_t h = 0;
  // bfloat16 keeps 7 fraction bits: 1 + 2^-8 is a tie (to 1), 1 + 3*2^-8 a tie to 1 + 2^-6.
  store_elem(&h, 0, DType::bf16, 1.0f + 0x1p-8f);
  EXPECT_EQ(load_elem(&h, 0, DType::bf16), 1.0f);
  store_elem(&h, 0, DType::bf16, 1.0f + 3 * 0x1p-8f);
  EXPECT_EQ(load_elem(&h, 0, DType::bf16), 1.0f + 0x1p-6f);
  // half keeps 10: 1 + 2^-11 is a tie (to 1); 65519 rounds to 65504, the largest half.
  store_elem(&h, 0, DType::f16, 1.0f + 0x1p-11f);
  EXPECT_EQ(load_elem(&h, 0, DType::f16), 1.0f);
  store_elem(&h, 0, DType::f16, 65519.0f);
  EXPECT_EQ(load_elem(&h, 0, DType::f16), 65504.0f);
}

TEST(Collectives, SixteenBitSumsAccumulateInFloatAndRoundOnce) {
  // 256 + 1 + 1 in bfloat16 (spacing 2 above 256): pairwise rounding gives 256 (each +1 is a tie to
  // even), one rounding of the float sum 258.
  ThreadsWorld::run(3, [](Communicator& c) {
    std::uint16_t mine = 0, sum = 0;
    store_elem(&mine, 0, DType::bf16, c.rank() == 0 ? 256.0f : 1.0f);
    CollArgs a;
    a.coll = Coll::allreduce;
    a.type = DType::bf16;
    a.count = 1;
    a.send = &mine;
    a.recv = &sum;
    c.collective(a);
    EXPECT_EQ(load_elem(&sum, 0, DType::bf16), 258.0f) << "rank " << c.rank();
  });
}

TEST(Collectives, BadArgumentsAreErrors) {
  ThreadsWorld::run(2, [](Communicator& c) {
    float buf[8] = {};
    CollArgs a;
    a.coll = Coll::broadcast;
    a.count = 2;
    a.send = buf;
    a.recv = buf;
    a.root = 2;
    EXPECT_THROW(c.collective(a), Error);  // root out of range (both ranks check before meeting)
    a.coll = Coll::allreduce;
    a.root = 0;
    a.recv = buf + 1;  // overlapping, not in place
    EXPECT_THROW(c.collective(a), Error);
  });
}

TEST(Collectives, NamesComeFromTheTable) {
  EXPECT_EQ(coll_list_text(parse_coll_list("all", "--coll")),
            "allreduce,allgather,reduce_scatter,broadcast,reduce,alltoall,sendrecv");
  EXPECT_EQ(type_list_text(parse_type_list("half,float", "--dtype")), "half,float");
  EXPECT_THROW(parse_coll_list("allreduce,gather", "--coll"), Error);
  EXPECT_THROW(parse_type_list("fp8", "--dtype"), Error);
  EXPECT_DOUBLE_EQ(coll_info(Coll::allreduce).busbw_factor(4), 1.5);
  EXPECT_DOUBLE_EQ(coll_info(Coll::allgather).busbw_factor(4), 0.75);
  EXPECT_DOUBLE_EQ(coll_info(Coll::broadcast).busbw_factor(4), 1.0);
}

TEST(CommbenchColl, SummaryLinesAsNcclTests) {
  std::vector<CollRow> rows(3);
  rows[0].busbw_gbps = 1.0, rows[1].busbw_gbps = 2.5, rows[2].busbw_gbps = 4.0;
  rows[1].coll = rows[2].coll = rows[0].coll = Coll::allgather;
  std::ostringstream out;
  write_coll_summary(out, rows);
  EXPECT_EQ(out.str(), "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 2.5 \n#\n# Collective test concluded: allgather\n");
  rows[1].wrong = 3;
  std::ostringstream bad;
  write_coll_summary(bad, rows);
  EXPECT_NE(bad.str().find("# Out of bounds values : 3 FAILED\n"), std::string::npos) << bad.str();
}

TEST(CommbenchColl, LineHasNcclTestsColumns) {
  CollRow oop, ip;
  oop.coll = ip.coll = Coll::reduce_scatter;
  oop.type = ip.type = DType::bf16;
  oop.bytes = ip.bytes = 4096;
  oop.count = ip.count = 1024;
  oop.time_us = 12.25, oop.algbw_gbps = 0.33, oop.busbw_gbps = 0.25;
  ip.time_us = 123456.7, ip.algbw_gbps = 1234.5678, ip.busbw_gbps = 0.001;
  std::ostringstream out;
  write_coll_line(out, oop, ip);
  // nccl-tests' printf widths: "%12li  %12li  %8s  %6s  %6s" then "  %7s  %6s  %6s  %6g" twice.
  EXPECT_EQ(out.str(), "        4096          1024  bfloat16     sum      -1    12.25    0.33    0.25       0   123457  1234.6    0.00       0\n");
}

TEST(CommbenchColl, EveryCollectiveOnThreadsTablesAndJson) {
  CommbenchOptions o;
  o.transport = "threads";
  o.ranks = 3;
  o.colls = parse_coll_list("all", "--coll");
  o.types = parse_type_list("float,bfloat16,half", "--dtype");
  o.algos = {};
  o.sizes = "96,1K";
  o.warmup = 0;
  o.iters = 2;
  const std::string path = ::testing::TempDir() + "cb_coll.json";
  o.json_path = path;
  std::ostringstream out;
  ASSERT_EQ(commbench_main(o, out), 0);
  const std::string text = out.str();
  for (const auto& ci : kCollectives)
    EXPECT_NE(text.find("# Collective test concluded: " + std::string(ci.name)), std::string::npos) << ci.name;
  EXPECT_EQ(text.find("# scalebench commbench: allreduce (sum, float32, in place)"), std::string::npos)
      << "no --algo table with --algo none";
  std::ifstream f(path);
  const auto doc = json::Json::parse(f);
  ASSERT_EQ(doc["collectives"].size(), kCollectives.size() * 3 * 2 * 2);  // collectives x types x sizes x places
  for (const auto& r : doc["collectives"]) {
    EXPECT_EQ(r["wrong"].get<int>(), 0) << r.dump();
    EXPECT_LE(r["time_min_us"].get<double>(), r["time_us"].get<double>() + 1e-3) << r.dump();
    EXPECT_GE(r["time_max_us"].get<double>(), r["time_us"].get<double>() - 1e-3) << r.dump();
  }
  // 1K of float over 3 ranks: 85 elements a block, rounded down to 84 (16 bytes): 1008 bytes.
  EXPECT_NE(text.find("        1008            84     float    none      -1"), std::string::npos) << text;
  EXPECT_TRUE(doc["avg_busbw_GBps"].contains("alltoall"));
}
