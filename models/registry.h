// registry.h — the one place that maps (layer kind, backend) to a concrete layer class.
// An explicit switch, not self-registration: what exists is readable in one file, models/layers.def,
// from which the switches of registry.cpp (CPU) and models/cuda/registry.cpp (GPU) are made.
#pragma once

#include <memory>

#include "models/layer.h"

namespace scalebench {

class GpuContext;  // models/cuda/context.h

bool supports(LayerKind kind, Backend backend);
// Throws scalebench::Error naming the kind and backend when unsupported. `gpu` is required for
// Backend::cuda (the layer keeps a reference to it) and ignored on the CPU.
std::unique_ptr<Layer> make_layer(const LayerDesc& desc, Backend backend, GpuContext* gpu = nullptr);
// The GPU layer of desc's kind: models/cuda/registry.cpp in CUDA builds; models/nocuda/ otherwise
// (which throws that the build has no CUDA backend).
std::unique_ptr<Layer> make_gpu_layer(const LayerDesc& desc, GpuContext& gpu);

}  // namespace scalebench
