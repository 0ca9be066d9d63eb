// test_tuning.cpp — seeds and per-batch tuning (harness/study/analysis/tuning.h): the olympic mean
// and its range, not-reached runs counted as the highest, the selection of the best candidate per
// cell by each objective, and [select] in a spec.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "harness/study/analysis/tuning.h"
#include "harness/study/spec/spec.h"
#include "kernels/common/check.h"

using namespace scalebench;
using namespace scalebench::study;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A run row as collect writes it: the point fields the tests vary, a target and its outcome.
record::Attrs run(int batch, double lr, int seed, double steps, double miou = 0.5, const char* status = "ok") {
  record::Attrs a;
  a.set("run_id", fmt::format("b{}-lr{}-s{}", batch, lr, seed));
  a.set("status", status);
  a.set("model", "unet");
  a.set("strategy", "single");
  a.set("world_size", std::int64_t(1));
  a.set("batch", std::int64_t(batch));
  a.set("global_batch", std::int64_t(batch));
  a.set("lr", fmt::format("{}", lr));
  a.set("seed", std::int64_t(seed));
  a.set("target_value", 0.4);
  a.set("target_reached", std::int64_t(std::isfinite(steps)));
  a.set("steps_to_target", std::isfinite(steps) ? steps : NAN);
  a.set("final_val_miou", miou);
  return a;
}

}  // namespace

TEST(Olympic, DropsTheLowestAndHighestFromThreeOn) {
  const Olympic a = olympic_mean({10, 40, 20, 30});
  EXPECT_DOUBLE_EQ(a.mean, 25);  // (20 + 30) / 2
  EXPECT_EQ(a.lo, 10);
  EXPECT_EQ(a.hi, 40);
  EXPECT_EQ(a.runs, 4);
  EXPECT_DOUBLE_EQ(olympic_mean({7, 100, 9}).mean, 9);
  EXPECT_DOUBLE_EQ(olympic_mean({7, 9}).mean, 8);  // below 3: the plain mean
  EXPECT_TRUE(std::isnan(olympic_mean({}).mean));
}

TEST(Olympic, NotReachedCountsAsTheHighest) {
  const Olympic one = olympic_mean({12, kInf, 10});
  EXPECT_DOUBLE_EQ(one.mean, 12);  // the run that never reached it is the one dropped
  EXPECT_EQ(one.not_reached, 1);
  EXPECT_TRUE(std::isinf(one.hi));
  const Olympic two = olympic_mean({12, kInf, kInf});
  EXPECT_TRUE(std::isinf(two.mean));  // most did not reach it: the configuration did not
  EXPECT_EQ(two.not_reached, 2);
}

TEST(Tuning, SeedStatsPerConfiguration) {
  record::Table t;
  for (int seed : {1, 2, 3}) t.append(run(4, 0.05, seed, 100.0 * seed));
  t.append(run(4, 0.05, 4, NAN, 0.5, "failed"));  // not ok: not a run of the summary
  t.append(run(8, 0.05, 1, kInf));
  add_seed_stats(t);
  EXPECT_EQ(t.integer("config_runs", 0), 3);
  EXPECT_EQ(t.integer("config_seeds", 3), 3);  // every row of the configuration carries it
  EXPECT_DOUBLE_EQ(t.num("steps_to_target_olympic", 0), 200);
  EXPECT_DOUBLE_EQ(t.num("steps_to_target_lo", 1), 100);
  EXPECT_DOUBLE_EQ(t.num("steps_to_target_hi", 2), 300);
  EXPECT_EQ(t.integer("target_not_reached", 4), 1);
  EXPECT_TRUE(std::isinf(t.num("steps_to_target_olympic", 4)));
  EXPECT_NE(t.str("config_id", 0), t.str("config_id", 4));
}

TEST(Tuning, SelectsTheFewestStepsPerCell) {
  record::Table t;
  // batch 4: lr 0.1 needs fewer steps; batch 8: lr 0.1 reaches it in one seed of three only.
  for (int s : {1, 2, 3}) {
    t.append(run(4, 0.05, s, 300 + s));
    t.append(run(4, 0.1, s, 200 + s));
    t.append(run(8, 0.05, s, 150 + s));
    t.append(run(8, 0.1, s, s == 1 ? 90 : kInf));
  }
  add_seed_stats(t);
  const record::Table sel = select_best(t, {"steps_to_target", {"lr"}});
  ASSERT_EQ(sel.rows(), 4u);  // two cells x two candidates: every candidate listed, not only winners
  for (std::size_t r = 0; r < t.rows(); ++r) {
    const bool want = (t.integer("batch", r) == 4 && t.str("lr", r) == "0.1") ||
                      (t.integer("batch", r) == 8 && t.str("lr", r) == "0.05");
    EXPECT_EQ(t.integer("selected", r), want) << t.str("run_id", r);
  }
  for (std::size_t r = 0; r < sel.rows(); ++r) {
    EXPECT_EQ(sel.str("grid", r), "lr: 0.05, 0.1");
    EXPECT_EQ(sel.str("objective", r), "steps_to_target");
    if (sel.integer("global_batch", r) == 8 && sel.str("candidate", r) == "lr=0.1") {
      EXPECT_EQ(sel.integer("not_reached", r), 2);
      EXPECT_TRUE(std::isinf(sel.num("score", r)));
      EXPECT_EQ(sel.integer("selected", r), 0);
    }
  }
}

