// mpi_test_staged.cpp — the staged transport (harness/comm/staged.h) over the mpi transport with the
// CPU device's copy queue, run under mpirun -np 1..4 by the same main as mpi_test_comm.cpp: every
// algorithm and wire type gives the bits of the plain mpi transport on values whose sums round, and
// staged point-to-point with MPI's rendezvous sizes completes (a copy that raced the host send or
// receive would show as wrong bits here).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "harness/comm/allreduce.h"
#include "harness/comm/mpi_comm.h"
#include "harness/comm/staged.h"

using namespace scalebench;
using namespace scalebench::comm;

namespace {

std::vector<float> rounding_values(std::size_t n, int rank, int salt) {
  std::mt19937 g(std::uint32_t(977 * rank + salt));
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(g) / (1.0f + float(rank));
  return v;
}

}  // namespace

TEST(MpiStaged, EveryAlgorithmAndWireEqualsThePlainTransport) {
  auto host = make_mpi_world(CommOptions{120.0});
  StagedComm staged(host->dup(), [] { return cpu::make_host_stager(); });
  const int me = host->rank();
  struct K {
    AllreduceAlgo algo;
    int rpn;
    WireType wire;
  };
  for (const K& k : {K{AllreduceAlgo::native, 0, WireType::f32}, K{AllreduceAlgo::ring, 0, WireType::f32},
                     K{AllreduceAlgo::ring, 0, WireType::bf16}, K{AllreduceAlgo::hierarchical, 2, WireType::f16},
                     K{AllreduceAlgo::hierarchical, 1, WireType::f32}}) {
    AllreduceOptions o;
    o.algo = k.algo, o.ranks_per_node = k.rpn, o.wire = k.wire;
    Allreducer plain(*host, o), through(staged, o);
    for (std::size_t count : {std::size_t{0}, std::size_t{7}, std::size_t{65537}, std::size_t{1000003}}) {
      auto want = rounding_values(count, me, int(count)), got = want;
      plain(want.data(), count);
      through(got.data(), count);
      ASSERT_TRUE(count == 0 || std::memcmp(want.data(), got.data(), count * sizeof(float)) == 0)
          << to_string(k.algo) << " wire " << to_string(k.wire) << " count " << count << " rank " << me;
    }
  }
  // Point-to-point around the ring at an eager and a rendezvous size.
  const int n = staged.size(), right = (me + 1) % n, left = (me + n - 1) % n;
  for (std::size_t count : {std::size_t{16}, std::size_t{1 << 20}}) {
    const auto send = rounding_values(count, me, 5);
    std::vector<float> got(count);
    Request s = staged.isend(send.data(), count * sizeof(float), right, 3);
    staged.recv(got.data(), count * sizeof(float), left, 3);
    s.wait();
    const auto want = rounding_values(count, left, 5);
    ASSERT_EQ(std::memcmp(want.data(), got.data(), count * sizeof(float)), 0) << "count " << count << " rank " << me;
  }
}
