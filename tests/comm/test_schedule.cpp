// test_schedule.cpp — the round schedules of harness/comm/schedule.h (what the nccl transport runs
// for ring and hierarchical on GPUs), executed by the host executor over the threads transport:
// bit-identical to ring_allreduce / hierarchical_allreduce on the same random inputs (not only on
// exactly-summable ones), for 1..5 ranks, awkward counts, every wire type and several node shapes;
// every rank ends with the same bits; and every schedule pairs up (the k-th send from a to b has the
// length of the k-th receive at b from a), which NCCL cannot check for us.
#include <gtest/gtest.h>

#include <map>
#include <utility>

#include "harness/comm/schedule.h"
#include "harness/comm/threads_comm.h"
#include "tests/comm/schedule_test_util.h"

using namespace scalebench;
using namespace scalebench::comm;

namespace {

const std::size_t kCounts[] = {0, 1, 2, 3, 5, 13, 97, 1009, 4099};

std::vector<float> random_input(std::size_t count, int rank) {
  return sbtest::random_floats(count, static_cast<unsigned>(1000 + rank * 7919 + count));
}

enum class Algo { ring, hierarchical };

// Runs the schedule and the host algorithm on the same inputs at n ranks; compares bits.
void check(Algo algo, int n, int ranks_per_node, WireType wire, std::size_t chunk_elems) {
  ThreadsWorld::run(n, [&](Communicator& c) {
    AllreduceOptions o;
    o.algo = algo == Algo::ring ? AllreduceAlgo::ring : AllreduceAlgo::hierarchical;
    o.wire = wire;
    o.chunk_bytes = chunk_elems * sizeof(float);
    o.ranks_per_node = ranks_per_node;
    Allreducer reference(c, o);  // collective: builds the node map for hierarchical
    const NodeMap nodes = make_node_map(c, ranks_per_node);
    std::vector<int> everyone(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) everyone[static_cast<std::size_t>(r)] = r;
    for (std::size_t count : kCounts) {
      std::vector<float> want = random_input(count, c.rank()), got = want;
      reference(want.data(), count);
      const Schedule s = algo == Algo::ring ? ring_schedule(c.rank(), everyone, count)
                                            : hierarchical_schedule(c.rank(), nodes, count, chunk_elems);
      run_schedule_on_host(c, s, got.data(), wire, Communicator::kAlgoTagBase + 8);
      ASSERT_EQ(sbtest::count_differing(want, got), 0u) << "n=" << n << " rpn=" << ranks_per_node << " wire=" << to_string(wire)
                            << " count=" << count << " rank " << c.rank() << ": values differ from the host algorithm";
      const auto all = c.allgather(std::string_view(reinterpret_cast<const char*>(got.data()), count * sizeof(float)));
      for (const auto& bytes : all) ASSERT_EQ(bytes, all[0]) << "ranks differ, count=" << count;
    }
  }, CommOptions{60.0});
}

}  // namespace

class ScheduleVsHost : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(ScheduleVsHost, RingBitIdentical) {
  const auto [n, w] = GetParam();
  check(Algo::ring, n, 0, static_cast<WireType>(w), 256);
}

TEST_P(ScheduleVsHost, HierarchicalBitIdentical) {
  const auto [n, w] = GetParam();
  for (int rpn : {1, 2, 3, n}) check(Algo::hierarchical, n, rpn, static_cast<WireType>(w), 37);  // odd chunks
}

INSTANTIATE_TEST_SUITE_P(RanksAndWires, ScheduleVsHost, ::testing::Combine(::testing::Range(1, 6), ::testing::Range(0, 3)),
                         [](const auto& info) {
                           return "n" + std::to_string(std::get<0>(info.param)) + "_" +
                                  to_string(static_cast<WireType>(std::get<1>(info.param)));
                         });

// The k-th send a -> b and the k-th receive at b from a have the same length, and counts match:
// NCCL would hang (until the deadline) or corrupt memory otherwise.
TEST(Schedule, SendsAndReceivesPairUp) {
  for (int n = 1; n <= 6; ++n) {
    for (int rpn : {0, 1, 2, 4}) {
      NodeMap nodes;
      for (int r = 0; r < n; ++r) {
        const int node = rpn == 0 ? 0 : r / rpn;
        nodes.node_of_rank.push_back(node);
        if (static_cast<std::size_t>(node) >= nodes.ranks_of_node.size()) nodes.ranks_of_node.emplace_back();
        nodes.ranks_of_node[static_cast<std::size_t>(node)].push_back(r);
      }
      std::vector<int> everyone;
      for (int r = 0; r < n; ++r) everyone.push_back(r);
      for (std::size_t count : kCounts) {
        for (int which = 0; which < 2; ++which) {
          std::map<std::pair<int, int>, std::vector<std::size_t>> sent, received;  // (from, to) -> lengths
          for (int r = 0; r < n; ++r) {
            const Schedule s = which == 0 ? ring_schedule(r, everyone, count) : hierarchical_schedule(r, nodes, count, 5);
            for (const Round& round : s.rounds)
              for (const Transfer& t : round.transfers) {
                ASSERT_GT(t.range.len, 0u);
                ASSERT_LE(t.range.off + t.range.len, count);
                if (t.kind == Transfer::Kind::send)
                  sent[{r, t.peer}].push_back(t.range.len);
                else
                  received[{t.peer, r}].push_back(t.range.len);
              }
          }
          EXPECT_EQ(sent, received) << (which == 0 ? "ring" : "hierarchical") << " n=" << n << " rpn=" << rpn
                                    << " count=" << count;
        }
      }
    }
  }
}

// The ring moves 2(n-1)/n of the buffer per rank in 2(n-1) rounds: the bandwidth-optimal pattern.
TEST(Schedule, RingShape) {
  const std::vector<int> group{0, 1, 2, 3};
  const Schedule s = ring_schedule(2, group, 1000);
  ASSERT_EQ(s.rounds.size(), 6u);
  std::size_t sent = 0;
  for (const Round& r : s.rounds)
    for (const Transfer& t : r.transfers) {
      if (t.kind == Transfer::Kind::send) {
        sent += t.range.len;
        EXPECT_EQ(t.peer, 3);
      } else {
        EXPECT_EQ(t.peer, 1);
      }
    }
  EXPECT_EQ(sent, 1500u);
  EXPECT_EQ(s.rounds[3].round_to_wire.size(), 1u);  // the owned segment, before the allgather sends it
  EXPECT_TRUE(ring_schedule(0, {0}, 1000).rounds.empty());
}
