// test_sweep.cpp — the local launcher end to end with the real binary: a tiny study with one
// point that trains and one that fails at run time (a --max-loss below any loss: it passes every
// check a sweep makes before it starts — a model too deep for the data no longer does — and fails
// at its first step, whichever strategies exist), progress lines prefixed per point, the failure recorded with its error, a
// rerun skipping the ok point, then collect and report. Also the strategy → launch mapping.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "harness/data/particle_gen.h"
#include "harness/record/run_file.h"
#include "harness/study/launch/command.h"
#include "harness/study/spec/spec.h"
#include "harness/study/analysis/study_file.h"
#include "kernels/common/json.h"
#include "tests/common/harness_test_util.h"

using namespace scalebench;
using namespace scalebench::study;

TEST(Launch, StrategyToCommand) {
  record::RunConfig c;
  c.train.data = "d.h5";
  c.train.strategy = StrategyKind::ring;
  c.world_size = 4;
  const auto ring = launch_command(c, "/bin/sb", "out/runs");
  ASSERT_GE(ring.size(), 5u);
  EXPECT_EQ(ring[0], "mpirun");
  EXPECT_EQ(ring[1], "-np");
  EXPECT_EQ(ring[2], "4");
  EXPECT_EQ(ring[3], "--oversubscribe");
  EXPECT_EQ(std::count(ring.begin(), ring.end(), "--devices"), 0);  // the world size comes from MPI
  EXPECT_EQ(std::count(ring.begin(), ring.end(), "--cudnn-workspace-mib"), 0);  // GPU options only when set
  c.train.cudnn_workspace_mib = 4096;
  const auto capped = launch_command(c, "/bin/sb", "out/runs");
  const auto cap = std::find(capped.begin(), capped.end(), "--cudnn-workspace-mib");
  ASSERT_NE(cap, capped.end());
  EXPECT_EQ(*(cap + 1), "4096");
  c.train.cudnn_workspace_mib = TrainConfig::kDefaultCudnnWorkspaceMib;
  c.train.strategy = StrategyKind::mirrored;
  c.world_size = 2;
  const auto mirrored = launch_command(c, "/bin/sb", "out/runs");
  EXPECT_EQ(mirrored[0], "/bin/sb");
  EXPECT_EQ(mirrored[1], "train");
  const auto dev = std::find(mirrored.begin(), mirrored.end(), "--devices");
  ASSERT_NE(dev, mirrored.end());
  EXPECT_EQ(*(dev + 1), "2");
  const auto o = std::find(mirrored.begin(), mirrored.end(), "-o");
  ASSERT_NE(o, mirrored.end());
  EXPECT_EQ(*(o + 1), "out/runs");
  for (auto k : {StrategyKind::multiworker, StrategyKind::hierarchical, StrategyKind::ps_sync, StrategyKind::ps_async})
    EXPECT_EQ(traits(k).processes, Processes::per_device) << name_of(k);
  EXPECT_EQ(traits(StrategyKind::single).processes, Processes::one);
  c.train.strategy = StrategyKind::ps_sync;
  c.world_size = 3;
  const auto ps = launch_command(c, "/bin/sb", "out/runs");
  EXPECT_EQ(ps[2], "4");  // 3 workers + the server rank
}

