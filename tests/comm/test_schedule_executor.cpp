// test_schedule_executor.cpp — the staged executor (harness/comm/schedule_executor.h), the one the
// nccl transport binds to CUDA kernels and NCCL groups, run here over host memory and the threads
// transport: bit-identical to the reference host executor (run_schedule_on_host) for ring and
// hierarchical schedules at 1..5 ranks, every wire type and several node shapes, and on a
// hand-written schedule that takes every path (receive-and-add, receive-and-store, several transfers
// in one round, rounding-only rounds, sends to self). Each exchange also checks the layout the GPU
// relies on: every transfer lies inside the workspace or the user buffer, and no two transfers of a
// round overlap (NCCL reads and writes them concurrently). The workspace starts as NaN bytes, so
// reading staged data that was never written shows in the result.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "harness/comm/pipeline.h"
#include "harness/comm/schedule_executor.h"
#include "harness/comm/threads_comm.h"
#include "kernels/common/check.h"
#include "tests/comm/schedule_test_util.h"

using namespace scalebench;
using namespace scalebench::comm;

namespace {

const std::size_t kCounts[] = {0, 1, 2, 3, 5, 13, 97, 1009, 4099};

using sbtest::count_differing;

std::vector<float> random_input(std::size_t count, int rank) {
  return sbtest::random_floats(count, static_cast<unsigned>(31 + rank * 7919 + count));
}

// The staged executor's operations over host memory and a Communicator: a stand-in for the GPU.
class HostOps {
 public:
  HostOps(Communicator& comm, WireType wire, int tag, const float* buf, std::size_t count)
      : comm_(comm), wire_(wire), tag_(tag), buf_(reinterpret_cast<const char*>(buf)), buf_bytes_(count * 4) {}

  std::size_t rounds_run = 0;

  void* workspace(std::size_t bytes) {
    ws_.assign(bytes, static_cast<char>(0xff));  // NaN bytes in every float and 16-bit lane
    return ws_.data();
  }
  void pack(std::size_t n, const float* src, void* wire) {
    pack_to_wire(src, static_cast<std::uint16_t*>(wire), n, wire_);
  }
  void widen(std::size_t n, const void* wire, float* dst) {
    widen_from_wire(static_cast<const std::uint16_t*>(wire), dst, n, wire_);
  }
  void add(std::size_t n, float* dst, const float* src) {
    for (std::size_t i = 0; i < n; ++i) dst[i] += src[i];
  }
  void exchange(std::size_t round, const std::vector<Transfer>& ts, const std::vector<void*>& where,
                std::size_t elem_bytes) {
    // Thrown, not asserted: an early return would leave the peers waiting for this rank's transfers.
    SB_CHECK(ts.size() == where.size(), "round {}: {} transfers, {} places", round, ts.size(), where.size());
    for (std::size_t i = 0; i < ts.size(); ++i) {
      const char* a = static_cast<const char*>(where[i]);
      const std::size_t len = ts[i].range.len * elem_bytes;
      const bool in_ws = a >= ws_.data() && a + len <= ws_.data() + ws_.size();
      const bool in_buf = a >= buf_ && a + len <= buf_ + buf_bytes_;
      SB_CHECK(in_ws || in_buf, "round {} transfer {} lies outside the workspace and the buffer", round, i);
      for (std::size_t j = 0; j < i; ++j) {
        const char* b = static_cast<const char*>(where[j]);
        const std::size_t blen = ts[j].range.len * elem_bytes;
        SB_CHECK(a + len <= b || b + blen <= a, "round {}: transfers {} and {} overlap", round, j, i);
      }
    }
    std::vector<Request> reqs;
    for (std::size_t i = 0; i < ts.size(); ++i) {
      const std::size_t bytes = ts[i].range.len * elem_bytes;
      reqs.push_back(ts[i].kind == Transfer::Kind::send ? comm_.isend(where[i], bytes, ts[i].peer, tag_)
                                                        : comm_.irecv(where[i], bytes, ts[i].peer, tag_));
    }
    wait_all(reqs);
  }
  void run_round(std::size_t, const std::function<void()>& body) {
    body();
    ++rounds_run;
  }

