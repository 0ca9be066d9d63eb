// test_status.cpp — `scalebench status` without a cluster: point states derived from run files, the
// jobs file and a given Slurm view (what squeue/sacct would say), including array tasks, requeued
// preempted runs, jobs that ended without an ok run file, and `running` files whose writer is dead
// (pid gone, heartbeat stopped, Slurm job ended).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "harness/record/liveness.h"
#include "harness/record/run_config.h"
#include "harness/record/run_file.h"
#include "harness/study/launch/slurm/script.h"
#include "harness/study/spec/spec.h"
#include "harness/study/status.h"
#include "kernels/common/check.h"
#include "tests/common/harness_test_util.h"

using namespace scalebench;
using namespace scalebench::study;

namespace {

std::string spec_text(const std::string& out) {
  return "[study]\nname = \"st\"\noutput = \"" + out + "\"\nrepetitions = 2\n[dataset]\npath = \"/dev/null\"\n"
         "[sweep]\nmodels = [\"unet:depth=2,base=4\"]\nstrategies = [\"single\", \"ring\"]\ndevices = [1, 2]\nbatch = 4\n";
}

std::string write_run(const std::string& dir, const record::RunConfig& c, const std::string& status, int epochs,
                      const record::RunOwner& owner = {}) {
  record::RunFile f = record::make_run_file();
  f.owner = owner;
  f.status = status;
  if (status == "failed") f.error = "boom";
  if (status == "preempted") f.error = "preempted by SIGUSR1";
  for (int e = 1; e <= epochs; ++e) {
    EpochResult er;
    er.epoch = e;
    record::append_epoch(f, er, {}, true);
  }
  std::filesystem::create_directories(dir + "/runs");
  const std::string path = dir + "/runs/" + record::run_id_with_data(c) + ".h5";
  record::write_run_file(path, f);
  return path;
}

void age(const std::string& path, int seconds) {
  const timespec t[2] = {{::time(nullptr) - seconds, 0}, {::time(nullptr) - seconds, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), t, 0), 0);
}

}  // namespace

TEST(Status, StatesFromRunFilesJobsAndQueue) {
  sbtest::TempDir tmp;
  const std::string dir = tmp / "st";
  std::filesystem::create_directories(dir + "/slurm");
  { std::ofstream(dir + "/study.toml") << spec_text(dir); }
  const auto groups = slurm::group_points(expand(parse_spec(spec_text(dir), "s")));
  ASSERT_EQ(groups.size(), 3u);  // single N=1, ring N=1, ring N=2; 2 repetitions each
  {
    std::ofstream j(dir + "/slurm/jobs.tsv");
    j << "submitted_utc\tgroup\tjob_id\trepetitions\tscript\tlabel\n"
      << "t\t1\t100\t1,2\ts\tl\n"
      << "t\t2\t200\t1,2\ts\tl\n"
      << "t\t3\t300\t2\ts\tl\n"  // repetition 1 of group 3 was not resubmitted
      << "t\tcollect\t400\t\tc\tcollect\n";
  }
  write_run(dir, groups[0].reps[0], "ok", 3);        // 100_1: ok
  write_run(dir, groups[0].reps[1], "running", 1);   // 100_2: running per squeue
  write_run(dir, groups[1].reps[0], "preempted", 1); // 200_1: requeued, pending
  write_run(dir, groups[1].reps[1], "running", 2);   // 200_2: ended (TIMEOUT) without ok
  write_run(dir, groups[2].reps[0], "failed", 0);    // not resubmitted: its own record
  // 300 (group 3 rep 2): not queued, no accounting, no run file.
  SlurmView v;
  v.jobs["100_2"] = {"RUNNING", ""};
  v.jobs["200_1"] = {"PENDING", "BeginTime"};
  v.jobs["200_2"] = {"TIMEOUT", "exit 0:0"};
  const auto states = study_status(dir, v);
  ASSERT_EQ(states.size(), 6u);
  std::map<std::pair<int, int>, PointState> by_point;
  for (const auto& s : states) by_point[{s.group, s.repetition}] = s;
  auto by = [&](int g, int r) { return by_point[{g, r}]; };
  EXPECT_EQ(by(1, 1).state, "ok");
  EXPECT_EQ(by(1, 1).job, "100_1");
  EXPECT_EQ(by(1, 2).state, "running");
  EXPECT_EQ(by(1, 2).detail, "1 epochs done");
  EXPECT_EQ(by(2, 1).state, "pending");
  EXPECT_NE(by(2, 1).detail.find("requeued after preemption"), std::string::npos) << by(2, 1).detail;
  EXPECT_EQ(by(2, 2).state, "failed");
  EXPECT_NE(by(2, 2).detail.find("TIMEOUT"), std::string::npos) << by(2, 2).detail;
  EXPECT_EQ(by(3, 1).state, "failed");
  EXPECT_EQ(by(3, 1).detail, "boom");
  EXPECT_EQ(by(3, 2).job, "300_2");
  EXPECT_EQ(by(3, 2).state, "failed");
  EXPECT_NE(by(3, 2).detail.find("no longer queued"), std::string::npos) << by(3, 2).detail;
}

