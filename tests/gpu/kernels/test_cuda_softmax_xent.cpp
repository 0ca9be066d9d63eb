// test_cuda_softmax_xent.cpp — GPU softmax cross-entropy and argmax against kernels/cpu/softmax_xent.h:
// loss and dlogits with and without class weights (f32 and bf16 logits, the CPU fed the same
// bf16-rounded values), zero total weight, a bad label reported as an error, a rerun giving the
// same loss bits, and argmax ties going to the lower class.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/cpu/softmax_xent.h"
#include "kernels/cuda/softmax_xent.h"
#include "tests/common/gpu_test_util.h"

namespace scalebench::cuda::test {
namespace {

class SoftmaxXentTest : public CudaTest, public ::testing::WithParamInterface<DType> {
 protected:
  // Runs the GPU op on (logits, labels, weights) and returns {loss, dlogits as float}.
  std::pair<double, std::vector<float>> run(const SoftmaxXentParams& p, DType dt, const std::vector<float>& logits,
                                            const std::vector<std::int32_t>& labels, const std::vector<float>* weights) {
    DeviceBuffer x = to_device(logits, dt, s()), y = upload(labels, s());
    DeviceBuffer w = weights ? upload(*weights, s()) : DeviceBuffer();
    DeviceBuffer d(logits.size() * dtype_size(dt));
    Workspace ws(softmax_xent_workspace_bytes(p));  // capped at what the op declares
    const double loss = softmax_xent(p, dt, x.data(), y.as<std::int32_t>(), weights ? w.as<float>() : nullptr,
                                     d.data(), ws, s());
    return {loss, to_host(d.data(), logits.size(), dt, s())};
  }
};

TEST_P(SoftmaxXentTest, MatchesCpuWithAndWithoutWeights) {
  const DType dt = GetParam();
  const SoftmaxXentParams p{3, 3, 7 * 9};
  const std::vector<float> logits = rounded(random_vec(std::size_t(p.n) * p.classes * p.hw, 11, -4.0f, 4.0f), dt);
  const std::vector<std::int32_t> labels = random_labels(std::size_t(p.n) * p.hw, p.classes, 12);
  const std::vector<float> weights{0.2f, 1.5f, 3.0f};
  for (const std::vector<float>* w : {static_cast<const std::vector<float>*>(nullptr), &weights}) {
    std::vector<float> want_d(logits.size());
    const double want = cpu::softmax_xent(p, logits.data(), labels.data(), w ? w->data() : nullptr, want_d.data());
    const auto [loss, got_d] = run(p, dt, logits, labels, w);
    EXPECT_NEAR(loss, want, 1e-5 * std::fabs(want)) << (w ? "weighted" : "unweighted");
    EXPECT_LE(max_rel_err(got_d, rounded(want_d, dt)), tol_for(dt)) << (w ? "weighted" : "unweighted");
  }
}

TEST_P(SoftmaxXentTest, ManyPixelsAndClassesMatchCpuAndRepeat) {
  const DType dt = GetParam();
  const SoftmaxXentParams p{2, 13, 301 * 47};  // > one block per reduction, classes not a power of 2
  const std::vector<float> logits = rounded(random_vec(std::size_t(p.n) * p.classes * p.hw, 13, -6.0f, 6.0f), dt);
  const std::vector<std::int32_t> labels = random_labels(std::size_t(p.n) * p.hw, p.classes, 14);
  std::vector<float> want_d(logits.size());
  const double want = cpu::softmax_xent(p, logits.data(), labels.data(), nullptr, want_d.data());
  const auto [loss, got_d] = run(p, dt, logits, labels, nullptr);
  EXPECT_NEAR(loss, want, 1e-5 * std::fabs(want));
  EXPECT_LE(max_rel_err(got_d, rounded(want_d, dt)), tol_for(dt));
  const auto [again, again_d] = run(p, dt, logits, labels, nullptr);
  EXPECT_EQ(again, loss) << "loss bits changed between runs";
  EXPECT_EQ(again_d, got_d);
}

TEST_P(SoftmaxXentTest, ZeroTotalWeightGivesZeroLossAndGradient) {
  const DType dt = GetParam();
  const SoftmaxXentParams p{3, 3, 5};
  const std::vector<float> logits = rounded(random_vec(std::size_t(p.n) * p.classes * p.hw, 15), dt);
  const std::vector<std::int32_t> labels(std::size_t(p.n) * p.hw, 1);  // every pixel class 1 ...
  const std::vector<float> weights{1.0f, 0.0f, 2.0f};                  // ... whose weight is 0
  const auto [loss, d] = run(p, dt, logits, labels, &weights);
  EXPECT_EQ(loss, 0.0);
  for (float v : d) ASSERT_EQ(v, 0.0f);
}

TEST_P(SoftmaxXentTest, BadLabelIsAnError) {
  const DType dt = GetParam();
  const SoftmaxXentParams p{3, 3, 7};
  const std::vector<float> logits = random_vec(std::size_t(p.n) * p.classes * p.hw, 16);
  std::vector<std::int32_t> labels = random_labels(std::size_t(p.n) * p.hw, p.classes, 17);
  labels[12] = 3;   // sample 1, pixel 5: the first bad one
  labels[19] = -1;  // a later one
  try {
    run(p, dt, logits, labels, nullptr);
    FAIL() << "no error for label 3 with 3 classes";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("label 3 at position 12 (sample 1, pixel 5)"), std::string::npos) << m;
  }
}

TEST_P(SoftmaxXentTest, ArgmaxMatchesCpuAndBreaksTiesLow) {
  const DType dt = GetParam();
  const SoftmaxXentParams p{3, 5, 7 * 9};
  std::vector<float> logits = rounded(random_vec(std::size_t(p.n) * p.classes * p.hw, 18), dt);
  // Pixel 4 of image 1: classes 1 and 3 tie for the max -> 1. Pixel 0 of image 0: all equal -> 0.
  for (int c = 0; c < p.classes; ++c) logits[std::size_t(c) * p.hw] = 0.25f;
  const std::size_t img1 = std::size_t(p.classes) * p.hw;
  logits[img1 + 1 * p.hw + 4] = 2.0f;
  logits[img1 + 3 * p.hw + 4] = 2.0f;
  std::vector<std::int32_t> want(std::size_t(p.n) * p.hw);
  cpu::argmax_classes(p, logits.data(), want.data());
  ASSERT_EQ(want[0], 0);
  ASSERT_EQ(want[p.hw + 4], 1);
  DeviceBuffer x = to_device(logits, dt, s()), pred(want.size() * sizeof(std::int32_t));
  argmax_classes(p, dt, x.data(), pred.as<std::int32_t>(), s());
  EXPECT_EQ(download<std::int32_t>(pred.data(), want.size(), s()), want);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, SoftmaxXentTest, ::testing::Values(DType::f32, DType::bf16),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace scalebench::cuda::test
