// test_ab.cpp — `scalebench ab`: the signed-rank statistics against SciPy's values, the paired
// decision on synthetic pairs (a 5 % slowdown under large between-pair drift, A against A, the
// interval's coverage of a 2 % change over 1000 seeds, too few pairs), and one small A/B run end to end with the real binary (ABBA order, the files written,
// report and compare reading them, bad sides refused before anything runs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>

#include "harness/study/ab/paired.h"
#include "harness/study/ab/signed_rank.h"
#include "harness/study/analysis/study_file.h"
#include "tests/common/harness_test_util.h"

using namespace scalebench;
using namespace scalebench::study;

namespace {

MetricRule images_rule() {
  for (const MetricRule& m : default_rules())
    if (m.name == "images_per_s") return m;
  return {};
}

// Uniform in [-1, 1) from the raw mt19937 stream (its sequence is fixed by the standard; the
// <random> distributions are not).
struct Noise {
  std::mt19937 g;
  explicit Noise(unsigned seed) : g(seed) {}
  double operator()() { return double(g()) / 2147483648.0 - 1.0; }
};

// One metric's verdict over the pairs, decided alone (a family of one).
PairedVerdict decide(const std::vector<double>& a, const std::vector<double>& b, double alpha = 0.01) {
  const MetricRule m = images_rule();
  PairedVerdict v;
  if (measure_pairs(m, a, b, alpha, v)) decide_pairs(m, alpha, 1, v);
  return v;
}

}  // namespace

TEST(SignedRank, ExactPValuesAsScipy) {
  // scipy.stats.wilcoxon(d, method='exact') (SciPy 1.10).
  EXPECT_NEAR(wilcoxon_signed_rank({1.2, -0.3, 2.1, 0.8, 1.5, 0.9, -0.1, 1.1}).p, 0.0390625, 1e-12);
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank({1.2, -0.3, 2.1, 0.8, 1.5, 0.9, -0.1, 1.1}).w_plus, 33);
  // Ties: midranks, and the null distribution over them (SciPy gives 0.0234375 too).
  const SignedRank tied = wilcoxon_signed_rank({1, 2, 2, 3, -1, 4, 5, 5});
  EXPECT_NEAR(tied.p, 0.0234375, 1e-12);
  EXPECT_DOUBLE_EQ(tied.w_plus, 34.5);
  // A zero difference is dropped (Wilcoxon's rule): n = 6.
  const SignedRank zero = wilcoxon_signed_rank({0.5, 0, -0.2, 0.3, 0.4, 0.6, 0.1});
  EXPECT_EQ(zero.n, 6);
  EXPECT_NEAR(zero.p, 0.09375, 1e-12);
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank({0, 0, 0}).p, 1.0);
  // All of one sign: the smallest p, 2 / 2^n.
  EXPECT_NEAR(wilcoxon_signed_rank({1, 2, 3, 4, 5}).p, 2.0 / 32, 1e-12);
  EXPECT_EQ(pairs_to_reach(0.01), 8);  // 2/256 < 0.01 <= 2/128
  EXPECT_EQ(pairs_to_reach(0.05), 6);
}

