// test_run_guard.cpp — what rank 0's guard process records (harness/record/run_guard.h): a file that
// still says running and names the dead writer becomes failed with the reason; a file that recorded
// its end, names another writer (a rerun), or whose writer lives is left alone. The guard process
// itself, woken by mpirun's double interrupt: tests/mpi/preempt_test.sh, preempt.launcher_twice_INT.
#include <gtest/gtest.h>

#include "harness/record/run_guard.h"

using namespace scalebench::record;

namespace {

RunFile running_file(std::int64_t pid) {
  RunFile f = make_run_file();
  f.status = "running";
  f.owner.pid = pid;
  return f;
}

const LivenessCheck kDead{Liveness::dead, "pid 4711 on host n3 is gone"};
const LivenessCheck kAlive{Liveness::alive, "pid 4711 on host n3 runs"};

}  // namespace

TEST(RunGuard, MarksARunningFileWhoseWriterIsDead) {
  RunFile f = running_file(4711);
  EXPECT_TRUE(mark_writer_gone(f, 4711, kDead));
  EXPECT_EQ(f.status, "failed");
  EXPECT_EQ(f.error.rfind("dead: pid 4711 on host n3 is gone: rank 0 ended without recording how", 0), 0u) << f.error;
  EXPECT_NE(f.error.find("mpirun interrupted twice"), std::string::npos) << f.error;
}

TEST(RunGuard, LeavesRecordedLiveAndOtherWritersFilesAlone) {
  for (const char* status : {"ok", "failed", "preempted"}) {
    RunFile f = running_file(4711);
    f.status = status;
    f.error = "its own";
    EXPECT_FALSE(mark_writer_gone(f, 4711, kDead)) << status;
    EXPECT_EQ(f.status, status);
    EXPECT_EQ(f.error, "its own");
  }
  RunFile rerun = running_file(5000);  // a rerun wrote the file since
  EXPECT_FALSE(mark_writer_gone(rerun, 4711, kDead));
  EXPECT_EQ(rerun.status, "running");
  RunFile alive = running_file(4711);
  EXPECT_FALSE(mark_writer_gone(alive, 4711, kAlive));
  EXPECT_EQ(alive.status, "running");
}
