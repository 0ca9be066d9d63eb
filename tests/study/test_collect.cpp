// test_collect.cpp — speedup and efficiency against hand-computed values (groups, medians over
// repetitions, fallback to the single baseline, failed runs excluded), and `collect` over real run
// files into a study file that reads back; an unreadable run file is an error unless skipped, a
// dead `running` file is collected as failed, copies of a run count once, and runs on two datasets
// (a file regenerated in place between two sweeps) are never pooled.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>

#include "harness/data/particle_gen.h"
#include "harness/record/liveness.h"
#include "harness/record/run_config.h"
#include "harness/record/run_file.h"
#include "harness/study/analysis/collect.h"
#include "harness/study/analysis/report.h"
#include "harness/study/status.h"
#include "kernels/common/check.h"
#include "tests/common/harness_test_util.h"

using namespace scalebench;
using namespace scalebench::study;
using record::Attrs;
using record::Table;

namespace {

void add(Table& t, const std::string& group, const std::string& strategy, int n, double ips,
         const std::string& status = "ok") {
  Attrs r;
  r.set("group_id", group);
  r.set("strategy", strategy);
  r.set("world_size", n);
  r.set("images_per_s", ips);
  r.set("status", status);
  t.append(r);
}

}  // namespace

TEST(Collect, SpeedupAndEfficiencyByHand) {
  Table t;
  add(t, "g1", "single", 1, 100);           // 0: single, repetition 1
  add(t, "g1", "single", 1, 120);           // 1: single, repetition 2 → baseline median 110
  add(t, "g1", "ring", 1, 90);              // 2: ring's own N=1
  add(t, "g1", "ring", 2, 170);             // 3: 170 / 90
  add(t, "g1", "mirrored", 2, 200);         // 4: no mirrored N=1 → single's 110
  add(t, "g1", "mirrored", 4, 0, "failed"); // 5: failed → NaN
  add(t, "g2", "ring", 2, 50);              // 6: no N=1 in its group → NaN
  add(t, "g1", "ring", 1, 1e9, "failed");   // 7: a failed N=1 run never enters a baseline
  add_speedup(t);
  EXPECT_DOUBLE_EQ(t.num("speedup", 0), 100.0 / 110);
  EXPECT_DOUBLE_EQ(t.num("speedup", 1), 120.0 / 110);
  EXPECT_DOUBLE_EQ(t.num("efficiency", 1), 120.0 / 110);
  EXPECT_EQ(t.str("baseline", 2), "ring N=1");
  EXPECT_DOUBLE_EQ(t.num("speedup", 2), 1.0);
  EXPECT_DOUBLE_EQ(t.num("speedup", 3), 170.0 / 90);
  EXPECT_DOUBLE_EQ(t.num("efficiency", 3), 170.0 / 90 / 2);
  EXPECT_EQ(t.str("baseline", 4), "single N=1");
  EXPECT_DOUBLE_EQ(t.num("baseline_images_per_s", 4), 110.0);
  EXPECT_DOUBLE_EQ(t.num("speedup", 4), 200.0 / 110);
  EXPECT_DOUBLE_EQ(t.num("efficiency", 4), 200.0 / 110 / 2);
  EXPECT_TRUE(std::isnan(t.num("speedup", 5)));
  EXPECT_TRUE(std::isnan(t.num("speedup", 6)));
  EXPECT_EQ(t.str("baseline", 6), "");
}

