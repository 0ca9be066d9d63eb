// registry.h — the one place that maps (layer kind, backend) to a concrete layer class.
// An explicit switch, not self-registration: what exists is readable in one file.
#pragma once

#include <memory>

#include "models/layer.h"

namespace scalebench {

bool supports(LayerKind kind, Backend backend);
// Throws scalebench::Error naming the kind and backend when unsupported.
std::unique_ptr<Layer> make_layer(const LayerDesc& desc, Backend backend);

}  // namespace scalebench
