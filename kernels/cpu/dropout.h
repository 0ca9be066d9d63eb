// dropout.h — inverted dropout with a seeded, counter-based mask: the same (seed, count, p) gives
// the same mask on any machine and thread count, so training runs are reproducible.
#pragma once

#include <cstdint>

namespace scalebench::cpu {

// mask[i] = 0 or 1/(1-p); y = x·mask. p in [0, 1). Element i draws counter index_offset + i, so a
// data-parallel rank holding samples [k, k+b) of a global batch (index_offset = k·sample size) gets
// exactly the slice of the mask a single device would draw for the whole batch.
void dropout_forward(std::int64_t count, float p, std::uint64_t seed, const float* x, float* y, float* mask,
                     std::int64_t index_offset = 0);
void dropout_backward(std::int64_t count, const float* dy, const float* mask, float* dx);

}  // namespace scalebench::cpu
