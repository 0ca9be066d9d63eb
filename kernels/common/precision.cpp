// precision.cpp — names of Precision (see precision.h).
#include "kernels/common/precision.h"

#include <string>

namespace scalebench {

const char* to_string(Precision p) { return name_of(p).data(); }

Precision parse_precision(std::string_view name) { return parse_enum<Precision>(name, "precision"); }

DType compute_dtype(Precision p) { return p == Precision::bf16 ? DType::bf16 : DType::f32; }

}  // namespace scalebench