TEST(Status, UnsplitPendingArrayAndLocalStudies) {
  sbtest::TempDir tmp;
  const std::string dir = tmp / "st";
  std::filesystem::create_directories(dir + "/slurm");
  { std::ofstream(dir + "/study.toml") << spec_text(dir); }
  SlurmView v;
  // No jobs file: a local study; states come from run files alone.
  auto states = study_status(dir, v);
  for (const auto& s : states) EXPECT_EQ(s.state, "not run");
  {
    std::ofstream j(dir + "/slurm/jobs.tsv");
    j << "submitted_utc\tgroup\tjob_id\trepetitions\tscript\tlabel\n" << "t\t1\t100\t1,2\ts\tl\n";
  }
  v.jobs["100_[1-2]"] = {"PENDING", "Priority"};
  states = study_status(dir, v);
  EXPECT_EQ(states[0].state, "pending");
  EXPECT_EQ(states[0].detail, "Priority");
  EXPECT_EQ(states[1].state, "pending");
  EXPECT_EQ(states[2].state, "not submitted");
  EXPECT_THROW(study_status(tmp / "nothing", v), Error);
}

// A local study (no jobs file): a running file is judged by its writer — the pid on this host,
// else the Slurm job it names when Slurm knows it, else the heartbeat.
TEST(Status, DeadRunningFilesAreDead) {
  sbtest::TempDir tmp;
  const std::string dir = tmp / "st";
  std::filesystem::create_directories(dir);
  { std::ofstream(dir + "/study.toml") << spec_text(dir); }
  const auto groups = slurm::group_points(expand(parse_spec(spec_text(dir), "s")));
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ASSERT_GT(gone, 0);
  ASSERT_EQ(::waitpid(gone, nullptr, 0), gone);
  const record::RunOwner me = record::this_process();
  record::RunOwner dead = me, remote = me, job = me, queued = me, vanished = me;
  dead.pid = gone;
  remote.host = job.host = queued.host = vanished.host = "node7";
  job.slurm_job = "77";
  queued.slurm_job = "78_2";
  vanished.slurm_job = "79";
  write_run(dir, groups[0].reps[0], "running", 2, me);
  write_run(dir, groups[0].reps[1], "running", 2, dead);
  age(write_run(dir, groups[1].reps[0], "running", 1, remote), 3600);
  write_run(dir, groups[1].reps[1], "running", 1, job);                 // fresh heartbeat, but its job ended
  age(write_run(dir, groups[2].reps[0], "running", 1, queued), 3600);   // stale, but Slurm runs it
  write_run(dir, groups[2].reps[1], "running", 1, vanished);            // squeue no longer lists it
  SlurmView v;
  v.jobs["77"] = {"TIMEOUT", ""};
  v.jobs["78_2"] = {"RUNNING", ""};
  v.queue_known = true;
  std::map<std::pair<int, int>, PointState> by_point;
  const auto by = [&](int g, int r) { return by_point[{g, r}]; };
  for (const auto& s : study_status(dir, v)) by_point[{s.group, s.repetition}] = s;
  EXPECT_EQ(by(1, 1).state, "running");
  EXPECT_EQ(by(1, 1).detail, fmt::format("2 epochs done; pid {} on host {}", me.pid, me.host));
  EXPECT_EQ(by(1, 2).state, "dead");
  EXPECT_EQ(by(1, 2).detail, fmt::format("2 epochs done; pid {} on host {} is gone", gone, me.host));
  EXPECT_EQ(by(2, 1).state, "dead");
  EXPECT_NE(by(2, 1).detail.find("no heartbeat for 60 min"), std::string::npos) << by(2, 1).detail;
  EXPECT_EQ(by(2, 2).state, "dead");
  EXPECT_NE(by(2, 2).detail.find("Slurm job 77 ended TIMEOUT"), std::string::npos) << by(2, 2).detail;
  EXPECT_EQ(by(3, 1).state, "running");
  EXPECT_NE(by(3, 1).detail.find("Slurm job 78_2 is RUNNING"), std::string::npos) << by(3, 1).detail;
  EXPECT_EQ(by(3, 2).state, "dead");
  EXPECT_NE(by(3, 2).detail.find("Slurm job 79 is no longer queued"), std::string::npos) << by(3, 2).detail;
  // Without Slurm's answer, a job's run file falls back to its heartbeat (fresh: alive).
  v.queue_known = false;
  v.jobs.clear();
  for (const auto& s : study_status(dir, v)) by_point[{s.group, s.repetition}] = s;
  EXPECT_EQ(by(2, 2).state, "running");
  EXPECT_EQ(by(3, 2).state, "running");
  EXPECT_EQ(by(3, 1).state, "dead");
  EXPECT_EQ(running_slurm_jobs({record::read_run_file(dir + "/runs/" + record::run_id_with_data(groups[1].reps[1]) + ".h5")}),
            std::vector<std::string>{"77"});
}

