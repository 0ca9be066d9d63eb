// test_compare.cpp — compare verdicts on study files with known regressions (built here), the
// Mann–Whitney U test against known p-values, threshold parsing, and the exit status of
// `scalebench compare`.
#include <gtest/gtest.h>

#include <cmath>

#include "harness/study/analysis/compare.h"
#include "harness/study/analysis/stats.h"
#include "kernels/common/check.h"
#include "tests/common/harness_test_util.h"

using namespace scalebench;
using namespace scalebench::study;
using record::Attrs;

namespace {

// One run row: point `id` (label "m <strategy> N=1 b=8"), with metric values.
void run(StudyFile& f, const std::string& id, const std::string& status, std::initializer_list<std::pair<const char*, double>> m) {
  Attrs r;
  r.set("point_id", id);
  r.set("status", status);
  r.set("error", status == "ok" ? "" : "boom");
  r.set("model", "m");
  r.set("strategy", id);
  r.set("world_size", 1);
  r.set("batch", 8);
  for (const char* k : {"images_per_s", "epoch_time_s", "final_val_loss"}) r.set(k, record::kNaN);
  for (auto [k, v] : m) r.set(k, v);
  f.runs.append(r);
}

StudyFile empty_study() {
  StudyFile f;
  f.attrs.set("kind", "study");
  return f;
}

const MetricVerdict* find(const CompareResult& r, const std::string& point, const std::string& metric) {
  for (const auto& v : r.rows)
    if (v.point == "m " + point + " N=1 b=8" && v.metric == metric) return &v;
  return nullptr;
}

}  // namespace

