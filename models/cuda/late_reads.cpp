// late_reads.cpp — the cuda LateReads (models/late_reads.h): per slot, timing events made once and
// recorded on the device's stream at the step's marks, and a NonfiniteFlag at a fixed device address
// whose copy back into page-locked memory is queued behind the scan. Nothing here allocates or
// creates anything after construction, and nothing drains the stream: wait() waits for a slot's
// last event only (a step old by the time it is asked; counted as a lagged wait when not done).
// What it deliberately does not do: choose slots or read them in order (harness/train/late_steps.h).
#include <cuda_runtime.h>

#include <vector>

#include "kernels/cuda/check.h"
#include "kernels/cuda/counters.h"
#include "kernels/cuda/device_buffer.h"
#include "kernels/cuda/nonfinite_flag.h"
#include "kernels/cuda/pinned.h"
#include "models/cuda/context.h"
#include "models/late_reads.h"

namespace scalebench {
namespace {

class CudaLateReads final : public LateReads {
 public:
  CudaLateReads(GpuContext& g, int marks)
      : g_(g),
        marks_(marks),
        flags_(sizeof(cuda::NonfiniteFlag) * kSlots, g.device()),
        host_(sizeof(cuda::NonfiniteFlag) * kSlots) {
    SB_CHECK(marks >= 2 && marks <= 32, "LateReads: {} marks per slot (2 to 32)", marks);
    CUDA_CHECK(cudaSetDevice(g.device()));
    events_.assign(std::size_t(kSlots * marks), nullptr);
    for (auto& e : events_) CUDA_CHECK(cudaEventCreate(&e));  // timing enabled
  }
  ~CudaLateReads() override {  // failures at teardown have no one to report to
    for (auto e : events_)
      if (e) cudaEventDestroy(e);
  }

  // Mark 0 starts the slot afresh: what it held was read (LateSteps settles a slot before reusing it).
  void mark(int slot, int k) override {
    const cudaEvent_t e = event(slot, k);
    if (k == 0) recorded_[slot] = 0, scanned_[slot] = false;
    CUDA_CHECK(cudaEventRecord(e, g_.stream()));
    recorded_[slot] |= 1u << k;
  }

  void scan(int slot, const float* x, std::int64_t n) override {
    checked_slot(slot);
    cuda::NonfiniteFlag* d = flags_.as<cuda::NonfiniteFlag>() + slot;
    cuda::scan_nonfinite(n, x, d, g_.stream());
    CUDA_CHECK(cudaMemcpyAsync(host_.as<cuda::NonfiniteFlag>() + slot, d, sizeof *d, cudaMemcpyDeviceToHost,
                               g_.stream()));
    scanned_[slot] = true;  // the copy is before the slot's last mark, which wait() waits for
  }

  // The slot's last recorded mark follows everything queued for it (the marks and the scan's copy
  // are on one stream, in order).
  void wait(int slot) override {
    checked_slot(slot);
    SB_CHECK(recorded_[slot] != 0, "LateReads::wait: slot {} has no marks", slot);
    int last = 0;
    for (int k = 0; k < marks_; ++k)
      if (recorded_[slot] & (1u << k)) last = k;
    const cudaEvent_t e = event(slot, last);
    const cudaError_t st = cudaEventQuery(e);
    if (st == cudaErrorNotReady) {
      cuda::count_lagged_wait();
      CUDA_CHECK(cudaEventSynchronize(e));
    } else {
      CUDA_CHECK(st);
    }
  }

  double seconds(int slot, int from, int to) override {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, event(slot, from), event(slot, to)));
    return double(ms) * 1e-3;
  }

  NonFinite scanned(int slot) override {
    if (!scanned_[checked_slot(slot)]) return {};
    const cuda::NonfiniteFlag& f = host_.as<cuda::NonfiniteFlag>()[slot];
    if (f.index == ~0ull) return {};
    return {std::int64_t(f.index), f.value};
  }

 private:
  static int checked_slot(int slot) {
    SB_CHECK(slot >= 0 && slot < kSlots, "LateReads: slot {} out of range", slot);
    return slot;
  }
  cudaEvent_t event(int slot, int k) const {
    SB_CHECK(slot >= 0 && slot < kSlots && k >= 0 && k < marks_, "LateReads: slot {} mark {} out of range", slot, k);
    return events_[std::size_t(slot * marks_ + k)];
  }
  GpuContext& g_;
  const int marks_;
  cuda::DeviceBuffer flags_;  // kSlots NonfiniteFlags
  cuda::PinnedBuffer host_;   // their copies
  std::vector<cudaEvent_t> events_;
  unsigned recorded_[kSlots] = {};  // which marks of each slot were recorded since it was last read
  bool scanned_[kSlots] = {};
};

}  // namespace

std::unique_ptr<LateReads> make_late_reads(ComputeDevice& dev, int marks) {
  GpuContext* g = dev.gpu();
  if (!g) return nullptr;
  return std::make_unique<CudaLateReads>(*g, marks);
}

}  // namespace scalebench
