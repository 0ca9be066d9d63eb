// precision.cpp — names of Precision (see precision.h).
#include "kernels/common/precision.h"

#include <string>

namespace scalebench {

const char* to_string(Precision p) {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::tf32: return "tf32";
    case Precision::bf16: return "bf16";
  }
  return "?";
}

Precision parse_precision(std::string_view name) {
  if (name == "fp32") return Precision::fp32;
  if (name == "tf32") return Precision::tf32;
  if (name == "bf16") return Precision::bf16;
  fail_input(fmt::format("precision must be fp32, tf32 or bf16, got '{}'", name));
}

DType compute_dtype(Precision p) { return p == Precision::bf16 ? DType::bf16 : DType::f32; }

}  // namespace scalebench
