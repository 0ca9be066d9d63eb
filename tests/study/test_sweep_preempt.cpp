// test_sweep_preempt.cpp — the local launcher and preemption: SIGUSR1 to `scalebench sweep` reaches
// the running point, which is recorded preempted (not failed); the sweep launches no further point
// and exits 75; collect/report show the point as preempted (not ok); a rerun runs that point again
// and the rest of the study.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "harness/record/run_file.h"
#include "harness/study/spec/spec.h"
#include "tests/common/harness_test_util.h"

using namespace scalebench;
using namespace scalebench::study;

TEST(Sweep, PreemptedPointStopsTheSweepAndRerunsLater) {
  sbtest::TempDir dir;
  const std::string spec = dir / "p.toml";
  // Point 1 runs long enough to be signalled after its first epoch (200 epochs; it is stopped long
  // before); point 2 must not start in the preempted sweep.
  std::ofstream(spec) << "[study]\nname = \"p\"\noutput = \"" << (dir / "res") << "\"\n"
                      << "[dataset]\ntask = \"segmentation\"\nn = 48\nsize = 32\nseed = 3\n"
                         "[sweep]\nmodels = [\"unet:depth=2,base=4\", \"unet:depth=2,base=8\"]\n"
                         "strategies = [\"single\"]\ndevices = [1]\nbatch = 4\n"
                         "[train]\nepochs = 200\nthreads = 1\n";
  const std::string sb = SB_BINARY;
  const std::string log = dir / "sweep.log";
  // Bounded waits only: the epoch line within 120 s, the sweep's end within 60 s of the signal.
  const std::string script =
      "'" + sb + "' sweep '" + spec + "' >'" + log + "' 2>&1 & pid=$!\n"
      "for i in $(seq 1200); do grep -q ' epoch 1/200 ' '" + log + "' && break; sleep 0.1; done\n"
      "kill -USR1 $pid\n"
      "for i in $(seq 600); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done\n"
      "kill -0 $pid 2>/dev/null && { pkill -9 -P $pid; kill -9 $pid; echo 'sweep still running'; exit 1; }\n"
      "wait $pid; exit $?\n";
  std::ofstream(dir / "drive.sh") << script;
  std::string out;
  const int rc = sbtest::run("bash '" + (dir / "drive.sh") + "'", &out);
  std::string swept;
  {
    std::ifstream f(log);
    swept.assign(std::istreambuf_iterator<char>(f), {});
  }
  EXPECT_EQ(rc, 75) << out << swept;
  EXPECT_NE(swept.find("[1/2] unet:depth=2,base=4 single N=1 preempted: preempted by SIGUSR1 at epoch "),
            std::string::npos)
      << swept;
  EXPECT_EQ(swept.find(" failed:"), std::string::npos) << swept;  // not marked failed
  EXPECT_EQ(swept.find("[2/2] unet:depth=2,base=8 single N=1 run"), std::string::npos) << swept;  // not launched
  EXPECT_NE(swept.find("0 ok, 0 skipped (ok before), 0 failed, 1 preempted"), std::string::npos) << swept;

  const auto points = expand(load_spec(spec));
  ASSERT_EQ(points.size(), 2u);
  const std::string first = dir / ("res/runs/" + record::run_id_with_data(points[0]) + ".h5");
  const std::string second = dir / ("res/runs/" + record::run_id_with_data(points[1]) + ".h5");
  const auto f = record::read_run_file(first);
  EXPECT_EQ(f.status, "preempted");
  EXPECT_GE(f.epochs.rows(), 1u);
  EXPECT_FALSE(std::filesystem::exists(second));

  // The readers: not ok, shown with its reason.
  EXPECT_EQ(sbtest::run(sb + " collect " + (dir / "res"), &out), 0) << out;
  EXPECT_NE(out.find("(0 ok, 1 not ok)"), std::string::npos) << out;
  EXPECT_EQ(sbtest::run(sb + " report " + (dir / "res/study.h5"), &out), 0) << out;
  EXPECT_NE(out.find("preempted by SIGUSR1"), std::string::npos) << out;

  // A rerun launches the preempted point again (only ok points are skipped); preempting it once
  // more keeps this short.
  const int rc2 = sbtest::run("bash '" + (dir / "drive.sh") + "'", &out);
  {
    std::ifstream g(log);
    swept.assign(std::istreambuf_iterator<char>(g), {});
  }
  EXPECT_EQ(rc2, 75) << out << swept;
  EXPECT_NE(swept.find("[1/2] unet:depth=2,base=4 single N=1 run "), std::string::npos) << swept;
  EXPECT_EQ(swept.find("ok already"), std::string::npos) << swept;
}