 private:
  Communicator& comm_;
  WireType wire_;
  int tag_;
  const char* buf_;
  std::size_t buf_bytes_;
  std::vector<char> ws_;
};

constexpr int kTag = Communicator::kAlgoTagBase + 9;

void run_staged(Communicator& c, const Schedule& s, std::vector<float>& v, WireType wire) {
  HostOps ops(c, wire, kTag, v.data(), v.size());
  run_schedule_staged(s, v.data(), wire, ops);
  EXPECT_EQ(ops.rounds_run, s.rounds.size());
}

enum class Algo { ring, hierarchical };

void check(Algo algo, int n, int ranks_per_node, WireType wire, std::size_t chunk_elems) {
  ThreadsWorld::run(n, [&](Communicator& c) {
    const NodeMap nodes = make_node_map(c, ranks_per_node);
    std::vector<int> everyone(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) everyone[static_cast<std::size_t>(r)] = r;
    for (std::size_t count : kCounts) {
      const Schedule s = algo == Algo::ring ? ring_schedule(c.rank(), everyone, count)
                                            : hierarchical_schedule(c.rank(), nodes, count, chunk_elems);
      std::vector<float> want = random_input(count, c.rank()), got = want;
      run_schedule_on_host(c, s, want.data(), wire, kTag);
      run_staged(c, s, got, wire);
      ASSERT_EQ(count_differing(got, want), 0u) << "n=" << n << " rpn=" << ranks_per_node << " wire="
                                                << to_string(wire) << " count=" << count << " rank " << c.rank();
    }
  }, CommOptions{60.0});
}

}  // namespace

class StagedVsHost : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(StagedVsHost, Ring) {
  const auto [n, w] = GetParam();
  check(Algo::ring, n, 0, static_cast<WireType>(w), 256);
}

TEST_P(StagedVsHost, Hierarchical) {
  const auto [n, w] = GetParam();
  for (int rpn : {1, 2, 3, n}) check(Algo::hierarchical, n, rpn, static_cast<WireType>(w), 37);
}

INSTANTIATE_TEST_SUITE_P(RanksAndWires, StagedVsHost, ::testing::Combine(::testing::Range(1, 6), ::testing::Range(0, 3)),
                         [](const auto& info) {
                           return "n" + std::to_string(std::get<0>(info.param)) + "_" +
                                  to_string(static_cast<WireType>(std::get<1>(info.param)));
                         });

// The GPU test's hand-written schedule (schedule_test_util.h), here on the host.
TEST(StagedExecutor, EveryPathOnOneRankMatchesHost) {
  const sbtest::EveryPathSchedule every;
  const Schedule& s = every.s;
  const std::size_t count = every.count;
  for (WireType wire : {WireType::f32, WireType::bf16, WireType::f16}) {
    const std::vector<float> input = random_input(count, 11);
    std::vector<float> want = input, got = input;
    ThreadsWorld::run(1, [&](Communicator& c) {
      run_schedule_on_host(c, s, want.data(), wire, kTag);
      run_staged(c, s, got, wire);
    }, {60.0});
    EXPECT_EQ(count_differing(got, want), 0u) << "wire " << to_string(wire);
    EXPECT_NE(count_differing(got, input), 0u) << "the schedule changed nothing";
  }
}

TEST(StagedExecutor, LayoutSizesTheBusiestRound) {
  using K = Transfer::Kind;
  Schedule s;
  s.rounds.push_back({{}, {{K::send, 1, {0, 10}}, {K::recv_add, 1, {10, 30}}, {K::recv_store, 1, {40, 5}}}});
  s.rounds.push_back({{{0, 100}}, {{K::send, 1, {0, 50}}}});
  const StagedLayout f32 = staged_layout(s, WireType::f32);
  EXPECT_EQ(f32.f32_bytes, 256u);  // 35 received floats, rounded up to the 16-bit area's alignment
  EXPECT_EQ(f32.half_elems, 0u);
  const StagedLayout bf16 = staged_layout(s, WireType::bf16);
  EXPECT_EQ(bf16.half_elems, 100u);  // the rounding of 100 beats 50 sent + 35 received
  s.rounds[1].round_to_wire[0].len = 60;
  EXPECT_EQ(staged_layout(s, WireType::f16).half_elems, 85u);
}
