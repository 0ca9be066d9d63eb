// test_threads_transport.cpp — the threads transport on its own: point-to-point matching and order,
// collectives, dup, and every way a run can go wrong (missing peer, returned peer, size and
// collective mismatches, abort) ending in an Error rather than a hang.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <numeric>
#include <thread>

#include "harness/comm/communicator.h"
#include "harness/comm/threads_comm.h"
#include "kernels/common/check.h"

using namespace scalebench;
using namespace scalebench::comm;

namespace {

CommOptions short_timeout(double s = 0.3) { return CommOptions{s}; }

// Runs fn on n ranks and returns the Error text (empty if none).
std::string error_of(int n, const std::function<void(Communicator&)>& fn, CommOptions o = short_timeout()) {
  try {
    ThreadsWorld::run(n, fn, o);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ThreadsTransport, SendRecvAroundRing) {
  for (int n = 1; n <= 4; ++n) {
    ThreadsWorld::run(n, [n](Communicator& c) {
      EXPECT_EQ(c.size(), n);
      EXPECT_STREQ(c.transport(), "threads");
      const int right = (c.rank() + 1) % n, left = (c.rank() + n - 1) % n;
      std::vector<int> out(100), in(100, -1);
      std::iota(out.begin(), out.end(), 1000 * c.rank());
      Request r = c.irecv(in.data(), in.size() * sizeof(int), left, 5);
      c.send(out.data(), out.size() * sizeof(int), right, 5);
      r.wait();
      for (int i = 0; i < 100; ++i) ASSERT_EQ(in[static_cast<std::size_t>(i)], 1000 * left + i);
    });
  }
}

TEST(ThreadsTransport, SameTagIsFifoAndTagsAreSeparate) {
  ThreadsWorld::run(2, [](Communicator& c) {
    if (c.rank() == 0) {
      std::vector<Request> rs;
      int vals[6] = {1, 2, 3, 10, 20, 30};
      for (int i = 0; i < 3; ++i) rs.push_back(c.isend(&vals[i], sizeof(int), 1, 7));
      for (int i = 3; i < 6; ++i) rs.push_back(c.isend(&vals[i], sizeof(int), 1, 8));
      wait_all(rs);
    } else {
      int got[6] = {};
      // Tag 8 first: it must not be confused with tag 7; each tag delivers in send order.
      for (int i = 3; i < 6; ++i) c.recv(&got[i], sizeof(int), 0, 8);
      for (int i = 0; i < 3; ++i) c.recv(&got[i], sizeof(int), 0, 7);
      EXPECT_EQ(got[0], 1);
      EXPECT_EQ(got[1], 2);
      EXPECT_EQ(got[2], 3);
      EXPECT_EQ(got[3], 10);
      EXPECT_EQ(got[5], 30);
    }
  });
}

TEST(ThreadsTransport, TestPollsWithoutBlocking) {
  ThreadsWorld::run(2, [](Communicator& c) {
    int v = c.rank() == 0 ? 42 : 0;
    if (c.rank() == 1) {
      Request r = c.irecv(&v, sizeof v, 0, 1);
      EXPECT_FALSE(r.test());  // rank 0 sends only after the barrier below
      c.barrier();
      c.barrier();
      while (!r.test()) std::this_thread::yield();
      EXPECT_EQ(v, 42);
    } else {
      c.barrier();
      Request s = c.isend(&v, sizeof v, 1, 1);
      c.barrier();
      s.wait();
    }
  });
}

TEST(ThreadsTransport, BroadcastAllgatherBarrier) {
  for (int n = 1; n <= 4; ++n) {
    for (int root = 0; root < n; ++root) {
      ThreadsWorld::run(n, [root](Communicator& c) {
        std::vector<float> b(37, static_cast<float>(c.rank() == root ? 7 : -1));
        c.broadcast(b.data(), b.size(), root);
        for (float x : b) ASSERT_EQ(x, 7.0f);
        c.broadcast(b.data(), 0, root);  // empty broadcast is legal
        auto all = c.allgather(std::string(static_cast<std::size_t>(c.rank()), 'x') + "|" + std::to_string(c.rank()));
        ASSERT_EQ(static_cast<int>(all.size()), c.size());
        for (int r = 0; r < c.size(); ++r)
          EXPECT_EQ(all[static_cast<std::size_t>(r)], std::string(static_cast<std::size_t>(r), 'x') + "|" + std::to_string(r));
        c.barrier();
      });
    }
  }
}

// allgather_fixed's default (every transport but mpi): blocks rank after rank, and a rank whose
// block differs in size is an error on every rank, not a silent misread.
TEST(ThreadsTransport, AllgatherFixedPlacesBlocksInRankOrderAndChecksTheirSize) {
  ThreadsWorld::run(3, [](Communicator& c) {
    const std::int32_t mine[3] = {c.rank(), 10 * c.rank(), -c.rank()};
    std::vector<std::int32_t> all(9, -1);
    c.allgather_fixed(mine, sizeof(mine), all.data());
    for (int r = 0; r < 3; ++r)
      for (int i = 0; i < 3; ++i) EXPECT_EQ(all[std::size_t(3 * r + i)], (i == 0 ? 1 : i == 1 ? 10 : -1) * r);
    EXPECT_THROW(c.allgather_fixed(mine, c.rank() == 1 ? 8 : 12, all.data()), Error);
  });
}

TEST(ThreadsTransport, DupGivesAnIndependentCommunicationThread) {
  // The overlap pattern the strategies use: a background thread reduces on a dup() while the main
  // thread keeps using the original communicator.
  ThreadsWorld::run(3, [](Communicator& c) {
    auto bg_comm = c.dup();
    std::vector<float> bucket(1000, static_cast<float>(c.rank() + 1));
    std::thread bg([&] { bg_comm->allreduce_sum(bucket.data(), bucket.size()); });
    std::vector<float> other(10, 1.0f);
    c.allreduce_sum(other.data(), other.size());
    c.barrier();
    bg.join();
    for (float x : bucket) ASSERT_EQ(x, 6.0f);
    for (float x : other) ASSERT_EQ(x, 3.0f);
  });
}

TEST(ThreadsTransport, StalledPeerTimesOutNamingIt) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string err = error_of(3, [](Communicator& c) {
    if (c.rank() == 2) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // stalled, then gone
      return;
    }
    float x = 1;
    c.allreduce_sum(&x, 1);
  });
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_NE(err.find("no progress from rank(s) 2"), std::string::npos) << err;
  EXPECT_NE(err.find("0.3 s timeout"), std::string::npos) << err;
  EXPECT_LT(s, 30.0);  // generous: only "it did not hang"
}

