// workspace.h — Workspace, the one scratch-memory owner of the GPU rooms: device memory an op borrows
// for the length of one call, grown on demand up to a fixed cap. The cuDNN convolutions
// (kernels/cudnn) and this room's ops (bias_grad, softmax_xent, linear) take a Workspace& and ask
// get(their *_workspace_bytes) for it; a GpuContext owns one per device, shared by all of them.
// Not here: memory that outlives a call (DeviceBuffer), shrinking, pools. Not thread-safe: one per
// device and stream. Includable by plain C++.
#pragma once

#include <cstddef>

namespace scalebench::cuda {

// get(bytes) returns at least `bytes` of device memory, growing (free + cudaMalloc, after a device
// synchronize so no queued kernel still uses the old block) when needed; a request above the cap
// throws scalebench::Error naming the cap. Memory is never shrunk. A pointer from get() is valid
// until the next get() that grows.
// The cap is a number of bytes, or kFromFreeMemory (the default): then cap() is what the workspace
// holds plus half of the device's free memory beyond a 1 GiB reserve, asked of the driver at each
// call (cuDNN's Find, at warm-up), so a large GPU lets Find pick the fastest algorithms while the
// rest of the run (evaluation's activations, other ranks on a shared GPU) keeps room.
class Workspace {
 public:
  static constexpr std::size_t kFromFreeMemory = ~std::size_t{0};
  static constexpr std::size_t kDefaultCap = kFromFreeMemory;
  static constexpr std::size_t kFreeReserve = std::size_t(1) << 30;  // left free under kFromFreeMemory

  explicit Workspace(std::size_t cap_bytes = kDefaultCap);
  ~Workspace();
  Workspace(Workspace&& other) noexcept;
  Workspace& operator=(Workspace&& other) noexcept;
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  void* get(std::size_t bytes);  // nullptr when bytes == 0 and nothing was ever allocated
  void* data() const { return data_; }
  std::size_t size() const { return size_; }  // bytes currently allocated (<= cap)
  std::size_t cap() const;  // in bytes (for kFromFreeMemory: as the device's free memory is now)
  bool from_free_memory() const { return cap_ == kFromFreeMemory; }

 private:
  void release() noexcept;
  void* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t cap_ = 0;
  int device_ = -1;  // device of data_, checked on growth
};

}  // namespace scalebench::cuda
