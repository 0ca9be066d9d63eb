// dropout.cpp — inverted dropout with a counter-based mask: element i is kept iff the i-th output of
// a SplitMix64 stream seeded with `seed` (a pure hash of (seed, i)) falls at or above p. No RNG
// state is carried between calls and the mask does not depend on thread count or chunking; callers
// choose a fresh seed per step/layer. Does not generate the mask on the fly in the backward.
#include "kernels/cpu/dropout.h"

#include "kernels/common/check.h"

namespace scalebench::cpu {
namespace {

// SplitMix64 output number i (0-based) of the stream seeded with `seed`: the state after i+1 steps
// is seed + (i+1)·golden, then the standard finaliser.
std::uint64_t splitmix64_at(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

void dropout_forward(std::int64_t count, float p, std::uint64_t seed, const float* x, float* y, float* mask,
                     std::int64_t index_offset) {
  SB_CHECK(p >= 0.0f && p < 1.0f, "dropout: p={} outside [0, 1)", p);
  const float keep_scale = 1.0f / (1.0f - p);
  for (std::int64_t i = 0; i < count; ++i) {
    // Top 24 bits as a uniform in [0, 1), exact in float.
    const float u = static_cast<float>(splitmix64_at(seed, static_cast<std::uint64_t>(index_offset + i)) >> 40) * 0x1p-24f;
    mask[i] = u >= p ? keep_scale : 0.0f;
    y[i] = x[i] * mask[i];
  }
}

void dropout_backward(std::int64_t count, const float* dy, const float* mask, float* dx) {
  for (std::int64_t i = 0; i < count; ++i) dx[i] = dy[i] * mask[i];
}

}  // namespace scalebench::cpu
