// version.h — the cuDNN library version loaded at run time (may differ from the headers built against).
// Defined in kernels/cudnn/version.cpp with the CUDA backend, else in kernels/nocuda/ ("").
// Not here: gating features on the version.
#pragma once

#include <string>

namespace scalebench::cudnn {

// "9.19.0"; "" in a build without cuDNN.
std::string loaded_version();

}  // namespace scalebench::cudnn
