// memory.cpp — device tensors and copies for plain C++ callers (see memory.h).
// Not here: pinned memory, pools, peer copies between devices.
#include "models/cuda/memory.h"

#include <cuda_runtime.h>

#include "kernels/cuda/add.h"
#include "kernels/cuda/cast.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/counters.h"
#include "kernels/cudnn/transform.h"
#include "models/cuda/context.h"

namespace scalebench {

void GpuContextDeleter::operator()(GpuContext* g) const { delete g; }

GpuContextPtr make_gpu_context(int device, Precision precision, Layout layout, bool deterministic,
                               std::size_t workspace_cap_bytes, GpuKernels kernels) {
  GpuOptions o;
  o.device = device;
  o.precision = precision;
  o.layout = layout;
  o.deterministic = deterministic;
  o.workspace_cap = workspace_cap_bytes;
  o.kernels = kernels;
  return GpuContextPtr(new GpuContext(o));
}

namespace {

void require_on(const GpuContext& g, const Tensor& t, const char* what) {
  SB_CHECK(!t.device().is_cpu() && t.device().index == g.device(), "{}: tensor is not on GPU {}", what,
           g.device());
}

void require_same(const Tensor& a, const Tensor& b, const char* what) {
  SB_CHECK(a.shape() == b.shape(), "{}: shapes {} and {} differ", what, to_string(a.shape()), to_string(b.shape()));
}

}  // namespace

Tensor gpu_zeros(GpuContext& g, Shape shape, DType dtype, Layout layout) {
  const std::size_t bytes = std::size_t(numel(shape)) * dtype_size(dtype);
  void* p = nullptr;
  CUDA_CHECK(cudaSetDevice(g.device()));
  if (bytes) {
    cuda::count_allocation();
    CUDA_CHECK(cudaMalloc(&p, bytes));
    const cudaError_t st = cudaMemsetAsync(p, 0, bytes, g.stream());
    if (st != cudaSuccess) {
      cudaFree(p);
      CUDA_CHECK(st);
    }
  }
  std::shared_ptr<std::byte[]> storage(static_cast<std::byte*>(p), [](std::byte* q) {
    if (!q) return;
    cuda::count_free();
    cudaFree(q);  // a free failing at teardown has no one left to report to
  });
  return Tensor::adopt(std::move(storage), bytes, std::move(shape), dtype, Device::cuda(g.device()), layout);
}

Tensor gpu_activation(GpuContext& g, const Shape& shape) {
  return gpu_zeros(g, shape, g.act_dtype(), shape.size() == 4 ? g.layout() : Layout::NCHW);
}
DType gpu_act_dtype(const GpuContext& g) { return g.act_dtype(); }
Layout gpu_layout(const GpuContext& g) { return g.layout(); }
int gpu_device(const GpuContext& g) { return g.device(); }
void gpu_synchronize(const GpuContext& g) { g.synchronize(); }

void gpu_copy(GpuContext& g, const Tensor& src, Tensor& dst) {
  require_on(g, src, "gpu_copy");
  require_on(g, dst, "gpu_copy");
  require_same(src, dst, "gpu_copy");
  SB_CHECK(src.dtype() == dst.dtype() && src.layout() == dst.layout(), "gpu_copy: dtype or layout differ");
  if (src.raw() != dst.raw())
    CUDA_CHECK(cudaMemcpyAsync(dst.raw(), src.raw(), src.nbytes(), cudaMemcpyDeviceToDevice, g.stream()));
}

void gpu_add(GpuContext& g, Tensor& dst, const Tensor& src) {
  require_on(g, src, "gpu_add");
  require_on(g, dst, "gpu_add");
  require_same(src, dst, "gpu_add");
  SB_CHECK(src.dtype() == dst.dtype() && src.layout() == dst.layout(), "gpu_add: dtype or layout differ");
  cuda::add_inplace(dst.numel(), dst.dtype(), dst.raw(), src.raw(), g.stream());
}

void gpu_convert(GpuContext& g, const Tensor& src, Tensor& dst) {
  require_on(g, src, "gpu_convert");
  require_on(g, dst, "gpu_convert");
  require_same(src, dst, "gpu_convert");
  const bool relayout = src.rank() == 4 && src.layout() != dst.layout();
  if (!relayout) {
    cuda::cast(src.numel(), src.dtype(), src.raw(), dst.dtype(), dst.raw(), g.stream());
    return;
  }
  const int n = int(src.dim(0)), c = int(src.dim(1)), h = int(src.dim(2)), w = int(src.dim(3));
  if (src.dtype() == dst.dtype()) {
    cudnn::transform_layout(g.cudnn(), src.dtype(), n, c, h, w, src.layout(), src.raw(), dst.layout(), dst.raw());
    return;
  }
  // Both a cast and a relayout: cast first into the context's kept scratch, in the source layout
  // (no allocation and no wait once it is large enough: the batch's conversion every step).
  void* tmp = g.convert_scratch(std::size_t(src.numel()) * dtype_size(dst.dtype()));
  cuda::cast(src.numel(), src.dtype(), src.raw(), dst.dtype(), tmp, g.stream());
  cudnn::transform_layout(g.cudnn(), dst.dtype(), n, c, h, w, src.layout(), tmp, dst.layout(), dst.raw());
}

void gpu_upload(GpuContext& g, const Tensor& host, Tensor& device) {
  SB_CHECK(host.device().is_cpu(), "gpu_upload: source is not a host tensor");
  require_on(g, device, "gpu_upload");
  SB_CHECK(host.nbytes() == device.nbytes(), "gpu_upload: {} bytes into {}", host.nbytes(), device.nbytes());
  cuda::copy_to_device(device.raw(), host.raw(), host.nbytes(), g.stream());
}

void gpu_download(GpuContext& g, const Tensor& device, Tensor& host) {
  SB_CHECK(host.device().is_cpu(), "gpu_download: destination is not a host tensor");
  require_on(g, device, "gpu_download");
  SB_CHECK(host.nbytes() == device.nbytes(), "gpu_download: {} bytes into {}", device.nbytes(), host.nbytes());
  cuda::copy_to_host(host.raw(), device.raw(), device.nbytes(), g.stream());
}

}  // namespace scalebench
