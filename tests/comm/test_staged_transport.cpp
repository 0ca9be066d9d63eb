// test_staged_transport.cpp — the staged transport (harness/comm/staged.h) with the CPU device's
// copy queue, against the host transport it runs over, bit for bit: every algorithm and wire type at
// 1-5 ranks on values whose sums round (so any change of order shows), tensor-fusion buckets with
// overlap on and off, broadcast and point-to-point (zero bytes included), and a rank whose copy
// fails mid-exchange (the job ends with that rank's error, no rank waits for the deadline).
// A counting copy queue proves each case went through the staging path rather than around it.
// The same transport over CUDA is the gpu label's (tests/gpu/strategy/test_shared_gpu_strategies.cpp).
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <random>

#include "harness/comm/allreduce.h"
#include "harness/comm/staged.h"
#include "harness/comm/threads_comm.h"
#include "harness/strategy/bucketer.h"
#include "kernels/common/check.h"

using namespace scalebench;
using namespace scalebench::comm;

namespace {

// The CPU copy queue, counting bytes staged each way; throws on copy number `fail_at` (0: never).
struct Counts {
  std::atomic<long> to_host{0}, from_host{0};
};
class CountingStager final : public DeviceStager {
 public:
  CountingStager(Counts& c, int fail_at) : inner_(cpu::make_host_stager()), c_(c), fail_at_(fail_at) {}
  void* host_alloc(std::size_t b) override { return inner_->host_alloc(b); }
  void host_free(void* p) noexcept override { inner_->host_free(p); }
  void to_host(void* h, const void* s, std::size_t b) override {
    maybe_fail();
    c_.to_host += long(b);
    inner_->to_host(h, s, b);
  }
  void from_host(void* d, const void* h, std::size_t b) override {
    maybe_fail();
    c_.from_host += long(b);
    inner_->from_host(d, h, b);
  }
  void wait() override { inner_->wait(); }