// The study's jobs that are not points: the dataset job (jobs.tsv row `datagen`) and the collect
// job, each from its latest submission, with the state the view gives.
TEST(Status, DatasetAndCollectJobLines) {
  sbtest::TempDir tmp;
  const std::string dir = tmp / "st";
  std::filesystem::create_directories(dir + "/slurm");
  SlurmView v;
  EXPECT_TRUE(side_job_lines(dir, v).empty());  // local study: no jobs file
  {
    std::ofstream j(dir + "/slurm/jobs.tsv");
    j << "submitted_utc\tgroup\tjob_id\trepetitions\tscript\tlabel\n"
      << "t\tdatagen\t90\t\td\tdataset data/x.h5\n"  // an earlier submission's
      << "t\tdatagen\t99\t\td\tdataset data/x.h5\n"
      << "t\t1\t100\t1,2\ts\tl\n"
      << "t\tcollect\t400\t\tc\tcollect\n";
  }
  v.jobs["90"] = {"FAILED", "exit 1:0"};
  v.jobs["99"] = {"PENDING", "Priority"};
  v.jobs["400"] = {"PENDING", "Dependency"};
  EXPECT_EQ(side_job_lines(dir, v),
            (std::vector<std::string>{"dataset job 99 (data/x.h5): PENDING (Priority)", "collect job 400: PENDING"}));
  v.jobs["99"] = {"RUNNING", ""};
  EXPECT_EQ(side_job_lines(dir, v)[0], "dataset job 99 (data/x.h5): RUNNING");
  v.jobs["99"] = {"COMPLETED", "exit 0:0"};
  EXPECT_EQ(side_job_lines(dir, v)[0], "dataset job 99 (data/x.h5): COMPLETED");
  v.jobs["99"] = {"FAILED", "exit 1:0"};
  EXPECT_EQ(side_job_lines(dir, v)[0],
            fmt::format("dataset job 99 (data/x.h5): FAILED, exit 1:0; the points waiting for it will not start "
                        "(log: {}/slurm/logs/datagen-99.out)", dir));
  v.jobs.clear();
  EXPECT_EQ(side_job_lines(dir, v), (std::vector<std::string>{"dataset job 99 (data/x.h5): unknown (squeue did not answer)",
                                                              "collect job 400: unknown (squeue did not answer)"}));
  v.queue_known = true;
  EXPECT_EQ(side_job_lines(dir, v),
            (std::vector<std::string>{"dataset job 99 (data/x.h5): no longer queued", "collect job 400: no longer queued"}));
}

