// cpu_layers.h — factories of the CPU layers (one .cpp per layer: *_cpu.cpp). Only registry.cpp
// and tests include this; everything else goes through make_layer().
#pragma once

#include <memory>

#include "models/layer.h"

namespace scalebench::cpu_layers {

// One factory per kind of models/layers.def, defined in its models/<kind>_cpu.cpp.
#define SB_LAYER(kind, what) std::unique_ptr<Layer> kind(const LayerDesc& d);
#include "models/layers.def"
#undef SB_LAYER

// Shared input check: exactly `count` inputs of rank 4 ([n,c,h,w]); throws naming the layer.
void require_nchw(const char* layer, const std::vector<Shape>& in, std::size_t count = 1);

}  // namespace scalebench::cpu_layers
