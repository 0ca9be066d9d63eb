// stager.cpp — the CUDA DeviceStager (kernels/common/device.h) for the staged transport
// (harness/comm/staged.h): copies between one GPU's memory and page-locked host blocks, on a
// non-blocking stream of its own, each first made to wait (cudaStreamWaitEvent) for what the rank's
// compute stream had queued when the copy was asked for — so a bucket's gradient is read after the
// backward kernels that wrote it, without synchronising the compute stream. wait() polls the copy
// stream against the deadline (an Error naming the GPU, never a hang). cudaMemcpyDefault lets the
// same call take a host pointer on the "device" side (a header struct), which UVA resolves.
// CUDA builds only. What it deliberately does not do: pick the GPU (its caller's index), or order
// the compute stream after the copies back (the transport's calls are host-synchronous: they return
// once wait() did, before any later kernel reads the buffer).
#include <cuda_runtime.h>

#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "kernels/cuda/check.h"
#include "kernels/cuda/device.h"
#include "models/cuda/stager.h"

namespace scalebench {
namespace {

class CudaStager final : public DeviceStager {
 public:
  CudaStager(int device, cudaStream_t compute, double timeout_s)
      : device_(device), compute_(compute), timeout_s_(timeout_s) {
    cuda::DeviceGuard g(device_);
    CUDA_CHECK(cudaStreamCreateWithFlags(&copies_, cudaStreamNonBlocking));
    const cudaError_t e = cudaEventCreateWithFlags(&queued_, cudaEventDisableTiming);
    if (e != cudaSuccess) {
      (void)cudaStreamDestroy(copies_);
      CUDA_CHECK(e);
    }
  }
  ~CudaStager() override {
    // Nothing may be in flight into a block about to be freed: drain, errors ignored (teardown).
    (void)cudaStreamSynchronize(copies_);
    (void)cudaEventDestroy(queued_);
    (void)cudaStreamDestroy(copies_);
  }

  void* host_alloc(std::size_t bytes) override {
    cuda::DeviceGuard g(device_);
    void* p = nullptr;
    CUDA_CHECK(cudaHostAlloc(&p, bytes == 0 ? 1 : bytes, cudaHostAllocPortable));
    return p;
  }
  void host_free(void* p) noexcept override {
    if (p != nullptr) (void)cudaFreeHost(p);
  }
  void to_host(void* host, const void* src, std::size_t bytes) override { queue(host, src, bytes); }
  void from_host(void* dst, const void* host, std::size_t bytes) override { queue(dst, host, bytes); }

  void wait() override {
    const auto start = std::chrono::steady_clock::now();
    for (int polls = 0;; ++polls) {
      const cudaError_t st = cudaStreamQuery(copies_);
      if (st == cudaSuccess) return;
      if (st != cudaErrorNotReady) CUDA_CHECK(st);
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      SB_REQUIRE(waited < timeout_s_, "staged transport: a copy between cuda:{} and the host did not finish within "
                 "{:.0f} s (the GPU is hung or the compute stream before it never ends)", device_, timeout_s_);
      if (polls > 64) std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }

 private:
  void queue(void* dst, const void* src, std::size_t bytes) {
    if (bytes == 0 || dst == src) return;
    cuda::DeviceGuard g(device_);
    CUDA_CHECK(cudaEventRecord(queued_, compute_));
    CUDA_CHECK(cudaStreamWaitEvent(copies_, queued_, 0));
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, copies_));
  }

  int device_;
  cudaStream_t compute_;
  double timeout_s_;
  cudaStream_t copies_ = nullptr;
  cudaEvent_t queued_ = nullptr;
};

}  // namespace

std::unique_ptr<DeviceStager> make_cuda_stager(int device, cudaStream_t compute, double timeout_s) {
  return std::make_unique<CudaStager>(device, compute, timeout_s);
}

}  // namespace scalebench
