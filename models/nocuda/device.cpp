// device.cpp — the CUDA backend's entry points in a build without it (CMake compiles this folder
// only when the CUDA backend is off; models/cuda/ replaces it otherwise): asking for a GPU device
// or a GPU layer fails with the one line that says why.
// What it deliberately does not do: pretend — nothing here computes.
#include "models/device.h"
#include "models/late_reads.h"
#include "models/registry.h"

namespace scalebench {

namespace {
[[noreturn]] void no_cuda() {
  fail_input("--backend cuda: this build has no CUDA backend (configure with nvcc on PATH)");
}
}  // namespace

bool cuda_backend_built() { return false; }
std::unique_ptr<ComputeDevice> make_cuda_device(const DeviceOptions&) { no_cuda(); }
std::unique_ptr<Layer> make_gpu_layer(const LayerDesc&, GpuContext&) { no_cuda(); }
// Every device of this build runs each call to completion: nothing to read late.
std::unique_ptr<LateReads> make_late_reads(ComputeDevice&, int) { return nullptr; }

}  // namespace scalebench
