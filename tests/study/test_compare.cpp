// test_compare.cpp — compare verdicts on study files with known regressions (built here): one run
// a side is INCONCLUSIVE for timing, repetitions decide by significance (after the correction),
// magnitude and equivalence; the Mann–Whitney U test against known p-values, threshold parsing,
// the context differences, and the exit status of `scalebench compare` (0, 1, 3 and --inconclusive).
// Which points' timing is compared at all (shared GPU, other hosts, ignored fields, edge values):
// test_compare_scope.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "harness/study/analysis/compare.h"
#include "harness/study/analysis/stats.h"
#include "kernels/common/check.h"
#include "kernels/common/json.h"
#include "tests/common/harness_test_util.h"
#include "tests/study/compare_fixtures.h"

using namespace scalebench;
using namespace scalebench::study;
using record::Attrs;

using namespace scalebench::study::compare_test;

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
  run(base, "b", "ok", {{"images_per_s", 200}, {"final_val_loss", 0.5}});
  run(base, "c", "ok", {{"images_per_s", 1}});  // only in BASE
  run(base, "e", "ok", {{"images_per_s", 50}});
  run(now, "a", "ok", {{"images_per_s", 85}, {"epoch_time_s", 11.5}, {"final_val_loss", 0.52}});
  run(now, "b", "ok", {{"images_per_s", 230}, {"final_val_loss", 0.6}});
  run(now, "d", "ok", {{"images_per_s", 1}});  // only in NEW
  run(now, "e", "failed", {});
  const CompareResult r = compare(base, now, {});
  // One run a side: a timing change, however large, is INCONCLUSIVE, never REGRESSION.
  EXPECT_EQ(find(r, "a", "images_per_s")->verdict, "INCONCLUSIVE");
  EXPECT_NEAR(find(r, "a", "images_per_s")->change, -0.15, 1e-12);
  EXPECT_TRUE(std::isnan(find(r, "a", "images_per_s")->lo));  // no interval from one run
  EXPECT_NE(find(r, "a", "images_per_s")->note.find("1 run in BASE"), std::string::npos);
  EXPECT_EQ(find(r, "a", "images_per_s")->needed, 5);
  EXPECT_EQ(find(r, "a", "epoch_time_s")->verdict, "INCONCLUSIVE");
  EXPECT_EQ(find(r, "b", "images_per_s")->verdict, "INCONCLUSIVE");
  // Quality metrics are seeded and deterministic: the tolerance decides at one run.
  EXPECT_EQ(find(r, "a", "final_val_loss")->verdict, "ok");          // +4% within +10%
  EXPECT_EQ(find(r, "b", "final_val_loss")->verdict, "REGRESSION");  // +20%
  EXPECT_EQ(find(r, "e", "status")->verdict, "FAILED");
  EXPECT_EQ(find(r, "a", "mfu"), nullptr);  // not measured on either side: not compared
  EXPECT_EQ(r.regressions, 2);
  EXPECT_EQ(r.improvements, 0);
  EXPECT_EQ(r.inconclusive, 3);
  EXPECT_EQ(r.single_run_points, 2);
  EXPECT_EQ(r.matched, 3);
  ASSERT_EQ(r.only_base.size(), 1u);
  EXPECT_EQ(r.only_base[0], "m c N=1 b=8");
  ASSERT_EQ(r.only_new.size(), 1u);
  EXPECT_EQ(r.only_new[0], "m d N=1 b=8");
  const std::string text = render_compare(r, Format::text);
  EXPECT_NE(text.find("only in BASE (1): m c N=1 b=8"), std::string::npos) << text;
  EXPECT_NE(text.find("2 regressions, 0 improvements, 3 inconclusive"), std::string::npos) << text;
  EXPECT_NE(text.find("2 points with one run on a side: their timing is INCONCLUSIVE"), std::string::npos) << text;
  EXPECT_NE(text.find("-15.0% [-]"), std::string::npos) << text;

  CompareOptions loose;
  apply_threshold(loose.rules, "final_val_loss=+25%");
  apply_threshold(loose.rules, "epoch_time_s=off");
  const CompareResult l = compare(base, now, loose);
  EXPECT_EQ(find(l, "b", "final_val_loss")->verdict, "ok");
  EXPECT_EQ(find(l, "a", "epoch_time_s"), nullptr);
  EXPECT_EQ(l.regressions, 1);  // the failed point still counts
}