TEST(MannWhitney, KnownValues) {
  auto r = mann_whitney({1, 2, 3}, {4, 5, 6});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 0);
  EXPECT_DOUBLE_EQ(r.p, 0.1);      // 2 of C(6,3) = 20 splits are as extreme
  EXPECT_DOUBLE_EQ(r.min_p, 0.1);  // so 3 vs 3 can never reach p < 0.05
  r = mann_whitney({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_NEAR(r.p, 2.0 / 252, 1e-12);
  r = mann_whitney({1, 3, 5}, {2, 4, 6});  // U = 3 of 9: as central as it gets but one
  EXPECT_DOUBLE_EQ(r.u, 3);
  EXPECT_NEAR(r.p, 0.7, 1e-12);             // |U − 4.5| ≥ 1.5: 14 of 20 splits
  r = mann_whitney({2, 2, 2}, {2, 2, 2});   // all tied: no evidence
  EXPECT_DOUBLE_EQ(r.p, 1.0);
  std::vector<double> a, b;  // 15 vs 15 (C(30,15) > 200 000): normal approximation
  for (int i = 1; i <= 15; ++i) a.push_back(i), b.push_back(15 + i);
  r = mann_whitney(a, b);
  EXPECT_FALSE(r.exact);
  const double sd = std::sqrt(15.0 * 15 * 31 / 12);
  EXPECT_NEAR(r.p, std::erfc((112.5 - 0.5) / sd / std::sqrt(2.0)), 1e-15);
  EXPECT_DOUBLE_EQ(median({3, 1, 2, 10}), 2.5);
  EXPECT_TRUE(std::isnan(median({})));
}

TEST(Compare, SinglePointsVerdicts) {
  StudyFile base = empty_study(), now = empty_study();
  run(base, "a", "ok", {{"images_per_s", 100}, {"epoch_time_s", 10}, {"final_val_loss", 0.5}});
  run(base, "b", "ok", {{"images_per_s", 200}});
  run(base, "c", "ok", {{"images_per_s", 1}});  // only in BASE
  run(base, "e", "ok", {{"images_per_s", 50}});
  run(now, "a", "ok", {{"images_per_s", 85}, {"epoch_time_s", 11.5}, {"final_val_loss", 0.52}});
  run(now, "b", "ok", {{"images_per_s", 230}});
  run(now, "d", "ok", {{"images_per_s", 1}});  // only in NEW
  run(now, "e", "failed", {});
  const CompareResult r = compare(base, now, {});
  EXPECT_EQ(find(r, "a", "images_per_s")->verdict, "REGRESSION");  // -15% beyond -10%
  EXPECT_NEAR(find(r, "a", "images_per_s")->change, -0.15, 1e-12);
  EXPECT_EQ(find(r, "a", "epoch_time_s")->verdict, "REGRESSION");  // +15% beyond +10% (lower is better)
  EXPECT_EQ(find(r, "a", "final_val_loss")->verdict, "ok");        // +4%
  EXPECT_EQ(find(r, "b", "images_per_s")->verdict, "improved");
  EXPECT_EQ(find(r, "e", "status")->verdict, "FAILED");
  EXPECT_EQ(find(r, "a", "mfu"), nullptr);  // not measured on either side: not compared
  EXPECT_EQ(r.regressions, 3);
  EXPECT_EQ(r.improvements, 1);
  EXPECT_EQ(r.matched, 3);
  ASSERT_EQ(r.only_base.size(), 1u);
  EXPECT_EQ(r.only_base[0], "m c N=1 b=8");
  ASSERT_EQ(r.only_new.size(), 1u);
  EXPECT_EQ(r.only_new[0], "m d N=1 b=8");
  const std::string text = render_compare(r, Format::text);
  EXPECT_NE(text.find("only in BASE (1): m c N=1 b=8"), std::string::npos) << text;
  EXPECT_NE(text.find("3 regressions"), std::string::npos) << text;

  CompareOptions loose;
  apply_threshold(loose.rules, "images_per_s=-20%");
  apply_threshold(loose.rules, "epoch_time_s=off");
  const CompareResult l = compare(base, now, loose);
  EXPECT_EQ(find(l, "a", "images_per_s")->verdict, "ok");
  EXPECT_EQ(find(l, "a", "epoch_time_s"), nullptr);
  EXPECT_EQ(l.regressions, 1);  // the failed point still counts
}

TEST(Compare, RepetitionsUseTheUTest) {
  StudyFile base = empty_study(), now = empty_study();
  const double b[] = {100, 101, 99, 100, 102};
  const double slow[] = {80, 81, 79, 80, 82};         // clearly slower: p = 2/252
  const double noisy_b[] = {100, 130, 70, 110, 90};   // medians 100 → 85, but overlapping samples
  const double noisy_n[] = {85, 120, 60, 95, 80};
  for (int i = 0; i < 5; ++i) {
    run(base, "slow", "ok", {{"images_per_s", b[i]}});
    run(now, "slow", "ok", {{"images_per_s", slow[i]}});
    run(base, "noisy", "ok", {{"images_per_s", noisy_b[i]}});
    run(now, "noisy", "ok", {{"images_per_s", noisy_n[i]}});
  }
  for (int i = 0; i < 3; ++i) {  // 3 vs 3: the U test cannot reach p < 0.05
    run(base, "few", "ok", {{"images_per_s", 100.0 + i}});
    run(now, "few", "ok", {{"images_per_s", 50.0 + i}});
  }
  const CompareResult r = compare(base, now, {});
  const auto* slow_v = find(r, "slow", "images_per_s");
  EXPECT_EQ(slow_v->verdict, "REGRESSION");
  EXPECT_NEAR(slow_v->p, 2.0 / 252, 1e-12);
  EXPECT_DOUBLE_EQ(slow_v->base, 100);
  EXPECT_DOUBLE_EQ(slow_v->now, 80);
  const auto* noisy_v = find(r, "noisy", "images_per_s");
  EXPECT_EQ(noisy_v->verdict, "ok");
  EXPECT_GT(noisy_v->p, 0.05);
  EXPECT_NE(noisy_v->note.find("not significant"), std::string::npos);
  const auto* few_v = find(r, "few", "images_per_s");
  EXPECT_EQ(few_v->verdict, "REGRESSION");
  EXPECT_NE(few_v->note.find("too few repetitions"), std::string::npos);
  EXPECT_EQ(r.regressions, 2);
}

TEST(Compare, ThresholdParsing) {
  auto rules = default_rules();
  apply_threshold(rules, "images_per_s=-5%");
  apply_threshold(rules, "epoch_time_s=+0.2");
  apply_threshold(rules, "final_val_loss=3%");
  for (const auto& r : rules) {
    if (r.name == "images_per_s") {
      EXPECT_DOUBLE_EQ(r.tolerance, 0.05);
    }
    if (r.name == "epoch_time_s") {
      EXPECT_DOUBLE_EQ(r.tolerance, 0.2);
    }
    if (r.name == "final_val_loss") {
      EXPECT_DOUBLE_EQ(r.tolerance, 0.03);
    }
  }
  auto error_of = [&](const std::string& s) {
    try {
      apply_threshold(rules, s);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of("images_per_s=+10%").find("write images_per_s=-10%"), std::string::npos);
  EXPECT_NE(error_of("bogus=-1%").find("unknown metric 'bogus'"), std::string::npos);
  EXPECT_NE(error_of("images_per_s=-ten%").find("not a tolerance"), std::string::npos);
  EXPECT_NE(error_of("images_per_s").find("not metric=value"), std::string::npos);
}

TEST(Compare, ExitStatusOfTheCommand) {
  sbtest::TempDir dir;
  StudyFile base = empty_study(), same = empty_study(), worse = empty_study();
  run(base, "a", "ok", {{"images_per_s", 100}});
  run(same, "a", "ok", {{"images_per_s", 97}});
  run(worse, "a", "ok", {{"images_per_s", 50}});
  for (auto* f : {&base, &same, &worse}) f->attrs.set("study", "t");
  write_study_file(dir / "base.h5", base);
  write_study_file(dir / "same.h5", same);
  write_study_file(dir / "worse.h5", worse);
  const std::string sb = SB_BINARY;
  std::string out;
  EXPECT_EQ(sbtest::run(sb + " compare " + (dir / "base.h5") + " " + (dir / "same.h5"), &out), 0) << out;
  EXPECT_EQ(sbtest::run(sb + " compare " + (dir / "base.h5") + " " + (dir / "worse.h5"), &out), 1) << out;
  EXPECT_NE(out.find("REGRESSION"), std::string::npos) << out;
  EXPECT_EQ(sbtest::run(sb + " compare " + (dir / "base.h5") + " " + (dir / "worse.h5") +
                            " --threshold images_per_s=-60% --format json", &out), 0) << out;
  EXPECT_NE(out.find("\"regressions\": 0"), std::string::npos) << out;
  // No point in common (ids differ): nothing was compared, and the gate must not pass.
  StudyFile other = empty_study();
  run(other, "b", "ok", {{"images_per_s", 100}});
  other.attrs.set("study", "t");
  write_study_file(dir / "other.h5", other);
  EXPECT_EQ(sbtest::run(sb + " compare " + (dir / "base.h5") + " " + (dir / "other.h5"), &out), 1) << out;
  EXPECT_NE(out.find("nothing was compared"), std::string::npos) << out;
  EXPECT_EQ(sbtest::run(sb + " compare " + (dir / "base.h5") + " " + (dir / "missing.h5"), &out), 1);
  EXPECT_NE(out.find("missing.h5: no such file"), std::string::npos) << out;
}

// An ok point without a metric is a failure, not a pass: NEW lost a metric BASE has, or an ok run
// on either side has no images_per_s (every ok run measures it). A metric neither side measures,
// or only NEW (newer than BASE), is not compared.
TEST(Compare, MissingMetricOnAnOkPointFails) {
  StudyFile base = empty_study(), now = empty_study();
  run(base, "a", "ok", {{"images_per_s", 100}, {"final_val_loss", 0.5}});
  run(now, "a", "ok", {{"images_per_s", 100}});  // final_val_loss lost
  run(base, "b", "ok", {});                       // images_per_s NaN on both sides
  run(now, "b", "ok", {});
  run(base, "c", "ok", {{"images_per_s", 100}});
  run(now, "c", "ok", {{"images_per_s", 100}, {"final_val_loss", 0.4}});  // only NEW has it: fine
  run(base, "d", "ok", {{"images_per_s", 100}});
  run(base, "d", "ok", {{"images_per_s", 102}});
  run(now, "d", "ok", {{"images_per_s", 101}});
  run(now, "d", "ok", {});  // one repetition of two lost it
  const CompareResult r = compare(base, now, {});
  ASSERT_NE(find(r, "a", "final_val_loss"), nullptr);
  EXPECT_EQ(find(r, "a", "final_val_loss")->verdict, "MISSING");
  EXPECT_EQ(find(r, "a", "final_val_loss")->note, "1 of NEW's 1 ok run(s) have no final_val_loss");
  EXPECT_EQ(find(r, "a", "images_per_s")->verdict, "ok");
  ASSERT_NE(find(r, "b", "images_per_s"), nullptr);
  EXPECT_EQ(find(r, "b", "images_per_s")->verdict, "MISSING");
  EXPECT_EQ(find(r, "b", "final_val_loss"), nullptr);  // measured on neither side
  EXPECT_EQ(find(r, "c", "final_val_loss"), nullptr);
  EXPECT_EQ(find(r, "d", "images_per_s")->verdict, "MISSING");
  EXPECT_EQ(r.regressions, 3);
  const std::string text = render_compare(r, Format::text);
  EXPECT_NE(text.find("MISSING"), std::string::npos) << text;
  EXPECT_EQ(text.find("nan"), std::string::npos) << text;
  EXPECT_NE(render_compare(r, Format::json).find("\"verdict\": \"MISSING\""), std::string::npos);

  // The command: exit 1, though every value that is present is within its tolerance.
  sbtest::TempDir dir;
  StudyFile good = empty_study(), lost = empty_study();
  run(good, "a", "ok", {{"images_per_s", 100}});
  run(lost, "a", "ok", {});
  for (auto* f : {&good, &lost}) f->attrs.set("study", "t");
  write_study_file(dir / "good.h5", good);
  write_study_file(dir / "lost.h5", lost);
  std::string out;
  EXPECT_EQ(sbtest::run(std::string(SB_BINARY) + " compare " + (dir / "good.h5") + " " + (dir / "lost.h5"), &out), 1)
      << out;
  EXPECT_NE(out.find("MISSING"), std::string::npos) << out;
  EXPECT_NE(out.find("1 regression,"), std::string::npos) << out;
}

// Failures and regressions come first whatever the table order; one summary line per metric;
// --only-regressions lists only them; an unmatched point names the fields that differ.
TEST(Compare, OrderSummaryOnlyRegressionsAndDifferences) {
  StudyFile base = empty_study(), now = empty_study();
  run(base, "a", "ok", {{"images_per_s", 100}});
  run(base, "z", "ok", {{"images_per_s", 100}});
  run(now, "a", "ok", {{"images_per_s", 130}});  // improved
  run(now, "z", "ok", {{"images_per_s", 50}});   // regressed: listed first although z sorts last
  Attrs only_base;
  only_base.set("point_id", "p2");
  only_base.set("status", "ok");
  only_base.set("model", "m");
  only_base.set("strategy", "q");
  only_base.set("world_size", 1);
  only_base.set("batch", 8);
  only_base.set("epochs", 2);
  only_base.set("images_per_s", 1.0);
  base.runs.append(only_base);
  only_base.set("point_id", "p3");
  only_base.set("epochs", 3);
  now.runs.append(only_base);
  const CompareResult r = compare(base, now, {});
  ASSERT_GE(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0].verdict, "REGRESSION");
  EXPECT_EQ(r.rows[1].verdict, "improved");
  // epochs differs between the unmatched points, so it is part of every label and named as the difference
  ASSERT_EQ(r.only_base_nearest.size(), 1u);
  EXPECT_NE(r.only_base_nearest[0].find("epochs 2 -> 3"), std::string::npos) << r.only_base_nearest[0];
  const std::string text = render_compare(r, Format::text);
  EXPECT_NE(text.find("nearest in NEW is m q N=1 b=8 epochs=3: epochs 2 -> 3"), std::string::npos) << text;
  // the per-metric summary: median change of -50% and +30%, their range, one regression, one improved
  EXPECT_NE(text.find("-10.0%  -50.0% .. +30.0%            1         1"), std::string::npos) << text;
  const std::string only = render_compare(r, Format::text, true);
  EXPECT_NE(only.find("REGRESSION"), std::string::npos) << only;
  std::size_t table_rows = 0;
  for (std::size_t p = only.find("\nm "); p != std::string::npos; p = only.find("\nm ", p + 1)) ++table_rows;
  EXPECT_EQ(table_rows, 1u) << only;  // the regression row only
}

// A baseline written before a field existed has no column for it: that is not a difference, so
// labels stay "m ring N=1 b=8" rather than listing every newer field empty (the demo's baseline).
TEST(Compare, AFieldMissingFromAnOlderFileIsNotAVariedAxis) {
  StudyFile base = empty_study();
  run(base, "ring", "ok", {{"images_per_s", 100}});
  StudyFile newer = empty_study();  // also has a newer field, at one value
  Attrs r;
  r.set("point_id", "ring"), r.set("status", "ok"), r.set("error", ""), r.set("model", "m"), r.set("strategy", "ring");
  r.set("world_size", 1), r.set("batch", 8), r.set("images_per_s", 100.0), r.set("accumulate", std::int64_t{1});
  newer.runs.append(r);
  const CompareResult res = compare(base, newer, CompareOptions{});
  ASSERT_FALSE(res.rows.empty());
  for (const auto& v : res.rows) EXPECT_EQ(v.point, "m ring N=1 b=8") << v.point;
  // Two present values that differ are an axis, and the label names it.
  StudyFile other = empty_study();
  r.set("accumulate", std::int64_t{2}), r.set("point_id", "ring2");
  other.runs.append(r);
  r.set("accumulate", std::int64_t{1}), r.set("point_id", "ring");
  other.runs.append(r);
  const CompareResult res2 = compare(newer, other, CompareOptions{});
  bool named = false;
  for (const auto& v : res2.rows) named |= v.point.find("accumulate=1") != std::string::npos;
  EXPECT_TRUE(named);
}
