// commbench.cpp — commbench_nccl.h in a build without the CUDA backend (CMake compiles this folder
// only then). commbench refuses --transport nccl up front (nccl_built()); these say so again if
// reached.
// What it deliberately does not do: pretend — no device buffer or nccl job exists here.
#include "harness/comm/commbench_nccl.h"
#include "kernels/common/check.h"

namespace scalebench::comm {

std::unique_ptr<BenchBuffer> make_device_bench_buffer(Communicator& comm, std::vector<float>&) {
  fail_input(fmt::format("commbench: the {} transport needs device buffers, and this build has no CUDA backend",
                         comm.transport()));
}

bool run_nccl_bench(const CommbenchOptions&, CommbenchReport&, const BenchOnRank&, const BenchOnJob&) {
  fail_input("--transport nccl: the nccl transport is not in this build (built without CUDA)");
}

}  // namespace scalebench::comm
