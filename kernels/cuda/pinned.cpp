// pinned.cpp — PinnedBuffer and Event (see pinned.h).
// Destructors cannot throw: a failing cudaFreeHost / cudaEventDestroy there is dropped.
#include "kernels/cuda/pinned.h"

#include <utility>

#include "kernels/cuda/check.h"
#include "kernels/cuda/counters.h"

namespace scalebench::cuda {

PinnedBuffer::PinnedBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  count_allocation();
  CUDA_CHECK(cudaMallocHost(&p_, bytes));
}

PinnedBuffer::~PinnedBuffer() {
  if (!p_) return;
  count_free();
  (void)cudaFreeHost(p_);
}

PinnedBuffer::PinnedBuffer(PinnedBuffer&& o) noexcept
    : p_(std::exchange(o.p_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& o) noexcept {
  if (this != &o) {
    if (p_) {
      count_free();
      (void)cudaFreeHost(p_);
    }
    p_ = std::exchange(o.p_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

Event::Event() { CUDA_CHECK(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming)); }

Event::~Event() {
  if (e_) (void)cudaEventDestroy(e_);
}

void Event::record(cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(e_, stream)); }

bool Event::done() const {
  const cudaError_t st = cudaEventQuery(e_);
  if (st == cudaErrorNotReady) return false;
  CUDA_CHECK(st);
  return true;
}

void Event::wait() const {
  if (done()) return;
  count_lagged_wait();
  CUDA_CHECK(cudaEventSynchronize(e_));
}

}  // namespace scalebench::cuda