// Six runs a side: slower by 20 % on three points at once is significant after the correction
// (p = 2/924 each) and beyond the tolerance; an unchanged point is "ok" because its interval lies
// inside ±10 %; overlapping noisy samples, 3 vs 3 and 1 vs 5 stay INCONCLUSIVE, saying why.
TEST(Compare, RepetitionsDecideBySignificanceMagnitudeAndEquivalence) {
  StudyFile base = empty_study(), now = empty_study();
  const double b[] = {100, 101, 99, 100, 102, 101};
  const double slow[] = {80, 81, 79, 80, 82, 81};
  const double same[] = {100.5, 99.5, 101, 100, 101.5, 100};
  const double noisy_b[] = {100, 130, 70, 110, 90};
  const double noisy_n[] = {85, 120, 60, 95, 80};
  for (int i = 0; i < 6; ++i) {
    for (const char* s : {"s1", "s2", "s3"}) {
      run(base, s, "ok", {{"images_per_s", b[i]}});
      run(now, s, "ok", {{"images_per_s", slow[i]}});
    }
    run(base, "same", "ok", {{"images_per_s", b[i]}});
    run(now, "same", "ok", {{"images_per_s", same[i]}});
  }
  for (int i = 0; i < 5; ++i) {
    run(base, "noisy", "ok", {{"images_per_s", noisy_b[i]}});
    run(now, "noisy", "ok", {{"images_per_s", noisy_n[i]}});
    run(now, "one", "ok", {{"images_per_s", 50.0 + i}});
  }
  run(base, "one", "ok", {{"images_per_s", 100}});
  for (int i = 0; i < 3; ++i) {
    run(base, "few", "ok", {{"images_per_s", 100.0 + i}});
    run(now, "few", "ok", {{"images_per_s", 50.0 + i}});
  }
  const CompareResult r = compare(base, now, {});
  for (const char* s : {"s1", "s2", "s3"}) {
    const auto* v = find(r, s, "images_per_s");
    EXPECT_EQ(v->verdict, "REGRESSION") << s << ": " << v->note;
    EXPECT_NEAR(v->p, 2.0 / 924 * 6 / 3, 1e-12);  // BH: rank 3 of 6 tested comparisons
    EXPECT_NEAR(v->change, -0.2, 0.01);
    EXPECT_LT(v->hi, -0.1);  // the whole interval beyond the tolerance
  }
  const auto* same_v = find(r, "same", "images_per_s");
  EXPECT_EQ(same_v->verdict, "ok");
  EXPECT_GE(same_v->lo, -0.1);
  EXPECT_LE(same_v->hi, 0.1);
  const auto* noisy_v = find(r, "noisy", "images_per_s");
  EXPECT_EQ(noisy_v->verdict, "INCONCLUSIVE");
  EXPECT_GT(noisy_v->needed, 5);
  EXPECT_NE(noisy_v->note.find("runs a side"), std::string::npos) << noisy_v->note;
  const auto* few_v = find(r, "few", "images_per_s");
  EXPECT_EQ(few_v->verdict, "INCONCLUSIVE");  // -50 %, but 3 vs 3 cannot bound a 95 % interval
  EXPECT_NE(few_v->note.find("too few runs for a 95% interval"), std::string::npos) << few_v->note;
  EXPECT_EQ(find(r, "one", "images_per_s")->verdict, "INCONCLUSIVE");
  EXPECT_EQ(r.regressions, 3);
  EXPECT_EQ(r.inconclusive, 3);
  const std::string text = render_compare(r, Format::text);
  EXPECT_NE(text.find("-19.9% [-21.0%, -18.8%]"), std::string::npos) << text;  // HL: median of the 36 ratios
  const json::Json js = json::parse(render_compare(r, Format::json), "compare --format json");
  EXPECT_EQ(js["inconclusive"], 3) << js;
  const auto row = [&](const MetricVerdict* verdict) {
    for (const json::Json& v : js["rows"])
      if (v["point"] == verdict->point && v["metric"] == "images_per_s") return v;
    ADD_FAILURE() << "no row for " << verdict->point << ": " << js;
    return json::Json::object();
  };
  const json::Json noisy = row(noisy_v), few = row(few_v);
  EXPECT_EQ(noisy["runs_base"], 5) << noisy;
  EXPECT_EQ(noisy["runs_new"], 5) << noisy;
  EXPECT_EQ(noisy["runs_needed"], noisy_v->needed) << noisy;
  EXPECT_EQ(noisy["verdict"], "INCONCLUSIVE") << noisy;
  EXPECT_EQ(noisy["relative"], true) << noisy;
  EXPECT_TRUE(few["change_lo"].is_null()) << few;  // few: unbounded
  EXPECT_TRUE(few["change_hi"].is_null()) << few;
  EXPECT_EQ(few["change"], few_v->change) << few;
}

