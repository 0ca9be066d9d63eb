// test_compare_scope.cpp — which points and values compare times at all: points whose ranks shared
// a GPU, a zero or absurd timing value, points matched across an ignored configuration field, a
// baseline from another machine type (host fingerprint), and the noise an INCONCLUSIVE row ran
// under. The verdict rules themselves: test_compare.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "harness/study/analysis/compare.h"
#include "kernels/common/check.h"
#include "kernels/common/json.h"
#include "tests/common/harness_test_util.h"
#include "tests/study/compare_fixtures.h"

using namespace scalebench;
using namespace scalebench::study;
using namespace scalebench::study::compare_test;

// Ranks that shared a GPU (the run files' gpu_shared, collect's column) timed contention for one
// device: their timing is left out — no verdict, one summary line — unless --include-shared-gpu;
// their quality is compared as always. The same slowdown on a point of its own is a REGRESSION.
TEST(Compare, SharedGpuPointsLeaveTheirTimingOut) {
  StudyFile base = empty_study(), now = empty_study();
  const double b[] = {100, 101, 99, 100, 102, 101}, slow[] = {80, 81, 79, 80, 82, 81};
  for (int i = 0; i < 6; ++i) {
    for (const char* s : {"shared", "own"}) {
      run(base, s, "ok", {{"images_per_s", b[i]}, {"final_val_loss", 0.5}});
      run(now, s, "ok", {{"images_per_s", slow[i]}, {"final_val_loss", 0.9}});
    }
  }
  base.runs.add("gpu_shared", record::Column::Kind::str);
  now.runs.add("gpu_shared", record::Column::Kind::str);
  for (StudyFile* f : {&base, &now})
    for (std::size_t r = 0; r < f->runs.rows(); ++r)
      f->runs.find("gpu_shared")->s[r] = f->runs.str("point_id", r) == "shared" ? "1" : "0";
  const CompareResult r = compare(base, now, {});
  EXPECT_EQ(find(r, "shared", "images_per_s"), nullptr) << "a shared-GPU point's timing was compared";
  ASSERT_NE(find(r, "shared", "final_val_loss"), nullptr);
  EXPECT_EQ(find(r, "shared", "final_val_loss")->verdict, "REGRESSION");  // quality still counts
  EXPECT_EQ(find(r, "own", "images_per_s")->verdict, "REGRESSION");
  EXPECT_EQ(r.shared_gpu_points, 1);
  EXPECT_NE(render_compare(r, Format::text).find("1 point whose ranks shared a GPU (flag shared-gpu): timing not compared"),
            std::string::npos);
  CompareOptions all;
  all.include_shared_gpu = true;
  const CompareResult with = compare(base, now, all);
  ASSERT_NE(find(with, "shared", "images_per_s"), nullptr);
  EXPECT_EQ(find(with, "shared", "images_per_s")->verdict, "REGRESSION");
  EXPECT_EQ(with.shared_gpu_points, 0);
}

// Issue 47, case 6: an epoch_time_s of 0 has no ratio — it is a value missing, not INCONCLUSIVE —
// and an absurd images/s (1e300) prints in bounded width, not as a 300-digit percentage.
TEST(Compare, ZeroTimingIsMissingAndHugeChangesPrintBounded) {
  StudyFile base = empty_study(), now = empty_study();
  for (int i = 0; i < 6; ++i) {
    run(base, "z", "ok", {{"images_per_s", 100.0 + i}, {"epoch_time_s", 2.0}});
    run(now, "z", "ok", {{"images_per_s", 100.0 + i}, {"epoch_time_s", 0.0}});
    run(base, "big", "ok", {{"images_per_s", 100.0 + i}});
    run(now, "big", "ok", {{"images_per_s", 1e300}});
  }
  const CompareResult r = compare(base, now, {});
  ASSERT_NE(find(r, "z", "epoch_time_s"), nullptr);
  EXPECT_EQ(find(r, "z", "epoch_time_s")->verdict, "MISSING");
  EXPECT_NE(find(r, "z", "epoch_time_s")->note.find("(or a zero, infinite or negative one)"), std::string::npos);
  const std::string text = render_compare(r, Format::text);
  EXPECT_NE(text.find("+1e+300%"), std::string::npos) << text;
  std::size_t longest = 0, at = 0;
  for (std::size_t nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) longest = std::max(longest, nl - at);
  EXPECT_LT(longest, 400u) << text;
}

