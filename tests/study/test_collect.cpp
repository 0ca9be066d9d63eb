// test_collect.cpp — speedup and efficiency against hand-computed values (groups, medians over
// repetitions, fallback to the single baseline, failed runs excluded), and `collect` over real run
// files into a study file that reads back.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "harness/record/run_config.h"
#include "harness/record/run_file.h"
#include "harness/study/analysis/collect.h"
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
    if (status == "ok") f.summary.set("images_per_s", ips);
    else f.error = "strategy not available";
    record::write_run_file(runs + "/" + record::run_id(c) + ".h5", f);
  };
  write("single", 1, 1, 100, "ok");
  write("single", 1, 2, 300, "ok");
  write("mirrored", 2, 1, 0, "failed");
  std::ofstream(runs + "/junk.h5") << "not hdf5";
  std::ostringstream log;
  collect(dir.path(), "", log);
  EXPECT_NE(log.str().find("skipping"), std::string::npos) << log.str();
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
    } else {
      speedups += sf.runs.num("speedup", r);
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
