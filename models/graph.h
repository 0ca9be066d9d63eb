// graph.h — a model as data: named layer descriptions in topological order with their input
// edges (U-Net skips are just extra edges). Builders produce it; Model instantiates it.
#pragma once

#include <string>
#include <vector>

#include "models/layer_desc.h"

namespace scalebench {

struct GraphNode {
  std::string name;         // e.g. "enc1.conv0"; parameters are named "<name>.weight"
  LayerDesc desc;
  std::vector<int> inputs;  // node indices; -1 is the model input
};

struct Graph {
  std::vector<GraphNode> nodes;  // the last node is the output (logits)
  // Appends a node and returns its index.
  int add(std::string name, const LayerDesc& desc, std::vector<int> inputs) {
    nodes.push_back({std::move(name), desc, std::move(inputs)});
    return static_cast<int>(nodes.size()) - 1;
  }
};

}  // namespace scalebench