// Issue 47, case 2: two studies that differ only in threads matched nothing ("0 points matched",
// exit 1). With --match-ignore threads their points meet, the header says what differed, and a
// real slowdown is still found; an unknown field and a collision are one line each.
TEST(Compare, MatchIgnoreMeetsPointsThatDifferOnlyInTheIgnoredField) {
  StudyFile base = empty_study(), now = empty_study();
  const double b[] = {100, 101, 99, 100, 102, 101}, slow[] = {80, 81, 79, 80, 82, 81};
  for (int i = 0; i < 6; ++i) {
    run(base, "s1", "ok", {{"images_per_s", b[i]}});
    run(now, "s1", "ok", {{"images_per_s", slow[i]}});
  }
  base.runs.add("threads", record::Column::Kind::str);
  now.runs.add("threads", record::Column::Kind::str);
  for (std::size_t r = 0; r < base.runs.rows(); ++r) base.runs.find("threads")->s[r] = "1";
  for (std::size_t r = 0; r < now.runs.rows(); ++r) {
    now.runs.find("threads")->s[r] = "2";
    now.runs.find("point_id")->s[r] = "s1-threads2";  // another configuration: another id
  }
  EXPECT_EQ(compare(base, now, {}).matched, 0);
  CompareOptions o;
  o.match_ignore = {"threads"};
  const CompareResult r = compare(base, now, o);
  EXPECT_EQ(r.matched, 1);
  ASSERT_EQ(r.ignored_differences.size(), 1u);
  EXPECT_EQ(r.ignored_differences[0], "threads: 1 -> 2");
  ASSERT_NE(find(r, "s1", "images_per_s"), nullptr);
  EXPECT_EQ(find(r, "s1", "images_per_s")->verdict, "REGRESSION");
  EXPECT_NE(render_compare(r, Format::text).find("matched ignoring (BASE -> NEW):\n  threads: 1 -> 2"), std::string::npos);
  o.match_ignore = {"thread"};
  EXPECT_NE(sbtest::error_of([&] { compare(base, now, o); }).find("--match-ignore 'thread': not a configuration field"),
            std::string::npos);
  // two NEW points told apart by threads alone cannot both meet BASE's one
  for (std::size_t r2 = 0; r2 < 3; ++r2) now.runs.find("threads")->s[r2] = "4";
  for (std::size_t r2 = 0; r2 < 3; ++r2) now.runs.find("point_id")->s[r2] = "s1-threads4";
  o.match_ignore = {"threads"};
  EXPECT_NE(sbtest::error_of([&] { compare(base, now, o); }).find("NEW has two points that differ only in it"),
            std::string::npos);
}

