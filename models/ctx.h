// ctx.h — what a layer needs to run on its device: the backend, whether to use the reference
// kernels (the specification) instead of the fast path, and the RNG state for dropout.
// Passed explicitly to every forward/backward: no global mode, no singletons. GPU handles
// (stream, cuDNN/cuBLAS, workspace) join this struct with the CUDA backend.
#pragma once

#include <cstdint>

namespace scalebench {

enum class Backend : std::uint8_t { cpu, cuda };
const char* to_string(Backend b);

struct Ctx {
  Backend backend = Backend::cpu;
  bool reference = false;     // CPU: direct double-accumulating kernels instead of BLAS
  std::uint64_t seed = 1;     // run seed; dropout masks derive from (seed, step, layer)
  std::int64_t step = 0;      // global optimizer step, advanced by the trainer
  // Where this replica's samples sit in the global batch (data parallelism): local sample i is
  // global position sample_offset + sample_stride·i (DistributedSampler deals rank r the positions
  // r, r+k, r+2k, …). Per-sample randomness (dropout) is drawn at the global position, so k ranks ×
  // batch b draw exactly what one device with batch k·b draws.
  std::int64_t sample_offset = 0;
  std::int64_t sample_stride = 1;
};

}  // namespace scalebench
