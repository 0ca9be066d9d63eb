// registry.cpp — the GPU half of models/registry.h: kind → GPU layer (CUDA builds only).
#include "models/registry.h"

#include "models/cuda/layers.h"

namespace scalebench {

std::unique_ptr<Layer> make_gpu_layer(const LayerDesc& d, GpuContext& gpu) {
  switch (d.kind) {
    case LayerKind::conv2d: return gpu_layers::conv2d(d, gpu);
    case LayerKind::upconv2x2: return gpu_layers::upconv2x2(d, gpu);
    case LayerKind::maxpool2x2: return gpu_layers::maxpool2x2(d, gpu);
    case LayerKind::relu: return gpu_layers::relu(d, gpu);
    case LayerKind::concat_crop: return gpu_layers::concat_crop(d, gpu);
    case LayerKind::batchnorm: return gpu_layers::batchnorm(d, gpu);
    case LayerKind::linear: return gpu_layers::linear(d, gpu);
    case LayerKind::dropout: return gpu_layers::dropout(d, gpu);
  }
  fail_input("unknown layer kind");
}

}  // namespace scalebench
