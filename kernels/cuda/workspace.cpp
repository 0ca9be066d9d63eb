// workspace.cpp — Workspace growth and release (see workspace.h). The destructor never throws: a
// failing cudaFree at teardown is ignored (the context is usually being torn down too).
#include "kernels/cuda/workspace.h"

#include <algorithm>
#include <utility>

#include "kernels/cuda/check.h"
#include "kernels/cuda/counters.h"

namespace scalebench::cuda {

namespace {
constexpr std::size_t kMiB = std::size_t(1) << 20;
double mib(std::size_t b) { return double(b) / double(kMiB); }
}  // namespace

Workspace::Workspace(std::size_t cap_bytes) : cap_(cap_bytes) {}

std::size_t Workspace::cap() const {
  if (cap_ != kFromFreeMemory) return cap_;
  std::size_t free = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return size_ + (free > kFreeReserve ? (free - kFreeReserve) / 2 : 0);
}

Workspace::~Workspace() { release(); }

Workspace::Workspace(Workspace&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      cap_(other.cap_),
      device_(std::exchange(other.device_, -1)) {}

Workspace& Workspace::operator=(Workspace&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    cap_ = other.cap_;
    device_ = std::exchange(other.device_, -1);
  }
  return *this;
}

void Workspace::release() noexcept {
  if (data_) {
    count_free();
    (void)cudaFree(data_);
  }
  data_ = nullptr;
  size_ = 0;
}

void* Workspace::get(std::size_t bytes) {
  if (bytes <= size_) return data_;
  const std::size_t cap_now = cap();
  if (bytes > cap_now)
    fail_at(__FILE__, __LINE__,
            fmt::format("cuDNN workspace of {:.1f} MiB requested, above the workspace cap of {:.1f} MiB "
                        "({} > {} bytes{}); raise the cap or choose algorithms under it",
                        mib(bytes), mib(cap_now), bytes, cap_now,
                        from_free_memory() ? ", half of the GPU's free memory beyond 1 GiB" : ""));
  int dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  if (data_) {
    SB_CHECK(dev == device_, "cuDNN workspace grown on device {} but allocated on device {}", dev, device_);
    // Kernels queued on any stream of this device may still read the old block.
    count_sync();
    CUDA_CHECK(cudaDeviceSynchronize());
    count_free();
    CUDA_CHECK(cudaFree(data_));
    data_ = nullptr;
    size_ = 0;
  }
  // Round up to whole MiB (not past the cap) so slightly larger later requests reuse the block.
  const std::size_t want = std::min(cap_now, (bytes + kMiB - 1) / kMiB * kMiB);
  void* p = nullptr;
  count_allocation();
  const cudaError_t e = cudaMalloc(&p, want);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // out-of-memory is not sticky; clear it so later calls do not see it
    fail_at(__FILE__, __LINE__,
            fmt::format("cudaMalloc of a {:.1f} MiB cuDNN workspace failed: {} (cap {:.1f} MiB)", mib(want),
                        cudaGetErrorString(e), mib(cap_now)));
  }
  data_ = p;
  size_ = want;
  device_ = dev;
  return data_;
}

}  // namespace scalebench::cuda
