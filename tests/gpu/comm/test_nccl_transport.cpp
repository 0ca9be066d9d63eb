// test_nccl_transport.cpp — the nccl transport on device buffers: collectives, point-to-point to
// self and around a ring, dup, the deadline (a receive nobody answers ends in an Error naming it,
// within the timeout plus slack, never a hang), a failing rank stopping the rest of its device
// group, and errors that name the operation. One GPU is enough; the N-GPU cases run when more
// than one device is visible and say so when skipped.
#include <gtest/gtest.h>

#include <chrono>
#include <numeric>
#include <stdexcept>

#include "harness/comm/allreduce.h"
#include "harness/comm/nccl/comm.h"
#include "kernels/common/check.h"
#include "kernels/cuda/device_buffer.h"

using namespace scalebench;
using namespace scalebench::comm;

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

CommOptions opts(double timeout_s) { return CommOptions{timeout_s, 50e-6}; }

std::vector<float> download(cuda::DeviceBuffer& b, std::size_t n) {
  std::vector<float> h(n);
  b.download(h.data(), n * sizeof(float));
  return h;
}

int devices() { return cuda_device_count(); }

}  // namespace

TEST(NcclTransport, ReportsItselfAndItsCapabilities) {
  NcclDeviceGroup g({0}, opts(60));
  Communicator& c = g.comm(0);
  EXPECT_STREQ(c.transport(), "nccl");
  EXPECT_EQ(c.rank(), 0);
  EXPECT_EQ(c.size(), 1);
  EXPECT_TRUE(c.caps().device_buffers);
  EXPECT_TRUE(c.caps().native_allreduce);
  EXPECT_TRUE(c.caps().native_broadcast);
  EXPECT_EQ(nccl_device(c), 0);
  EXPECT_EQ(c.timeout_s(), 60);
  EXPECT_FALSE(nccl_version().empty());
}

TEST(NcclTransport, CollectivesAndSelfSendRecvOnOneGpu) {
  NcclDeviceGroup g({0}, opts(60));
  Communicator& c = g.comm(0);
  const std::size_t n = 1000;
  std::vector<float> h(n);
  std::iota(h.begin(), h.end(), 1.0f);
  cuda::DeviceBuffer a(n * sizeof(float), 0), b(n * sizeof(float), 0);
  a.upload(h.data(), n * sizeof(float));
  c.allreduce_sum(a.as<float>(), n);  // one rank: the sum is the input
  EXPECT_EQ(download(a, n), h);
  c.broadcast(a.as<float>(), n, 0);
  EXPECT_EQ(download(a, n), h);
  c.barrier();
  const auto all = c.allgather("host-0");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0], "host-0");
  EXPECT_EQ(c.allgather(""), std::vector<std::string>{""});

  // Send to self: both halves are queued and launched together by the first wait.
  b.zero(n * sizeof(float));
  Request r = c.irecv(b.data(), n * sizeof(float), 0, 3);
  Request s = c.isend(a.data(), n * sizeof(float), 0, 3);
  r.wait();
  s.wait();
  EXPECT_EQ(download(b, n), h);
  // Zero-byte operations complete at once.
  Request z = c.isend(a.data(), 0, 0, 4);
  EXPECT_TRUE(z.test());

  // The native Allreducer runs on the transport's collective.
  Allreducer ar(c, AllreduceOptions{});
  ar(a.as<float>(), n);
  EXPECT_EQ(download(a, n), h);
}

TEST(NcclTransport, DupGivesAWorkingCommunicator) {
  NcclDeviceGroup g({0}, opts(60));
  auto d = g.comm(0).dup();
  EXPECT_STREQ(d->transport(), "nccl");
  EXPECT_EQ(d->size(), 1);
  cuda::DeviceBuffer a(64 * sizeof(float), 0);
  std::vector<float> h(64, 2.5f);
  a.upload(h.data(), 64 * sizeof(float));
  d->allreduce_sum(a.as<float>(), 64);
  g.comm(0).allreduce_sum(a.as<float>(), 64);
  EXPECT_EQ(download(a, 64), h);
  d->barrier();
}

TEST(NcclTransport, ErrorsNameTheOperation) {
  NcclDeviceGroup g({0}, opts(20));
  Communicator& c = g.comm(0);
  std::vector<float> host(16, 1.0f);
  try {
    c.allreduce_sum(host.data(), host.size());
    FAIL() << "a host buffer was accepted";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("allreduce_sum"), std::string::npos) << m;
    EXPECT_NE(m.find("host memory"), std::string::npos) << m;
  }
  cuda::DeviceBuffer a(16 * sizeof(float), 0);
  EXPECT_THROW(c.isend(a.data(), 64, 5, 0), Error);        // no rank 5
  EXPECT_THROW(c.isend(a.data(), 64, 0, -1), Error);       // bad tag
  EXPECT_THROW(c.broadcast(a.as<float>(), 16, 1), Error);  // no rank 1
  c.barrier();  // argument errors do not break the communicator
}

