// loss.cpp — shape handling around kernels/cpu/softmax_xent.
#include "models/loss.h"

#include "kernels/cpu/softmax_xent.h"

namespace scalebench {
namespace {
SoftmaxXentParams xent_params(const Tensor& logits) {
  SB_CHECK(logits.rank() == 2 || logits.rank() == 4, "logits must be [n,C] or [n,C,h,w], got {}",
           to_string(logits.shape()));
  const int hw = logits.rank() == 4 ? int(logits.dim(2) * logits.dim(3)) : 1;
  return {int(logits.dim(0)), int(logits.dim(1)), hw};
}
}  // namespace

std::vector<std::int32_t> center_crop_labels(const std::int32_t* labels, int n, int H, int W, int h, int w) {
  SB_CHECK(h <= H && w <= W, "cannot crop labels {}x{} to {}x{}", H, W, h, w);
  const int oh = (H - h) / 2, ow = (W - w) / 2;
  std::vector<std::int32_t> out(std::size_t(n) * h * w);
  for (int i = 0; i < n; ++i)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        out[(std::size_t(i) * h + y) * w + x] = labels[(std::size_t(i) * H + y + oh) * W + x + ow];
  return out;
}

double softmax_cross_entropy(const Tensor& logits, const std::int32_t* labels,
                             const std::vector<float>& class_weights, Tensor* dlogits) {
  const auto p = xent_params(logits);
  SB_CHECK(class_weights.empty() || int(class_weights.size()) == p.classes, "{} class weights for {} classes",
           class_weights.size(), p.classes);
  if (dlogits) dlogits->resize(logits.shape());
  return cpu::softmax_xent(p, logits.f32(), labels, class_weights.empty() ? nullptr : class_weights.data(),
                           dlogits ? dlogits->f32() : nullptr);
}

std::vector<std::int32_t> predict_classes(const Tensor& logits) {
  const auto p = xent_params(logits);
  std::vector<std::int32_t> pred(std::size_t(p.n) * p.hw);
  cpu::argmax_classes(p, logits.f32(), pred.data());
  return pred;
}

}  // namespace scalebench
