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

std::unique_ptr<Layer> conv2d(const LayerDesc& d, GpuContext& g);
std::unique_ptr<Layer> upconv2x2(const LayerDesc& d, GpuContext& g);
std::unique_ptr<Layer> maxpool2x2(const LayerDesc& d, GpuContext& g);
std::unique_ptr<Layer> relu(const LayerDesc& d, GpuContext& g);
std::unique_ptr<Layer> concat_crop(const LayerDesc& d, GpuContext& g);
std::unique_ptr<Layer> batchnorm(const LayerDesc& d, GpuContext& g);
std::unique_ptr<Layer> linear(const LayerDesc& d, GpuContext& g);
std::unique_ptr<Layer> dropout(const LayerDesc& d, GpuContext& g);

}  // namespace scalebench::gpu_layers
