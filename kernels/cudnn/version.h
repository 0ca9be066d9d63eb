// version.h — the cuDNN library version loaded at run time (may differ from the headers built against).
// Not here: gating features on the version.
#pragma once

#include <string>

namespace scalebench::cudnn {

std::string loaded_version();

}  // namespace scalebench::cudnn
