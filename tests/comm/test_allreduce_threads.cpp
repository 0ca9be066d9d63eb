// test_allreduce_threads.cpp — every allreduce algorithm over the threads transport at 1..4 ranks:
// exact sums on inputs that reduce exactly, for awkward counts (0, 1, primes, fewer elements than
// ranks, many pipeline chunks), identical bits on every rank, hierarchical at several node shapes,
// plus the node map and the configuration check.
#include <gtest/gtest.h>

#include <cstring>

#include "harness/comm/allreduce.h"
#include "harness/comm/consistency.h"
#include "harness/comm/threads_comm.h"
#include "kernels/common/check.h"

using namespace scalebench;
using namespace scalebench::comm;

namespace {

// Small integers (and their negatives): every partial sum is an exact float.
float value(std::size_t i, int r) { return static_cast<float>(static_cast<int>((i * 7 + static_cast<std::size_t>(r) * 13) % 19) - 9); }

struct Case {
  const char* name;
  AllreduceAlgo algo;
  int ranks_per_node;  // -1: equal to the rank count
};

const Case kCases[] = {
    {"native", AllreduceAlgo::native, 0},         {"ring", AllreduceAlgo::ring, 0},
    {"hier_by_host", AllreduceAlgo::hierarchical, 0}, {"hier_rpn1", AllreduceAlgo::hierarchical, 1},
    {"hier_rpn2", AllreduceAlgo::hierarchical, 2},    {"hier_rpnN", AllreduceAlgo::hierarchical, -1},
};

const std::size_t kCounts[] = {0, 1, 2, 3, 5, 7, 13, 97, 1009, 65537};

void check_allreduce(const Case& cs, int n, std::size_t chunk_bytes, int depth) {
  ThreadsWorld::run(n, [&](Communicator& c) {
    AllreduceOptions o;
    o.algo = cs.algo;
    o.ranks_per_node = cs.ranks_per_node < 0 ? n : cs.ranks_per_node;
    o.chunk_bytes = chunk_bytes;
    o.depth = depth;
    Allreducer ar(c, o);
    for (std::size_t count : kCounts) {
      std::vector<float> buf(count);
      for (std::size_t i = 0; i < count; ++i) buf[i] = value(i, c.rank());
      ar(buf.data(), count);
      for (std::size_t i = 0; i < count; ++i) {
        float want = 0;
        for (int r = 0; r < n; ++r) want += value(i, r);
        ASSERT_EQ(buf[i], want) << cs.name << " n=" << n << " count=" << count << " i=" << i << " rank " << c.rank();
      }
      // Every rank holds the same bits (checked through the transport itself).
      const auto all = c.allgather(std::string_view(reinterpret_cast<const char*>(buf.data()), count * sizeof(float)));
      for (const auto& s : all) ASSERT_EQ(s, all[0]) << cs.name << " count=" << count;
    }
  }, CommOptions{60.0});
}

}  // namespace

class AllreduceThreads : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(AllreduceThreads, ExactSumsDefaultChunks) {
  const auto [ci, n] = GetParam();
  check_allreduce(kCases[ci], n, AllreduceOptions{}.chunk_bytes, AllreduceOptions{}.depth);
}

TEST_P(AllreduceThreads, ExactSumsManySmallChunks) {
  // 12-byte chunks, 2 slots: thousands of pipelined messages per call, odd chunk sizes at segment ends.
  const auto [ci, n] = GetParam();
  check_allreduce(kCases[ci], n, 12, 2);
}

INSTANTIATE_TEST_SUITE_P(AllAlgosAllSizes, AllreduceThreads,
                         ::testing::Combine(::testing::Range(0, 6), ::testing::Range(1, 5)),
                         [](const auto& info) {
                           return std::string(kCases[std::get<0>(info.param)].name) + "_n" +
                                  std::to_string(std::get<1>(info.param));
                         });

TEST(AllreduceOptionsTest, ParseAndValidate) {
  EXPECT_EQ(parse_allreduce_algo("ring"), AllreduceAlgo::ring);
  EXPECT_STREQ(to_string(AllreduceAlgo::hierarchical), "hierarchical");
  try {
    parse_allreduce_algo("butterfly");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'butterfly'"), std::string::npos);
  }
  ThreadsWorld w(1);
  AllreduceOptions o;
  o.algo = AllreduceAlgo::ring;
  o.depth = 0;
  EXPECT_THROW(Allreducer(w.comm(0), o), Error);
  o.depth = 2;
  o.chunk_bytes = 2;
  EXPECT_THROW(Allreducer(w.comm(0), o), Error);
}

TEST(NodeMapTest, OverrideAndHostGrouping) {
  ThreadsWorld::run(4, [](Communicator& c) {
    const NodeMap byhost = make_node_map(c);
    EXPECT_EQ(byhost.num_nodes(), 1);  // one process, one host
    EXPECT_EQ(byhost.local_rank, c.rank());
    EXPECT_EQ(byhost.leader(), 0);
    const NodeMap two = make_node_map(c, 2);  // {0,1} {2,3}
    EXPECT_EQ(two.num_nodes(), 2);
    EXPECT_EQ(two.node, c.rank() / 2);
    EXPECT_EQ(two.local_rank, c.rank() % 2);
    EXPECT_EQ(two.leaders(), (std::vector<int>{0, 2}));
    const NodeMap three = make_node_map(c, 3);  // {0,1,2} {3}: uneven nodes are allowed
    EXPECT_EQ(three.num_nodes(), 2);
    EXPECT_EQ(three.local_size(), c.rank() < 3 ? 3 : 1);
  });
}

TEST(ConsistencyTest, SameConfigPassesDifferentConfigNamesRankAndField) {
  ThreadsWorld::run(3, [](Communicator& c) {
    check_same_everywhere(c, "run configuration", "model = unet\nbatch = 8\n");
    const std::string mine = c.rank() == 2 ? "model = unet\nbatch = 16\n" : "model = unet\nbatch = 8\n";
    try {
      check_same_everywhere(c, "run configuration", mine);
      ADD_FAILURE() << "no error on rank " << c.rank();
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("run configuration differs across ranks: rank(s) 2 disagree with rank 0"), std::string::npos) << m;
      EXPECT_NE(m.find("rank 2 has 'batch = 16' where rank 0 has 'batch = 8' (field batch)"), std::string::npos) << m;
    }
  });
}

// A check some ranks fail: every rank throws the same ReportedError (none is left waiting), each
// distinct reason once with the ranks that hit it; all ranks alike: the reason alone.
TEST(ConsistencyTest, SucceedEverywhereNamesTheRanksThatFailedOnceForAll) {
  ThreadsWorld::run(4, [](Communicator& c) {
    succeed_everywhere(c, [] {});  // nobody fails: returns everywhere
    try {
      succeed_everywhere(c, [&] {
        if (c.rank() == 1 || c.rank() == 3) throw Error("dataset d.h5: file not found");
        if (c.rank() == 2) throw Error("no GPU");
      });
      ADD_FAILURE() << "no error on rank " << c.rank();
    } catch (const ReportedError& e) {
      EXPECT_EQ(std::string(e.what()), "rank(s) 1, 3: dataset d.h5: file not found; rank(s) 2: no GPU");
    }
    try {
      succeed_everywhere(c, [] { throw Error("dataset d.h5: file not found"); });
      ADD_FAILURE() << "no error on rank " << c.rank();
    } catch (const ReportedError& e) {
      EXPECT_EQ(std::string(e.what()), "dataset d.h5: file not found");
    }
  });
}
