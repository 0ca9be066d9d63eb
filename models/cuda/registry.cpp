// registry.cpp — the GPU half of models/registry.h: kind → GPU layer (CUDA builds only), one case
// per kind of models/layers.def.
#include "models/registry.h"

#include "models/cuda/layers.h"

namespace scalebench {

std::unique_ptr<Layer> make_gpu_layer(const LayerDesc& d, GpuContext& gpu) {
  switch (d.kind) {
#define SB_LAYER(kind, what) \
  case LayerKind::kind: return gpu_layers::kind(d, gpu);
#include "models/layers.def"
#undef SB_LAYER
  }
  fail_input("unknown layer kind");
}

}  // namespace scalebench