// Weak scaling keeps the per-device batch, strong scaling the global batch: the run ids' group_id
// puts each N = 4 run with the N = 1 run it is measured against, and speedup / efficiency follow.
TEST(Collect, EfficiencyWeakAndStrong) {
  auto cfg = [](record::Scaling sc, int n, int batch) {
    record::RunConfig c;
    c.train.model = "unet:depth=2,base=4";
    c.train.data = "d.h5";
    c.scaling = sc;
    c.world_size = n;
    c.train.batch = batch;
    c.train.strategy = n == 1 ? StrategyKind::single : StrategyKind::mirrored;
    return c;
  };
  Table t;
  using record::Scaling;
  add(t, record::group_id(cfg(Scaling::weak, 1, 8)), "single", 1, 100);    // 0: weak, b = 8
  add(t, record::group_id(cfg(Scaling::weak, 4, 8)), "mirrored", 4, 360);  // 1: global batch 32
  add(t, record::group_id(cfg(Scaling::strong, 1, 32)), "single", 1, 150); // 2: strong, global 32
  add(t, record::group_id(cfg(Scaling::strong, 4, 8)), "mirrored", 4, 300); // 3: 4 × 8 = 32
  add_speedup(t);
  EXPECT_EQ(t.str("group_id", 1), t.str("group_id", 0));
  EXPECT_EQ(t.str("group_id", 3), t.str("group_id", 2));
  EXPECT_DOUBLE_EQ(t.num("speedup", 1), 3.6);        // 360 / 100
  EXPECT_DOUBLE_EQ(t.num("efficiency", 1), 0.9);     // 3.6 / 4
  EXPECT_DOUBLE_EQ(t.num("speedup", 3), 2.0);        // 300 / 150, not 300 / 100
  EXPECT_DOUBLE_EQ(t.num("efficiency", 3), 0.5);
}

TEST(Collect, RunFilesToStudyFile) {
  sbtest::TempDir dir;
  const std::string runs = dir / "runs";
  std::filesystem::create_directories(runs);
  // Three runs of one group: single N=1 (two repetitions, 100 and 300 images/s → median 200),
  // and a failed mirrored N=2.
  auto write = [&](const std::string& strategy, int n, int rep, double ips, const std::string& status) {
    record::RunConfig c;
    c.train.model = "unet:depth=2,base=4";
    c.train.data = "d.h5";
    c.train.strategy = parse_enum<StrategyKind>(strategy, "strategy");
    c.world_size = n;
    c.repetition = rep;
    c.study = "demo";
    record::RunFile f = record::make_run_file();
    f.config = record::config_attrs(c);
    f.status = status;
    if (status == "ok") f.summary.set("images_per_s", ips), f.summary.set("b_simple", ips / 10);  // noise scale
    else f.error = "strategy not available";
    record::write_run_file(runs + "/" + record::run_id(c) + ".h5", f);
  };
  write("single", 1, 1, 100, "ok");
  write("single", 1, 2, 300, "ok");
  write("mirrored", 2, 1, 0, "failed");
  std::ofstream(runs + "/junk.h5") << "not hdf5";
  std::ostringstream log;
  // An unreadable run file is an error naming it, and nothing is written ...
  try {
    collect(dir.path(), "", log);
    ADD_FAILURE() << "collect accepted an unreadable run file";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("junk.h5"), std::string::npos) << what;
    EXPECT_NE(what.find("1 of the 4 run files"), std::string::npos) << what;
    EXPECT_NE(what.find("--skip-unreadable"), std::string::npos) << what;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "study.h5"));
  // ... unless asked to skip it.
  collect(dir.path(), "", log, {.skip_unreadable = true});
  EXPECT_NE(log.str().find("skipping " + runs + "/junk.h5"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("3 runs (2 ok, 1 not ok)"), std::string::npos) << log.str();

  const StudyFile sf = read_study_file(dir / "study.h5");
  EXPECT_EQ(sf.attrs.str("study"), "demo");
  EXPECT_EQ(sf.attrs.integer("runs"), 3);
  ASSERT_EQ(sf.runs.rows(), 3u);
  double speedups = 0;
  int failed = 0;
  for (std::size_t r = 0; r < 3; ++r) {
    if (sf.runs.str("status", r) == "failed") {
      ++failed;
      EXPECT_EQ(sf.runs.str("error", r), "strategy not available");
      EXPECT_EQ(sf.runs.integer("world_size", r), 2);
      EXPECT_EQ(sf.runs.integer("global_batch", r), 16);
      EXPECT_TRUE(std::isnan(sf.runs.num("speedup", r)));
      EXPECT_TRUE(std::isnan(sf.runs.num("b_simple", r)));  // no summary
    } else {
      speedups += sf.runs.num("speedup", r);
      EXPECT_DOUBLE_EQ(sf.runs.num("b_simple", r), sf.runs.num("images_per_s", r) / 10);  // the summary's
      EXPECT_EQ(sf.runs.str("baseline", r), "single N=1");
    }
    EXPECT_EQ(sf.runs.str("model", r), "unet:depth=2,base=4");
    EXPECT_EQ(sf.runs.str("file", r).rfind("runs/", 0), 0u);
  }
  EXPECT_EQ(failed, 1);
  EXPECT_DOUBLE_EQ(speedups, 100.0 / 200 + 300.0 / 200);
  const auto points = group_points(sf.runs);
  ASSERT_EQ(points.size(), 2u);  // the two repetitions are one point
}