// 2 of 3 seeds of lr 0.1 failed: its one surviving run (30 steps) must not beat lr 0.05's three
// (43): a candidate with runs that did not end ok, or with fewer runs than its cell's others, is
// not eligible, and /selection says so. A cell where no candidate is eligible has no winner.
TEST(Tuning, ACandidateWithFailedRunsDoesNotWin) {
  record::Table t;
  for (int s : {1, 2, 3}) {
    t.append(run(4, 0.05, s, 43));
    t.append(run(4, 0.1, s, s == 1 ? 30 : NAN, 0.5, s == 1 ? "ok" : "failed"));
    t.append(run(8, 0.05, s, 50, 0.5, s == 2 ? "preempted" : "ok"));
    t.append(run(8, 0.1, s, 40, 0.5, s == 3 ? "failed" : "ok"));
  }
  t.append(run(16, 0.05, 1, 60));  // batch 16: lr 0.05 has 2 run files of the 3 seeds, lr 0.1 all 3
  t.append(run(16, 0.05, 2, 60));
  for (int s : {1, 2, 3}) t.append(run(16, 0.1, s, 70));
  add_seed_stats(t);
  const record::Table sel = select_best(t, {"steps_to_target", {"lr"}});
  for (std::size_t r = 0; r < t.rows(); ++r) {
    const bool want = (t.integer("batch", r) == 4 && t.str("lr", r) == "0.05") ||
                      (t.integer("batch", r) == 16 && t.str("lr", r) == "0.1");
    EXPECT_EQ(t.integer("selected", r), want) << t.str("run_id", r);
  }
  ASSERT_EQ(sel.rows(), 6u);
  for (std::size_t r = 0; r < sel.rows(); ++r) {
    const std::int64_t b = sel.integer("global_batch", r);
    const bool lr01 = sel.str("candidate", r) == "lr=0.1";
    const std::int64_t want_not_ok = b == 4 ? (lr01 ? 2 : 0) : b == 8 ? 1 : 0;
    EXPECT_EQ(sel.integer("not_ok", r), want_not_ok) << b << " " << sel.str("candidate", r);
    const bool eligible = b == 4 ? !lr01 : b == 16 ? lr01 : false;
    EXPECT_EQ(sel.integer("eligible", r), eligible) << b << " " << sel.str("candidate", r);
  }
}

TEST(Tuning, SelectsTheHighestFinalMetric) {
  record::Table t;
  for (int s : {1, 2, 3}) {
    t.append(run(4, 0.05, s, NAN, 0.40 + 0.01 * s));
    t.append(run(4, 0.1, s, NAN, s == 2 ? 0.9 : 0.30));  // one lucky seed: the olympic mean drops it
  }
  add_seed_stats(t);
  const record::Table sel = select_best(t, {"final_miou", {"lr"}});
  for (std::size_t r = 0; r < t.rows(); ++r) EXPECT_EQ(t.integer("selected", r), t.str("lr", r) == "0.05");
  for (std::size_t r = 0; r < sel.rows(); ++r)
    if (sel.integer("selected", r)) EXPECT_DOUBLE_EQ(sel.num("score", r), 0.42);
}

TEST(Tuning, NoSelectMarksEveryRowAndWritesNoTable) {
  record::Table t;
  t.append(run(4, 0.05, 1, 10));
  add_seed_stats(t);
  EXPECT_EQ(select_best(t, {}).rows(), 0u);
  EXPECT_EQ(t.integer("selected", 0), 1);
}

TEST(Tuning, SpecSelectIsChecked) {
  const std::string head =
      "[study]\nname = \"t\"\n[dataset]\npath = \"d.h5\"\n[sweep]\nmodels = [\"unet\"]\nstrategies = [\"single\"]\n"
      "devices = [1]\nbatch = [4, 8]\nlr = [0.05, 0.1]\nseed = [1, 2, 3]\n[train]\ntarget_miou = 0.4\n";
  const auto error_of = [](const std::string& text) -> std::string {
    try {
      parse_spec(text, "s.toml");
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  const SweepSpec ok = parse_spec(head + "[select]\nobjective = \"steps_to_target\"\ntuned = [\"lr\"]\n", "s.toml");
  EXPECT_EQ(ok.select.objective, "steps_to_target");
  EXPECT_EQ(ok.select.tuned, std::vector<std::string>{"lr"});
  EXPECT_NE(error_of(head + "[select]\nobjective = \"fastest\"\ntuned = [\"lr\"]\n")
                .find("s.toml:15:13: select.objective: 'fastest' is not one of: steps_to_target, final_miou, final_accuracy"),
            std::string::npos)
      << error_of(head + "[select]\nobjective = \"fastest\"\ntuned = [\"lr\"]\n");
  EXPECT_NE(error_of(head + "[select]\nobjective = \"final_miou\"\ntuned = [\"momentum\"]\n")
                .find("select.tuned: 'momentum' is not a [sweep] axis"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[select]\nobjective = \"final_miou\"\ntuned = [\"seed\"]\n").find("seed is not tuned"),
            std::string::npos);
  EXPECT_NE(error_of(head.substr(0, head.find("[train]")) + "[select]\nobjective = \"steps_to_target\"\ntuned = [\"lr\"]\n")
                .find("steps_to_target needs a target"),
            std::string::npos);
}