// A single slowed point among many unchanged ones is not enough at 6 runs: after the correction
// over the family its p no longer passes, and the verdict asks for more runs, not a REGRESSION.
TEST(Compare, OneChangeAmongManyNeedsMoreRuns) {
  StudyFile base = empty_study(), now = empty_study();
  const double b[] = {100, 101, 99, 100, 102, 101};
  const double slow[] = {80, 81, 79, 80, 82, 81};
  const double same[] = {100.5, 99.5, 101, 100, 101.5, 100};
  const std::vector<std::string> flat = {"f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8"};
  for (int i = 0; i < 6; ++i) {
    run(base, "slow", "ok", {{"images_per_s", b[i]}});
    run(now, "slow", "ok", {{"images_per_s", slow[i]}});
    for (const auto& f : flat) {
      run(base, f, "ok", {{"images_per_s", b[i]}});
      run(now, f, "ok", {{"images_per_s", same[i]}});
    }
  }
  const CompareResult r = compare(base, now, {});
  const auto* v = find(r, "slow", "images_per_s");
  EXPECT_NEAR(v->p, 2.0 / 924 * 9, 1e-12);  // 0.019 > 0.01
  EXPECT_EQ(v->verdict, "INCONCLUSIVE");
  EXPECT_GT(v->needed, 6);
  EXPECT_EQ(r.regressions, 0);
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
  StudyFile base = empty_study(), same = empty_study(), worse = empty_study(), one = empty_study();
  const double b[] = {100, 101, 99, 100, 102, 101};
  for (int i = 0; i < 6; ++i) {
    run(base, "a", "ok", {{"images_per_s", b[i]}});
    run(same, "a", "ok", {{"images_per_s", b[i] + 0.5}});
    run(worse, "a", "ok", {{"images_per_s", b[i] / 2}});
  }
  run(one, "a", "ok", {{"images_per_s", 50}});
  for (auto* f : {&base, &same, &worse, &one}) f->attrs.set("study", "t");
  write_study_file(dir / "base.h5", base);
  write_study_file(dir / "same.h5", same);
  write_study_file(dir / "worse.h5", worse);
  write_study_file(dir / "one.h5", one);
  const std::string sb = std::string(SB_BINARY) + " compare " + (dir / "base.h5") + " ";
  std::string out;
  EXPECT_EQ(sbtest::run(sb + (dir / "same.h5"), &out), 0) << out;
  EXPECT_EQ(sbtest::run(sb + (dir / "worse.h5"), &out), 1) << out;
  EXPECT_NE(out.find("REGRESSION"), std::string::npos) << out;
  EXPECT_EQ(sbtest::run(sb + (dir / "worse.h5") + " --threshold images_per_s=-60% --format json", &out), 0) << out;
  EXPECT_EQ(json::parse(out, "compare --format json")["regressions"], 0) << out;
  // One run in NEW: only INCONCLUSIVE stands in the way: exit 3, or what --inconclusive says.
  EXPECT_EQ(sbtest::run(sb + (dir / "one.h5"), &out), 3) << out;
  EXPECT_NE(out.find("INCONCLUSIVE"), std::string::npos) << out;
  EXPECT_EQ(sbtest::run(sb + (dir / "one.h5") + " --inconclusive pass", &out), 0) << out;
  EXPECT_EQ(sbtest::run(sb + (dir / "one.h5") + " --inconclusive fail", &out), 1) << out;
  // A bad value is bad input like any other (exit_codes.def), not CLI11's own 105.
  EXPECT_EQ(sbtest::run(sb + (dir / "one.h5") + " --inconclusive maybe", &out), 1) << out;
  // No point in common (ids differ): nothing was compared, and the gate must not pass.
  StudyFile other = empty_study();
  run(other, "b", "ok", {{"images_per_s", 100}});
  other.attrs.set("study", "t");
  write_study_file(dir / "other.h5", other);
  EXPECT_EQ(sbtest::run(sb + (dir / "other.h5"), &out), 1) << out;
  EXPECT_NE(out.find("nothing was compared"), std::string::npos) << out;
  EXPECT_EQ(sbtest::run(sb + (dir / "missing.h5"), &out), 1);
  EXPECT_NE(out.find("missing.h5: no such file"), std::string::npos) << out;
}

