// test_step_sync_free.cpp — the trainer's step on one GPU without allocation, host synchronisation or
// cuDNN descriptor creation once warm (issue 46): `train` with --strategy single and the default
// U-Net, fp32 NCHW and bf16 NHWC, --cuda-graph on and off. The phases and the gradient's non-finite
// scan are read one step late (harness/train/late_steps.h), the loss too. Two runs that differ only in
// their step count (6 and 10 steps, one epoch: the same set-up, warm-up, evaluation and teardown)
// differ in kernels/cuda/counters.h's counts by what 4 warm steps did: zero allocations, syncs and
// descriptors, and one graph launch a step with the graph on. The shorter run's own counts are
// non-zero (set-up allocates and waits), so a zero difference is not a counter that never moves;
// every step's row has its device times (settled late, the last one at the epoch's end). And a run
// whose training diverges still fails, naming a step, with the loss or gradient read one step late.
// Deterministic cuDNN algorithms, so the two runs choose the same ones.
// Not here: the step's pieces alone (tests/gpu/models/test_step_no_alloc.cpp, test_step_graph.cpp),
// the book of late steps (tests/train/test_late_steps.cpp, on the CPU), timing values.
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include "harness/data/particle_gen.h"
#include "harness/train/cuda_graph_note.h"
#include "harness/train/trainer.h"
#include "kernels/common/check.h"
#include "kernels/cuda/counters.h"

namespace scalebench {
namespace {

// 100 segmentation images of 64² (90 train, 10 held out): 11 steps of 8 an epoch.
struct Dataset {
  Dataset() { data::write_dataset({.task = data::Task::segmentation, .n = 100, .size = 64, .seed = 4}, path, 0); }
  ~Dataset() { std::remove(path.c_str()); }
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("sb_step_sync_free_" + std::to_string(::getpid()) + ".h5")).string();
};
const std::string& dataset() {
  static const Dataset d;
  return d.path;
}

struct Rows final : TrainObserver {
  void on_epoch(const EpochResult&, const std::vector<StepRow>& steps) override { rows = steps; }
  std::vector<StepRow> rows;
};

TrainConfig config(Precision p, Layout l, CudaGraph g, std::int64_t steps) {
  TrainConfig c;  // the default model (unet:depth=4,base=8), strategy single, SGD
  c.data = dataset();
  c.backend = Backend::cuda;
  c.precision = p;
  c.layout = l;
  c.cuda_graph = g;
  c.deterministic = true;
  c.epochs = 1;
  c.max_steps = steps;
  c.batch = 8;
  c.class_weights = ClassWeights::parse("none");
  c.progress_seconds = 1e9;
  return c;
}

struct Counted {
  cuda::CallCounts counts;
  std::vector<StepRow> rows;
  std::string note;
};

Counted train_counted(const TrainConfig& c) {
  Rows rows;
  std::ostringstream log;
  const cuda::CallCounts before = cuda::call_counts();
  const TrainResult r = train(c, log, &rows);
  Counted out{.counts = cuda::call_counts() - before, .rows = rows.rows, .note = cuda_graph_note()};
  EXPECT_EQ(r.epochs.size(), 1u) << log.str();
  EXPECT_EQ(log.str().find("warning: --cuda-graph"), std::string::npos) << log.str();  // a capture that fell back
  return out;
}

using Param = std::tuple<Precision, Layout, CudaGraph>;
class TrainStepSyncFree : public ::testing::TestWithParam<Param> {};

TEST_P(TrainStepSyncFree, WarmStepsAllocateWaitAndDescribeNothing) {
  const auto [precision, layout, graph] = GetParam();
  constexpr int kShort = 6, kLong = 10;
  const Counted a = train_counted(config(precision, layout, graph, kShort));
  const Counted b = train_counted(config(precision, layout, graph, kLong));
  const cuda::CallCounts d = b.counts - a.counts;
  EXPECT_GT(a.counts.allocations, 0) << "the counters saw no set-up allocation";
  EXPECT_GT(a.counts.syncs, 0) << "the counters saw no set-up synchronisation";
  EXPECT_EQ(d.allocations, 0) << "allocations in " << kLong - kShort << " warm steps";
  EXPECT_EQ(d.frees, 0) << "frees in " << kLong - kShort << " warm steps";
  EXPECT_EQ(d.syncs, 0) << "host synchronisations in " << kLong - kShort << " warm steps";
  EXPECT_EQ(d.descriptors, 0) << "cuDNN descriptors made in " << kLong - kShort << " warm steps";
  EXPECT_LE(d.lagged_waits, 3 * (kLong - kShort)) << "waits for a step-old event: the input, the loss, the marks";
  if (graph == CudaGraph::on) {
    EXPECT_TRUE(b.note.starts_with("replayed")) << b.note;
    EXPECT_EQ(d.graph_launches, kLong - kShort);
  } else {
    EXPECT_EQ(d.graph_launches, 0);
  }
  ASSERT_EQ(b.rows.size(), std::size_t(kLong));
  for (const StepRow& r : b.rows) {  // each step's device times arrived, the last one's at the epoch's end
    EXPECT_GT(r.time.fwd, 0) << "step " << r.step;
    EXPECT_GT(r.time.bwd, 0) << "step " << r.step;
    EXPECT_GT(r.time.update, 0) << "step " << r.step;
  }
}

INSTANTIATE_TEST_SUITE_P(UnetSingle, TrainStepSyncFree,
                         ::testing::Values(Param{Precision::fp32, Layout::NCHW, CudaGraph::off},
                                           Param{Precision::fp32, Layout::NCHW, CudaGraph::on},
                                           Param{Precision::bf16, Layout::NHWC, CudaGraph::off},
                                           Param{Precision::bf16, Layout::NHWC, CudaGraph::on}),
                         [](const ::testing::TestParamInfo<Param>& i) {
                           return std::string(to_string(std::get<0>(i.param))) +
                                  (std::get<1>(i.param) == Layout::NCHW ? "_NCHW" : "_NHWC") +
                                  (std::get<2>(i.param) == CudaGraph::on ? "_graph" : "_eager");
                         });

// A diverging run (a learning rate of 1e30) still fails under --on-nonfinite fail: its loss or its
// gradient, read one step late, names the step.
TEST(TrainStepSyncFree, DivergedStepStillFailsTheRun) {
  for (const CudaGraph g : {CudaGraph::off, CudaGraph::on}) {
    TrainConfig c = config(Precision::fp32, Layout::NCHW, g, 10);
    c.lr = 1e30;
    std::ostringstream log;
    std::string what;
    try {
      train(c, log);
    } catch (const Error& e) {
      what = e.what();
    }
    EXPECT_NE(what.find("read one step late"), std::string::npos) << "graph " << int(g) << ": " << what;
    EXPECT_NE(what.find(" step "), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace scalebench
