// mpi_test_comm.cpp — the mpi transport and every algorithm over it, run by ctest under
// mpirun -np 1..4. gtest with its own main: MPI is initialised once, every rank runs the same tests
// in the same order (no filtering by rank), only rank 0 prints the normal progress, every rank prints
// its own failures, and the exit status is the OR over ranks, so a failure anywhere fails the process.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <thread>

#include "collective_check.h"
#include "harness/comm/allreduce.h"
#include "harness/comm/commbench.h"
#include "harness/comm/consistency.h"
#include "harness/comm/mpi_check.h"
#include "harness/comm/mpi_comm.h"
#include "harness/comm/schedule.h"
#include "kernels/common/check.h"

using namespace scalebench;
using namespace scalebench::comm;

namespace {

std::unique_ptr<Communicator> world() { return make_mpi_world(CommOptions{120.0}); }

float value(std::size_t i, int r) { return static_cast<float>(static_cast<int>((i * 5 + static_cast<std::size_t>(r) * 11) % 23) - 11); }

void check_algo(AllreduceAlgo algo, int rpn, std::size_t chunk_bytes, int depth) {
  auto c = world();
  const int n = c->size();
  AllreduceOptions o;
  o.algo = algo;
  o.ranks_per_node = rpn < 0 ? n : rpn;
  o.chunk_bytes = chunk_bytes;
  o.depth = depth;
  Allreducer ar(*c, o);
  for (std::size_t count : {0ul, 1ul, 2ul, 3ul, 7ul, 13ul, 1009ul, 65537ul, 1000003ul}) {
    std::vector<float> buf(count);
    for (std::size_t i = 0; i < count; ++i) buf[i] = value(i, c->rank());
    ar(buf.data(), count);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < count; ++i) {
      float want = 0;
      for (int r = 0; r < n; ++r) want += value(i, r);
      bad += buf[i] != want;
    }
    EXPECT_EQ(bad, 0u) << to_string(algo) << " rpn=" << rpn << " count=" << count << " on rank " << c->rank();
  }
}

}  // namespace

TEST(MpiTransport, Basics) {
  auto c = world();
  int wsize = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  EXPECT_EQ(c->size(), wsize);
  EXPECT_STREQ(c->transport(), "mpi");
  EXPECT_TRUE(c->caps().native_allreduce);
  const auto names = c->allgather("rank" + std::to_string(c->rank()));
  for (int r = 0; r < c->size(); ++r) EXPECT_EQ(names[static_cast<std::size_t>(r)], "rank" + std::to_string(r));
  // the per-step agreement's collective: fixed-size blocks, rank after rank, in one MPI_Allgather
  const double mine[2] = {c->rank() + 0.25, -1.0 * c->rank()};
  std::vector<double> all(2 * static_cast<std::size_t>(c->size()), -7);
  c->allgather_fixed(mine, sizeof(mine), all.data());
  for (int r = 0; r < c->size(); ++r) {
    EXPECT_EQ(all[2 * static_cast<std::size_t>(r)], r + 0.25);
    EXPECT_EQ(all[2 * static_cast<std::size_t>(r) + 1], -1.0 * r);
  }
  c->barrier();
}

TEST(MpiTransport, SendRecvRingAndBroadcast) {
  auto c = world();
  const int n = c->size(), right = (c->rank() + 1) % n, left = (c->rank() + n - 1) % n;
  std::vector<double> out(333, c->rank() + 0.5), in(333, -1);
  Request r = c->irecv(in.data(), in.size() * sizeof(double), left, 9);
  c->send(out.data(), out.size() * sizeof(double), right, 9);
  r.wait();
  for (double v : in) ASSERT_EQ(v, left + 0.5);
  for (int root = 0; root < n; ++root) {
    std::vector<float> b(101, c->rank() == root ? 3.0f : 0.0f);
    c->broadcast(b.data(), b.size(), root);
    for (float v : b) ASSERT_EQ(v, 3.0f);
  }
}

TEST(MpiTransport, WrongReceiveSizeIsAnError) {
  auto c = world();
  if (c->size() < 2) GTEST_SKIP() << "needs 2 ranks";
  if (c->rank() == 0) {
    char big[16] = {};
    c->send(big, sizeof big, 1, 4);
  } else if (c->rank() == 1) {
    char small[8] = {};
    EXPECT_THROW(c->recv(small, sizeof small, 0, 4), Error);  // MPI_ERR_TRUNCATE through MPI_CHECK
  }
  c->barrier();
}

TEST(MpiTransport, MpiCheckCarriesFileLineRankHost) {
  auto c = world();
  try {
    auto failing_call = [] { return MPI_ERR_COMM; };  // stands in for an MPI call that fails
    MPI_CHECK(failing_call());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("mpi_test_comm.cpp:"), std::string::npos) << m;
    EXPECT_NE(m.find("(rank " + std::to_string(c->rank()) + " on " + hostname() + ")"), std::string::npos) << m;
  }
}

TEST(MpiTransport, BackgroundThreadOnDup) {
  auto c = world();
  if (!c->caps().concurrent_comms) GTEST_SKIP() << "MPI was not given MPI_THREAD_MULTIPLE";
  auto bg = c->dup();
  const int n = c->size();
  std::vector<float> bucket(100000, 1.0f), small(10, 2.0f);
  AllreduceOptions o;
  o.algo = AllreduceAlgo::ring;
  o.chunk_bytes = 16 << 10;
  Allreducer ring(*bg, o);
  std::thread t([&] { ring(bucket.data(), bucket.size()); });
  c->allreduce_sum(small.data(), small.size());
  c->barrier();
  t.join();
  for (float v : bucket) ASSERT_EQ(v, static_cast<float>(n));
  for (float v : small) ASSERT_EQ(v, 2.0f * n);
}

