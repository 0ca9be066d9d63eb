// test_nccl_commbench.cpp — `commbench --transport nccl` outside a launcher: a group of the visible
// GPUs driven by this process, native, ring and hierarchical allreduce on device buffers (the last
// two as round schedules over ncclSend/ncclRecv), verified exactly, busbw by the nccl-tests factor;
// every typed collective of the --coll tables in every type and place; and the option it refuses
// (more ranks than GPUs) with a line that says why.
#include <gtest/gtest.h>

#include <sstream>

#include "harness/comm/commbench.h"
#include "harness/comm/nccl/comm.h"
#include "kernels/common/check.h"

using namespace scalebench;
using namespace scalebench::comm;

namespace {

std::string error_of(const CommbenchOptions& o) {
  std::ostringstream out;
  try {
    commbench_main(o, out);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool outside_launcher() {
  const JobPlace p = job_place_from_env();
  return p.size == 1 && !p.under_mpi;
}

}  // namespace

TEST(NcclCommbench, EveryAlgorithmOnEveryVisibleGpu) {
  if (!outside_launcher()) GTEST_SKIP() << "runs as one process outside mpirun/srun";
  CommbenchOptions o;
  o.transport = "nccl";
  o.algos = {"native", "ring", "hierarchical"};
  o.ranks = cuda_device_count();
  o.sizes = "4K:1M:4";
  o.warmup = 1;
  o.iters = 3;
  o.timeout_s = 120;
  o.json_path = ::testing::TempDir() + "commbench_nccl.json";
  std::ostringstream out;
  ASSERT_EQ(commbench_main(o, out), 0);  // throws on any verification error
  const std::string t = out.str();
  EXPECT_NE(t.find("transport nccl  ranks " + std::to_string(o.ranks)), std::string::npos) << t;
  int rows = 0;
  std::istringstream lines(t);
  for (std::string l; std::getline(lines, l);) {
    if (l == "#") break;  // the --coll allreduce table follows (EveryCollectiveTypeAndPlace checks those)
    if (l.empty() || l[0] == '#') continue;
    ++rows;
    std::istringstream f(l);
    double bytes, count;
    f >> bytes >> count;
    for (const auto& algo : o.algos) {  // time, algbw, busbw, err per algorithm, in --algo order
      double time_us = 0, algbw = 0, busbw = 0, err = -1;
      f >> time_us >> algbw >> busbw >> err;
      // At one rank ring and hierarchical have no rounds: they may print 0.0 us.
      if (algo == "native" || o.ranks > 1) {
        EXPECT_GT(time_us, 0) << algo << ": " << l;
      }
      EXPECT_EQ(err, 0) << algo << ": " << l;
      // busbw = algbw * 2(n-1)/n, as nccl-tests defines it (0 at one rank). Printed to 3 decimals.
      EXPECT_NEAR(busbw, algbw * 2.0 * (o.ranks - 1) / o.ranks, 2e-3) << algo << ": " << l;
    }
  }
  EXPECT_EQ(rows, 5) << t;  // 4K, 16K, 64K, 256K, 1M
}

// The --coll tables on NCCL: every typed collective (ncclAllReduce, ncclAllGather, ncclReduceScatter,
// ncclBroadcast, ncclReduce, grouped ncclSend/ncclRecv for alltoall and sendrecv) in float, bfloat16
// and half, out of place and in place; commbench throws on any element off its exact value.
TEST(NcclCommbench, EveryCollectiveTypeAndPlace) {
  if (!outside_launcher()) GTEST_SKIP() << "runs as one process outside mpirun/srun";
  CommbenchOptions o;
  o.transport = "nccl";
  o.colls = parse_coll_list("all", "--coll");
  o.types = parse_type_list("float,bfloat16,half", "--dtype");
  o.algos = {};
  o.ranks = cuda_device_count();
  o.sizes = "1K,1M";
  o.warmup = 1;
  o.iters = 2;
  o.timeout_s = 120;
  std::ostringstream out;
  ASSERT_EQ(commbench_main(o, out), 0);
  const std::string t = out.str();
  std::size_t ok = 0;
  for (std::size_t p = 0; (p = t.find("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : ", p)) != std::string::npos; ++p) ++ok;
  EXPECT_EQ(ok, kCollectives.size()) << t;
}

TEST(NcclCommbench, RefusesMoreRanksThanGpus) {
  if (!outside_launcher()) GTEST_SKIP() << "runs as one process outside mpirun/srun";
  CommbenchOptions o;
  o.transport = "nccl";
  o.sizes = "4K";
  o.algos = {"native"};
  o.ranks = cuda_device_count() + 1;
  const std::string many = error_of(o);
  EXPECT_NE(many.find("--ranks " + std::to_string(o.ranks)), std::string::npos) << many;
}
