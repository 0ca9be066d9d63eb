// test_cuda_confusion.cpp — confusion counts from logits + labels against a host count built on
// kernels/cpu/softmax_xent.h's argmax_classes: exact int64 [label, pred] counts, accumulation over
// two calls, the shared-memory and the many-class (global) paths, and out-of-range labels skipped
// and counted.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/cpu/softmax_xent.h"
#include "kernels/cuda/confusion.h"
#include "tests/common/gpu_test_util.h"

namespace scalebench::cuda::test {
namespace {

class ConfusionTest : public CudaTest, public ::testing::WithParamInterface<DType> {};

// counts[label·classes + pred] over pixels with a valid label; returns the number of invalid ones.
std::int64_t host_counts(const SoftmaxXentParams& p, const std::vector<float>& logits,
                         const std::vector<std::int32_t>& labels, std::vector<std::int64_t>& counts) {
  std::vector<std::int32_t> pred(labels.size());
  cpu::argmax_classes(p, logits.data(), pred.data());
  std::int64_t invalid = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] < 0 || labels[i] >= p.classes) {
      ++invalid;
      continue;
    }
    ++counts[std::size_t(labels[i]) * p.classes + pred[i]];
  }
  return invalid;
}

TEST_P(ConfusionTest, CountsAreExactAndAccumulate) {
  const DType dt = GetParam();
  for (const int classes : {3, 70}) {  // 70² bins exceed the shared-memory histogram
    const SoftmaxXentParams p{3, classes, 7 * 9};
    const std::vector<float> logits = rounded(random_vec(std::size_t(p.n) * classes * p.hw, 71), dt);
    std::vector<std::int32_t> labels = random_labels(std::size_t(p.n) * p.hw, classes, 72);
    labels[5] = classes;  // skipped and counted as invalid
    labels[77] = -2;
    std::vector<std::int64_t> want(std::size_t(classes) * classes, 0);
    std::int64_t want_invalid = host_counts(p, logits, labels, want);
    want_invalid += host_counts(p, logits, labels, want);  // two calls accumulate

    DeviceBuffer x = to_device(logits, dt, s()), y = upload(labels, s());
    DeviceBuffer counts = upload(std::vector<std::int64_t>(want.size(), 0), s());
    DeviceBuffer invalid = upload(std::vector<std::int64_t>{0}, s());
    for (int k = 0; k < 2; ++k)
      confusion_counts(p, dt, x.data(), y.as<std::int32_t>(), counts.as<std::int64_t>(), invalid.as<std::int64_t>(),
                       s());
    EXPECT_EQ(download<std::int64_t>(counts.data(), want.size(), s()), want) << classes << " classes";
    EXPECT_EQ(download<std::int64_t>(invalid.data(), 1, s())[0], want_invalid) << classes << " classes";
  }
}

TEST_P(ConfusionTest, ManyPixelsWithoutInvalidCounter) {
  const DType dt = GetParam();
  const SoftmaxXentParams p{4, 5, 509 * 511};  // > one grid's worth of threads per block loop
  const std::vector<float> logits = rounded(random_vec(std::size_t(p.n) * p.classes * p.hw, 73), dt);
  const std::vector<std::int32_t> labels = random_labels(std::size_t(p.n) * p.hw, p.classes, 74);
  std::vector<std::int64_t> want(std::size_t(p.classes) * p.classes, 0);
  host_counts(p, logits, labels, want);
  DeviceBuffer x = to_device(logits, dt, s()), y = upload(labels, s());
  DeviceBuffer counts = upload(std::vector<std::int64_t>(want.size(), 0), s());
  confusion_counts(p, dt, x.data(), y.as<std::int32_t>(), counts.as<std::int64_t>(), nullptr, s());
  EXPECT_EQ(download<std::int64_t>(counts.data(), want.size(), s()), want);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, ConfusionTest, ::testing::Values(DType::f32, DType::bf16),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace scalebench::cuda::test
