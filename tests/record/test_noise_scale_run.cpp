// test_noise_scale_run.cpp — the gradient noise scale a real run records, against the exact
// answer. A tiny U-Net (no batch norm, unweighted loss: per-image gradients are separable) on 16
// training images; the test computes each image's gradient at the initial weights with the same
// model and loss, so |G_small|² and |G_big|² of any split are known exactly. Each run is one step
// (the global batch is the training set), so the norms are taken at the initial weights whatever
// the learning rate. single --batch 1 --accumulate 16 must record the micro-batch estimate
// (B_small = 1, B_big = 16, no order of the images changes it); mirrored --devices 2 --batch 1
// --accumulate 8 (two threads ranks, B_small = 8, B_big = 16) the estimate of the two halves the
// sampler deals the ranks; single with --accumulate 1 records NaN and says why.
// About 1 s in all (three runs of one step on 16×16 images; each test process makes the data).
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "harness/data/dataset.h"
#include "harness/data/particle_gen.h"
#include "harness/data/sampler.h"
#include "harness/record/run_file.h"
#include "harness/strategy/noise_scale.h"
#include "models/loss.h"
#include "models/model.h"
#include "models/spec.h"
#include "tests/common/harness_test_util.h"

namespace scalebench {
namespace {

constexpr const char* kModel = "unet:depth=2,base=4,bn=0";
constexpr int kTrain = 16, kSize = 16;
constexpr std::uint64_t kSeed = 7;

using Grad = std::vector<double>;

double sq(const Grad& g) {
  double s = 0;
  for (double x : g) s += x * x;
  return s;
}
Grad mean(const std::vector<Grad>& all, const std::vector<std::int64_t>& which) {
  Grad m(all.front().size(), 0.0);
  for (std::int64_t k : which)
    for (std::size_t i = 0; i < m.size(); ++i) m[i] += all[std::size_t(k)][i] / double(which.size());
  return m;
}
std::vector<std::int64_t> all_images() {
  std::vector<std::int64_t> v(kTrain);
  for (int i = 0; i < kTrain; ++i) v[std::size_t(i)] = i;
  return v;
}

// Each training image's gradient of the mean loss at the run's initial weights.
std::vector<Grad> per_example_gradients(const std::string& data) {
  data::Dataset ds(data);
  const auto& info = ds.info();
  Model model(build_model_graph(parse_model_spec(kModel), {info.channels, info.height, info.width, info.classes}),
              Backend::cpu, kSeed);
  model.setup({1, info.channels, info.height, info.width});
  std::vector<Grad> out;
  for (std::int64_t i = 0; i < kTrain; ++i) {
    Tensor x = Tensor::zeros({1, info.channels, info.height, info.width});
    std::vector<std::int32_t> label(std::size_t(info.height * info.width));
    ds.read({i}, x.f32(), label.data());
    Ctx ctx{.seed = kSeed};
    const Tensor& logits = model.forward(ctx, x, /*training=*/true);
    Tensor dlogits;
    softmax_cross_entropy(logits, label.data(), {}, &dlogits);
    model.backward(ctx, dlogits);
    out.emplace_back(model.grads().f32(), model.grads().f32() + model.param_count());
  }
  return out;
}

struct Recorded {
  double trace, sq_norm, b_simple;
  std::string note;
};

Recorded train(const sbtest::TempDir& dir, const std::string& data, const std::string& name, const std::string& args) {
  const std::string out_dir = dir / name;
  std::string log;
  const int rc = sbtest::run(std::string(SB_BINARY) + " train --model " + kModel + " --data " + data +
                                 " --epochs 1 --val-fraction 0.05 --class-weights none --lr 0.01 --threads 1 --seed " +
                                 std::to_string(kSeed) + " -o " + out_dir + " " + args,
                             &log);
  EXPECT_EQ(rc, 0) << log;
  for (const auto& e : std::filesystem::directory_iterator(out_dir))
    if (e.path().extension() == ".h5") {
      const record::RunFile f = record::read_run_file(e.path().string());
      EXPECT_EQ(f.epochs.rows(), 1u);
      return {f.epochs.num("grad_noise_trace", 0), f.epochs.num("grad_sq_norm", 0), f.summary.num("b_simple"),
              f.summary.has("b_simple_note") ? f.summary.str("b_simple_note") : ""};
    }
  ADD_FAILURE() << "no run file in " << out_dir << ": " << log;
  return {};
}

// The data set and its per-image gradients are made once for the three runs.
class NoiseScaleRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new sbtest::TempDir;
    data::GenConfig g;
    g.task = data::Task::segmentation;
    g.n = kTrain + 1;  // --val-fraction 0.05 holds out the last
    g.size = kSize;
    data_ = *dir_ / "seg.h5";
    data::write_dataset(g, data_, 0);
    grads_ = per_example_gradients(data_);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static inline sbtest::TempDir* dir_ = nullptr;
  static inline std::string data_;
  static inline std::vector<Grad> grads_;
};

// Float32 gradients summed in another order than the test's doubles: 1e-3 relative.
void expect_close(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-3 * std::abs(want)) << what;
}
void expect_recorded(const Recorded& r, const NoiseScale& want) {
  expect_close(r.trace, want.trace, "grad_noise_trace");
  expect_close(r.sq_norm, want.sq_norm, "grad_sq_norm");
  if (want.sq_norm > 0)
    expect_close(r.b_simple, want.b_simple, "b_simple");
  else  // a noise-dominated |G|² estimate has no ratio
    EXPECT_TRUE(std::isnan(r.b_simple)) << r.b_simple;
  EXPECT_EQ(r.note, "");
}

TEST_F(NoiseScaleRun, SingleWithAccumulateRecordsTheMicroBatchEstimate) {
  double small = 0;
  for (const Grad& x : grads_) small += sq(x) / kTrain;
  const double big = sq(mean(grads_, all_images()));
  ASSERT_GT(small, 1.02 * big);  // noise the estimate must see, well above float rounding
  const NoiseScale want = estimate_noise_scale(small, big, 1, kTrain);
  ASSERT_GT(want.sq_norm, 0) << "trace " << want.trace;  // so that b_simple itself is checked
  expect_recorded(train(*dir_, data_, "single", "--strategy single --batch 1 --accumulate 16"), want);
}

TEST_F(NoiseScaleRun, MirroredTwoRanksRecordsTheReplicaEstimate) {
  const double big = sq(mean(grads_, all_images()));
  double small = 0;
  for (int r = 0; r < 2; ++r)  // each rank's whole shard is its one step's samples
    small += sq(mean(grads_, data::ShardedSampler({.begin = 0, .end = kTrain, .world = 2, .rank = r, .seed = kSeed})
                                 .indices(0))) / 2;
  expect_recorded(train(*dir_, data_, "mirrored", "--strategy mirrored --devices 2 --batch 1 --accumulate 8"),
                  estimate_noise_scale(small, big, kTrain / 2, kTrain));
}

TEST_F(NoiseScaleRun, OneBatchSizeRecordsNaNAndWhy) {
  const Recorded r = train(*dir_, data_, "plain", "--strategy single --batch 4");
  EXPECT_TRUE(std::isnan(r.trace));
  EXPECT_TRUE(std::isnan(r.b_simple));
  EXPECT_NE(r.note.find("--accumulate"), std::string::npos) << r.note;
}

}  // namespace
}  // namespace scalebench
