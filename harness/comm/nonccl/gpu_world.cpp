// gpu_world.cpp — gpu_world.h (and schedule.h's nccl_run_schedule) in a build without the CUDA
// backend (CMake compiles this folder only then): no GPU world can start, no communicator drives a
// GPU, and no schedule runs on one.
// What it deliberately does not do: pretend — starting a GPU world fails with the reason.
#include "harness/comm/gpu_world.h"
#include "harness/comm/schedule.h"

#include "kernels/common/check.h"

namespace scalebench::comm {
namespace {
[[noreturn]] void no_cuda() {
  fail_input("--backend cuda: this build has no CUDA backend (configure with nvcc on PATH)");
}
}  // namespace

void run_gpu_group(int, const std::function<void(Communicator&)>&, CommOptions) { no_cuda(); }
std::unique_ptr<Communicator> make_gpu_world(Communicator&, CommOptions) { no_cuda(); }
int device_of(const Communicator*) { return 0; }
bool nccl_built() { return false; }
std::string nccl_version() { return ""; }

void nccl_run_schedule(Communicator& c, const Schedule&, float*, WireType) {
  SB_CHECK(false, "the {} transport has device buffers, but this build has no GPU executor", c.transport());
}

}  // namespace scalebench::comm
