// precision.h — how GPU math may round, shared by every GPU room (cuDNN, cuBLAS, the models' GPU
// layers) so there is one enum, one name table and one parser.
//   fp32: f32 data, FMA-only kernels (no TF32 tensor cores) — the setting compared against the CPU.
//   tf32: f32 data, TF32 tensor cores allowed (inputs rounded to 10-bit mantissas inside the MMA).
//   bf16: bf16 activations and compute copies of the weights, fp32 accumulation, fp32 master weights.
// Deliberately CUDA-free: the CLI and run configs name a precision without the GPU backend built.
#pragma once

#include <cstdint>
#include <string_view>

#include "kernels/common/tensor.h"

namespace scalebench {

enum class Precision : std::uint8_t { fp32, tf32, bf16 };
template <>
struct EnumNames<Precision> {
  static constexpr std::array<EnumEntry<Precision>, 3> entries{
      {{Precision::fp32, "fp32"}, {Precision::tf32, "tf32"}, {Precision::bf16, "bf16"}}};
};

const char* to_string(Precision p);
// "fp32" | "tf32" | "bf16"; throws scalebench::Error (input error) naming the value otherwise.
Precision parse_precision(std::string_view name);
// The dtype activations and GEMM/convolution inputs have at this precision (bf16 or f32).
DType compute_dtype(Precision p);

}  // namespace scalebench
