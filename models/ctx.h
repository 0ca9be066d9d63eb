// ctx.h — what a layer needs to run on its device: the backend, whether to use the reference
// kernels (the specification) instead of the fast path, the RNG state for dropout, and the replica
// sum synchronised batch norm uses.
// Passed explicitly to every forward/backward: no global mode, no singletons. GPU handles
// (stream, cuDNN/cuBLAS, workspace) are not here: each GPU layer holds the GpuContext it was made
// with (models/gpu_context.h, registry.h).
#pragma once

#include <cstdint>

#include "kernels/common/enum_names.h"
#include "models/replica_sum.h"

namespace scalebench {

enum class Backend : std::uint8_t { cpu, cuda };
template <>
struct EnumNames<Backend> {
  static constexpr std::array<EnumEntry<Backend>, 2> entries{{{Backend::cpu, "cpu"}, {Backend::cuda, "cuda"}}};
};
const char* to_string(Backend b);

// CPU convolutions (when not the reference): automatic picks per layer by the measured rule in
// models/conv2d_cpu.cpp (oneDNN where it was faster, when this build has it), blas is im2col +
// OpenBLAS sgemm everywhere, onednn is oneDNN everywhere (kernels/onednn/conv2d.h).
enum class CpuKernels : std::uint8_t { automatic, blas, onednn };
template <>
struct EnumNames<CpuKernels> {
  static constexpr std::array<EnumEntry<CpuKernels>, 3> entries{
      {{CpuKernels::automatic, "auto"}, {CpuKernels::blas, "blas"}, {CpuKernels::onednn, "onednn"}}};
};

struct Ctx {
  Backend backend = Backend::cpu;
  bool reference = false;     // CPU: direct double-accumulating kernels instead of BLAS
  CpuKernels cpu_kernels = CpuKernels::automatic;  // CPU convolutions when not the reference
  std::uint64_t seed = 1;     // run seed; dropout masks derive from (seed, step, layer)
  std::int64_t step = 0;      // global optimizer step, advanced by the trainer
  // Where this replica's samples sit in the global batch (data parallelism): local sample i is
  // global position sample_offset + sample_stride·i (DistributedSampler deals rank r the positions
  // r, r+k, r+2k, …). Per-sample randomness (dropout) is drawn at the global position, so k ranks ×
  // batch b draw exactly what one device with batch k·b draws.
  std::int64_t sample_offset = 0;
  std::int64_t sample_stride = 1;
  // Synchronised batch norm (cpu): when set, training-mode batch norm adds its statistics over the
  // replicas, so it normalises with the global batch's. Null: each replica's own batch.
  ReplicaSum* replica_sum = nullptr;
};

// The dropout stream of layer `salt` at this step: a pure function of (run seed, step, salt), so a
// run replays exactly and every backend draws the same mask. Distinct odd multipliers keep
// (seed, step, salt) triples from colliding.
inline std::uint64_t dropout_seed(const Ctx& ctx, std::uint64_t salt) {
  return ctx.seed * 0x9E3779B97F4A7C15ull ^ std::uint64_t(ctx.step) * 0xBF58476D1CE4E5B9ull ^
         (salt + 1) * 0x94D049BB133111EBull;
}

}  // namespace scalebench
