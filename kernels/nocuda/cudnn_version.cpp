// cudnn_version.cpp — kernels/cudnn/version.h in a build without the CUDA backend (CMake compiles
// this folder only then): no cuDNN is loaded, so its version is "", and run-context capture needs no
// build-time branch.
#include "kernels/cudnn/version.h"

namespace scalebench::cudnn {

std::string loaded_version() { return ""; }

}  // namespace scalebench::cudnn