TEST(SignedRank, HodgesLehmannInterval) {
  const PairedShift six = paired_shift({1, 2, 3, 4, 5, 6});
  EXPECT_DOUBLE_EQ(six.estimate, 3.5);
  ASSERT_TRUE(six.bounded);  // n = 6: P(W+ = 0) = 1/64 <= 2.5 %, so [min, max] of the Walsh averages
  EXPECT_DOUBLE_EQ(six.lo, 1);
  EXPECT_DOUBLE_EQ(six.hi, 6);
  EXPECT_FALSE(paired_shift({1, 2, 3, 4, 5}).bounded);  // 1/32 > 2.5 %: no 95 % interval
  const PairedShift ten = paired_shift({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  EXPECT_GT(ten.lo, 1);  // n = 10: k = 9 (P(W+ <= 8) = 25/1024)
  EXPECT_DOUBLE_EQ(ten.lo, 3);
  EXPECT_DOUBLE_EQ(ten.hi, 8);
}

// A 5 % slowdown of B, under a drift of the host between pairs (±10 %) far larger than the
// slowdown, with 0.5 % noise within a pair: the pairs see it; the sides' spreads alone would not.
TEST(AbDecision, FivePercentSlowdownUnderDriftIsSlower) {
  Noise u(7);
  std::vector<double> a, b;
  for (int k = 0; k < 10; ++k) {
    const double host = 100 * (1 + 0.10 * u());
    a.push_back(host * (1 + 0.005 * u()));
    b.push_back(0.95 * host * (1 + 0.005 * u()));
  }
  const PairedVerdict v = decide(a, b);
  EXPECT_EQ(v.verdict, "slower") << v.note;
  EXPECT_NEAR(v.change, -0.05, 0.01);
  EXPECT_LT(v.lo, -0.04);
  EXPECT_GT(v.hi, -0.06);
  EXPECT_LT(v.p, 0.01);
  // The same pairs with B faster: "faster".
  EXPECT_EQ(decide(b, a).verdict, "faster");
  // epoch_time_s, lower is better: B taking longer is slower too.
  MetricRule t;
  for (const MetricRule& m : default_rules())
    if (m.name == "epoch_time_s") t = m;
  std::vector<double> ta, tb;
  for (std::size_t k = 0; k < a.size(); ++k) ta.push_back(1 / a[k]), tb.push_back(1 / b[k]);
  PairedVerdict e;
  ASSERT_TRUE(measure_pairs(t, ta, tb, 0.01, e));
  decide_pairs(t, 0.01, 1, e);
  EXPECT_EQ(e.verdict, "slower") << e.note;
}

// A against A: never slower or faster; with small noise and enough pairs, "no change".
TEST(AbDecision, AgainstItselfNoChangeOrInconclusive) {
  for (unsigned seed = 1; seed <= 50; ++seed) {
    Noise u(seed);
    std::vector<double> a, b;
    for (int k = 0; k < 10; ++k) {
      const double host = 100 * (1 + 0.10 * u());
      a.push_back(host * (1 + 0.01 * u()));
      b.push_back(host * (1 + 0.01 * u()));
    }
    const PairedVerdict v = decide(a, b);
    EXPECT_TRUE(v.verdict == "no change" || v.verdict == "INCONCLUSIVE") << seed << ": " << v.verdict << " " << v.note;
    EXPECT_EQ(v.verdict, "no change") << seed << ": 1 % noise, 10 pairs: the interval fits within ±10 %";
  }
  // Identical runs: no change without a test.
  PairedVerdict same;
  EXPECT_FALSE(measure_pairs(images_rule(), {5, 6, 7}, {5, 6, 7}, 0.01, same));
  EXPECT_EQ(same.verdict, "no change");
}

// The interval covers a small real change as often as it says: a 2 % slowdown of B under ±10 % drift
// between pairs and ±1 % noise within one, 10 pairs, 1000 seeds. The Hodges-Lehmann interval at
// 10 pairs is exact for symmetric noise at 1 - 50/1024 = 95.1 %; 0.93 is three binomial standard
// errors below. It must also be narrow enough to say something (median width under 2 %) and find
// the slowdown (verdict "slower") in most trials.
TEST(AbDecision, TheIntervalCoversASmallRealChange) {
  const double truth = -0.02;
  int covered = 0, slower = 0, faster = 0;
  std::vector<double> widths;
  for (unsigned seed = 1; seed <= 1000; ++seed) {
    Noise u(1000 + seed);
    std::vector<double> a, b;
    for (int k = 0; k < 10; ++k) {
      const double host = 100 * (1 + 0.10 * u());
      a.push_back(host * (1 + 0.01 * u()));
      b.push_back((1 + truth) * host * (1 + 0.01 * u()));
    }
    const PairedVerdict v = decide(a, b);
    covered += v.lo <= truth && truth <= v.hi;
    slower += v.verdict == "slower";
    faster += v.verdict == "faster";
    widths.push_back(v.hi - v.lo);
  }
  std::nth_element(widths.begin(), widths.begin() + 500, widths.end());
  EXPECT_GE(covered, 930) << "of 1000";
  EXPECT_LT(widths[500], 0.02);
  EXPECT_GE(slower, 900) << "of 1000";
  EXPECT_EQ(faster, 0);
}

// Too few pairs for the test to reach alpha: INCONCLUSIVE, and the pairs that would decide.
TEST(AbDecision, TooFewPairsSaysHowMany) {
  const PairedVerdict three = decide({100, 104, 98}, {95, 98.8, 93.1});  // -5 % each
  EXPECT_EQ(three.verdict, "INCONCLUSIVE");
  EXPECT_EQ(three.pairs, 3);
  EXPECT_GE(three.needed, 8) << three.note;  // the exact test cannot reach 0.01 with fewer than 8
  EXPECT_NE(three.note.find("about " + std::to_string(three.needed) + " pairs would decide"), std::string::npos)
      << three.note;
  const PairedVerdict one = decide({100}, {95});
  EXPECT_EQ(one.verdict, "INCONCLUSIVE");
  EXPECT_EQ(one.needed, 8);
  // Seven of ten pairs 15 % slower, three 12 % faster: the normal estimate says ten pairs suffice,
  // the exact test does not decide, so the note says only "more than these".
  const PairedVerdict mixed = decide({100, 100, 100, 100, 100, 100, 100, 100, 100, 100},
                                     {85, 85, 85, 85, 85, 85, 85, 112, 112, 112});
  EXPECT_EQ(mixed.verdict, "INCONCLUSIVE") << mixed.note;
  EXPECT_EQ(mixed.needed, 11) << mixed.note;
  EXPECT_NE(mixed.note.find("more than these 10 pairs would be needed"), std::string::npos) << mixed.note;
  // A noisy 2 % shift at 10 pairs: more pairs needed, more than 10.
  Noise u(3);
  std::vector<double> a, b;
  for (int k = 0; k < 10; ++k) {
    a.push_back(100 * (1 + 0.03 * u()));
    b.push_back(98 * (1 + 0.03 * u()));
  }
  const PairedVerdict noisy = decide(a, b);
  if (noisy.verdict == "INCONCLUSIVE") {
    EXPECT_GT(noisy.needed, 10) << noisy.note;
  }
  // The pairs formula: half-width 1.96·s·√(π/3)/√n below the shift's distance from 0.
  EXPECT_EQ(pairs_to_decide(0.05, 0.0, 0.1, 0.01), 8);        // no spread: the test's floor
  EXPECT_EQ(pairs_to_decide(0.05, 0.1, 0.1, 0.01), 17);       // (1.96·√(π/3)·0.1/0.05)² = 16.09
  EXPECT_EQ(pairs_to_decide(0.1, 0.1, 0.1, 0.01), 8);         // at the tolerance: the route away from 0
  EXPECT_EQ(pairs_to_decide(0.0, 0.1, 0.0, 0.01), 0);         // no shift and no band: no number of pairs decides
}

// Study files: runs paired by repetition across point ids that differ (the sides' options do), a
// failed run's pair left out, metrics decided per point, every tested p in one correction.
TEST(AbDecision, PairsRunsByRepetitionAcrossStudyFiles) {
  const auto row = [](StudyFile& f, const std::string& id, int rep, const std::string& status, double ips) {
    record::Attrs r;
    r.set("point_id", id);
    r.set("repetition", std::int64_t(rep));
    r.set("status", status);
    r.set("images_per_s", ips);
    r.set("epoch_time_s", status == "ok" ? 100 / ips : record::kNaN);
    f.runs.append(r);
  };
  StudyFile a, b;
  Noise u(11);
  for (int k = 1; k <= 10; ++k) {
    const double host = 100 * (1 + 0.10 * u());  // drift between pairs, shared within one
    // Point p1: B 5 % slower; point p2: the same. Listed in a different order in B's file.
    row(a, "a1", k, "ok", host * (1 + 0.003 * u()));
    row(a, "a2", k, "ok", host * (1 + 0.003 * u()));
    row(b, "b2", k, "ok", host * (1 + 0.003 * u()));
    row(b, "b1", k, k == 4 ? "failed" : "ok", 0.95 * host * (1 + 0.003 * u()));
  }
  const std::vector<AbPoint> points{{"p1", "a1", "b1"}, {"p2", "a2", "b2"}};
  const AbResult r = paired_compare(a, b, points, default_rules(), 0.01);
  ASSERT_EQ(r.rows.size(), 4u);  // 2 points x images_per_s, epoch_time_s (the others absent)
  EXPECT_EQ(r.tests, 4);
  EXPECT_EQ(r.incomplete, 1);    // p1's pair 4: B failed
  for (const auto& v : r.rows) {
    EXPECT_EQ(v.pairs, v.point == "p1" ? 9 : 10) << v.point << " " << v.metric;
    EXPECT_EQ(v.verdict, v.point == "p1" ? "slower" : "no change") << v.point << " " << v.metric << ": " << v.note;
  }
  EXPECT_EQ(r.slower, 2);
  EXPECT_EQ(r.no_change, 2);
  EXPECT_NE(render_ab(r, Format::text).find("2 slower, 0 faster, 2 no change, 0 INCONCLUSIVE"), std::string::npos)
      << render_ab(r, Format::text);
}

// The real binary on a tiny study: 2 pairs of one point, sides differing in an option and an
// environment variable.
TEST(AbRun, EndToEnd) {
  sbtest::TempDir dir;
  const std::string spec = dir / "tiny.toml";
  std::ofstream(spec) << "[study]\nname = \"tiny\"\noutput = \"" << (dir / "res") << "\"\n"
                      << "[dataset]\ntask = \"segmentation\"\nn = 48\nsize = 32\nseed = 3\n"
                         "[sweep]\nmodels = [\"unet:depth=2,base=4\"]\nstrategies = [\"single\"]\n"
                         "devices = [1]\nbatch = 4\n[train]\nepochs = 2\nthreads = 1\n";
  const std::string sb = SB_BINARY, out_dir = dir / "ab";
  std::string out;
  // Bad sides: one line naming the problem, and nothing written.
  EXPECT_EQ(sbtest::run(sb + " ab " + spec + " --a 'batch=8' -o " + out_dir, &out), 1) << out;
  EXPECT_NE(out.find("--a 'batch=8': batch is set per point by the spec's [sweep]"), std::string::npos) << out;
  EXPECT_EQ(sbtest::run(sb + " ab " + spec + " --b 'nosuch=1' -o " + out_dir, &out), 1) << out;
  EXPECT_NE(out.find("'nosuch' is not a train option"), std::string::npos) << out;
  EXPECT_EQ(sbtest::run(sb + " ab " + spec + " --b 'lr=abc' -o " + out_dir, &out), 1) << out;
  EXPECT_NE(out.find("--b lr=abc: "), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(out_dir));

  ASSERT_EQ(sbtest::run(sb + " ab " + spec + " --pairs 2 --a 'lr=0.05' --b 'lr=0.04' --b-env SB_AB_SIDE=b -o " +
                            out_dir, &out), 0) << out;
  // ABBA: pair 1 runs A then B, pair 2 B then A.
  const auto at = [&](const std::string& s) { return out.find(s); };
  ASSERT_NE(at("[1/4] A unet:depth=2,base=4 single N=1 b=4 pair 1/2 run: "), std::string::npos) << out;
  ASSERT_NE(at("[2/4] B unet:depth=2,base=4 single N=1 b=4 pair 1/2 run: env SB_AB_SIDE=b "), std::string::npos) << out;
  ASSERT_NE(at("[3/4] B unet:depth=2,base=4 single N=1 b=4 pair 2/2 run: "), std::string::npos) << out;
  ASSERT_NE(at("[4/4] A unet:depth=2,base=4 single N=1 b=4 pair 2/2 run: "), std::string::npos) << out;
  EXPECT_NE(at("ab: 4 runs: 4 ran, 0 skipped (ok before), 0 failed"), std::string::npos) << out;
  // Two pairs cannot decide at alpha 0.01: INCONCLUSIVE, with the pairs that would.
  EXPECT_NE(at("INCONCLUSIVE"), std::string::npos) << out;
  EXPECT_NE(at("pairs would decide"), std::string::npos) << out;
  EXPECT_NE(at("scalebench compare " + out_dir + "/a.h5 " + out_dir + "/b.h5 --match-ignore lr"), std::string::npos)
      << out;
  for (const char* f : {"a.h5", "b.h5", "ab.toml", "verdicts.json", "a/study.toml", "b/study.toml"})
    EXPECT_TRUE(std::filesystem::exists(out_dir + "/" + f)) << f;
  const StudyFile a = read_study_file(out_dir + "/a.h5"), b = read_study_file(out_dir + "/b.h5");
  ASSERT_EQ(a.runs.rows(), 2u);
  ASSERT_EQ(b.runs.rows(), 2u);
  EXPECT_EQ(a.runs.str("lr", 0), "0.05");
  EXPECT_EQ(b.runs.str("lr", 0), "0.04");
  // report and compare read them.
  EXPECT_EQ(sbtest::run(sb + " report " + out_dir + "/a.h5", &out), 0) << out;
  EXPECT_NE(out.find("unet:depth=2,base=4"), std::string::npos) << out;
  const int rc = sbtest::run(sb + " compare " + out_dir + "/a.h5 " + out_dir + "/b.h5 --match-ignore lr", &out);
  EXPECT_TRUE(rc == 0 || rc == 1 || rc == 3) << rc << out;
  EXPECT_NE(out.find("compare: 1 points matched"), std::string::npos) << out;
  // A rerun finds every run ok and only decides again.
  ASSERT_EQ(sbtest::run(sb + " ab " + spec + " --pairs 2 --a 'lr=0.05' --b 'lr=0.04' --b-env SB_AB_SIDE=b -o " +
                            out_dir, &out), 0) << out;
  EXPECT_NE(out.find("ab: 4 runs: 0 ran, 4 skipped (ok before), 0 failed"), std::string::npos) << out;
}

// --interleave slice: each pair's two runs start together on one CPU and take turns; their lines
// say so, B's come from its log; a point of two devices is refused before anything runs.
TEST(AbRun, SlicePairsTakeTurnsOnOneCpu) {
  sbtest::TempDir dir;
  const auto write_spec = [&](const std::string& path, const char* strategy, const char* devices) {
    std::ofstream(path) << "[study]\nname = \"tiny\"\noutput = \"" << (dir / "res") << "\"\n"
                        << "[dataset]\ntask = \"segmentation\"\nn = 48\nsize = 32\nseed = 3\n"
                           "[sweep]\nmodels = [\"unet:depth=2,base=4\"]\nstrategies = [\"" << strategy << "\"]\n"
                           "devices = " << devices << "\nbatch = 4\n[train]\nepochs = 2\nthreads = 1\n";
  };
  const std::string spec = dir / "tiny.toml", spec2 = dir / "two.toml", sb = SB_BINARY, out_dir = dir / "ab";
  write_spec(spec, "single", "[1]");
  write_spec(spec2, "ring", "[1, 2]");
  std::string out;
  EXPECT_EQ(sbtest::run(sb + " ab " + spec2 + " --interleave slice -o " + out_dir, &out), 1) << out;
  EXPECT_NE(out.find("--interleave slice: point unet:depth=2,base=4 ring N=2 b=4 runs 2 devices"), std::string::npos)
      << out;
  EXPECT_FALSE(std::filesystem::exists(out_dir));

  // --set as sweep's: a variant of the spec, said once and kept in each side's study.toml.
  ASSERT_EQ(sbtest::run(sb + " ab " + spec + " --interleave slice --slice-ms 20 --cpus 0 --pairs 2 --b-env SB_AB_SIDE=b"
                            " --set dataset.n=40 -o " + out_dir, &out), 0) << out;
  const auto has = [&](const std::string& s) { return out.find(s) != std::string::npos; };
  EXPECT_TRUE(has("ab: " + spec + " with dataset.n = 40 (the spec said 48)\n")) << out;
  for (const char* side : {"/a/study.toml", "/b/study.toml"}) {
    std::ifstream f(out_dir + side);
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("n = 40  # ab --set dataset.n=40 (the spec said 48)"), std::string::npos) << side << text;
  }
  EXPECT_TRUE(has("each pair's runs together on CPU 0, taking turns every 20 ms")) << out;
  EXPECT_TRUE(has("[1/4] A unet:depth=2,base=4 single N=1 b=4 pair 1/2 run: taskset -c 0 env SCALEBENCH_AB_TURN=")) << out;
  EXPECT_TRUE(has("[2/4] B unet:depth=2,base=4 single N=1 b=4 pair 1/2 run: taskset -c 0 env SB_AB_SIDE=b env "
                  "SCALEBENCH_AB_TURN=")) << out;
  EXPECT_TRUE(has("(its lines: " + out_dir + "/b/runs/")) << out;
  // Both sides of both pairs took turns (B's line comes from its log).
  for (const char* who : {"[1/4] A ", "[2/4] B ", "[3/4] A ", "[4/4] B "}) {
    const std::string pair = who[1] < '3' ? "1/2" : "2/2";
    EXPECT_TRUE(has(std::string(who) + "unet:depth=2,base=4 single N=1 b=4 pair " + pair +
                    " took turns with the other side of its A/B pair on one CPU")) << who << out;
  }
  EXPECT_TRUE(has("ab: 4 runs: 4 ran, 0 skipped (ok before), 0 failed")) << out;
  const StudyFile a = read_study_file(out_dir + "/a.h5"), b = read_study_file(out_dir + "/b.h5");
  EXPECT_EQ(a.runs.rows(), 2u);
  EXPECT_EQ(b.runs.rows(), 2u);
  std::ifstream toml(out_dir + "/ab.toml");
  const std::string desc((std::istreambuf_iterator<char>(toml)), std::istreambuf_iterator<char>());
  EXPECT_NE(desc.find("interleave = \"slice\"\nslice_ms = 20"), std::string::npos) << desc;
}
