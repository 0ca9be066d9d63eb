// test_nccl_bootstrap.cpp — how nccl job worlds come to be: the unique id over a bootstrap
// Communicator (the threads transport stands in for MPI here: same code path, no mpirun), the
// shared-file bootstrap (hand-over, a missing rank ending at the deadline, a reader with no file,
// a leftover file of another job skipped), the launcher variables and the device choice.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "harness/comm/nccl/comm.h"
#include "harness/comm/threads_comm.h"
#include "kernels/common/check.h"
#include "kernels/cuda/device_buffer.h"

using namespace scalebench;
using namespace scalebench::comm;

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "sb_nccl_" + std::to_string(::getpid()) + "_" + name;
}

bool exists(const std::string& p) { return std::ifstream(p).good(); }

// Sets environment variables for the scope, restoring the previous values.
class EnvScope {
 public:
  void set(const char* k, const char* v) {
    const char* old = std::getenv(k);
    saved_.push_back({k, old != nullptr, old != nullptr ? old : ""});
    if (v != nullptr) ::setenv(k, v, 1); else ::unsetenv(k);
  }
  ~EnvScope() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->had) ::setenv(it->key.c_str(), it->value.c_str(), 1); else ::unsetenv(it->key.c_str());
    }
  }

 private:
  struct Saved {
    std::string key;
    bool had;
    std::string value;
  };
  std::vector<Saved> saved_;
};

}  // namespace

TEST(NcclBootstrap, UniqueIdOverABootstrapCommunicator) {
  const int n = cuda_device_count();
  NcclOptions o;
  o.comm.timeout_s = 60;
  ThreadsWorld::run(n, [&](Communicator& boot) {
    auto c = make_nccl_world(boot, o);
    EXPECT_STREQ(c->transport(), "nccl");
    EXPECT_EQ(c->rank(), boot.rank());
    EXPECT_EQ(c->size(), n);
    EXPECT_EQ(nccl_device(*c), boot.rank());  // local rank on one host
    cuda::DeviceBuffer a(8 * sizeof(float), nccl_device(*c));
    std::vector<float> h(8, 1.0f);
    a.upload(h.data(), 8 * sizeof(float));
    c->allreduce_sum(a.as<float>(), 8);
    a.download(h.data(), 8 * sizeof(float));
    EXPECT_EQ(h[7], static_cast<float>(n));
  }, CommOptions{60});
}

