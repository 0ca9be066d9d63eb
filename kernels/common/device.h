// device.h — ComputeDevice: the operations training needs outside the layers (DESIGN §9b), behind
// one type with a CPU implementation (kernels/cpu/device.cpp) and a CUDA one (models/cuda/device.cpp,
// CUDA builds only; made by models/device.h's make_device). Memory (zeros, activations in the compute
// form, host/device transfers, copies, casts and relayouts), f32 arithmetic over arrays (fill, scale,
// axpy, add), reductions to the host (dot, per-tensor sums of squares, the first non-finite element),
// the loss, the optimizer steps, and timing marks. Pointers and tensors are on this device; results
// that are scalars come back to the host (a synchronisation on a GPU).
// The CPU implementation is the specification: each op is exactly the loop the training core ran
// before this interface existed, so CPU results did not change by a bit.
// Every op is also a line of device_ops.def, the list the tests hold each device to (an op missing
// there fails to compile in tests/models/test_device_ops.cpp).
// What it deliberately does not do: layers (models/layer.h), communication (harness/comm), choosing
// which backend a run uses (train options), or any allocation policy beyond "one tensor, one block".
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/tensor.h"

namespace scalebench {

class GpuContext;  // models/cuda/context.h: what GPU layers share (cuda only)

// Where the first non-finite element of an array is (index -1: every element is finite).
struct NonFinite {
  std::int64_t index = -1;
  float value = 0;
};

// A point on the device's timeline, recorded behind the work queued so far (a CUDA event; on the
// CPU the host clock at the call). host_time is the host's steady clock when the mark was taken
// (on the CPU the mark itself), so host timelines (train --trace) can start where the clock did.
class DeviceMark {
 public:
  virtual ~DeviceMark() = default;
  const std::chrono::steady_clock::time_point host_time = std::chrono::steady_clock::now();
};

// A transport's copy queue between a device's memory and host memory (harness/comm/staged.h: device
// buffers exchanged through the host). A copy waits for the work the device had queued when it was
// asked for (an event on the compute stream on a GPU), runs on a queue of its own, and is complete
// once wait() returns. `src`/`dst` on the device side may also be host memory (a header struct on
// the stack): the copy then is a plain one. Host blocks come from host_alloc (page-locked on a GPU,
// so copies run at the link's speed and asynchronously). One per communication thread: not
// thread-safe. The CPU's (cpu::make_host_stager) is memcpy and new; the CUDA one is in
// models/cuda/stager.cpp.
class DeviceStager {
 public:
  virtual ~DeviceStager() = default;
  virtual void* host_alloc(std::size_t bytes) = 0;  // at least `bytes`, 256-byte aligned
  virtual void host_free(void* p) noexcept = 0;
  virtual void to_host(void* host, const void* src, std::size_t bytes) = 0;
  virtual void from_host(void* dst, const void* host, std::size_t bytes) = 0;
  virtual void wait() = 0;  // every copy queued so far is complete (Error past timeout_s on a GPU)
};

class StepGraph;  // below

class ComputeDevice {
 public:
  virtual ~ComputeDevice() = default;
  virtual Device where() const = 0;                 // cpu, or cuda:k
  virtual GpuContext* gpu() { return nullptr; }     // the GPU layers' context (cuda), else null
  virtual DType act_dtype() const { return DType::f32; }       // activations' dtype
  virtual Layout act_layout() const { return Layout::NCHW; }   // activations' layout ([n,c,h,w])

  // Memory. zeros: a zero-filled tensor on this device. activation: zeros in the compute form
  // (act_dtype, act_layout for rank 4). upload/download: the same byte count between a host tensor
  // and one of this device (both return once complete). copy: same shape, dtype and layout.
  // convert: dtype and (rank 4) layout conversion between tensors of the same shape.
  virtual Tensor zeros(Shape shape, DType dtype = DType::f32, Layout layout = Layout::NCHW) = 0;
  Tensor activation(const Shape& shape) { return zeros(shape, act_dtype(), shape.size() == 4 ? act_layout() : Layout::NCHW); }
  virtual void upload(const Tensor& host, Tensor& dst) = 0;
  // The same without waiting where the device can (cuda: through two alternating page-locked
  // buffers, the copy queued on the stream; host may be reused on return). The default is upload().
  virtual void upload_async(const Tensor& host, Tensor& dst) { upload(host, dst); }
  virtual void download(const Tensor& src, Tensor& host) = 0;
  virtual void copy(const Tensor& src, Tensor& dst) = 0;
  virtual void convert(const Tensor& src, Tensor& dst) = 0;
  Tensor to_host(const Tensor& t);  // a host f32 copy of an f32 tensor of this device

  // f32 arrays of this device. axpy: y += a·x (a = 1: y + x exactly, the gradient sums).
  virtual void fill(float* x, std::int64_t n, float v) = 0;
  virtual void scale(float* x, std::int64_t n, float s) = 0;
  virtual void axpy(std::int64_t n, float a, const float* x, float* y) = 0;
  virtual void add(Tensor& dst, const Tensor& src) = 0;  // dst += src, activations (any dtype)
  void scale(Tensor& t, float s);                        // t *= s, any dtype (math in f32)

