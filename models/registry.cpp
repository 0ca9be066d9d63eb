// registry.cpp — (kind, backend) → layer. The cuda backend exists only in CUDA builds; every layer
// kind has a GPU layer there (models/cuda/registry.cpp).
#include "models/registry.h"

#include "models/cpu_layers.h"
#include "models/device.h"

namespace scalebench {

const char* to_string(Backend b) { return name_of(b).data(); }

const char* to_string(LayerKind k) {
  switch (k) {
    case LayerKind::conv2d: return "conv2d";
    case LayerKind::upconv2x2: return "upconv2x2";
    case LayerKind::maxpool2x2: return "maxpool2x2";
    case LayerKind::relu: return "relu";
    case LayerKind::concat_crop: return "concat_crop";
    case LayerKind::batchnorm: return "batchnorm";
    case LayerKind::linear: return "linear";
    case LayerKind::dropout: return "dropout";
  }
  return "?";
}

bool supports(LayerKind, Backend backend) { return backend == Backend::cpu || cuda_backend_built(); }

std::unique_ptr<Layer> make_layer(const LayerDesc& d, Backend backend, GpuContext* gpu) {
  SB_REQUIRE(supports(d.kind, backend), "layer {} is not available on backend {} in this build{}",
             to_string(d.kind), to_string(backend),
             backend == Backend::cuda ? " (built without CUDA: configure with nvcc on PATH)" : "");
  if (backend == Backend::cuda) {
    SB_CHECK(gpu != nullptr, "layer {}: the cuda backend needs a GpuContext", to_string(d.kind));
    return make_gpu_layer(d, *gpu);
  }
  switch (d.kind) {
    case LayerKind::conv2d: return cpu_layers::conv2d(d);
    case LayerKind::upconv2x2: return cpu_layers::upconv2x2(d);
    case LayerKind::maxpool2x2: return cpu_layers::maxpool2x2(d);
    case LayerKind::relu: return cpu_layers::relu(d);
    case LayerKind::concat_crop: return cpu_layers::concat_crop(d);
    case LayerKind::batchnorm: return cpu_layers::batchnorm(d);
    case LayerKind::linear: return cpu_layers::linear(d);
    case LayerKind::dropout: return cpu_layers::dropout(d);
  }
  fail_input("unknown layer kind");
}

namespace cpu_layers {
void require_nchw(const char* layer, const std::vector<Shape>& in, std::size_t count) {
  SB_REQUIRE(in.size() == count, "{}: expected {} input(s), got {}", layer, count, in.size());
  for (const auto& s : in)
    SB_REQUIRE(s.size() == 4, "{}: expected an [n,c,h,w] input, got {}", layer, to_string(s));
}
}  // namespace cpu_layers

}  // namespace scalebench
