// scratch.h — private per-thread scratch buffers for the BLAS paths (column matrices, gathered
// gradients). They only grow, so after the first call of a shape the hot path does not allocate;
// thread_local keeps concurrent callers (one training thread per rank) apart. Not a general allocator.
#pragma once

#include <cstddef>
#include <vector>

#include "kernels/common/check.h"

namespace scalebench::cpu::detail {

// Returns at least `count` floats, contents undefined; valid until the next call with the same slot
// on this thread. Distinct slots let one kernel hold two buffers at once.
inline float* scratch(std::size_t count, int slot = 0) {
  thread_local std::vector<float> buffers[2];
  SB_CHECK(slot >= 0 && slot < 2, "scratch slot {} out of range [0, 2)", slot);
  auto& b = buffers[slot];
  if (b.size() < count) b.resize(count);
  return b.data();
}

}  // namespace scalebench::cpu::detail