  // Reductions, accumulated in double, returned to the host.
  virtual double dot(std::int64_t n, const float* a, const float* b) = 0;
  struct Segment {
    std::int64_t offset = 0, count = 0;
  };
  // Σ x² over each segment of x (per-tensor squared norms of an arena).
  virtual std::vector<double> sum_squares(const float* x, const std::vector<Segment>& segments) = 0;
  virtual NonFinite first_nonfinite(const float* x, std::int64_t n) = 0;

  // Softmax cross-entropy (models/loss.h semantics): logits [n,C,h,w] or [n,C] of this device
  // (NCHW), labels on the host; dlogits (nullable) is (re)allocated like logits and overwritten.
  virtual double softmax_xent(const Tensor& logits, const std::int32_t* labels_host,
                              const std::vector<float>& class_weights, Tensor* dlogits) = 0;
  virtual std::vector<std::int32_t> argmax_classes(const Tensor& logits) = 0;  // on the host
  // The same loss read one step late (cuda: labels up from page-locked memory, no wait): returns the
  // previous call's loss, NaN for the first. loss_lag() is 1 where it lags; a device that does not
  // queue (the CPU) computes it at once (lag 0). softmax_xent_last() reads the last queued one (NaN:
  // none pending). Split for a captured step (StepGraph): stage the labels (outside the capture),
  // compute (inside), publish (outside: the sums' copy back; returns the previous loss).
  virtual int loss_lag() const { return 0; }
  virtual double softmax_xent_late(const Tensor& logits, const std::int32_t* labels_host,
                                   const std::vector<float>& class_weights, Tensor* dlogits) {
    return softmax_xent(logits, labels_host, class_weights, dlogits);
  }
  virtual double softmax_xent_last();
  virtual void softmax_xent_stage(const std::int32_t* labels_host, std::int64_t positions);
  virtual void softmax_xent_compute(const Tensor& logits, const std::vector<float>& class_weights, Tensor* dlogits);
  virtual double softmax_xent_publish();
  // A captured step for this device (cuda: a CUDA graph), or null where there is none (the CPU).
  virtual std::unique_ptr<StepGraph> step_graph() { return nullptr; }

  // Optimizer steps over arrays of this device, the semantics of kernels/cpu/{optimizers,lars,lamb}.h
  // (lars/lamb return the trust ratio used; their norms are taken on this device).
  virtual void sgd_momentum_step(std::int64_t n, float* w, const float* g, float* m, float lr, float momentum,
                                 float weight_decay, bool first_step) = 0;
  virtual void adamw_step(std::int64_t n, float* w, const float* g, float* m, float* v, float lr, float beta1,
                          float beta2, float eps, float weight_decay, std::int64_t t) = 0;
  virtual double lars_step(std::int64_t n, float* w, const float* g, float* v, float lr, float momentum,
                           float weight_decay, float eta, bool adapt) = 0;
  virtual double lamb_step(std::int64_t n, float* w, const float* g, float* m, float* v, float lr, float beta1,
                           float beta2, float eps, float weight_decay, std::int64_t t, bool adapt) = 0;

  // A copy queue for a transport that stages this device's buffers through host memory
  // (DeviceStager); waits longer than timeout_s end with an Error. Made on the thread that uses it.
  virtual std::unique_ptr<DeviceStager> stager(double timeout_s) = 0;

  // Waits for everything queued. Timing: seconds on the device's timeline from a to b, waiting for b.
  virtual void synchronize() = 0;
  virtual std::unique_ptr<DeviceMark> mark() = 0;
  virtual double seconds_between(const DeviceMark& a, const DeviceMark& b) = 0;
};

// A step captured once and replayed (cuda: a CUDA graph on the device's stream; models/cuda/
// step_graph.cpp). capture() runs `step` once under capture — its work is recorded, not run — and
// returns "" or why it could not be captured (the device is usable after a failure, nothing of the
// step ran). replay() runs the captured work; split() (called inside `step`) marks a point whose
// time from the replay's start split_seconds() gives once the replay's end has been waited for.
class StepGraph {
 public:
  virtual ~StepGraph() = default;
  virtual std::string capture(const std::function<void()>& step) = 0;
  virtual bool ready() const = 0;
  virtual void replay() = 0;
  virtual void split() = 0;
  virtual double split_seconds() = 0;
};

// A phase clock on a device's timeline: lap() returns the seconds since the previous lap (or the
// clock's start) once the device has finished what was queued before the call, so work queued in
// one phase is not counted in the next (the phase timers of a step).
class DeviceClock {
 public:
  explicit DeviceClock(ComputeDevice& dev) : dev_(dev), last_(dev.mark()), started_(last_->host_time) {}
  // The host time of the clock's start: laps from here add up to the step's time, so a host
  // timeline laid from it (train --trace) ends where the last lap did.
  std::chrono::steady_clock::time_point started() const { return started_; }
  double lap() {
    auto now = dev_.mark();
    const double s = dev_.seconds_between(*last_, *now);
    last_ = std::move(now);
    return s;
  }

 private:
  ComputeDevice& dev_;
  std::unique_ptr<DeviceMark> last_;
  std::chrono::steady_clock::time_point started_;
};

namespace cpu {
std::unique_ptr<ComputeDevice> make_cpu_device();  // kernels/cpu/device.cpp
std::unique_ptr<DeviceStager> make_host_stager();   // kernels/cpu/stager.cpp: memcpy, aligned new
}

}  // namespace scalebench
