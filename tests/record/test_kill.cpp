// test_kill.cpp — a run killed with SIGKILL keeps a readable run file with its finished epochs:
// spawn `scalebench train -o` on a small generated dataset with many short epochs, read the run
// file while it is being rewritten (every read must succeed: the writes are atomic), kill -9 once
// it holds two epochs, and read it back: it still says running, but names a writer that is gone
// (liveness.h). Then the launcher's mark_failed turns it into a failed record that keeps those epochs.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "harness/record/liveness.h"
#include "harness/record/recorder.h"
#include "harness/record/run_file.h"
#include "kernels/common/check.h"
#include "tests/common/harness_test_util.h"

using namespace scalebench::record;
namespace fs = std::filesystem;

TEST(KilledRun, KeepsItsFinishedEpochs) {
  sbtest::TempDir dir;
  const std::string data = dir / "seg.h5", runs = dir / "runs";
  std::string out;
  ASSERT_EQ(sbtest::run(std::string(SB_BINARY) + " datagen --task segmentation --n 400 --size 32 --seed 5 -o " + data,
                        &out), 0) << out;

  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Quiet child; 200 epochs so that it is still running when killed.
    std::freopen("/dev/null", "w", stdout);
    std::freopen((dir / "child.err").c_str(), "w", stderr);
    ::execl(SB_BINARY, SB_BINARY, "train", "--data", data.c_str(), "--model", "unet:depth=2,base=4", "--epochs",
            "200", "--batch", "4", "--threads", "1", "-o", runs.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::string path;
  std::size_t epochs_seen = 0;
  int reads = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
  while (std::chrono::steady_clock::now() < deadline && epochs_seen < 2) {
    if (path.empty() && fs::is_directory(runs))
      for (const auto& e : fs::directory_iterator(runs))
        if (e.path().extension() == ".h5") path = e.path().string();
    if (!path.empty()) {
      // Must never fail: the file is only ever replaced whole by rename().
      RunFile f = read_run_file(path);
      ++reads;
      EXPECT_EQ(f.status, "running");
      epochs_seen = f.epochs.rows();
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, WNOHANG), 0) << "train ended early; see " << (dir / "child.err");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  ASSERT_GE(epochs_seen, 2u) << "no two epochs within the deadline";
  EXPECT_GT(reads, 1);

  const RunFile f = read_run_file(path);
  EXPECT_EQ(f.status, "running");  // nobody was left to say otherwise
  // ... but the file names its writer, and readers can tell it is gone.
  EXPECT_EQ(f.owner.pid, pid);
  const LivenessCheck live = check_liveness(f.owner, path);
  EXPECT_EQ(live.state, Liveness::dead) << live.why;
  EXPECT_GE(f.epochs.rows(), 2u);
  const std::int64_t spe = f.config.integer("steps_per_epoch");
  EXPECT_GT(spe, 0);
  EXPECT_EQ(f.steps.rows(), f.epochs.rows() * std::size_t(spe));
  EXPECT_EQ(f.iou.size(), f.epochs.rows());
  for (std::size_t e = 0; e < f.epochs.rows(); ++e) EXPECT_EQ(f.epochs.integer("epoch", e), std::int64_t(e + 1));
  EXPECT_TRUE(f.summary.empty());
  EXPECT_EQ(fs::path(path).stem().string(), f.config.str("run_id"));

  // What the launcher does next: status failed with the reason, epochs kept.
  mark_failed(path, config_from_attrs(f.config), "killed by signal 9 (Killed)", {"test"});
  const RunFile g = read_run_file(path);
  EXPECT_EQ(g.status, "failed");
  EXPECT_EQ(g.error, "killed by signal 9 (Killed)");
  EXPECT_EQ(g.epochs.rows(), f.epochs.rows());
  EXPECT_EQ(g.steps.rows(), f.steps.rows());
}
