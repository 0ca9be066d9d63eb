// nonfinite.cpp — the scan declared in nonfinite.h: blocks of 1024 values tested branch-free, the
// exact first index found by a plain loop in the first block that has a non-finite value.
#include "kernels/cpu/nonfinite.h"

#include <cmath>
#include <cstring>

#include "kernels/cpu/vector_clones.h"

namespace scalebench::cpu {
namespace {

constexpr std::uint32_t kExponent = 0x7f800000u;  // float32 exponent bits; all set: inf or NaN
constexpr std::int64_t kBlock = 1024;

SB_VECTOR_CLONES bool block_has_nonfinite(const float* x, std::int64_t n) {
  std::uint32_t any = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, x + i, sizeof bits);
    any |= static_cast<std::uint32_t>((bits & kExponent) == kExponent);
  }
  return any != 0;
}

}  // namespace

NonFinite first_nonfinite(const float* x, std::int64_t n) {
  for (std::int64_t b = 0; b < n; b += kBlock) {
    const std::int64_t len = n - b < kBlock ? n - b : kBlock;
    if (!block_has_nonfinite(x + b, len)) continue;
    for (std::int64_t i = b; i < b + len; ++i)
      if (!std::isfinite(x[i])) return {i, x[i]};
  }
  return {};
}

}  // namespace scalebench::cpu
