// memory.h — the device-memory operations of the cuda backend (what models/cuda/device.cpp serves as
// ComputeDevice, and GPU tests use), declared without any CUDA header. Defined in
// memory.cpp, which exists only in CUDA builds: callers are GPU folders and GPU tests (plain code
// uses ComputeDevice, kernels/common/device.h).
// Every call is ordered on the context's stream; uploads and downloads return once complete.
// Not here: pinned memory, pools, peer copies between devices.
#pragma once

#include <memory>

#include "kernels/common/gpu_kernels.h"
#include "kernels/common/precision.h"
#include "kernels/common/tensor.h"

namespace scalebench {

class GpuContext;
struct GpuOptions;

// A GpuContext behind a deleter plain C++ can run.
struct GpuContextDeleter {
  void operator()(GpuContext* g) const;
};
using GpuContextPtr = std::unique_ptr<GpuContext, GpuContextDeleter>;
GpuContextPtr make_gpu_context(int device, Precision precision, Layout layout, bool deterministic,
                               std::size_t workspace_cap_bytes, GpuKernels kernels);

// A zero-filled device tensor on g's device (cudaMalloc'd, freed with its last copy).
Tensor gpu_zeros(GpuContext& g, Shape shape, DType dtype, Layout layout);
// A zero-filled activation of g: its compute dtype, its layout for [n,c,h,w] (row-major otherwise).
Tensor gpu_activation(GpuContext& g, const Shape& shape);
// g's compute dtype and activation layout, for callers without the CUDA headers.
DType gpu_act_dtype(const GpuContext& g);
Layout gpu_layout(const GpuContext& g);
int gpu_device(const GpuContext& g);
void gpu_synchronize(const GpuContext& g);
// dst = src (same shape, dtype and layout; device to device).
void gpu_copy(GpuContext& g, const Tensor& src, Tensor& dst);
// dst += src (same shape, dtype and layout).
void gpu_add(GpuContext& g, Tensor& dst, const Tensor& src);
// dst = src converted: dtype (f32/bf16/f16) and, for 4-D tensors, memory layout. Shapes must match.
void gpu_convert(GpuContext& g, const Tensor& src, Tensor& dst);
// Host <-> device copies of the same byte count (host tensor CPU, device tensor on g's device).
void gpu_upload(GpuContext& g, const Tensor& host, Tensor& device);
void gpu_download(GpuContext& g, const Tensor& device, Tensor& host);

}  // namespace scalebench