TEST(ThreadsTransport, StalledSenderTimesOutInRecv) {
  const std::string err = error_of(2, [](Communicator& c) {
    int v = 0;
    if (c.rank() == 0) c.recv(&v, sizeof v, 1, 3);
    else std::this_thread::sleep_for(std::chrono::milliseconds(800));
  });
  EXPECT_NE(err.find("rank 0 receiving 4 bytes from rank 1 (tag 3)"), std::string::npos) << err;
  EXPECT_NE(err.find("no progress from rank(s) 1"), std::string::npos) << err;
}

TEST(ThreadsTransport, ReturnedPeerFailsFast) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string err = error_of(2, [](Communicator& c) {
    if (c.rank() == 1) return;
    int v = 0;
    c.recv(&v, sizeof v, 1, 0);
  }, CommOptions{60.0});
  EXPECT_NE(err.find("rank 1 has already returned"), std::string::npos) << err;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 30.0);
}

TEST(ThreadsTransport, FailureOnOneRankReleasesTheOthers) {
  const std::string err = error_of(4, [](Communicator& c) {
    if (c.rank() == 3) throw Error("disk full on rank 3");
    c.barrier();
  }, CommOptions{60.0});
  EXPECT_EQ(err, "disk full on rank 3");  // the cause, not the other ranks' follow-on errors
}

TEST(ThreadsTransport, AbortEndsEveryRank) {
  const std::string err = error_of(3, [](Communicator& c) {
    if (c.rank() == 1) c.abort("bad input on rank 1");
    float x = 0;
    c.allreduce_sum(&x, 1);
  }, CommOptions{60.0});
  EXPECT_NE(err.find("bad input on rank 1"), std::string::npos) << err;
}

TEST(ThreadsTransport, SizeMismatchIsAnError) {
  const std::string err = error_of(2, [](Communicator& c) {
    char b[8] = {};
    if (c.rank() == 0) c.send(b, 8, 1, 0);
    else c.recv(b, 4, 0, 0);
  });
  EXPECT_NE(err.find("sent 8 bytes to rank 1 (tag 0) but rank 1 posted a 4-byte receive"), std::string::npos) << err;
}

TEST(ThreadsTransport, CollectiveMismatchIsTheSameErrorEverywhere) {
  const std::string err = error_of(2, [](Communicator& c) {
    std::vector<float> b(11);
    c.allreduce_sum(b.data(), c.rank() == 0 ? 10 : 11);
  });
  EXPECT_NE(err.find("rank 0 called allreduce(count 10), rank 1 called allreduce(count 11)"), std::string::npos) << err;
  const std::string err2 = error_of(2, [](Communicator& c) {
    float b = 0;
    if (c.rank() == 0) c.barrier();
    else c.broadcast(&b, 1, 0);
  });
  EXPECT_NE(err2.find("rank 0 called barrier, rank 1 called broadcast(count 1, root 0)"), std::string::npos) << err2;
}

TEST(ThreadsTransport, BadArgumentsAreErrors) {
  EXPECT_THROW(ThreadsWorld(0), Error);
  EXPECT_THROW(ThreadsWorld(2, CommOptions{0.0}), Error);
  const std::string err = error_of(2, [](Communicator& c) {
    int v = 0;
    c.send(&v, sizeof v, 5, 0);
  });
  EXPECT_NE(err.find("peer 5 out of range"), std::string::npos) << err;
}

TEST(ThreadsTransport, ManualWorldWithOwnThreads) {
  ThreadsWorld w(2);
  std::vector<float> a(5, 1.0f), b(5, 2.0f);
  std::thread t([&] {
    w.comm(1).allreduce_sum(b.data(), b.size());
    w.finished(1);
  });
  w.comm(0).allreduce_sum(a.data(), a.size());
  w.finished(0);
  t.join();
  EXPECT_EQ(a, std::vector<float>(5, 3.0f));
  EXPECT_EQ(b, std::vector<float>(5, 3.0f));
}