TEST(Collect, EmptyOrMissingFolderIsAnError) {
  sbtest::TempDir dir;
  std::ostringstream log;
  EXPECT_THROW(collect(dir / "absent", "", log), Error);
  try {
    collect(dir.path(), "", log);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no run files"), std::string::npos) << e.what();
  }
}

// A run file that says running: its writer alive (this process) stays running; one whose writer is
// gone (a pid that exited; another host whose heartbeat stopped) is collected as failed, "dead: ...".
TEST(Collect, DeadRunningFilesAreFailed) {
  sbtest::TempDir dir;
  const std::string runs = dir / "runs";
  std::filesystem::create_directories(runs);
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ASSERT_GT(gone, 0);
  ASSERT_EQ(::waitpid(gone, nullptr, 0), gone);
  auto write = [&](int rep, const record::RunOwner& owner) {
    record::RunConfig c;
    c.train.data = "d.h5";
    c.repetition = rep;
    record::RunFile f = record::make_run_file();
    f.config = record::config_attrs(c);
    f.owner = owner;
    const std::string path = runs + "/" + record::run_id(c) + ".h5";
    record::write_run_file(path, f);
    return path;
  };
  const record::RunOwner me = record::this_process();
  record::RunOwner dead = me, remote = me;
  dead.pid = gone;
  remote.host = "another-host";
  write(1, me);
  write(2, dead);
  const std::string stale = write(3, remote);
  const timespec old[2] = {{::time(nullptr) - 3600, 0}, {::time(nullptr) - 3600, 0}};  // an hour without a beat
  ASSERT_EQ(::utimensat(AT_FDCWD, stale.c_str(), old, 0), 0);
  std::ostringstream log;
  const StudyFile sf = collect(dir.path(), "", log);
  ASSERT_EQ(sf.runs.rows(), 3u);
  std::map<std::int64_t, std::pair<std::string, std::string>> by_rep;
  for (std::size_t r = 0; r < 3; ++r) by_rep[sf.runs.integer("repetition", r)] = {sf.runs.str("status", r), sf.runs.str("error", r)};
  EXPECT_EQ(by_rep[1].first, "running");
  EXPECT_EQ(by_rep[2].first, "failed");
  EXPECT_EQ(by_rep[2].second.rfind("dead: pid " + std::to_string(gone) + " on host ", 0), 0u) << by_rep[2].second;
  EXPECT_EQ(by_rep[3].first, "failed");
  EXPECT_NE(by_rep[3].second.find("no heartbeat for 60 min"), std::string::npos) << by_rep[3].second;
  EXPECT_NE(log.str().find("recorded as failed"), std::string::npos) << log.str();
}

