// layer_desc.h — a backend-free description of one layer: what the model builders (unet.cpp,
// vgg.cpp) produce and what the registry turns into a concrete layer for a backend.
// Holds only hyper-parameters; shapes are derived at setup from the inputs. The kinds come from
// layers.def.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace scalebench {

// The layer kinds, in layers.def's order (the one list of them).
enum class LayerKind : std::uint8_t {
#define SB_LAYER(kind, what) kind,
#include "models/layers.def"
#undef SB_LAYER
};
inline constexpr std::array kLayerKinds = {
#define SB_LAYER(kind, what) LayerKind::kind,
#include "models/layers.def"
#undef SB_LAYER
};
const char* to_string(LayerKind k);

struct LayerDesc {
  LayerKind kind = LayerKind::relu;
  int out_channels = 0;  // conv2d, upconv2x2; out features for linear
  int kernel = 3, stride = 1, pad = 0;
  bool bias = true;
  float dropout_p = 0.5f;
  float bn_eps = 1e-5f, bn_momentum = 0.1f;
  std::uint64_t salt = 0;  // per-layer RNG stream (dropout); the Model sets it to the node index
};

}  // namespace scalebench