// --launcher slurm-alloc: every point is a step of the one allocation job (jobs.tsv row `sweep`).
// While it runs, a point with no run file (or one left by an earlier allocation) waits for its
// step; one the allocation wrote says what happened; once it has ended, a point it never reached
// is `not run`. The allocation has a line of its own.
TEST(Status, PointsOfOneAllocation) {
  sbtest::TempDir tmp;
  const std::string dir = tmp / "st";
  std::filesystem::create_directories(dir + "/slurm");
  { std::ofstream(dir + "/study.toml") << spec_text(dir); }
  const auto groups = slurm::group_points(expand(parse_spec(spec_text(dir), "s")));
  {
    std::ofstream j(dir + "/slurm/jobs.tsv");
    j << "submitted_utc\tgroup\tjob_id\trepetitions\tscript\tlabel\n"
      << "2026-01-01T00:00:00Z\t1\t100\t1,2\ts\tl\n"  // an earlier per-point submission
      << "2026-01-02T00:00:00Z\tsweep\t500\t\ts\tthe sweep in one allocation\n"
      << "2026-01-02T00:00:01Z\tcollect\t501\t\tc\tcollect\n";
  }
  record::RunOwner ours, earlier;
  ours.slurm_job = "500";
  earlier.slurm_job = "499";
  write_run(dir, groups[0].reps[0], "ok", 3);
  write_run(dir, groups[0].reps[1], "running", 1, ours);
  write_run(dir, groups[1].reps[0], "failed", 0, earlier);  // to be rerun by this allocation
  write_run(dir, groups[1].reps[1], "failed", 0, ours);     // failed in this allocation
  // groups[2]: no run files.
  SlurmView v;
  v.queue_known = true;
  v.jobs["500"] = {"RUNNING", ""};
  auto by = [&](int g, int r) {
    for (const auto& s : study_status(dir, v))
      if (s.group == g && s.repetition == r) return s;
    return PointState{};
  };
  EXPECT_EQ(by(1, 1).state, "ok");
  EXPECT_EQ(by(1, 1).job, "500");  // the later submission wins over the point's own job 100
  EXPECT_EQ(by(1, 2).state, "running");
  EXPECT_EQ(by(2, 1).state, "pending");
  EXPECT_EQ(by(2, 1).detail, "waits for its step in allocation job 500");
  EXPECT_EQ(by(2, 2).state, "failed");
  EXPECT_EQ(by(2, 2).detail, "boom");
  EXPECT_EQ(by(3, 1).state, "pending");
  EXPECT_EQ(by(3, 2).detail, "waits for its step in allocation job 500");
  EXPECT_EQ(side_job_lines(dir, v),
            (std::vector<std::string>{fmt::format("allocation job 500: RUNNING (log: {}/slurm/logs/sweep-500.out)", dir),
                                      "collect job 501: no longer queued"}));
  v.jobs["500"] = {"PENDING", "Resources"};
  EXPECT_EQ(by(3, 1).state, "pending");
  EXPECT_EQ(by(3, 1).detail, "Resources");
  v.jobs["500"] = {"CANCELLED", "by 0"};
  EXPECT_EQ(by(3, 1).state, "not run");
  EXPECT_EQ(by(3, 1).detail, "allocation job 500 ended CANCELLED before this point's step; rerun the sweep");
  EXPECT_EQ(by(2, 1).state, "failed");  // the earlier allocation's failure stands until a rerun
  EXPECT_EQ(by(1, 1).state, "ok");
}

// A study that sweeps run options: each row names its values, so the 8 ring rows of one N differ
// (single, which uses neither option, shows only the swept batch); print_status prints them.
TEST(Status, RowsNameTheSweptValues) {
  sbtest::TempDir tmp;
  const std::string dir = tmp / "ax";
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir + "/study.toml")
        << "[study]\nname = \"ax\"\noutput = \"" << dir << "\"\n[dataset]\npath = \"/dev/null\"\n[sweep]\n"
        << "models = [\"unet:depth=2,base=4\"]\nstrategies = [\"single\", \"ring\"]\ndevices = [1, 2]\nbatch = [2, 4]\n"
        << "compression = [\"none\", \"bf16\"]\nbucket_mb = [0.25, 1]\n";
  }
  const auto states = study_status(dir, SlurmView{});
  ASSERT_EQ(states.size(), 18u);
  std::set<std::string> labels;
  for (const auto& s : states) labels.insert(s.label);
  EXPECT_EQ(labels.size(), states.size());  // no two rows alike
  EXPECT_TRUE(labels.count("unet:depth=2,base=4 ring N=2 b=4 bucket_mb=0.25 compression=bf16")) << *labels.begin();
  EXPECT_TRUE(labels.count("unet:depth=2,base=4 single N=1 b=2"));
  std::ostringstream out;
  print_status(dir, out);
  EXPECT_NE(out.str().find("ring N=1 b=2 bucket_mb=1 compression=none "), std::string::npos) << out.str();
}