 private:
  void maybe_fail() {
    SB_CHECK(fail_at_ == 0 || ++copies_ != fail_at_, "injected copy failure on copy {}", fail_at_);
  }
  std::unique_ptr<DeviceStager> inner_;
  Counts& c_;
  int fail_at_, copies_ = 0;
};

StagedComm::StagerFactory counting(Counts& c, int fail_at = 0) {
  return [&c, fail_at] { return std::make_unique<CountingStager>(c, fail_at); };
}

// Values whose float sums round: a reordered addition changes bits.
std::vector<float> values(std::size_t n, int rank, int salt) {
  std::mt19937 g(std::uint32_t(1000 * rank + salt));
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(g) * (1.0f + float(rank));
  return v;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

struct AlgoCase {
  AllreduceAlgo algo;
  int ranks_per_node;
  WireType wire;
};

// Every rank's buffer after one allreduce of each count, plain (host) or staged.
std::vector<std::vector<float>> run_allreduce(int n, const AlgoCase& k, bool staged, Counts* counts) {
  std::vector<std::vector<float>> out(static_cast<std::size_t>(n));
  const std::size_t kCounts[] = {0, 1, 5, 97, 10007};
  ThreadsWorld::run(n, [&](Communicator& host) {
    std::unique_ptr<StagedComm> s;
    if (staged) s = std::make_unique<StagedComm>(host, counting(*counts));
    Communicator& c = staged ? static_cast<Communicator&>(*s) : host;
    AllreduceOptions o;
    o.algo = k.algo;
    o.ranks_per_node = k.ranks_per_node;
    o.wire = k.wire;
    o.chunk_bytes = 1024;  // many pipeline chunks on the larger counts
    Allreducer ar(c, o);
    auto& mine = out[std::size_t(host.rank())];
    for (std::size_t count : kCounts) {
      auto buf = values(count, host.rank(), int(count));
      ar(buf.data(), count);
      mine.insert(mine.end(), buf.begin(), buf.end());
    }
  }, CommOptions{60.0});
  return out;
}

const AlgoCase kAlgos[] = {
    {AllreduceAlgo::native, 0, WireType::f32},       {AllreduceAlgo::ring, 0, WireType::f32},
    {AllreduceAlgo::ring, 0, WireType::bf16},        {AllreduceAlgo::ring, 0, WireType::f16},
    {AllreduceAlgo::hierarchical, 2, WireType::f32}, {AllreduceAlgo::hierarchical, 2, WireType::bf16},
    {AllreduceAlgo::hierarchical, 1, WireType::f16},
};

}  // namespace

TEST(StagedTransport, AllreduceEqualsTheHostTransportBitForBit) {
  for (int n = 1; n <= 5; ++n)
    for (const AlgoCase& k : kAlgos) {
      SCOPED_TRACE(fmt::format("{} ranks, {}, rpn {}, wire {}", n, to_string(k.algo), k.ranks_per_node,
                               to_string(k.wire)));
      Counts counts;
      const auto plain = run_allreduce(n, k, false, nullptr);
      const auto staged = run_allreduce(n, k, true, &counts);
      for (int r = 0; r < n; ++r) EXPECT_TRUE(same_bits(plain[std::size_t(r)], staged[std::size_t(r)])) << "rank " << r;
      // Each call copied its buffer in and out once on every rank (count 0 copies nothing).
      const long per_rank = long((1 + 5 + 97 + 10007) * sizeof(float));
      EXPECT_EQ(counts.to_host.load(), n * per_rank);
      EXPECT_EQ(counts.from_host.load(), n * per_rank);
    }
}

// Tensor fusion as the strategies drive it: the backward hook hands ranges over in descending
// order, buckets go to the exchange on a dup() (overlap: its own thread) or at the end.
TEST(StagedTransport, BucketsWithOverlapOnAndOffEqualTheHostTransport) {
  constexpr std::int64_t kCount = 20000, kLayer = 1250, kBucket = 3000;
  for (bool overlap : {false, true})
    for (const AlgoCase& k : {kAlgos[0], kAlgos[2], kAlgos[4]}) {
      SCOPED_TRACE(fmt::format("overlap {}, {}", overlap, to_string(k.algo)));
      auto run = [&](bool staged, Counts* counts) {
        std::vector<std::vector<float>> out(3);
        ThreadsWorld::run(3, [&](Communicator& host) {
          std::unique_ptr<StagedComm> s;
          if (staged) s = std::make_unique<StagedComm>(host, counting(*counts));
          Communicator& c = staged ? static_cast<Communicator&>(*s) : host;
          auto bg = c.dup();
          AllreduceOptions o;
          o.algo = k.algo, o.ranks_per_node = k.ranks_per_node, o.wire = k.wire;
          auto grads = values(std::size_t(kCount), host.rank(), 7);
          BucketAllreducer b(*bg, o, grads.data(), kCount, kBucket, overlap);
          for (int step = 0; step < 2; ++step) {  // twice: buckets and host blocks are reused
            b.begin_step();
            for (std::int64_t e = kCount; e > 0; e -= kLayer) b.ready(std::max<std::int64_t>(0, e - kLayer), e);
            b.finish();
          }
          EXPECT_GE(b.buckets_per_step(), 5);
          out[std::size_t(host.rank())] = grads;
        }, CommOptions{60.0});
        return out;
      };
      Counts counts;
      const auto plain = run(false, nullptr);
      const auto staged = run(true, &counts);
      for (int r = 0; r < 3; ++r) EXPECT_TRUE(same_bits(plain[std::size_t(r)], staged[std::size_t(r)])) << "rank " << r;
      EXPECT_EQ(counts.to_host.load(), 3L * 2 * kCount * long(sizeof(float)));
    }
}

TEST(StagedTransport, BroadcastAndPointToPointLandOnTheDeviceBuffer) {
  for (int n = 1; n <= 4; ++n) {
    Counts counts;
    ThreadsWorld::run(n, [&](Communicator& host) {
      StagedComm c(host, counting(counts));
      EXPECT_STREQ(c.transport(), "staged");
      EXPECT_TRUE(c.caps().device_buffers && c.caps().staged);
      const int me = c.rank(), right = (me + 1) % n, left = (me + n - 1) % n;
      auto w = values(333, me, 1);
      c.broadcast(w.data(), w.size(), n - 1);  // the last rank is the root, as a parameter server's
      EXPECT_TRUE(same_bits(w, values(333, n - 1, 1)));
      // A ring exchange of several sizes, zero bytes included, posted receive-first and send-first.
      for (std::size_t count : {std::size_t{0}, std::size_t{3}, std::size_t{4099}}) {
        const auto send = values(count, me, int(count));
        std::vector<float> got(count, -1.0f);
        Request rr = c.irecv(got.data(), count * sizeof(float), left, 5);
        Request rs = c.isend(send.data(), count * sizeof(float), right, 5);
        rs.wait();
        rr.wait();
        EXPECT_TRUE(same_bits(got, values(count, left, int(count)))) << "count " << count;
      }
      // allgather takes host memory and passes straight through.
      const auto all = c.allgather(std::to_string(me));
      for (int r = 0; r < n; ++r) EXPECT_EQ(all[std::size_t(r)], std::to_string(r));
    }, CommOptions{60.0});
    EXPECT_GT(counts.from_host.load(), 0) << n << " ranks: nothing was staged";
  }
}

// One rank's copy fails in the middle of a bucketed exchange: the job ends with that rank's error
// (the threads world fails every other rank's waits at once), not at the 60 s deadline.
TEST(StagedTransport, ARankWhoseCopyFailsMidExchangeEndsTheJobWithItsError) {
  for (bool overlap : {false, true}) {
    Counts counts;
    std::string what;
    try {
      ThreadsWorld::run(3, [&](Communicator& host) {
        StagedComm c(host, host.rank() == 1 ? counting(counts, 3) : counting(counts));
        auto bg = c.dup();
        AllreduceOptions o;
        o.algo = AllreduceAlgo::ring;
        auto grads = values(9000, host.rank(), 3);
        BucketAllreducer b(*bg, o, grads.data(), 9000, 1000, overlap);
        b.begin_step();
        for (std::int64_t e = 9000; e > 0; e -= 500) b.ready(e - 500, e);
        b.finish();
      }, CommOptions{60.0});
    } catch (const std::exception& e) {
      what = e.what();
    }
    EXPECT_NE(what.find("injected copy failure"), std::string::npos) << "overlap " << overlap << ": " << what;
  }
}
