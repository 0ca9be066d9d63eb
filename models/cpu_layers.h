// cpu_layers.h — factories of the CPU layers (one .cpp per layer: *_cpu.cpp). Only registry.cpp
// and tests include this; everything else goes through make_layer().
#pragma once

#include <memory>

#include "models/layer.h"

namespace scalebench::cpu_layers {

std::unique_ptr<Layer> conv2d(const LayerDesc& d);
std::unique_ptr<Layer> upconv2x2(const LayerDesc& d);
std::unique_ptr<Layer> maxpool2x2(const LayerDesc& d);
std::unique_ptr<Layer> relu(const LayerDesc& d);
std::unique_ptr<Layer> concat_crop(const LayerDesc& d);
std::unique_ptr<Layer> batchnorm(const LayerDesc& d);
std::unique_ptr<Layer> linear(const LayerDesc& d);
std::unique_ptr<Layer> dropout(const LayerDesc& d);

// Shared input check: exactly `count` inputs of rank 4 ([n,c,h,w]); throws naming the layer.
void require_nchw(const char* layer, const std::vector<Shape>& in, std::size_t count = 1);

}  // namespace scalebench::cpu_layers
