// test_project_calibrate.cpp — `scalebench project`'s unmeasured inputs: a profile's delivered range in
// the band, --calibrate's fit of the link from one measured point (it recovers a known link, and its
// band is narrower than the uncalibrated one), --nics-per-node, the described step's stated spread and bracketed readiness, and a GPU node's
// unstated intra-node link. It does not test the straggler term (test_project_stragglers.cpp,
// test_project_tail.cpp).
#include <gtest/gtest.h>

#include <sstream>

#include <fmt/format.h>

#include "harness/record/run_file.h"
#include "harness/study/analysis/metric_table.h"
#include "harness/study/analysis/study_file.h"
#include "harness/study/project/calibrate.h"
#include "harness/study/project/netmodel.h"
#include "harness/study/project/projection.h"
#include "kernels/common/check.h"
#include "tests/study/project_fixtures.h"

namespace scalebench::project {
namespace {
using fixtures::net, fixtures::three_layers;

double efficiency(const MeasuredStep& m, const Network& n, const ProjectOptions& o, int at) {
  const Prediction p1 = predict(m, n, o, {StrategyKind::ring, 1}), pn = predict(m, n, o, {StrategyKind::ring, at});
  return study::efficiency(study::speedup(pn.images_per_s, p1.images_per_s), at);
}

TEST(ProjectCalibrate, ProfilesCarryTheirDeliveredRange) {
  const AlphaBeta p = profile("25gbe");  // networks.def: 25000 Mbit/s, 10 us; delivered 3000-23500, 5-100 us
  EXPECT_DOUBLE_EQ(p.bytes_per_s, 25e9 / 8);
  EXPECT_DOUBLE_EQ(p.bw_lo, 3e9 / 8);
  EXPECT_DOUBLE_EQ(p.bw_hi, 23.5e9 / 8);
  EXPECT_DOUBLE_EQ(p.alpha_hi, 100e-6);
  EXPECT_NEAR(p.at_middle().bytes_per_s, std::sqrt(3e9 * 23.5e9) / 8, 1e-3);
  EXPECT_DOUBLE_EQ(p.at_middle().alpha_s, 52.5e-6);
  EXPECT_DOUBLE_EQ(p.at_slow_end().bytes_per_s, p.bw_lo);
  EXPECT_DOUBLE_EQ(p.at_fast_end().alpha_s, 5e-6);
  for (const char* name : {"200ss11", "400ndr"}) EXPECT_TRUE(profile(name).ranged()) << name;
  // links: a node's connections share the link (no node rate of their own)
  for (const std::string& name : profile_names())
    EXPECT_EQ(profile(name).per_connection(), name == "tfgrpc") << name;
  // a transport (networks.def: tfgrpc, a connection 800-4554 Mbit/s, a node's connections 800-24000):
  // the band's ends and the point move the node's rate with the connection's
  const AlphaBeta g = profile("tfgrpc");
  EXPECT_DOUBLE_EQ(g.node_lo, 0.8e9 / 8);
  EXPECT_DOUBLE_EQ(g.node_hi, 24e9 / 8);
  EXPECT_DOUBLE_EQ(g.at_slow_end().node_bytes_per_s, g.node_lo);
  EXPECT_DOUBLE_EQ(g.at_fast_end().node_bytes_per_s, g.node_hi);
  EXPECT_NEAR(g.at_middle().node_bytes_per_s, std::sqrt(0.8e9 * 24e9) / 8, 1e-3);
  EXPECT_DOUBLE_EQ(g.at_slow_end().node_rate(), g.at_slow_end().bytes_per_s);  // the slow end: no adding up
  // the band holds both ends: a nameplate's band is not the point (the issue's [0.980, 0.980])
  Network n = net(0, 1);
  n.inter = p.at_middle();
  const MeasuredStep m = three_layers();
  const ProjectOptions o{.batch = 8};
  const Scenario s{StrategyKind::ring, 8};
  const Band b = band(m, n, o, s);
  const double point = predict(m, n, o, s).step_s;
  Network slow = n;
  slow.inter = p.at_slow_end();
  EXPECT_LT(b.step_lo, point);
  EXPECT_DOUBLE_EQ(b.step_hi, predict(m, slow, o, s).step_s);  // no traced spread: the link's slow end alone
}

TEST(ProjectCalibrate, AMeasuredPointRecoversTheLink) {
  // the "measured" efficiency at N = 2 from a known link (40 us, 0.3 GB/s); calibrating a profile
  // whose range holds that latency gets the bandwidth back, and predicts N = 16 as that link does
  const MeasuredStep m = three_layers();
  const ProjectOptions o{.batch = 8};
  Network truth = net(40e-6, 0.3e9);
  const double eff2 = efficiency(m, truth, o, 2), eff16 = efficiency(m, truth, o, 16);
  Network prior = net(0, 1);
  prior.inter = profile("10gbe");   // alpha 10-100 us: the middle, 55 us, is not the truth's 40
  prior.inter.alpha_lo = 20e-6, prior.inter.alpha_hi = 60e-6;  // centred on it
  prior.inter = prior.inter.at_middle();
  std::string warning;
  const CalibrationPoint c = parse_calibration("N=2:eff=" + std::to_string(eff2) + ":spread=0.01");
  const AlphaBeta fit = calibrate(m, prior, o, {c}, warning).link;
  EXPECT_EQ(warning, "");
  EXPECT_NEAR(fit.bytes_per_s / 0.3e9, 1.0, 1e-3);
  Network cal = prior;
  cal.inter = fit;
  EXPECT_NEAR(efficiency(m, cal, o, 16), eff16, 1e-4);
  // its band at N = 16 is narrower than the profile's, and holds the truth
  const Scenario s16{StrategyKind::ring, 16};
  const Band wide = band(m, prior, o, s16), narrow = band(m, cal, o, s16);
  EXPECT_LT(narrow.step_hi - narrow.step_lo, 0.5 * (wide.step_hi - wide.step_lo));
  const double truth_step = predict(m, truth, o, s16).step_s;
  EXPECT_LE(narrow.step_lo, truth_step);
  EXPECT_GE(narrow.step_hi, truth_step);
  // a figure no link reaches takes the bound, and says so
  const AlphaBeta too_fast = calibrate(m, prior, o, {parse_calibration("N=2:eff=1")}, warning).link;
  EXPECT_NE(warning.find("the link is taken as 10 TB/s"), std::string::npos) << warning;
  EXPECT_DOUBLE_EQ(too_fast.bytes_per_s, 1e13);
  // a figure whose fast side alone no link reaches: the band's end took the bound, and the point did not
  Network instant = prior;
  instant.inter.alpha_s = prior.inter.alpha_lo, instant.inter.bytes_per_s = 1e13;
  const double best = efficiency(m, instant, o, 2);  // the fast side's ceiling: its latency, any link
  ASSERT_LT(best, 1.0);
  const double eff = best - 0.01, spread = (1 - best) / 2 + 0.01;  // eff + spread: between best and 1
  const AlphaBeta bounded =
      calibrate(m, prior, o, {parse_calibration(fmt::format("N=2:eff={:.6f}:spread={:.6f}", eff, spread))}, warning).link;
  EXPECT_NE(warning.find("the band's fast end is taken as 10 TB/s"), std::string::npos) << warning;
  EXPECT_EQ(warning.find("the link is taken"), std::string::npos) << warning;
  EXPECT_DOUBLE_EQ(bounded.bw_hi, 1e13);
  EXPECT_LT(bounded.bytes_per_s, 1e13);
}

// Two measured points fit the latency too: from a known link (40 us, 0.3 GB/s), points at N = 2 and
// N = 16 calibrate a 10gbe profile (assumed latency 10-100 us: its middle, 55 us, is not the truth's)
// to both numbers, and predict N = 64 as the known link does, closer than one point does and with a
// narrower band. Two points at one N are refused, and points no latency reconciles are said. Before,
// --calibrate took one point and the latency stayed assumed.
TEST(ProjectCalibrate, TwoPointsFitTheLatencyToo) {
  const MeasuredStep m = three_layers();
  const ProjectOptions o{.batch = 8};
  const Network truth = net(40e-6, 0.3e9);
  Network prior = net(0, 1);
  prior.inter = profile("10gbe").at_middle();
  const auto point = [&](int n) {
    return parse_calibration(fmt::format("N={}:eff={:.9f}:spread=0.0005", n, efficiency(m, truth, o, n)));
  };
  std::string warning;
  const Calibration one = calibrate(m, prior, o, {point(2)}, warning);
  const Calibration two = calibrate(m, prior, o, {point(16), point(2)}, warning);  // in any order
  EXPECT_EQ(warning, "");
  EXPECT_NEAR(two.link.alpha_s / 40e-6, 1.0, 0.06);  // the latency grid: 40 a decade, 6 % apart
  EXPECT_NEAR(two.link.bytes_per_s / 0.3e9, 1.0, 0.01);
  EXPECT_LE(two.link.alpha_lo, 40e-6);
  EXPECT_GE(two.link.alpha_hi, 40e-6);
  EXPECT_LT(two.link.alpha_hi - two.link.alpha_lo, 0.5 * (prior.inter.alpha_hi - prior.inter.alpha_lo));
  EXPECT_NE(two.link.source.find("calibrated at N = 2 (efficiency "), std::string::npos) << two.link.source;
  EXPECT_NE(two.link.source.find(") and N = 16 (efficiency "), std::string::npos) << two.link.source;
  Network cal1 = prior, cal2 = prior;
  cal1.inter = one.link, cal2.inter = two.link;
  const double truth64 = efficiency(m, truth, o, 64);
  EXPECT_LT(std::fabs(efficiency(m, cal2, o, 64) - truth64), std::fabs(efficiency(m, cal1, o, 64) - truth64));
  const Scenario s64{StrategyKind::ring, 64};
  const Band b1 = band(m, cal1, o, s64), b2 = band(m, cal2, o, s64);
  EXPECT_LT(b2.step_hi - b2.step_lo, b1.step_hi - b1.step_lo);
  const double truth_step = predict(m, truth, o, s64).step_s;
  EXPECT_LE(b2.step_lo, truth_step);
  EXPECT_GE(b2.step_hi, truth_step);
  EXPECT_THROW(calibrate(m, prior, o, {point(2), point(2)}, warning), Error);
  // N = 16 as efficient as N = 2: no latency gives that with the bandwidth N = 2 fixes
  calibrate(m, prior, o, {point(2), parse_calibration(fmt::format("N=16:eff={:.9f}:spread=0.0005",
                                                                  efficiency(m, truth, o, 2)))}, warning);
  EXPECT_NE(warning.find("no latency puts every point within its spread"), std::string::npos) << warning;
}

// A described step whose point costs less than its link can at the top of its range: the fitted link
// (past the range) stays the point, and the band takes in the point's other reading, the link at its
// fastest with the gradients ready sooner. The "measured" point comes from that reading (the gradients
// over the last half of backward); calibrating a step with every gradient at the end of backward finds
// the half again. Before, the band held the fitted link's reading alone.
TEST(ProjectCalibrate, PastItsRangeThePointIsAlsoReadAsGradientsReadySooner) {
  ProjectOptions o{.batch = 8, .bucket_mb = 4.0};
  const MeasuredStep at_end = ready_over(three_layers(), o, 0.0);  // the described step: nothing overlaps
  Network prior = net(0, 1);
  prior.inter = profile("10gbe").at_middle();  // delivered 2-9.4 Gbit/s, 10-100 us
  // two parameter servers at every node count: the busiest node's load grows with the nodes (3/2 of the
  // gradient each way at 4, 15/2 at 16), so the two readings part as N grows
  for (const int nodes : {2, 4, 8, 16}) prior.ps_shards[nodes] = fixtures::equal_shares(2);
  Network top = prior;
  top.inter.bytes_per_s = prior.inter.bw_hi, top.inter.alpha_s = prior.inter.alpha_lo;
  top.inter.bw_lo = top.inter.bw_hi = top.inter.alpha_lo = top.inter.alpha_hi = 0;
  const MeasuredStep half = ready_over(at_end, o, 0.5);
  // ready_over: equal layers, the first taking what comes before the spread
  ASSERT_EQ(half.layers.size(), at_end.layers.size());
  EXPECT_DOUBLE_EQ(at_end.layers.front().bwd_s, 0.040);
  EXPECT_DOUBLE_EQ(half.layers.front().bwd_s, 0.020 + 0.020 / double(half.layers.size()));
  EXPECT_DOUBLE_EQ(half.layers.back().bwd_s, 0.020 / double(half.layers.size()));
  const double eff4 = efficiency(half, top, o, 4), eff16 = efficiency(half, top, o, 16);
  ASSERT_GT(eff4, efficiency(at_end, top, o, 4));  // with nothing overlapping, the range's top is too slow
  const CalibrationPoint c = parse_calibration(fmt::format("N=4:eff={:.9f}:spread=0.01", eff4));
  std::string warning;
  o.ready_assumed = true;  // a described step's layers
  const Calibration cal = calibrate(at_end, prior, o, {c}, warning);
  EXPECT_GT(cal.link.bytes_per_s, prior.inter.bw_hi);  // the point: the fitted link, past the range
  EXPECT_NE(warning.find("faster than the link's assumed range"), std::string::npos) << warning;
  EXPECT_NE(warning.find("other reading"), std::string::npos) << warning;
  const ReadyReading& r = cal.other;
  ASSERT_TRUE(r.present);
  EXPECT_NEAR(r.ready, 0.5, 1e-6);
  EXPECT_LT(r.ready_lo, r.ready);
  EXPECT_GT(r.ready_hi, r.ready);
  EXPECT_DOUBLE_EQ(r.link.bytes_per_s, prior.inter.bw_hi);
  EXPECT_DOUBLE_EQ(r.link.alpha_s, prior.inter.alpha_lo);
  EXPECT_FALSE(r.link.ranged());
  // the band at N = 16: the fitted link's and the other reading's together, which holds the truth
  Network fitted = prior;
  fitted.inter = cal.link;
  ProjectOptions with = o, without = o;
  with.ready_assumed = without.ready_assumed = false;  // what run_project passes: the link absorbs the layers
  with.ready_reading = r;
  const Scenario s16{StrategyKind::ring, 16};
  const Band alone = band(at_end, fitted, without, s16), both = band(at_end, fitted, with, s16);
  ProjectOptions reading = without;
  reading.ready_assumed = true, reading.ready_lo = r.ready_lo, reading.ready_hi = r.ready_hi;
  const Band other = band(ready_over(at_end, o, r.ready), top, reading, s16);
  EXPECT_DOUBLE_EQ(both.step_lo, std::min(alone.step_lo, other.step_lo));
  EXPECT_DOUBLE_EQ(both.step_hi, std::max(alone.step_hi, other.step_hi));
  const double truth = predict(half, top, without, s16).step_s;
  EXPECT_GT(truth, alone.step_hi);  // the fitted link's band alone misses it: its N grow from the wrong term
  EXPECT_LE(both.step_lo, truth);
  EXPECT_GE(both.step_hi, truth);
  EXPECT_LT(eff16, efficiency(at_end, fitted, without, 16));
  // a traced step's layers were measured: no other reading
  o.ready_assumed = false;
  EXPECT_FALSE(calibrate(at_end, prior, o, {c}, warning).other.present);
  // a point that even an even spread at the link's fastest does not reach: none either, and said
  o.ready_assumed = true;
  const double best = efficiency(ready_over(at_end, o, 1.0), top, o, 4);
  const Calibration beyond =
      calibrate(at_end, prior, o, {parse_calibration(fmt::format("N=4:eff={:.9f}", (best + 1) / 2))}, warning);
  EXPECT_FALSE(beyond.other.present);
  EXPECT_NE(warning.find("nor does the link at its fastest"), std::string::npos) << warning;
}

TEST(ProjectCalibrate, BadSpecsAreRefusedNamingTheField) {
  const auto refused = [](const std::string& spec, const std::string& says) {
    try {
      parse_calibration(spec);
      ADD_FAILURE() << spec << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused("N=1:eff=0.8", "field N");
  refused("N=2", "exactly one of eff=E and step_ms=S");
  refused("N=2:eff=0.8:step_ms=3", "exactly one of");
  refused("N=2:eff=1.2", "field eff");
  refused("N=2:eff=x", "field eff: 'x' is not a number");
  refused("N=2:eff=0.8:strategy=ps-sync", "field strategy");
  refused("N=2:eff=0.8:colour=red", "unknown field 'colour'");
  refused("eff", "not KEY=VALUE");
  const CalibrationPoint c = parse_calibration("N=16:step_ms=250:spread=0.05:strategy=hierarchical");
  EXPECT_EQ(c.n, 16);
  EXPECT_DOUBLE_EQ(c.step_s, 0.25);
  EXPECT_EQ(c.strategy, StrategyKind::hierarchical);
  // a link measured by commbench is not calibrated again
  Network measured = net(1e-5, 1e9);
  measured.inter.measured_ranks = 2;
  std::string warning;
  EXPECT_THROW(calibrate(three_layers(), measured, {.batch = 8}, {c}, warning), Error);
}

TEST(ProjectCalibrate, AStudyFileGivesTheMeasuredEfficiency) {
  // two ok repetitions of ring at N = 2 (0.80, 0.84), a failed one, and other points: the mean of the two
  study::StudyFile sf;
  const auto add = [&](const std::string& status, const std::string& strategy, std::int64_t n, double eff) {
    record::Attrs row;
    row.set("status", status), row.set("scaling", "weak"), row.set("strategy", strategy);
    row.set("world_size", n), row.set("efficiency", eff);
    sf.runs.append(row);
  };
  add("ok", "ring", 2, 0.80), add("ok", "ring", 2, 0.84), add("failed", "ring", 2, 0.10);
  add("ok", "ring", 4, 0.60), add("ok", "hierarchical", 2, 0.95), add("ok", "ring", 1, 1.0);
  sf.attrs.set("schema_version", record::kSchemaVersion);
  sf.attrs.set("kind", "study");
  const std::string path = ::testing::TempDir() + "calibrate_study.h5";
  study::write_study_file(path, sf);
  EXPECT_NEAR(parse_calibration("N=2:study=" + path).efficiency, 0.82, 1e-12);
  EXPECT_NEAR(parse_calibration("N=2:study=" + path + ":strategy=hierarchical").efficiency, 0.95, 1e-12);
  try {
    parse_calibration("N=8:study=" + path);
    ADD_FAILURE() << "N = 8 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no ok weak-scaling row of ring at world_size 8"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_calibration("N=2:eff=0.5:study=" + path), Error);
}

TEST(ProjectCalibrate, ADescribedStepsStatedSpreadWidensTheEfficiencyBand) {
  const MeasuredStep m = three_layers();
  Network n = net(20e-6, 0.5e9);
  ProjectOptions o{.batch = 8};
  const Scenario s{StrategyKind::ring, 8};
  const double point = efficiency(m, n, o, 8);
  o.stated_spread = 0.1;
  const auto [lo, hi] = stated_efficiency_range(m, n, o, s);
  // compute 10 % faster leaves more of the step to the exchange: lower efficiency, and the reverse
  EXPECT_LT(lo, point);
  EXPECT_GT(hi, point);
  ProjectOptions faster = o;
  faster.compute_scale = 0.9;
  EXPECT_NEAR(lo, efficiency(m, n, faster, 8), 1e-12);
}

// A described step's layers are an assumption about when its gradients are ready (synthetic_trace.py):
// the band brackets it, every gradient at the end of backward on its slow extreme and spread evenly
// over backward on its fast one. Before, the band was the point's layering alone.
TEST(ProjectBand, WhenGradientsAreReadyIsBracketedWhereItWasNotMeasured) {
  const MeasuredStep m = three_layers();  // a 1M (10 ms), b 1M (20 ms), c 2M (10 ms): 4M elements, backward 40 ms
  ProjectOptions o{.batch = 8, .bucket_mb = 4.0};  // buckets of 1,048,576 elements
  const Network n = net(20e-6, 0.5e9);
  const Scenario s{StrategyKind::ring, 8};
  const auto [same_slow, same_fast] = ready_extremes(m, o);  // traced layers: nothing to bracket
  EXPECT_EQ(same_slow.layers.size(), 3u);
  EXPECT_EQ(same_fast.layers.size(), 3u);
  const Band traced = band(m, n, o, s);
  const double point = predict(m, n, o, s).step_s;
  EXPECT_DOUBLE_EQ(traced.step_lo, point);  // no spread, no range: the point
  EXPECT_DOUBLE_EQ(traced.step_hi, point);
  o.ready_assumed = true;
  const auto [slow, fast] = ready_extremes(m, o);
  // at most an eighth of a bucket a layer: ceil(8 x 4,000,000 / 1,048,576) = 31 equal layers, spread
  // evenly over the 40 ms, or all of it in the first (every one ready when backward ends)
  ASSERT_EQ(fast.layers.size(), 31u);
  ASSERT_EQ(slow.layers.size(), 31u);
  EXPECT_DOUBLE_EQ(slow.layers[0].bwd_s, 0.040);
  for (std::size_t i = 0; i < 31; ++i) {
    EXPECT_EQ(slow.layers[i].elems, fast.layers[i].elems);
    if (i > 0) EXPECT_EQ(slow.layers[i].bwd_s, 0.0);
  }
  std::int64_t elems = 0;
  double t = 0;
  for (const auto& l : fast.layers) {
    elems += l.elems, t += l.bwd_s;
    EXPECT_LE(l.elems, 1'048'576 / 8);
  }
  EXPECT_EQ(elems, 4'000'000);
  EXPECT_NEAR(t, 0.040, 1e-12);
  EXPECT_EQ(fast.step_compute_s, m.step_compute_s);
  // by hand, a ring of 8 (one rank a node): a bucket of E elements takes 14 (20 us + 4E / 8 / 0.5 GB/s)
  const double agree = agreement_time(StrategyKind::ring, 8, n);
  // the point: {a, b} ready at 30 ms, 28.28 ms -> 58.28; c at 40, -> 86.56: exposed 46.56 ms
  EXPECT_NEAR(predict(m, n, o, s).exposed_s - agree, 0.04656, 1e-6);
  // spread evenly: 9 layers (1,161,290 elements, 16.538 ms) a bucket, ready at 11.61, 23.23, 34.84 ms, the
  // last 516,130 (7.506 ms) at 40: ends 28.15, 44.69, 61.23, 68.73 -> 28.73 ms exposed
  // all at the end: the same four buckets one after the other from 40 ms, 3 x 16.538 + 7.506 = 57.12 ms
  EXPECT_NEAR(predict(slow, n, o, s).exposed_s - agree, 0.05712, 1e-4);
  EXPECT_NEAR(predict(fast, n, o, s).exposed_s - agree, 0.02873, 1e-4);
  const Band assumed = band(m, n, o, s);
  EXPECT_DOUBLE_EQ(assumed.step_hi, predict(slow, n, o, s).step_s);
  EXPECT_DOUBLE_EQ(assumed.step_lo, predict(fast, n, o, s).step_s);
  EXPECT_GT(assumed.step_hi, point);
  EXPECT_LT(assumed.step_lo, point);
  // and the described step's efficiency range takes the same ends
  o.stated_spread = 0.1;
  const auto [lo, hi] = stated_efficiency_range(m, n, o, s);
  ProjectOptions traced_o = o;
  traced_o.ready_assumed = false;
  const auto [traced_lo, traced_hi] = stated_efficiency_range(m, n, traced_o, s);
  EXPECT_LT(lo, traced_lo);
  EXPECT_GT(hi, traced_hi);
}

// A GPU node's intra-node link, not given: the stated point (2 us, 5 GB/s) with the range of published
// GPU-to-GPU links, PCIe through the host to NVLink 4; a CPU node's keeps no range. Before, the band
// had no intra-node side at all.
TEST(ProjectBand, AGpuNodesUnstatedIntraNodeLinkHasARange) {
  const AlphaBeta cpu = assumed_intra(false), gpu = assumed_intra(true);
  EXPECT_FALSE(cpu.ranged());
  EXPECT_DOUBLE_EQ(cpu.alpha_s, 2e-6);
  EXPECT_DOUBLE_EQ(cpu.bytes_per_s, 5e9);
  ASSERT_TRUE(gpu.ranged());
  EXPECT_DOUBLE_EQ(gpu.bytes_per_s, 5e9);  // the point stays the stated one
  EXPECT_DOUBLE_EQ(gpu.at_slow_end().bytes_per_s, 3.9e9);
  EXPECT_DOUBLE_EQ(gpu.at_slow_end().alpha_s, 20e-6);
  EXPECT_DOUBLE_EQ(gpu.at_fast_end().bytes_per_s, 377e9);
  EXPECT_DOUBLE_EQ(gpu.at_fast_end().alpha_s, 1.8e-6);
  // hierarchical, 8 ranks 4 a node, one bucket of 16 MB, no overlap: the chains inside a node cost
  // 2((P - 1) alpha + m / B), at the slow end 2(3 x 20 us + 16 MB / 3.9 GB/s) = 8.3251 ms, at the point
  // 2(3 x 2 us + 16 MB / 5 GB/s) = 6.412 ms, at the fast end 2(3 x 1.8 us + 16 MB / 377 GB/s) = 0.0957 ms
  const MeasuredStep m = three_layers();
  const ProjectOptions o{.batch = 8, .bucket_mb = 64.0};
  const Scenario s{StrategyKind::hierarchical, 8, false, false};
  Network n = net(20e-6, 0.5e9, 4);
  n.intra = cpu;
  const Band without = band(m, n, o, s);
  EXPECT_DOUBLE_EQ(without.step_lo, without.step_hi);  // nothing else has a range here
  const auto chain = [&](const Network& x) {
    Network no_ring = x;
    no_ring.inter.alpha_s = 0, no_ring.inter.bytes_per_s = 1e30;  // the ring over the leaders costs nothing
    return allreduce_time(StrategyKind::hierarchical, 8, 16e6, no_ring);
  };
  n.intra = gpu;
  EXPECT_NEAR(chain(at_slow_end(n)), 8.3251e-3, 1e-7);
  EXPECT_NEAR(chain(n), 6.412e-3, 1e-7);
  EXPECT_NEAR(chain(at_fast_end(n)), 0.0957e-3, 1e-7);
  const Band with = band(m, n, o, s);
  EXPECT_DOUBLE_EQ(with.step_hi, predict(m, at_slow_end(n), o, s).step_s);
  EXPECT_DOUBLE_EQ(with.step_lo, predict(m, at_fast_end(n), o, s).step_s);
  EXPECT_GT(with.step_hi, without.step_hi + 1.9e-3);  // the chain's 1.91 ms and the agreement's intra rounds
  EXPECT_LT(with.step_lo, without.step_lo - 6.3e-3);
}

}  // namespace
}  // namespace scalebench::project
