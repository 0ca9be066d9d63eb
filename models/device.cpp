// device.cpp — the backend → ComputeDevice switch (see device.h).
#include "models/device.h"

namespace scalebench {

std::unique_ptr<ComputeDevice> make_device(const DeviceOptions& o) {
  switch (o.backend) {
    case Backend::cpu: return cpu::make_cpu_device();
    case Backend::cuda: return make_cuda_device(o);
  }
  fail_input("unknown backend");
}

}  // namespace scalebench