TEST(Sweep, LocalEndToEnd) {
  sbtest::TempDir dir;
  const std::string spec = dir / "tiny.toml";
  std::ofstream(spec) << "[study]\nname = \"tiny\"\noutput = \"" << (dir / "res") << "\"\n"
                      << "[dataset]\ntask = \"segmentation\"\nn = 48\nsize = 32\nseed = 3\n"
                         "[sweep]\nmodels = [\"unet:depth=2,base=4\"]\nstrategies = [\"single\"]\n"
                         "devices = [1]\nbatch = 4\nmax_loss = [1000.0, 0.001]\n"
                         "[train]\nepochs = 2\nthreads = 1\n";
  const std::string sb = SB_BINARY;
  std::string out;
  // The first point trains; the second fails: exit 1, and the study went on to it.
  EXPECT_EQ(sbtest::run(sb + " sweep " + spec, &out), 1) << out;
  EXPECT_NE(out.find("sweep: tiny: 2 points"), std::string::npos) << out;
  // The prefix names the axis value that tells the points apart.
  EXPECT_NE(out.find("[1/2] unet single N=1 max_loss=1000 epoch 2/2 "), std::string::npos) << out;
  EXPECT_NE(out.find("[1/2] unet single N=1 max_loss=1000 ok"), std::string::npos) << out;
  EXPECT_NE(out.find("[2/2] unet single N=1 max_loss=0.001 failed: "), std::string::npos) << out;
  EXPECT_NE(out.find("above --max-loss 0.001"), std::string::npos) << out;
  EXPECT_NE(out.find("1 ok, 0 skipped (ok before), 1 failed"), std::string::npos) << out;

  // Every point left a run file named by its run id, with the status it ended in.
  const auto points = expand(load_spec(spec));
  ASSERT_EQ(points.size(), 2u);
  for (const auto& p : points) {
    const auto f = record::read_run_file(dir / ("res/runs/" + record::run_id_with_data(p) + ".h5"));
    EXPECT_EQ(f.config.str("study"), "tiny");
    if (p.train.max_loss > 1) {
      EXPECT_EQ(f.status, "ok");
      EXPECT_EQ(f.epochs.rows(), 2u);
      EXPECT_GT(f.summary.num("images_per_s"), 0);
    } else {
      EXPECT_EQ(f.status, "failed");
      EXPECT_NE(f.error.find("above --max-loss"), std::string::npos) << f.error;
      EXPECT_EQ(f.epochs.rows(), 0u);
    }
  }

  // A rerun skips the ok point and tries the failed ones again.
  EXPECT_EQ(sbtest::run(sb + " sweep " + spec, &out), 1) << out;
  EXPECT_NE(out.find("[1/2] unet single N=1 max_loss=1000 ok already"), std::string::npos) << out;
  EXPECT_NE(out.find("0 ok, 1 skipped (ok before), 1 failed"), std::string::npos) << out;

  EXPECT_EQ(sbtest::run(sb + " collect " + (dir / "res"), &out), 0) << out;
  const StudyFile sf = read_study_file(dir / "res/study.h5");
  ASSERT_EQ(sf.runs.rows(), 2u);
  EXPECT_EQ(sf.attrs.str("study"), "tiny");
  EXPECT_EQ(sbtest::run(sb + " report " + (dir / "res/study.h5"), &out), 0) << out;
  // max_loss is swept: one compact table, its one model named in the heading.
  EXPECT_NE(out.find("== unet:depth=2,base=4: points (weak scaling)"), std::string::npos) << out;
  // The whole reason, under the table (too long for the status column).
  EXPECT_NE(out.find("failed [1]"), std::string::npos) << out;
  EXPECT_NE(out.find("\n  [1] non-finite training at epoch 1 step 1: rank 0: loss "), std::string::npos) << out;
  EXPECT_NE(out.find("above --max-loss 0.001 (--on-nonfinite fail; skip to skip such steps)\n"), std::string::npos)
      << out;
  EXPECT_EQ(sbtest::run(sb + " report --format json " + (dir / "res/study.h5"), &out), 0) << out;
  const json::Json report_json = json::parse(out, "report --format json");
  EXPECT_EQ(report_json.begin().key(), "study") << out;  // first, as before
  EXPECT_EQ(report_json["study"], "tiny") << out;
  if (sbtest::run("/usr/bin/python3 -c 'import json'") == 0) {
    std::ofstream(dir / "r.json") << out;
    EXPECT_EQ(sbtest::run("/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
                          "assert [p[\"speedup\"] for t in d[\"tables\"] for p in t[\"points\"] if p[\"status\"] == \"ok\"] == [1.0]' " + (dir / "r.json"), &out), 0)
        << out;
  }
}

