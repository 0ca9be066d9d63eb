// evaluate.cpp — validation pass, label cropping and class-weight resolution.
#include "harness/train/evaluate.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "harness/train/step_io.h"
#include "kernels/cpu/nonfinite.h"
#include "models/loss.h"

namespace scalebench {

std::vector<std::int32_t> labels_for_logits(const std::vector<std::int32_t>& labels, const Shape& input,
                                            const Shape& logits, const data::DatasetInfo& info) {
  if (info.task != data::Task::segmentation || (logits[2] == input[2] && logits[3] == input[3])) return labels;
  return center_crop_labels(labels.data(), int(input[0]), int(input[2]), int(input[3]), int(logits[2]),
                            int(logits[3]));
}

EvalResult evaluate(Model& model, Ctx& ctx, StepIO& io, const data::Dataset& ds, std::int64_t begin, std::int64_t end,
                    int batch, const std::vector<float>& class_weights) {
  const auto& info = ds.info();
  EvalResult r{0.0, ConfusionMatrix(info.classes)};
  double loss_sum = 0;
  std::int64_t loss_items = 0;
  std::vector<float> images;
  std::vector<std::int32_t> labels;
  for (std::int64_t i = begin; i < end; i += batch) {
    const int b = int(std::min<std::int64_t>(batch, end - i));
    std::vector<std::int64_t> idx(static_cast<std::size_t>(b));
    for (int k = 0; k < b; ++k) idx[std::size_t(k)] = i + k;
    images.resize(std::size_t(b * info.image_numel()));
    labels.resize(std::size_t(b * info.label_numel()));
    ds.read(idx, images.data(), labels.data());
    // Held-out inputs are checked always (a scan is nothing beside a forward): a NaN image gave a
    // finite validation loss and mIoU 0, recorded ok.
    if (const NonFinite nf = cpu::first_nonfinite(images.data(), std::int64_t(images.size())); nf.index >= 0)
      fail_input(fmt::format("dataset {}: held-out sample {} has a non-finite image element ({} at element {}): the "
                             "evaluation would be meaningless", ds.path(), i + nf.index / info.image_numel(), nf.value,
                             nf.index % info.image_numel()));
    const Tensor x = Tensor::view(images.data(), {b, info.channels, info.height, info.width});
    const Tensor& logits = model.forward(ctx, io.input(x), /*training=*/false);
    const auto y = labels_for_logits(labels, x.shape(), logits.shape(), info);
    // Weight the batch mean by its size so a short last batch counts for what it holds.
    loss_sum += io.loss(logits, y, class_weights, nullptr) * b;
    loss_items += b;
    const auto pred = io.predict(logits);
    r.confusion.add(pred.data(), y.data(), std::int64_t(pred.size()));
  }
  r.loss = loss_items ? loss_sum / double(loss_items) : 0.0;
  SB_REQUIRE(std::isfinite(r.loss), "held-out evaluation: the validation loss is {} (the weights or batch-norm "
             "statistics hold a non-finite value)", r.loss);
  return r;
}

std::vector<float> resolve_class_weights(const ClassWeights& option, const data::Dataset& ds, std::int64_t n_train) {
  const auto& info = ds.info();
  if (option.mode == ClassWeights::Mode::none) return {};
  if (option.mode == ClassWeights::Mode::automatic) {
    if (info.task != data::Task::segmentation) return {};
    const std::int64_t n = std::min<std::int64_t>(64, n_train);
    std::vector<std::int64_t> idx(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) idx[std::size_t(i)] = i;
    std::vector<float> images(std::size_t(n * info.image_numel()));
    std::vector<std::int32_t> labels(std::size_t(n * info.label_numel()));
    ds.read(idx, images.data(), labels.data());
    std::vector<double> freq(std::size_t(info.classes), 0.0);
    for (auto l : labels) freq[std::size_t(l)] += 1.0;
    std::vector<float> w(freq.size());
    double mean = 0;
    for (std::size_t c = 0; c < freq.size(); ++c) {
      const double f = std::max(freq[c], 1.0) / double(labels.size());
      w[c] = float(1.0 / std::sqrt(f));
      mean += w[c] * freq[c] / double(labels.size());
    }
    for (auto& x : w) x = float(x / mean);
    return w;
  }
  const std::vector<float>& w = option.given;
  SB_REQUIRE(int(w.size()) == info.classes, "--class-weights has {} values but {} has {} classes", w.size(),
             ds.path(), info.classes);
  return w;
}

}  // namespace scalebench
