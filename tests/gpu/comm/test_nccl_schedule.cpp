// test_nccl_schedule.cpp — the nccl executor of round schedules (ring and hierarchical allreduce on
// device buffers over ncclSend/ncclRecv) against the host executor, bit for bit:
//   * one GPU: a hand-written schedule of sends to self that takes every path of the executor
//     (receive-and-add, receive-and-store, several transfers in one group, round_to_wire, a
//     rounding-only round; tests/comm/schedule_test_util.h), for every
//     wire type, on random inputs;
//   * every visible GPU (2 or more; skipped with the count otherwise): the Allreducer's ring and
//     hierarchical (one node, and one node per rank) on a device group against the same Allreducer
//     on the threads transport, for every wire type and awkward counts.
#include <gtest/gtest.h>


#include "harness/comm/allreduce.h"
#include "harness/comm/nccl/comm.h"
#include "harness/comm/schedule.h"
#include "harness/comm/threads_comm.h"
#include "kernels/cuda/device_buffer.h"
#include "tests/comm/schedule_test_util.h"

using namespace scalebench;
using namespace scalebench::comm;

using sbtest::count_differing;

namespace {

std::vector<float> random_input(std::size_t count, int seed) { return sbtest::random_floats(count, unsigned(seed)); }

}  // namespace

TEST(NcclSchedule, EveryExecutorPathOnOneGpuMatchesHost) {
  const sbtest::EveryPathSchedule every;
  const Schedule& s = every.s;
  const std::size_t count = every.count;
  for (WireType wire : {WireType::f32, WireType::bf16, WireType::f16}) {
    const std::vector<float> input = random_input(count, 11);
    std::vector<float> want = input;
    ThreadsWorld::run(1, [&](Communicator& c) { run_schedule_on_host(c, s, want.data(), wire, 7); }, {60.0});
    std::vector<float> got(count);
    NcclDeviceGroup::run(
        1,
        [&](Communicator& c) {
          cuda::DeviceBuffer b(count * sizeof(float), nccl_device(c));
          b.upload(input.data(), count * sizeof(float));
          nccl_run_schedule(c, s, b.as<float>(), wire);
          b.download(got.data(), count * sizeof(float));
        },
        {60.0});
    EXPECT_EQ(count_differing(got, want), 0u) << "wire " << to_string(wire);
    EXPECT_NE(count_differing(got, input), 0u) << "the schedule changed nothing";
  }
}

TEST(NcclSchedule, RingAndHierarchicalOnEveryGpuMatchHost) {
  const int n = cuda_device_count();
  if (n < 2) GTEST_SKIP() << "needs 2 or more GPUs, " << n << " visible";
  const std::size_t counts[] = {1, 3, 1000, 65537, std::size_t{1} << 22};
  struct Setup {
    AllreduceAlgo algo;
    int ranks_per_node;
  };
  for (const Setup& st : {Setup{AllreduceAlgo::ring, 0}, Setup{AllreduceAlgo::hierarchical, 0},
                          Setup{AllreduceAlgo::hierarchical, 1}}) {
    for (WireType wire : {WireType::f32, WireType::bf16, WireType::f16}) {
      AllreduceOptions o;
      o.algo = st.algo;
      o.ranks_per_node = st.ranks_per_node;
      o.wire = wire;
      const std::string what = std::string(to_string(st.algo)) + " rpn " + std::to_string(st.ranks_per_node) + " wire " +
                               to_string(wire);
      for (std::size_t count : counts) {
        std::vector<std::vector<float>> want(static_cast<std::size_t>(n)), got(static_cast<std::size_t>(n));
        ThreadsWorld::run(n, [&](Communicator& c) {
          auto v = random_input(count, 100 + c.rank());
          Allreducer(c, o)(v.data(), count);
          want[static_cast<std::size_t>(c.rank())] = std::move(v);
        }, {120.0});
        NcclDeviceGroup::run(n, [&](Communicator& c) {
          const auto v = random_input(count, 100 + c.rank());
          cuda::DeviceBuffer b(count * sizeof(float), nccl_device(c));
          b.upload(v.data(), count * sizeof(float));
          Allreducer(c, o)(b.as<float>(), count);
          auto& out = got[static_cast<std::size_t>(c.rank())];
          out.resize(count);
          b.download(out.data(), count * sizeof(float));
        }, {120.0});
        for (int r = 0; r < n; ++r)
          EXPECT_EQ(count_differing(got[std::size_t(r)], want[std::size_t(r)]), 0u)
              << what << " count " << count << " rank " << r;
      }
    }
  }
}