TEST(Sweep, DryRunAndBadSpec) {
  sbtest::TempDir dir;
  const std::string spec = dir / "s.toml";
  std::ofstream(spec) << "[study]\nname = \"d\"\noutput = \"" << (dir / "res") << "\"\n[dataset]\npath = \"" << (dir / "x.h5")
                      << "\"\n[sweep]\nmodels = [\"unet\"]\nstrategies = [\"ring\"]\ndevices = \"1:4:*2\"\nbatch = 2\n";
  // A dry run reads the data set's header (every model is built for its shape), not its samples.
  data::write_dataset({.task = data::Task::segmentation, .n = 8, .size = 32, .seed = 1}, dir / "x.h5", 0);
  std::string out;
  EXPECT_EQ(sbtest::run(std::string(SB_BINARY) + " sweep --dry-run " + spec, &out), 0) << out;
  EXPECT_NE(out.find("[3/3] unet ring N=4 run "), std::string::npos) << out;
  EXPECT_NE(out.find("mpirun -np 4 --oversubscribe"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(dir / "res/runs"));

  std::ofstream(spec) << "[study]\nname = \"d\"\n[dataset]\npath = \"x.h5\"\n[sweep]\nmodels = [\"unet\"]\n"
                         "strategies = [\"ring\"]\ndevices = [1]\nbatch = -2\n";
  EXPECT_EQ(sbtest::run(std::string(SB_BINARY) + " sweep " + spec, &out), 1);
  EXPECT_NE(out.find("s.toml:9:9: sweep.batch:"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;  // one error line
}

// [sweep.strategy_devices] reaches the launcher: mirrored stops at its own list, ring goes on.
TEST(Sweep, DryRunStrategyDevices) {
  sbtest::TempDir dir;
  const std::string spec = dir / "s.toml";
  std::ofstream(spec) << "[study]\nname = \"d\"\noutput = \"" << (dir / "res") << "\"\n[dataset]\npath = \"" << (dir / "x.h5")
                      << "\"\n[sweep]\nmodels = [\"unet\"]\nstrategies = [\"mirrored\", \"ring\"]\ndevices = \"1:4:*2\"\n"
                         "batch = 2\n[sweep.strategy_devices]\nmirrored = [1, 2]\n";
  data::write_dataset({.task = data::Task::segmentation, .n = 8, .size = 32, .seed = 1}, dir / "x.h5", 0);
  std::string out;
  EXPECT_EQ(sbtest::run(std::string(SB_BINARY) + " sweep --dry-run " + spec, &out), 0) << out;
  EXPECT_NE(out.find("[2/5] unet mirrored N=2 run "), std::string::npos) << out;
  EXPECT_NE(out.find("[5/5] unet ring N=4 run "), std::string::npos) << out;
  EXPECT_EQ(out.find("mirrored N=4"), std::string::npos) << out;
}

// A model of another task than the data's (vgg11 classifies images; the file holds segmentation
// labels) fails the dry run, as it would fail every point: for a file, and for a recipe not yet
// generated.
TEST(Sweep, DryRunRefusesAModelOfAnotherTask) {
  sbtest::TempDir dir;
  const std::string spec = dir / "s.toml";
  data::write_dataset({.task = data::Task::segmentation, .n = 8, .size = 32, .seed = 1}, dir / "x.h5", 0);
  const std::string tail = "[sweep]\nmodels = [\"vgg11:width=0.0625,hidden=16\"]\nstrategies = [\"single\"]\ndevices = [1]\nbatch = 2\n";
  std::ofstream(spec) << "[study]\nname = \"d\"\noutput = \"" << (dir / "res") << "\"\n[dataset]\npath = \"" << (dir / "x.h5")
                      << "\"\n" << tail;
  std::string out;
  EXPECT_EQ(sbtest::run(std::string(SB_BINARY) + " sweep --dry-run " + spec, &out), 1) << out;
  EXPECT_NE(out.find("sweep.models: model vgg11:width=0.0625,hidden=16 does not fit dataset " + (dir / "x.h5")),
            std::string::npos) << out;
  EXPECT_NE(out.find("use a unet model"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;  // one error line
  std::ofstream(spec) << "[study]\nname = \"d\"\noutput = \"" << (dir / "res") << "\"\n[dataset]\ntask = \"segmentation\"\n"
                      << "n = 8\nsize = 32\n" << tail;
  EXPECT_EQ(sbtest::run(std::string(SB_BINARY) + " sweep --dry-run " + spec, &out), 1) << out;
  EXPECT_NE(out.find("does not fit dataset " + (dir / "res/data/segmentation-n8-s32-seed1.h5")), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(dir / "res/runs"));
}