TEST(Collect, CommandExitsNonZeroOnAnUnreadableRunFile) {
  sbtest::TempDir dir;
  std::filesystem::create_directories(dir / "runs");
  record::RunConfig c;
  c.train.data = "d.h5";
  record::RunFile f = record::make_run_file();
  f.config = record::config_attrs(c);
  f.status = "ok";
  record::write_run_file(dir / ("runs/" + record::run_id(c) + ".h5"), f);
  std::ofstream(dir / "runs/torn.h5") << "half a file";
  const std::string sb = SB_BINARY;
  std::string out;
  EXPECT_EQ(sbtest::run(sb + " collect " + dir.path(), &out), 1) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;  // one error line
  EXPECT_NE(out.find("torn.h5"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(dir / "study.h5"));
  EXPECT_EQ(sbtest::run(sb + " collect --skip-unreadable " + dir.path(), &out), 0) << out;
  EXPECT_NE(out.find("skipping"), std::string::npos) << out;
  EXPECT_NE(out.find("1 runs (1 ok, 0 not ok)"), std::string::npos) << out;
}

namespace {

// An ok single N=1 run of repetition `rep` on the dataset file `data` (its identity read from the
// file as train reads it), written to <dir>/runs/<run id>.h5; returns that path.
std::string write_ok_run(const std::string& dir, const std::string& data, int rep, double ips) {
  record::RunConfig c;
  c.train.model = "unet:depth=2,base=4";
  c.train.data = data;
  c.repetition = rep;
  c.study = "d";
  record::identify_data(c);
  record::RunFile f = record::make_run_file();
  f.config = record::config_attrs(c);
  f.status = "ok";
  f.summary.set("images_per_s", ips);
  std::filesystem::create_directories(dir + "/runs");
  const std::string path = dir + "/runs/" + record::run_id(c) + ".h5";
  record::write_run_file(path, f);
  return path;
}

}  // namespace

// The same run in several files (an rsync twice, two scratch folders merged) is one run: the
// repetitions of a point are not multiplied, and collect says how many files it dropped.
TEST(Collect, CopiesOfARunCountOnce) {
  sbtest::TempDir dir;
  const std::string a = write_ok_run(dir.path(), "d.h5", 1, 100), b = write_ok_run(dir.path(), "d.h5", 2, 300);
  for (const char* copy : {"copy1-", "copy2-", "copy3-"})
    for (const std::string& p : {a, b})
      std::filesystem::copy_file(p, dir / ("runs/" + std::string(copy) + std::filesystem::path(p).filename().string()));
  std::ostringstream log;
  const StudyFile sf = collect(dir.path(), "", log);
  EXPECT_EQ(sf.runs.rows(), 2u) << log.str();
  EXPECT_EQ(sf.attrs.integer("runs"), 2);
  EXPECT_EQ(sf.attrs.integer("runs_duplicate"), 6);
  EXPECT_NE(log.str().find("dropped 6 copies"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("2 runs (2 ok, 0 not ok)"), std::string::npos) << log.str();
  const auto points = group_points(sf.runs);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].ok_rows.size(), 2u);  // two repetitions, not eight
  const std::string text = report(sf, Format::text);  // a reader of the report alone sees it too
  EXPECT_NE(text.find("2 runs, 2 ok; 6 copies of these runs dropped"), std::string::npos) << text;
}

