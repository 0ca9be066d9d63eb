// layer_desc.h — a backend-free description of one layer: what the model builders (unet.cpp,
// vgg.cpp) produce and what the registry turns into a concrete layer for a backend.
// Holds only hyper-parameters; shapes are derived at setup from the inputs.
#pragma once

#include <cstdint>
#include <string>

namespace scalebench {

enum class LayerKind : std::uint8_t {
  conv2d,       // k×k convolution, stride, pad, optional bias
  upconv2x2,    // 2×2 stride-2 transposed convolution with bias
  maxpool2x2,
  relu,
  concat_crop,  // inputs (skip, up): centre-crop skip to up's size, concat channels
  batchnorm,    // per channel; works on [n,c,h,w] and [n,c]
  linear,       // input flattened to [n, features]
  dropout,
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