// The context fields that differ between BASE and NEW come first; a field an older file lacks is
// not a difference.
TEST(Compare, ContextDifferencesComeFirst) {
  StudyFile base = empty_study(), now = empty_study();
  run(base, "a", "ok", {{"images_per_s", 100}});
  run(now, "a", "ok", {{"images_per_s", 100}});
  record::Column& cb = base.runs.add("blas", record::Column::Kind::str);
  cb.s[0] = "OpenBLAS 0.3.26 Haswell";
  record::Column& cn = now.runs.add("blas", record::Column::Kind::str);
  cn.s[0] = "OpenBLAS 0.3.26 Prescott";
  now.runs.add("cpu_model", record::Column::Kind::str).s[0] = "only in NEW";
  base.runs.add("peak_method", record::Column::Kind::str).s[0] = "sgemm 512x512x512";  // MFU's denominator
  now.runs.add("peak_method", record::Column::Kind::str).s[0] = "nominal: 64 fp32 FLOP/cycle";
  const CompareResult r = compare(base, now, {});
  ASSERT_EQ(r.context_differences.size(), 2u);
  EXPECT_EQ(r.context_differences[0], "blas: OpenBLAS 0.3.26 Haswell -> OpenBLAS 0.3.26 Prescott");
  EXPECT_EQ(r.context_differences[1], "peak_method: sgemm 512x512x512 -> nominal: 64 fp32 FLOP/cycle");
  const std::string text = render_compare(r, Format::text);
  EXPECT_EQ(text.rfind("context: BASE and NEW differ in\n  blas: ", 0), 0u) << text;
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
  EXPECT_EQ(find(r, "a", "final_val_loss")->note,
            "1 of NEW's 1 ok run(s) have no final_val_loss (or a zero, infinite or negative one)");
  EXPECT_EQ(find(r, "a", "images_per_s")->verdict, "ok");  // one run a side, but the same value
  ASSERT_NE(find(r, "b", "images_per_s"), nullptr);
  EXPECT_EQ(find(r, "b", "images_per_s")->verdict, "MISSING");
  EXPECT_EQ(find(r, "b", "final_val_loss"), nullptr);  // measured on neither side
  EXPECT_EQ(find(r, "c", "final_val_loss"), nullptr);
  EXPECT_EQ(find(r, "d", "images_per_s")->verdict, "MISSING");
  EXPECT_EQ(r.regressions, 3);
  const std::string text = render_compare(r, Format::text);
  EXPECT_NE(text.find("MISSING"), std::string::npos) << text;
  EXPECT_EQ(text.find("nan"), std::string::npos) << text;
  const json::Json rows = json::parse(render_compare(r, Format::json), "compare --format json")["rows"];
  EXPECT_TRUE(std::any_of(rows.begin(), rows.end(), [](const json::Json& v) { return v["verdict"] == "MISSING"; })) << rows;

  // An infinite or negative value is a wrong record, not an improvement (a ratio of +inf was "improved").
  StudyFile odd = empty_study();
  run(odd, "a", "ok", {{"images_per_s", INFINITY}, {"final_val_loss", -0.5}});
  const CompareResult w = compare(base, odd, {});
  EXPECT_EQ(find(w, "a", "images_per_s")->verdict, "MISSING");
  EXPECT_EQ(find(w, "a", "final_val_loss")->verdict, "MISSING");
  EXPECT_EQ(w.improvements, 0);
  EXPECT_EQ(w.regressions, 2);

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
  run(base, "a", "ok", {{"final_val_loss", 1.0}, {"images_per_s", 100}});
  run(base, "z", "ok", {{"final_val_loss", 1.0}, {"images_per_s", 100}});
  run(now, "a", "ok", {{"final_val_loss", 0.7}, {"images_per_s", 101}});  // improved
  run(now, "z", "ok", {{"final_val_loss", 1.5}, {"images_per_s", 101}});  // regressed: listed first although z sorts last
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
  EXPECT_EQ(r.rows[0].metric, "final_val_loss");
  EXPECT_EQ(r.rows.back().verdict, "improved");  // after the INCONCLUSIVE timing rows
  // epochs differs between the unmatched points, so it is part of every label and named as the difference
  ASSERT_EQ(r.only_base_nearest.size(), 1u);
  EXPECT_NE(r.only_base_nearest[0].find("epochs 2 -> 3"), std::string::npos) << r.only_base_nearest[0];
  const std::string text = render_compare(r, Format::text);
  EXPECT_NE(text.find("nearest in NEW is m q N=1 b=8 epochs=3: epochs 2 -> 3"), std::string::npos) << text;
  // the per-metric summary: median change of +50% and -30%, their range, one regression, one improved
  EXPECT_NE(text.find("final_val_loss       2         +10.0%  -30.0% .. +50.0%            1         1             0"),
            std::string::npos) << text;
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

// The noise laboratory's case: one N = 1 point, 5 runs a side, 20 % slower. Its efficiency divides
// by its own runs (1 by construction) and its exposed communication is 0 in every run: neither is
// tested, so they do not dilute the correction, and the slowdown is a REGRESSION although the
// start-up sgemm rate did not move.
TEST(Compare, ASlowedPointAloneIsARegression) {
  StudyFile base = empty_study(), now = empty_study();
  const double b[] = {100, 101, 99, 100, 102}, sgemm[] = {30, 31, 29, 32, 28}, sgemm_n[] = {31, 29, 30, 28, 32};
  for (int i = 0; i < 5; ++i)
    for (auto [f, ips, sg] : {std::tuple{&base, b[i], sgemm[i]}, std::tuple{&now, 0.8 * b[i], sgemm_n[i]}}) {
      run(*f, "single", "ok", {{"images_per_s", ips}, {"epoch_time_s", 1000 / ips}, {"tflops", ips / 1e3},
                               {"mfu", ips / 1e4}, {"sgemm_tflops", sg}, {"exposed_comm_frac", 0}, {"efficiency", ips / 100}});
      f->runs.add("baseline", record::Column::Kind::str).s.back() = "single N=1";
    }
  const CompareResult r = compare(base, now, {});
  EXPECT_EQ(find(r, "single", "images_per_s")->verdict, "REGRESSION") << find(r, "single", "images_per_s")->note;
  EXPECT_NEAR(find(r, "single", "images_per_s")->p, 2.0 / 252 * 5 / 4, 1e-12);  // rank 4 of 5 tested
  EXPECT_EQ(find(r, "single", "epoch_time_s")->verdict, "REGRESSION");
  EXPECT_EQ(find(r, "single", "efficiency"), nullptr);  // its own baseline: not compared
  EXPECT_EQ(find(r, "single", "exposed_comm_frac")->verdict, "ok");
  EXPECT_EQ(find(r, "single", "exposed_comm_frac")->note, "the same value in every run on both sides");
  EXPECT_EQ(find(r, "single", "exposed_comm_frac")->p, -1);  // not tested
}
