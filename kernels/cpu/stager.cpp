// stager.cpp — the CPU's DeviceStager (kernels/common/device.h): the "device" is host memory, so a
// staged copy is a memcpy and a host block is aligned new. It exists so that the staged transport
// (harness/comm/staged.h) runs, byte for byte the same code path, in every CPU test.
// What it deliberately does not do: queue anything (copies are complete when they return).
#include <cstring>
#include <new>

#include "kernels/common/device.h"

namespace scalebench::cpu {
namespace {

constexpr std::align_val_t kAlign{256};

class HostStager final : public DeviceStager {
 public:
  void* host_alloc(std::size_t bytes) override { return ::operator new(bytes == 0 ? 1 : bytes, kAlign); }
  void host_free(void* p) noexcept override { ::operator delete(p, kAlign); }
  void to_host(void* host, const void* src, std::size_t bytes) override { copy(host, src, bytes); }
  void from_host(void* dst, const void* host, std::size_t bytes) override { copy(dst, host, bytes); }
  void wait() override {}

 private:
  static void copy(void* dst, const void* src, std::size_t bytes) {
    if (bytes != 0 && dst != src) std::memcpy(dst, src, bytes);
  }
};

}  // namespace

std::unique_ptr<DeviceStager> make_host_stager() { return std::make_unique<HostStager>(); }

}  // namespace scalebench::cpu
