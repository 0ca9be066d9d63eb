// test_anchors.cpp — the published anchors in results/anchors/ (written by tools/make_anchors.py)
// are study files `report` and `compare` read, with the published figures in them; and a step
// described by tools/synthetic_trace.py is what `project --trace` reads. It does not check the
// figures against their sources (results/anchors/README.md quotes them).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <unistd.h>

#include "tests/common/harness_test_util.h"

namespace {

const std::string kSb = SB_BINARY;
const std::string kAnchors = std::string(SB_SOURCE_DIR) + "/results/anchors/";

TEST(Anchors, ReportShowsThePublishedEfficiencies) {
  std::string out;
  ASSERT_EQ(sbtest::run(kSb + " report " + kAnchors + "horovod-2018.h5", &out), 0) << out;
  EXPECT_NE(out.find("study anchor horovod-2018: 3 runs, 3 ok"), std::string::npos) << out;
  EXPECT_NE(out.find("== vgg16 - ring (weak scaling)"), std::string::npos) << out;
  EXPECT_NE(out.find("68.0%"), std::string::npos) << out;
  EXPECT_NE(out.find("90.0%"), std::string::npos) << out;
  ASSERT_EQ(sbtest::run(kSb + " report " + kAnchors + "unet-medical-tf2.h5 --format json", &out), 0) << out;
  EXPECT_NE(out.find("137.11"), std::string::npos) << out;  // DGX-1 V100, FP32, batch 8, 8 GPUs
}

TEST(Anchors, CompareReadsThemPointByPoint) {
  std::string out;
  // The file against itself: every value the same on both sides, so "ok" although one figure a point.
  ASSERT_EQ(sbtest::run(kSb + " compare " + kAnchors + "unet-medical-tf2.h5 " + kAnchors + "unet-medical-tf2.h5", &out), 0)
      << out;
  EXPECT_NE(out.find("16 points matched: 0 regressions"), std::string::npos) << out;
  // No point of the Horovod anchor is a point of the UNet one: compare says so and fails.
  EXPECT_EQ(sbtest::run(kSb + " compare " + kAnchors + "horovod-2018.h5 " + kAnchors + "unet-medical-tf2.h5", &out), 1)
      << out;
}

TEST(Anchors, ProjectReadsASyntheticStep) {
  const auto dir = std::filesystem::temp_directory_path() / ("sb_anchor_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string trace = (dir / "t.json").string();
  ASSERT_EQ(sbtest::run("/usr/bin/python3 " + std::string(SB_SOURCE_DIR) +
                        "/tools/synthetic_trace.py --step-ms 300 --params 1000000 --layers 4 -o " + trace),
            0);
  std::string out;
  ASSERT_EQ(sbtest::run(kSb + " project --trace " + trace + " --batch 8 --alpha-us 0 --gbps 1 --max-devices 2", &out), 0)
      << out;
  // forward 1/3 and backward 2/3 of 300 ms, 4 layers, 1e6 float32 gradients = 4.00 MB
  EXPECT_NE(out.find("forward 100.00 ms  backward 200.00 ms (4 layers)  optimizer 0.00 ms  gradient 4.00 MB"),
            std::string::npos) << out;
  // ps-sync at N = 2, no overlap: 2 x 4 MB through 1 GB/s = 8 ms exposed; efficiency 300 / 308
  EXPECT_NE(out.find("ps-sync    weak      2     308.00"), std::string::npos) << out;
  std::filesystem::remove_all(dir);
}

}  // namespace