// Two ranks meet through the file. On one GPU both must use device 0, which NCCL refuses (one rank
// per GPU) — but only after they met, so the id hand-over is still what is tested: neither rank
// may fail on the file, and neither may hang.
TEST(NcclBootstrap, SharedFileHandsTheIdOver) {
  const int gpus = cuda_device_count();
  const std::string path = temp_path("handover.id");
  NcclOptions o;
  o.comm.timeout_s = 30;
  o.id_file = path;
  o.id_key = "test-handover";
  std::string err[2];
  const auto t0 = Clock::now();
  std::vector<std::thread> ts;
  for (int r = 0; r < 2; ++r) {
    ts.emplace_back([&, r] {
      try {
        JobPlace p;
        p.rank = r;
        p.size = 2;
        p.local_rank = gpus >= 2 ? r : 0;
        p.local_rank_known = true;
        NcclOptions mine = o;
        mine.device = gpus >= 2 ? r : 0;
        auto c = make_nccl_world_file(p, mine);
        EXPECT_EQ(c->size(), 2);
        c->barrier();
      } catch (const std::exception& e) {
        err[r] = e.what();
      }
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_LT(since(t0), o.comm.timeout_s + 10);
  for (int r = 0; r < 2; ++r) {
    if (gpus >= 2) {
      EXPECT_TRUE(err[r].empty()) << "rank " << r << ": " << err[r];
    } else if (!err[r].empty()) {
      // Anything but a failed hand-over or a deadline is NCCL refusing two ranks on one GPU.
      EXPECT_EQ(err[r].find("appeared in"), std::string::npos) << err[r];
      EXPECT_EQ(err[r].find("did not complete within"), std::string::npos) << err[r];
    }
  }
  EXPECT_FALSE(exists(path)) << "rank 0 leaves the id file behind";
}

TEST(NcclBootstrap, MissingRankEndsAtTheDeadline) {
  const std::string path = temp_path("missing.id");
  NcclOptions o;
  o.comm.timeout_s = 3;
  o.id_file = path;
  o.id_key = "test-missing";
  JobPlace p;
  p.rank = 0;
  p.size = 2;
  p.local_rank_known = true;
  const auto t0 = Clock::now();
  std::string msg;
  try {
    make_nccl_world_file(p, o);
  } catch (const Error& e) {
    msg = e.what();
  }
  ASSERT_FALSE(msg.empty()) << "rank 0 of 2 was created alone";
  EXPECT_LT(since(t0), o.comm.timeout_s + 20);
  EXPECT_NE(msg.find("creation (unique id from the file"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rank 0 of 2"), std::string::npos) << msg;
  EXPECT_FALSE(exists(path)) << "rank 0 leaves the id file behind after failing";
}

TEST(NcclBootstrap, ReaderWithoutAFileTimesOutNamingIt) {
  const std::string path = temp_path("nobody.id");
  NcclOptions o;
  o.comm.timeout_s = 1;
  o.id_file = path;
  o.id_key = "test-nobody";
  JobPlace p;
  p.rank = 1;
  p.size = 2;
  p.local_rank_known = true;
  try {
    make_nccl_world_file(p, o);
    FAIL() << "rank 1 was created without an id";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(path), std::string::npos) << m;
    EXPECT_NE(m.find("within the 1 s timeout"), std::string::npos) << m;
  }
}

TEST(NcclBootstrap, LeftoverFileOfAnotherJobIsSkipped) {
  const std::string path = temp_path("other.id");
  {
    std::ofstream f(path);
    f << "scalebench-nccl-id 1\nkey other-job\nranks 2\nid " << std::string(256, '0') << "\n";
  }
  NcclOptions o;
  o.comm.timeout_s = 1;
  o.id_file = path;
  o.id_key = "this-job";
  JobPlace p;
  p.rank = 1;
  p.size = 2;
  p.local_rank_known = true;
  try {
    make_nccl_world_file(p, o);
    FAIL() << "rank 1 used another job's id";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("belongs to another job step"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

TEST(NcclBootstrap, LauncherVariables) {
  EnvScope env;
  env.set("SCALEBENCH_RANK", "3");
  env.set("SCALEBENCH_WORLD_SIZE", "8");
  env.set("SCALEBENCH_LOCAL_RANK", "1");
  JobPlace p = job_place_from_env();
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(p.size, 8);
  EXPECT_EQ(p.local_rank, 1);
  EXPECT_TRUE(p.local_rank_known);
  EXPECT_NE(p.source.find("SCALEBENCH_RANK"), std::string::npos);
  env.set("SCALEBENCH_WORLD_SIZE", "two");
  try {
    job_place_from_env();
    FAIL() << "a malformed size was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("SCALEBENCH_WORLD_SIZE"), std::string::npos) << e.what();
  }
  env.set("SCALEBENCH_WORLD_SIZE", "2");
  EXPECT_THROW(job_place_from_env(), Error);  // rank 3 of 2
  env.set("SCALEBENCH_RANK", "1");
  env.set("SCALEBENCH_NCCL_ID_FILE", nullptr);
  p = job_place_from_env();
  NcclOptions o;
  EXPECT_EQ(choose_nccl_bootstrap(p, o).kind, p.under_mpi ? "mpi" : "none");
  o.id_file = "/shared/id";
  EXPECT_EQ(choose_nccl_bootstrap(p, o).kind, "file");
}

TEST(NcclBootstrap, DeviceChoice) {
  const int n = cuda_device_count();
  EXPECT_EQ(pick_device(0), 0);
  EXPECT_EQ(pick_device(5, 0), 0);  // an explicit device wins
  if (n == 1) {
    EXPECT_EQ(pick_device(3), 0);  // one visible GPU: the launcher bound it to us
  } else {
    EXPECT_EQ(pick_device(1), 1);
  }
  try {
    pick_device(0, n + 7);
    FAIL() << "a device that does not exist was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("device " + std::to_string(n + 7)), std::string::npos) << e.what();
  }
}