TEST(MpiAllreduce, Native) { check_algo(AllreduceAlgo::native, 0, 1 << 17, 4); }
TEST(MpiAllreduce, RingDefaultChunks) { check_algo(AllreduceAlgo::ring, 0, AllreduceOptions{}.chunk_bytes, 4); }
TEST(MpiAllreduce, RingSmallChunks) { check_algo(AllreduceAlgo::ring, 0, 4000, 2); }
TEST(MpiAllreduce, HierarchicalByHost) { check_algo(AllreduceAlgo::hierarchical, 0, 1 << 16, 4); }
TEST(MpiAllreduce, HierarchicalRpn1) { check_algo(AllreduceAlgo::hierarchical, 1, 1 << 16, 4); }
TEST(MpiAllreduce, HierarchicalRpn2) { check_algo(AllreduceAlgo::hierarchical, 2, 4000, 3); }
TEST(MpiAllreduce, HierarchicalRpnN) { check_algo(AllreduceAlgo::hierarchical, -1, 1 << 16, 4); }

// The round schedules GPUs run (schedule.h), executed over mpi by the host executor: the same bits
// as the host algorithms, with MPI's rendezvous protocol for the large counts (a schedule that only
// worked with eager sends would deadlock here, as it would on NCCL).
TEST(MpiSchedule, RingAndHierarchicalMatchHostAlgorithms) {
  auto c = world();
  const int n = c->size();
  std::vector<int> everyone(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) everyone[static_cast<std::size_t>(r)] = r;
  for (int rpn : {0, 1, 2}) {
    const NodeMap nodes = make_node_map(*c, rpn);
    for (WireType wire : {WireType::f32, WireType::bf16}) {
      for (std::size_t count : {std::size_t{5}, std::size_t{1009}, std::size_t{1000003}}) {
        std::vector<float> want(count), got(count);
        for (std::size_t i = 0; i < count; ++i) want[i] = got[i] = value(i, c->rank()) * 0.37f;
        AllreduceOptions o;
        o.algo = rpn == 0 ? AllreduceAlgo::ring : AllreduceAlgo::hierarchical;
        o.ranks_per_node = rpn;
        o.wire = wire;
        Allreducer(*c, o)(want.data(), count);
        const Schedule s = rpn == 0 ? ring_schedule(c->rank(), everyone, count)
                                    : hierarchical_schedule(c->rank(), nodes, count, chunk_elems(o));
        run_schedule_on_host(*c, s, got.data(), wire, Communicator::kAlgoTagBase + 8);
        ASSERT_EQ(std::memcmp(want.data(), got.data(), count * sizeof(float)), 0)
            << "rpn " << rpn << " wire " << to_string(wire) << " count " << count << " rank " << c->rank();
      }
    }
  }
}

TEST(MpiConsistency, MismatchNamesRankEverywhere) {
  auto c = world();
  check_same_everywhere(*c, "config", "lr = 0.1\n");
  if (c->size() < 2) return;
  const std::string mine = c->rank() == c->size() - 1 ? "lr = 0.2\n" : "lr = 0.1\n";
  try {
    check_same_everywhere(*c, "config", mine);
    ADD_FAILURE() << "no error on rank " << c->rank();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank(s) " + std::to_string(c->size() - 1) + " disagree"), std::string::npos)
        << e.what();
  }
}

// The typed collectives (MPI_Allgather, MPI_Reduce_scatter_block, ..., MPI_IN_PLACE) against the
// written-out reference, every collective, type and place, at this job's rank count.
TEST(MpiCollectives, EveryCollectiveTypeAndPlace) {
  auto c = world();
  scalebench::comm::collcheck::check_every_collective(*c);
}

TEST(MpiCommbench, SmallSweepOverMpi) {
  CommbenchOptions o;
  o.transport = "mpi";
  o.algos = {"native", "ring", "hierarchical"};
  o.ranks_per_node = 1;
  o.sizes = "4K:256K:4";
  o.warmup = 1;
  o.iters = 3;
  o.colls = {Coll::allreduce, Coll::reduce_scatter};
  o.types = {DType::f32, DType::f16};
  std::ostringstream out;
  EXPECT_EQ(commbench_main(o, out), 0);
  int wrank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  if (wrank == 0) {
    EXPECT_NE(out.str().find("262144"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : "), std::string::npos) << out.str();
  }
  else EXPECT_TRUE(out.str().empty());
}

namespace {

// Prints this rank's failures (rank 0 keeps gtest's normal printer).
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?", r.line_number(),
                   r.summary());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  int rc = 0;
  {
    MpiSession session;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) {
      auto& ls = ::testing::UnitTest::GetInstance()->listeners();
      delete ls.Release(ls.default_result_printer());
      ls.Append(new RankFailurePrinter(rank));
    }
    int mine = RUN_ALL_TESTS() != 0 ? 1 : 0;
    MPI_Allreduce(&mine, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && rc) std::fprintf(stderr, "FAILED on at least one rank\n");
  }
  return rc;
}
