// registry.cpp — (kind, backend) → layer. The cuda backend exists only in CUDA builds; every layer
// kind has a GPU layer there (models/cuda/registry.cpp).
#include "models/registry.h"

#include "models/cpu_layers.h"
#include "models/device.h"

namespace scalebench {

const char* to_string(Backend b) { return name_of(b).data(); }

const char* to_string(LayerKind k) {
  switch (k) {
#define SB_LAYER(kind, what) \
  case LayerKind::kind: return #kind;
#include "models/layers.def"
#undef SB_LAYER
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
#define SB_LAYER(kind, what) \
  case LayerKind::kind: return cpu_layers::kind(d);
#include "models/layers.def"
#undef SB_LAYER
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