// A dataset regenerated in place between two sweeps (8 images seed 1, then 6 images seed 2): the
// runs on the old data are not pooled with those on the data the spec's path holds now (status
// counts the same ones); when the file is not there to tell which is current, collect refuses.
TEST(Collect, RunsOnTwoDatasetsNeverPool) {
  sbtest::TempDir dir;
  const std::string data = dir / "d.h5";
  data::write_dataset({.task = data::Task::segmentation, .n = 8, .size = 16, .seed = 1}, data, 0);
  write_ok_run(dir.path(), data, 1, 100);
  write_ok_run(dir.path(), data, 2, 100);
  data::write_dataset({.task = data::Task::segmentation, .n = 6, .size = 16, .seed = 2}, data, 0);
  write_ok_run(dir.path(), data, 1, 300);
  write_ok_run(dir.path(), data, 2, 300);
  std::ofstream(dir / "study.toml") << "[study]\nname = \"d\"\nrepetitions = 2\n[dataset]\npath = \"" << data
                                    << "\"\n[sweep]\nmodels = [\"unet:depth=2,base=4\"]\nstrategies = [\"single\"]\n"
                                       "devices = [1]\nbatch = 8\n";
  std::ostringstream log;
  const StudyFile sf = collect(dir.path(), "", log);
  ASSERT_EQ(sf.runs.rows(), 2u) << log.str();
  for (std::size_t r = 0; r < 2; ++r) {
    EXPECT_DOUBLE_EQ(sf.runs.num("images_per_s", r), 300);
    EXPECT_EQ(sf.runs.str("data_identity", r).rfind("6 x 1x16x16 segmentation", 0), 0u) << sf.runs.str("data_identity", r);
  }
  EXPECT_EQ(sf.attrs.integer("runs_other_data"), 2);
  EXPECT_NE(report(sf, Format::text).find("2 runs, 2 ok; 2 runs on other data left out"), std::string::npos);
  EXPECT_NE(log.str().find("left out 2 runs made on other data than " + data + " holds now"), std::string::npos)
      << log.str();
  const std::string lines = log.str();
  EXPECT_EQ(std::count(lines.begin(), lines.end(), '\n'), 2) << lines;  // that line and the summary
  // status counts the same runs, and says what it does not count.
  std::ostringstream st;
  print_status(dir.path(), st);
  EXPECT_NE(st.str().find("2 points: 2 ok"), std::string::npos) << st.str();
  EXPECT_NE(st.str().find("status: note: 2 run files in runs/ were made on other data than " + data + " holds now (6 x"),
            std::string::npos) << st.str();

  // The file gone (a laptop with the results only): which runs are the study's cannot be told.
  std::filesystem::remove(data);
  std::filesystem::remove(dir / "study.h5");
  const std::string err = sbtest::error_of([&] { collect(dir.path(), "", log); });
  EXPECT_NE(err.find("made on 2 datasets"), std::string::npos) << err;
  EXPECT_NE(err.find("nothing was written"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(dir / "study.h5"));
}

// Issue 47: a study row carries the run's machine type (host_fingerprint and its fields, strings)
// and the noise it ran under (noise_*, numbers; NaN for a file from before them).
TEST(Collect, RowCarriesHostFingerprintAndNoise) {
  record::RunFile f = record::make_run_file();
  f.context.set("host_fingerprint", "1c0ffee5");
  f.context.set("cpu_base_clock", "2600 MHz (cpu MHz, no cpufreq driver)");
  f.context.set("noise_load1_start", 1.5);
  f.context.set("noise_others_cpu_frac", 0.25);
  f.context.set("rank_threads", "rank 0 on n1: 4 threads, CPUs 0-3; rank 1 on n1: 4 threads, CPUs 4-7");
  f.context.set("cpu_warnings", "train: warning: 1 rank x 2 threads on 1 CPU of n1");
  const Attrs r = study_row(f, "runs/x.h5");
  // What each rank's threads were and what train warned of travel with the row (report, compare).
  EXPECT_EQ(r.str("rank_threads"), "rank 0 on n1: 4 threads, CPUs 0-3; rank 1 on n1: 4 threads, CPUs 4-7");
  EXPECT_EQ(r.str("cpu_warnings"), "train: warning: 1 rank x 2 threads on 1 CPU of n1");
  EXPECT_EQ(r.str("host_fingerprint"), "1c0ffee5");
  EXPECT_EQ(r.str("cpu_base_clock"), "2600 MHz (cpu MHz, no cpufreq driver)");
  EXPECT_DOUBLE_EQ(r.num("noise_load1_start"), 1.5);
  EXPECT_DOUBLE_EQ(r.num("noise_others_cpu_frac"), 0.25);
  EXPECT_TRUE(r.has("noise_steal_frac"));
  EXPECT_TRUE(std::isnan(r.num("noise_steal_frac")));
}
