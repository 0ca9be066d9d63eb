// test_liveness.cpp — telling a dead `running` run file from a live one (record/liveness.h): the
// owner a run file records, the pid check on this host (gone, zombie, reused pid), the heartbeat
// rule for other hosts, the heartbeat thread, and the recorder writing its owner into the file.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "harness/record/liveness.h"
#include "harness/record/recorder.h"
#include "harness/record/run_file.h"
#include "tests/common/harness_test_util.h"

using namespace scalebench;
using namespace scalebench::record;

TEST(Liveness, ThisProcessIsAlive) {
  const RunOwner me = this_process();
  EXPECT_EQ(me.pid, ::getpid());
  EXPECT_GT(me.pid_start, 0);
  EXPECT_FALSE(me.host.empty());
  EXPECT_EQ(me.boot_id.size(), 36u) << me.boot_id;  // a UUID
  EXPECT_EQ(me.heartbeat_s, kHeartbeatSeconds);
  EXPECT_TRUE(on_this_machine(me));
  const auto c = check_liveness(me, 1e9);  // on this host the pid decides, not the heartbeat
  EXPECT_EQ(c.state, Liveness::alive) << c.why;
  // The Slurm job as squeue and sacct name it: an array task as <array job>_<task>.
  ::setenv("SLURM_JOB_ID", "991", 1);
  EXPECT_EQ(this_process().slurm_job, "991");
  ::setenv("SLURM_ARRAY_JOB_ID", "990", 1);
  ::setenv("SLURM_ARRAY_TASK_ID", "3", 1);
  EXPECT_EQ(this_process().slurm_job, "990_3");
  for (const char* v : {"SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID"}) ::unsetenv(v);
}

TEST(Liveness, GoneZombieOrReusedPidIsDead) {
  const RunOwner me = this_process();
  RunOwner o = me;
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  o.pid = child;
  // Exited but not reaped yet: a zombie is no live writer.
  for (int i = 0; i < 200 && check_liveness(o, 0.0).why.find("not yet reaped") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  auto c = check_liveness(o, 0.0);
  EXPECT_EQ(c.state, Liveness::dead);
  EXPECT_NE(c.why.find("not yet reaped"), std::string::npos) << c.why;
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  c = check_liveness(o, 0.0);
  EXPECT_EQ(c.state, Liveness::dead);
  EXPECT_EQ(c.why, fmt::format("pid {} on host {} is gone", child, me.host));
  o = me;
  o.pid_start += 1;  // this pid, but started at another time: the pid was reused
  c = check_liveness(o, 0.0);
  EXPECT_EQ(c.state, Liveness::dead);
  EXPECT_NE(c.why.find("belongs to another process"), std::string::npos) << c.why;
}

TEST(Liveness, OtherHostsGoByTheHeartbeat) {
  RunOwner o = this_process();
  o.host = "node7";
  EXPECT_FALSE(on_this_machine(o));
  EXPECT_EQ(check_liveness(o, 20.0).state, Liveness::alive);
  // A long epoch does not matter: the heartbeat thread beats every 30 s whatever the run does;
  // dead after 10 missed beats.
  EXPECT_EQ(check_liveness(o, double(kStaleBeats * kHeartbeatSeconds) - 1).state, Liveness::alive);
  const auto c = check_liveness(o, double(kStaleBeats * kHeartbeatSeconds) + 1);
  EXPECT_EQ(c.state, Liveness::dead);
  EXPECT_NE(c.why.find("no heartbeat for 5 min"), std::string::npos) << c.why;
  o.boot_id = "another-boot";  // same name, another machine or a reboot: not this machine
  o.host = this_process().host;
  EXPECT_FALSE(on_this_machine(o));
  o.heartbeat_s = 0;
  EXPECT_EQ(check_liveness(o, 1.0).state, Liveness::unknown);
  EXPECT_EQ(check_liveness(RunOwner{}, 1.0).state, Liveness::unknown);  // a file from before owners
}

TEST(Liveness, HeartbeatTouchesTheFile) {
  sbtest::TempDir dir;
  const std::string path = dir / "f";
  std::ofstream(path) << "x";
  const timespec old[2] = {{::time(nullptr) - 3600, 0}, {::time(nullptr) - 3600, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), old, 0), 0);
  EXPECT_GT(seconds_since_modified(path), 3500);
  Heartbeat beat;
  beat.start(path, 1);
  for (int i = 0; i < 50 && seconds_since_modified(path) > 60; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_LT(seconds_since_modified(path), 60);
  const auto t0 = std::chrono::steady_clock::now();
  beat.stop();  // at once, not after the interval
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(500));
  EXPECT_TRUE(std::isnan(seconds_since_modified(dir / "absent")));
}

TEST(Liveness, RecorderWritesItsOwner) {
  sbtest::TempDir dir;
  RunConfig cfg;
  cfg.train.data = "d.h5";
  Recorder rec(cfg, dir / "runs", {"test"});
  RunFile f = read_run_file(rec.path());
  EXPECT_EQ(f.status, "running");
  EXPECT_EQ(f.owner.pid, ::getpid());
  EXPECT_EQ(f.owner.pid_start, this_process().pid_start);
  EXPECT_EQ(f.owner.host, this_process().host);
  EXPECT_EQ(f.owner.heartbeat_s, kHeartbeatSeconds);
  EXPECT_EQ(check_liveness(f.owner, rec.path()).state, Liveness::alive);
  ASSERT_TRUE(rec.fail("boom"));
  f = read_run_file(rec.path());
  EXPECT_EQ(f.status, "failed");
  EXPECT_EQ(f.owner.pid, ::getpid());  // kept: who ran it
}
