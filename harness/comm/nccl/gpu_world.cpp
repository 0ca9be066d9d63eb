// gpu_world.cpp — gpu_world.h over the nccl transport (CUDA builds).
#include "harness/comm/gpu_world.h"

#include <string>

#include "harness/comm/nccl/comm.h"

namespace scalebench::comm {

void run_gpu_group(int n, const std::function<void(Communicator&)>& fn, CommOptions opts) {
  NcclDeviceGroup::run(n, fn, opts);
}

std::unique_ptr<Communicator> make_gpu_world(Communicator& bootstrap, CommOptions opts) {
  NcclOptions o;
  o.comm = opts;
  return make_nccl_world(bootstrap, o);
}

bool nccl_built() { return true; }

int device_of(const Communicator* c) {
  return c && std::string(c->transport()) == "nccl" ? nccl_device(*c) : 0;
}

}  // namespace scalebench::comm
