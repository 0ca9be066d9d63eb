// train.cpp — the device loss for the cuda backend (see train.h).
// Not here: loss scaling, the optimizers (models/optimizer.h).
#include "models/cuda/train.h"

#include "kernels/cuda/device_buffer.h"
#include "kernels/cuda/softmax_xent.h"
#include "models/cuda/context.h"
#include "models/cuda/memory.h"

namespace scalebench {

struct GpuLoss::Buffers {
  cuda::DeviceBuffer labels, weights, pred;  // int32 [positions], f32 [classes], int32 [positions]
};

namespace {
SoftmaxXentParams xent_params(const Tensor& logits) {
  SB_CHECK(logits.rank() == 4 || logits.rank() == 2, "loss: logits must be [n,C,h,w] or [n,C], got {}",
           to_string(logits.shape()));
  SB_CHECK(logits.layout() == Layout::NCHW || logits.rank() == 2, "loss: device logits must be NCHW");
  SoftmaxXentParams p;
  p.n = int(logits.dim(0));
  p.classes = int(logits.dim(1));
  p.hw = int(logits.numel() / (std::int64_t(p.n) * p.classes));
  return p;
}
// Grows b on g's device. Every GpuLoss call ends with a host copy on g's stream, so no queued work
// still uses the buffer being replaced.
void ensure(const GpuContext& g, cuda::DeviceBuffer& b, std::size_t bytes) {
  if (b.bytes() < bytes) b = cuda::DeviceBuffer(bytes, g.device());
}
}  // namespace

GpuLoss::GpuLoss(GpuContext& g) : g_(g), b_(std::make_unique<Buffers>()) {}
GpuLoss::~GpuLoss() = default;

double GpuLoss::operator()(const Tensor& logits, const std::int32_t* labels_host,
                           const std::vector<float>& class_weights, Tensor* dlogits) {
  const auto p = xent_params(logits);
  const std::size_t positions = std::size_t(p.n) * std::size_t(p.hw);
  ensure(g_, b_->labels, positions * sizeof(std::int32_t));
  cuda::copy_to_device(b_->labels.data(), labels_host, positions * sizeof(std::int32_t), g_.stream());
  const float* w = nullptr;
  if (!class_weights.empty()) {
    SB_CHECK(int(class_weights.size()) == p.classes, "loss: {} class weights for {} classes", class_weights.size(),
             p.classes);
    ensure(g_, b_->weights, class_weights.size() * sizeof(float));
    cuda::copy_to_device(b_->weights.data(), class_weights.data(), class_weights.size() * sizeof(float), g_.stream());
    w = b_->weights.as<float>();
  }
  void* dl = nullptr;
  if (dlogits) {
    if (!dlogits->defined() || dlogits->shape() != logits.shape() || dlogits->dtype() != logits.dtype() ||
        dlogits->device() != logits.device())
      *dlogits = gpu_zeros(g_, logits.shape(), logits.dtype(), Layout::NCHW);
    dl = dlogits->raw();
  }
  return cuda::softmax_xent(p, logits.dtype(), logits.raw(), b_->labels.as<std::int32_t>(), w, dl,
                            g_.workspace(), g_.stream());
}

std::vector<std::int32_t> GpuLoss::predict(const Tensor& logits) {
  const auto p = xent_params(logits);
  const std::size_t positions = std::size_t(p.n) * std::size_t(p.hw);
  ensure(g_, b_->pred, positions * sizeof(std::int32_t));
  cuda::argmax_classes(p, logits.dtype(), logits.raw(), b_->pred.as<std::int32_t>(), g_.stream());
  return cuda::download<std::int32_t>(b_->pred.data(), positions, g_.stream());
}

}  // namespace scalebench
