// layers.h — factories for the cuda backend's layers, one file in models/cuda/ each (CUDA builds
// only; models/cuda/registry.cpp calls them). Every layer keeps the CPU layer's
// semantics (kernels/cpu/*, models/*_cpu.cpp) and the rules of models/cuda/context.h: f32 arenas in
// the CPU's layout, activations in the context's dtype and layout. Each layer holds the GpuContext
// it was made with; it must outlive the layer.
#pragma once

#include <memory>
#include <vector>

#include "models/layer.h"

namespace scalebench {
class GpuContext;
}

namespace scalebench::gpu_layers {

// One factory per kind of models/layers.def, defined in its models/cuda/<kind>.cpp.
#define SB_LAYER(kind, what) std::unique_ptr<Layer> kind(const LayerDesc& d, GpuContext& g);
#include "models/layers.def"
#undef SB_LAYER

}  // namespace scalebench::gpu_layers