// Issue 47, case 3: BASE recorded on another machine type (another host fingerprint) — the demo's
// shipped baseline on a newcomer's machine. A 20 % speed difference there is the machine's: no
// timing verdict, one line saying why, quality compared as before; --across-hosts compares timing.
// A point whose both sides share one fingerprint keeps its timing verdict, and a side without a
// fingerprint (a file from before them) is an unknown machine.
TEST(Compare, AnotherMachineTypeGivesNoTimingVerdict) {
  StudyFile base = empty_study(), now = empty_study();
  const double b[] = {100, 101, 99, 100, 102, 101}, slow[] = {80, 81, 79, 80, 82, 81};
  for (int i = 0; i < 6; ++i)
    for (const char* s : {"other", "same"}) {
      run(base, s, "ok", {{"images_per_s", b[i]}, {"final_val_loss", 0.5}});
      run(now, s, "ok", {{"images_per_s", slow[i]}, {"final_val_loss", 0.9}});
    }
  base.runs.add("host_fingerprint", record::Column::Kind::str);
  now.runs.add("host_fingerprint", record::Column::Kind::str);
  for (std::size_t r = 0; r < base.runs.rows(); ++r) {
    base.runs.find("host_fingerprint")->s[r] = base.runs.str("point_id", r) == "other" ? "aaaaaaaa" : "cccccccc";
    now.runs.find("host_fingerprint")->s[r] = now.runs.str("point_id", r) == "other" ? "bbbbbbbb" : "cccccccc";
  }
  const CompareResult r = compare(base, now, {});
  EXPECT_EQ(find(r, "other", "images_per_s"), nullptr) << "timing compared across machine types";
  ASSERT_NE(find(r, "other", "final_val_loss"), nullptr);
  EXPECT_EQ(find(r, "other", "final_val_loss")->verdict, "REGRESSION");  // quality still counts
  ASSERT_NE(find(r, "same", "images_per_s"), nullptr);
  EXPECT_EQ(find(r, "same", "images_per_s")->verdict, "REGRESSION");  // a known machine type: caught
  EXPECT_EQ(r.other_host_points, 1);
  const std::string text = render_compare(r, Format::text);
  const auto line = text.find("compare: 1 point ran on another machine type (host fingerprint aaaaaaaa, cccccccc -> "
                              "bbbbbbbb, cccccccc");
  ASSERT_NE(line, std::string::npos) << text;
  EXPECT_NE(text.find("timing not compared", line), std::string::npos);
  EXPECT_EQ(json::parse(render_compare(r, Format::json), "compare --format json")["other_host_points"], 1);
  CompareOptions across;
  across.across_hosts = true;
  const CompareResult with = compare(base, now, across);
  ASSERT_NE(find(with, "other", "images_per_s"), nullptr);
  EXPECT_EQ(find(with, "other", "images_per_s")->verdict, "REGRESSION");
  EXPECT_EQ(with.other_host_points, 0);
  EXPECT_NE(render_compare(with, Format::text).find("compare: host fingerprint aaaaaaaa, cccccccc -> bbbbbbbb, cccccccc\n"),
            std::string::npos);
  // BASE from before fingerprints, NEW with one: an unknown machine, no timing verdict.
  StudyFile old = empty_study();
  for (int i = 0; i < 6; ++i) run(old, "same", "ok", {{"images_per_s", b[i]}});
  const CompareResult unknown = compare(old, now, {});
  EXPECT_EQ(find(unknown, "same", "images_per_s"), nullptr);
  EXPECT_EQ(unknown.other_host_points, 1);
  EXPECT_NE(render_compare(unknown, Format::text).find("host fingerprint none recorded -> bbbbbbbb, cccccccc"),
            std::string::npos);
}

// Issue 47, case 5: an INCONCLUSIVE timing row names the noise its runs ran under (load, others'
// CPU, steal, clock), from the run files' noise_* columns.
TEST(Compare, InconclusiveRowsNameTheNoiseTheyRanUnder) {
  StudyFile base = empty_study(), now = empty_study();
  run(base, "n", "ok", {{"images_per_s", 100}, {"noise_load1_start", 0.2}, {"noise_load1_end", 0.4},
                        {"noise_others_cpu_frac", 0.02}, {"noise_steal_frac", 0}, {"noise_mhz_start", 2100},
                        {"noise_mhz_end", 2100}, {"noise_cpus", 2}});
  run(now, "n", "ok", {{"images_per_s", 90}, {"noise_load1_start", 3.1}, {"noise_load1_end", 5.8},
                       {"noise_running_start", 4}, {"noise_running_end", 13}, {"noise_others_cpu_frac", 0.61},
                       {"noise_steal_frac", 0.05}, {"noise_mhz_start", 2100}, {"noise_mhz_end", 2000},
                       {"noise_cpus", 2}});
  const CompareResult r = compare(base, now, {});
  ASSERT_EQ(find(r, "n", "images_per_s")->verdict, "INCONCLUSIVE");
  ASSERT_EQ(r.inconclusive_noise.size(), 1u);
  EXPECT_EQ(r.inconclusive_noise[0],
            "m n N=1 b=8: BASE load 0.2..0.4 on 2 CPUs, others' CPU <=2%, steal <=0%, clock 2100..2100 MHz; NEW load "
            "3.1..5.8 on 2 CPUs, 4..13 runnable, others' CPU <=61%, steal <=5%, clock 2000..2100 MHz");
  EXPECT_NE(render_compare(r, Format::text).find("compare: the INCONCLUSIVE points ran under\n  m n N=1 b=8: BASE"),
            std::string::npos);
}
