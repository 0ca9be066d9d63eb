// init.h — deterministic parameter initialisation. Our own generator and Box–Muller transform,
// because std::normal_distribution differs between standard libraries and the same seed must give
// the same weights on every machine (ranks compare weights bit for bit).
#pragma once

#include <cstdint>

namespace scalebench {

// Fills w[count] with N(0, stddev²) drawn from stream (seed, stream).
void fill_normal(float* w, std::int64_t count, float stddev, std::uint64_t seed, std::uint64_t stream);

}  // namespace scalebench
