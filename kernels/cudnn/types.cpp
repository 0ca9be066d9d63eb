// types.cpp — names and validation of the cuDNN room's value types (see types.h). Host-only: no
// cuDNN call, so it also builds without the CUDA backend (the room only builds with it anyway).
#include "kernels/cudnn/types.h"

#include <fmt/format.h>

namespace scalebench::cudnn {

const char* layout_name(Layout l) { return l == Layout::NCHW ? "NCHW" : "NHWC"; }

std::string to_string(const ConvKey& k) {
  return fmt::format("n={} c={} h={} w={} k={} r={} s={} pad={} stride={} {} {} {}{}", k.n, k.c, k.h, k.w, k.k,
                     k.r, k.s, k.pad, k.stride, scalebench::to_string(k.dtype), layout_name(k.layout),
                     to_string(k.precision), k.deterministic ? " deterministic" : "");
}

void validate(const ConvKey& k, const char* what) {
  SB_CHECK(k.n > 0 && k.c > 0 && k.h > 0 && k.w > 0 && k.k > 0 && k.r > 0 && k.s > 0,
           "{}: bad sizes ({})", what, to_string(k));
  SB_CHECK(k.pad >= 0 && k.stride > 0, "{}: bad pad/stride ({})", what, to_string(k));
  SB_CHECK(k.h_out() > 0 && k.w_out() > 0, "{}: empty output {}x{} ({})", what, k.h_out(), k.w_out(),
           to_string(k));
  SB_CHECK(k.dtype == data_dtype(k.precision), "{}: precision {} needs {} data, got {}", what,
           to_string(k.precision), scalebench::to_string(data_dtype(k.precision)),
           scalebench::to_string(k.dtype));
}

}  // namespace scalebench::cudnn
