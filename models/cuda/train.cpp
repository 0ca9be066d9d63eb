// train.cpp — the device loss for the cuda backend (see train.h).
// Not here: loss scaling, the optimizers (models/optimizer.h).
#include "models/cuda/train.h"

#include <cstring>
#include <limits>

#include "kernels/cuda/check.h"
#include "kernels/cuda/device_buffer.h"
#include "kernels/cuda/pinned.h"
#include "kernels/cuda/softmax_xent.h"
#include "models/cuda/context.h"
#include "models/cuda/memory.h"

namespace scalebench {

struct GpuLoss::Buffers {
  cuda::DeviceBuffer labels, weights, pred;  // int32 [positions], f32 [classes], int32 [positions]
};

// queue()'s two alternating slots: a slot's page-locked labels and sums are in use from its stage()
// until the next-but-one, whose caller has by then read the slot (the previous publish() waited for
// its event), so reusing a slot never waits. The device labels and sums are one pair at fixed
// addresses, which a captured step (StepGraph) replays: a step's upload into them is queued after
// the previous step's kernels and its sums' copy back after its own, so one pair is enough.
struct GpuLoss::Queued {
  struct Slot {
    cuda::PinnedBuffer host_labels, host_sums;  // int32 [positions]; one XentSums
    cuda::Event copied;                         // the sums are in host_sums
    SoftmaxXentParams p;
    std::int64_t positions = -1;                // staged labels (-1: none staged)
    bool pending = false;
  };
  Slot slot[2];
  int next = 0;                 // the slot the next stage() fills
  cuda::DeviceBuffer labels, sums;  // int32 [positions]; one XentSums
  SoftmaxXentParams p;          // of the last compute() (a replayed graph computes with the captured one's)
  bool computed = false;        // compute() has run at least once
  std::vector<float> weights;   // the class weights on the device (uploaded when they change)
  cuda::DeviceBuffer d_weights;
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

GpuLoss::GpuLoss(GpuContext& g) : g_(g), b_(std::make_unique<Buffers>()), q_(std::make_unique<Queued>()) {}
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

double GpuLoss::queue(const Tensor& logits, const std::int32_t* labels_host, const std::vector<float>& class_weights,
                      Tensor* dlogits) {
  const auto p = xent_params(logits);
  stage(labels_host, std::int64_t(p.n) * p.hw);
  compute(logits, class_weights, dlogits);
  return publish();
}

void GpuLoss::stage(const std::int32_t* labels_host, std::int64_t positions) {
  Queued& q = *q_;
  Queued::Slot& sl = q.slot[q.next];
  SB_CHECK(!sl.pending, "GpuLoss::stage: slot {} still unread (mixed with operator() without last())", q.next);
  const std::size_t label_bytes = std::size_t(positions) * sizeof(std::int32_t);
  // Growing (warm-up only): the old blocks' last users are queued on the stream.
  if (sl.host_labels.bytes() < label_bytes || q.labels.bytes() < label_bytes || !q.sums.bytes() ||
      !sl.host_sums.bytes()) {
    g_.synchronize();
    if (sl.host_labels.bytes() < label_bytes) sl.host_labels = cuda::PinnedBuffer(label_bytes);
    if (q.labels.bytes() < label_bytes) q.labels = cuda::DeviceBuffer(label_bytes, g_.device());
    if (!sl.host_sums.bytes()) sl.host_sums = cuda::PinnedBuffer(sizeof(cuda::XentSums));
    if (!q.sums.bytes()) q.sums = cuda::DeviceBuffer(sizeof(cuda::XentSums), g_.device());
  }
  std::memcpy(sl.host_labels.data(), labels_host, label_bytes);
  CUDA_CHECK(cudaMemcpyAsync(q.labels.data(), sl.host_labels.data(), label_bytes, cudaMemcpyHostToDevice,
                             g_.stream()));
  sl.positions = positions;
}

void GpuLoss::compute(const Tensor& logits, const std::vector<float>& class_weights, Tensor* dlogits) {
  Queued& q = *q_;
  const auto p = xent_params(logits);
  SB_CHECK(q.slot[q.next].positions == std::int64_t(p.n) * p.hw, "GpuLoss::compute: {} labels staged for {} positions",
           q.slot[q.next].positions, std::int64_t(p.n) * p.hw);
  const float* w = nullptr;
  if (!class_weights.empty()) {
    SB_CHECK(int(class_weights.size()) == p.classes, "loss: {} class weights for {} classes", class_weights.size(),
             p.classes);
    if (class_weights != q.weights) {  // a new set (warm-up): uploaded once, synchronously
      g_.synchronize();
      q.d_weights = cuda::DeviceBuffer(class_weights.size() * sizeof(float), g_.device());
      cuda::copy_to_device(q.d_weights.data(), class_weights.data(), class_weights.size() * sizeof(float),
                           g_.stream());
      q.weights = class_weights;
    }
    w = q.d_weights.as<float>();
  }
  void* dl = nullptr;
  if (dlogits) {
    if (!dlogits->defined() || dlogits->shape() != logits.shape() || dlogits->dtype() != logits.dtype() ||
        dlogits->device() != logits.device())
      *dlogits = gpu_zeros(g_, logits.shape(), logits.dtype(), Layout::NCHW);
    dl = dlogits->raw();
  }
  cuda::softmax_xent_queue(p, logits.dtype(), logits.raw(), q.labels.as<std::int32_t>(), w, dl, g_.workspace(),
                           q.sums.as<cuda::XentSums>(), g_.stream());
  q.p = p;
  q.computed = true;
}

double GpuLoss::publish() {
  Queued& q = *q_;
  SB_CHECK(q.computed, "GpuLoss::publish: no loss computed yet");
  Queued::Slot& sl = q.slot[q.next];
  CUDA_CHECK(cudaMemcpyAsync(sl.host_sums.data(), q.sums.data(), sizeof(cuda::XentSums), cudaMemcpyDeviceToHost,
                             g_.stream()));
  sl.copied.record(g_.stream());
  sl.p = q.p;
  sl.pending = true;
  const int previous = 1 - q.next;
  q.next = previous;
  return q.slot[previous].pending ? read_slot(previous) : std::numeric_limits<double>::quiet_NaN();
}

double GpuLoss::last() {
  const int previous = 1 - q_->next;
  return q_->slot[previous].pending ? read_slot(previous) : std::numeric_limits<double>::quiet_NaN();
}

double GpuLoss::read_slot(int slot) {
  Queued::Slot& sl = q_->slot[slot];
  sl.copied.wait();  // that step's copy only: the stream keeps the later steps' work
  sl.pending = false;
  const cuda::XentSums sums = *sl.host_sums.as<cuda::XentSums>();
  return cuda::softmax_xent_finish_host(sl.p, sums, sl.host_labels.as<std::int32_t>());
}

std::vector<std::int32_t> GpuLoss::predict(const Tensor& logits) {
  const auto p = xent_params(logits);
  const std::size_t positions = std::size_t(p.n) * std::size_t(p.hw);
  ensure(g_, b_->pred, positions * sizeof(std::int32_t));
  cuda::argmax_classes(p, logits.dtype(), logits.raw(), b_->pred.as<std::int32_t>(), g_.stream());
  return cuda::download<std::int32_t>(b_->pred.data(), positions, g_.stream());
}

}  // namespace scalebench
