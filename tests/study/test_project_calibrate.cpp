// test_project_calibrate.cpp — `scalebench project`'s unmeasured inputs: a profile's delivered range in
// the band, --calibrate's fit of the link from one measured point (it recovers a known link, and its
// band is narrower than the uncalibrated one), --nics-per-node, and the described step's stated
// spread. It does not test the straggler term (test_project_stragglers.cpp, test_project_tail.cpp).
#include <gtest/gtest.h>

#include <sstream>

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
  const AlphaBeta fit = calibrate(m, prior, o, c, warning);
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
  const AlphaBeta too_fast = calibrate(m, prior, o, parse_calibration("N=2:eff=1"), warning);
  EXPECT_NE(warning.find("10 TB/s"), std::string::npos) << warning;
  EXPECT_DOUBLE_EQ(too_fast.bytes_per_s, 1e13);
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
  EXPECT_THROW(calibrate(three_layers(), measured, {.batch = 8}, c, warning), Error);
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

}  // namespace
}  // namespace scalebench::project