// At one rank the only peer is the rank itself: NCCL rejects a receive from self without a send
// in the same group at once; either way the wait must end in an Error, within the deadline.
TEST(NcclTransport, RecvWithNoSenderEndsInAnErrorNotAHang) {
  const double timeout = 3.0;
  NcclDeviceGroup g({0}, opts(timeout));
  Communicator& c = g.comm(0);
  cuda::DeviceBuffer b(16 * sizeof(float), 0);
  const auto t0 = Clock::now();
  std::string msg;
  try {
    c.recv(b.data(), 64, 0, 9);
  } catch (const Error& e) {
    msg = e.what();
  }
  const double took = since(t0);
  ASSERT_FALSE(msg.empty()) << "recv returned";
  EXPECT_LT(took, timeout + 10.0) << msg;
  EXPECT_NE(msg.find("recv of 64 bytes from rank 0 (tag 9)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("aborted"), std::string::npos) << msg;
  // The communicator is now aborted: later calls say so instead of hanging.
  try {
    c.barrier();
    FAIL() << "barrier on an aborted communicator returned";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("aborted earlier"), std::string::npos) << e.what();
  }
}

TEST(NcclTransport, GroupOfEveryVisibleGpu) {
  const int n = devices();
  if (n < 2) GTEST_SKIP() << "needs 2 or more GPUs, " << n << " visible";
  NcclDeviceGroup::run(n, [n](Communicator& c) {
    const int me = c.rank(), right = (me + 1) % n, left = (me + n - 1) % n;
    const int dev = nccl_device(c);
    EXPECT_EQ(dev, me);
    const std::size_t count = 4096;
    std::vector<float> h(count);
    for (std::size_t i = 0; i < count; ++i) h[i] = static_cast<float>(i % 13 + me);
    cuda::DeviceBuffer a(count * sizeof(float), dev), b(count * sizeof(float), dev);
    a.upload(h.data(), count * sizeof(float));
    c.allreduce_sum(a.as<float>(), count);
    auto got = download(a, count);
    for (std::size_t i = 0; i < count; ++i) {
      float want = 0;
      for (int r = 0; r < n; ++r) want += static_cast<float>(i % 13 + r);
      ASSERT_EQ(got[i], want) << "element " << i;
    }
    a.upload(h.data(), count * sizeof(float));
    c.broadcast(a.as<float>(), count, n - 1);
    got = download(a, count);
    EXPECT_EQ(got[0], static_cast<float>(n - 1));
    // Ring exchange: isend right, irecv left, wait both (launched as one group).
    a.upload(h.data(), count * sizeof(float));
    Request s = c.isend(a.data(), count * sizeof(float), right, 1);
    Request r = c.irecv(b.data(), count * sizeof(float), left, 1);
    s.wait();
    r.wait();
    EXPECT_EQ(download(b, count)[1], static_cast<float>(1 % 13 + left));
    const auto names = c.allgather("rank" + std::to_string(me));
    ASSERT_EQ(static_cast<int>(names.size()), n);
    EXPECT_EQ(names[static_cast<std::size_t>(n - 1)], "rank" + std::to_string(n - 1));
    auto d = c.dup();
    d->barrier();
  }, opts(120));
}

TEST(NcclTransport, SilentPeerInAGroupHitsTheDeadline) {
  const int n = devices();
  if (n < 2) GTEST_SKIP() << "needs 2 or more GPUs, " << n << " visible";
  const double timeout = 3.0;
  const auto t0 = Clock::now();
  std::string msg;
  try {
    NcclDeviceGroup::run(2, [](Communicator& c) {
      if (c.rank() == 1) return;  // never sends
      cuda::DeviceBuffer b(16 * sizeof(float), nccl_device(c));
      c.recv(b.data(), 64, 1, 2);
    }, opts(timeout));
  } catch (const Error& e) {
    msg = e.what();
  }
  ASSERT_FALSE(msg.empty()) << "run returned";
  EXPECT_LT(since(t0), timeout + 20.0) << msg;
  EXPECT_NE(msg.find("recv of 64 bytes from rank 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("timeout"), std::string::npos) << msg;
}

TEST(NcclTransport, FailingRankStopsTheRestOfTheGroupPromptly) {
  const int n = devices();
  if (n < 2) GTEST_SKIP() << "needs 2 or more GPUs, " << n << " visible";
  const double timeout = 60.0;
  const auto t0 = Clock::now();
  std::string msg;
  try {
    NcclDeviceGroup::run(2, [](Communicator& c) {
      if (c.rank() == 1) throw std::runtime_error("boom on rank 1");
      cuda::DeviceBuffer b(16 * sizeof(float), nccl_device(c));
      c.allreduce_sum(b.as<float>(), 16);  // rank 1 never comes
    }, opts(timeout));
  } catch (const std::exception& e) {
    msg = e.what();
  }
  EXPECT_EQ(msg, "boom on rank 1");  // the cause, not rank 0's follow-on error
  EXPECT_LT(since(t0), timeout / 2) << "rank 0 waited for its deadline instead of stopping";
}
